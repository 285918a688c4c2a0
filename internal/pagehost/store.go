package pagehost

import (
	"context"
	"errors"

	"hostbridge"
)

// The one binding, queue and dead-letter queue a pagequeue host uses.
const (
	Binding   = "PAGE_QUEUE"
	Queue     = "pages"
	DeadQueue = "pages-dead"
)

// Store is the queue store under a pagequeue host: what the host needs from
// it, and nothing more. MemoryStore is the in-memory one; a durable store
// (natsqueue) implements the same methods with the same meaning.
//
// A Store must be safe for concurrent use: the HTTP handlers send while
// several consumer loops run and /stats reads the counters. What a store
// keeps when the process ends is not a method: Program.Keeps says it, since
// the -h text needs it before any store is opened. A store that also
// implements io.Closer is closed once the host has stopped (its consumers
// returned and the final counts logged).
type Store interface {
	// Platform is the producer side. Bound(Binding) must be true, and what
	// Send and SendBatch accept for Binding must be enqueued on Queue, with
	// MemoryPlatform's semantics (hostbridge's doc.go, D26–D30). Send and
	// SendBatch must refuse, with an error that wraps ErrQueueFull and
	// without enqueuing anything, a send that would take Queue's pending
	// messages over Limits.MaxPending. They must not block for long: the
	// client is waiting.
	hostbridge.Platform

	// SetConsumer must apply s to the consumer of queue (ranges and defaults
	// as hostbridge.ConsumerSettings says), or return an error and change
	// nothing. The host calls it before Run.
	SetConsumer(queue string, s hostbridge.ConsumerSettings) error

	// SetLimits must bound queue and its dead-letter queue from now on: at
	// most l.MaxPending messages pending on queue (see Platform above), and
	// at most l.MaxDeadLetters messages kept on its dead-letter queue; when a
	// new dead letter would exceed that, the store must discard the oldest
	// ones and count them in the dead-letter queue's Stats Dropped. It must
	// return an error and change nothing when l.Check does. The host calls
	// it after SetConsumer.
	SetLimits(queue string, l Limits) error

	// Run must deliver batches of queue to handler, as MemoryPlatform.Run
	// does, until ctx ends; then it must take no new batch, return after the
	// handler of the batch in flight returned, and leave every other message
	// to the store. The host calls it from several goroutines at once: each
	// must get its own batches.
	Run(ctx context.Context, queue string, handler func(hostbridge.Event) error) error

	// Stats must return queue's counters as hostbridge.QueueStats defines
	// them (the host reads Sent, Delivered, Acked, Retried, DeadLettered,
	// Dropped and Pending); for a dead-letter queue, Pending is its size and
	// Dropped the dead letters discarded to keep it within MaxDeadLetters.
	// It should be cheap: /stats and every batch's log line call it.
	Stats(queue string) hostbridge.QueueStats
}

// KeptCounts is implemented by a store that counts, and keeps across
// restarts as it keeps the queue's counters, the batches of queue it handed
// to the host's consumers and the sends to queue it refused with
// ErrQueueFull: /stats' batches and refusedFull then give its counts, not
// the process's own (which start from 0 with each process).
type KeptCounts interface {
	KeptCounts(queue string) (batches, refusedFull int64)
}

// Limits bound what a store keeps for one queue.
type Limits struct {
	MaxPending     int // messages pending on the queue, in flight and delayed included
	MaxDeadLetters int // messages kept on its dead-letter queue
}

// ErrQueueFull is the reason a store refuses a send when the queue holds
// Limits.MaxPending messages. The host answers it with 503 and Retry-After.
var ErrQueueFull = errors.New("queue is full: too many messages pending")

// Check returns an error when a limit is not positive: SetLimits checks it
// first.
func (l Limits) Check() error {
	if l.MaxPending <= 0 || l.MaxDeadLetters <= 0 {
		return errors.New("pagehost: limits must be positive")
	}
	return nil
}
