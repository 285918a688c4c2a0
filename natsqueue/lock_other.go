//go:build !unix

package natsqueue

import "os"

// lockFile: no lock where flock(2) is missing; one owner per store is then
// the operator's to ensure.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) {}
