// Package lazyfs is a file system for tests that loses, at a simulated
// power cut, every write that was not fsynced, as Jepsen's LazyFS does. It
// runs on Linux only (FUSE); see lazyfs_linux.go.
package lazyfs
