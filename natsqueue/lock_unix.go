//go:build unix

package natsqueue

import (
	"os"
	"syscall"
)

// lockFile takes f's exclusive lock, or fails at once if someone holds it.
// The OS releases it when the process ends, however it ends.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

func unlockFile(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) // closing f, next, releases it anyway
}
