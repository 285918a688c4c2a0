//go:build !unix

package pagehost

// fileLimit is 1024 where RLIMIT_NOFILE does not exist.
func fileLimit() int { return 1024 }
