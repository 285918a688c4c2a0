//go:build !linux

package natsqueue

import "os"

// canSyncStore: elsewhere the embedded server syncs every write itself
// (nats-server's sync_interval: always), one sync per message.
const canSyncStore = false

func syncStore(*os.File) error { return nil }
