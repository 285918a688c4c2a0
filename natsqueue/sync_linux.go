package natsqueue

import (
	"os"

	"golang.org/x/sys/unix"
)

// canSyncStore: on Linux, natsqueue syncs the store's file system itself
// (syncfs(2)), once for every send waiting.
const canSyncStore = true

// syncStore writes back everything the file system holding dir has not yet
// written, data and metadata, and waits for the disk.
func syncStore(dir *os.File) error { return unix.Syncfs(int(dir.Fd())) }
