//go:build !linux

package natsqueue

// canSyncStore: elsewhere the embedded server syncs every write itself
// (nats-server's sync_interval: always), one sync per message.
const canSyncStore = false

type storeSyncer struct{}

func newStoreSyncer(string) *storeSyncer { return nil }

func (*storeSyncer) sync() error { return nil }

func (*storeSyncer) close() {}
