//go:build unix

package pagehost

import "syscall"

// fileLimit is the process's soft limit on open files (RLIMIT_NOFILE), or
// 1024 when it cannot be read.
func fileLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 1024
	}
	return int(min(uint64(r.Cur), 1<<20))
}
