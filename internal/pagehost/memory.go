package pagehost

import (
	"context"
	"errors"
	"sync"

	"hostbridge"
)

// MemoryKeeps is what the in-memory store keeps when the process ends:
// nothing. The -h text and the final log line say it.
const MemoryKeeps = "The in-memory store keeps nothing when the process ends: " +
	"messages still pending or waiting for a retry are lost. " +
	"The durable store is natsqueue/cmd/pagequeue, the same host on NATS JetStream."

// MemoryStore is the Store on a hostbridge.MemoryPlatform, for the host's one
// binding and queue: everything lives in the process's memory and is lost
// when it ends. Limits are kept in this layer: a send checks the queue's
// pending count under a lock of its own, and while Run runs, a dead letter
// over MaxDeadLetters is discarded by delivering the oldest one, alone, to a
// handler that takes it (its dead-letter queue then has no other consumer,
// so its Acked count is what was discarded; Stats reports it as Dropped).
type MemoryStore struct {
	*hostbridge.MemoryPlatform
	mu     sync.Mutex // a send's pending check and the send, together
	limits Limits     // of Queue; zero: none
	trimMu sync.Mutex // one discard at a time
}

var _ Store = (*MemoryStore)(nil)

var errOtherQueue = errors.New("pagehost: the memory store bounds only the queue " + Queue)

// NewMemoryStore returns an empty store with Binding granted and bound to
// Queue, keeping no record of calls (a long-running host).
func NewMemoryStore() *MemoryStore {
	p := hostbridge.NewMemoryPlatform()
	p.Bind(Binding, Queue)
	p.Grant(Binding)
	p.SetCallLimit(0)
	return &MemoryStore{MemoryPlatform: p}
}

// Send is MemoryPlatform.Send, refused with ErrQueueFull when Queue is full.
func (s *MemoryStore) Send(ctx context.Context, binding string, body []byte, opts hostbridge.SendOptions) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.full(1) {
		return ErrQueueFull
	}
	return s.MemoryPlatform.Send(ctx, binding, body, opts)
}

// SendBatch is MemoryPlatform.SendBatch, refused whole with ErrQueueFull when
// Queue cannot take every message.
func (s *MemoryStore) SendBatch(ctx context.Context, binding string, msgs []hostbridge.BatchMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.full(len(msgs)) {
		return ErrQueueFull
	}
	return s.MemoryPlatform.SendBatch(ctx, binding, msgs)
}

// full reports whether n more messages would take Queue over MaxPending.
func (s *MemoryStore) full(n int) bool {
	return s.limits.MaxPending > 0 && s.MemoryPlatform.Stats(Queue).Pending+int64(n) > int64(s.limits.MaxPending)
}

// SetLimits sets the limits of Queue (the only queue it bounds); its
// dead-letter queue (set by SetConsumer before) delivers one message per
// batch from now on, so that a discard takes exactly the oldest one.
func (s *MemoryStore) SetLimits(queue string, l Limits) error {
	if err := l.Check(); err != nil {
		return err
	}
	if queue != Queue {
		return errOtherQueue
	}
	if dead := s.Consumer(queue).DeadLetterQueue; dead != "" {
		d := hostbridge.DefaultConsumerSettings()
		d.MaxBatchSize = 1
		if err := s.SetConsumer(dead, d); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.limits = l
	s.mu.Unlock()
	return nil
}

// Run is MemoryPlatform.Run; while it runs, queue's dead-letter queue is
// kept within MaxDeadLetters.
func (s *MemoryStore) Run(ctx context.Context, queue string, handler func(hostbridge.Event) error) error {
	if dead := s.Consumer(queue).DeadLetterQueue; dead != "" && queue == Queue {
		var wg sync.WaitGroup
		wg.Go(func() { s.trim(ctx, dead) })
		defer wg.Wait()
	}
	return s.MemoryPlatform.Run(ctx, queue, handler)
}

// trim discards the oldest dead letters while there are more than
// MaxDeadLetters, until ctx ends.
func (s *MemoryStore) trim(ctx context.Context, dead string) {
	over := func() bool {
		s.mu.Lock()
		max := s.limits.MaxDeadLetters
		s.mu.Unlock()
		return max > 0 && s.MemoryPlatform.Stats(dead).Pending > int64(max)
	}
	for s.Wait(ctx, over) == nil {
		s.trimMu.Lock()
		ok := true
		if over() {
			_, ok = s.Deliver(dead, nil) // a nil handler takes the message: it is done
		}
		s.trimMu.Unlock()
		if !ok {
			return // cannot happen: a dead letter is ready at once, one per batch
		}
	}
}

// Stats is MemoryPlatform.Stats; for the dead-letter queue of Queue, the
// messages trim took are Dropped, not Acked.
func (s *MemoryStore) Stats(queue string) hostbridge.QueueStats {
	st := s.MemoryPlatform.Stats(queue)
	if queue != Queue && queue == s.Consumer(Queue).DeadLetterQueue {
		st.Dropped, st.Acked = st.Dropped+st.Acked, 0
	}
	return st
}
