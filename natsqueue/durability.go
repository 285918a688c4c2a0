package natsqueue

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// groupSync is group commit: every caller of wait returns after one whole
// sync of the store that started after it called, and one sync serves every
// caller waiting when it starts.
type groupSync struct {
	syncs atomic.Int64 // syncs done

	mu      sync.Mutex
	sync    func() error // syncs the store; tests wrap it
	running bool
	waiting []chan error // callers for the next sync
}

// wait returns once a sync that started after the call has finished, with
// its error.
func (g *groupSync) wait() error {
	done := make(chan error, 1)
	g.mu.Lock()
	g.waiting = append(g.waiting, done)
	if !g.running {
		g.running = true
		go g.loop()
	}
	g.mu.Unlock()
	return <-done
}

// loop syncs while callers wait: each sync answers those that called
// before it started.
func (g *groupSync) loop() {
	for {
		g.mu.Lock()
		batch, sync := g.waiting, g.sync
		g.waiting = nil
		if len(batch) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		err := sync()
		g.syncs.Add(1)
		for _, done := range batch {
			done <- err
		}
	}
}

// syncedJS is a JetStream whose publishes, and creations and updates of
// streams and consumers, are answered only once the store holding them is
// synced: the server stores a message (written to its file, not synced)
// before it acknowledges it, and writes a stream's or consumer's config
// files before it answers, and a sync that starts after the answer covers
// them.
type syncedJS struct {
	jetstream.JetStream
	g *groupSync
}

// afterSync returns v, the answer of a call that changed the store, once a
// sync that started after it has finished.
func afterSync[T any](g *groupSync, v T, err error) (T, error) {
	if err == nil {
		err = g.wait()
	}
	if err != nil {
		var none T
		return none, err
	}
	return v, nil
}

func (s syncedJS) Publish(ctx context.Context, subj string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	return s.PublishMsg(ctx, &nats.Msg{Subject: subj, Data: data}, opts...)
}

func (s syncedJS) PublishMsg(ctx context.Context, m *nats.Msg, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	ack, err := s.JetStream.PublishMsg(ctx, m, opts...)
	return afterSync(s.g, ack, err)
}

func (s syncedJS) CreateOrUpdateStream(ctx context.Context, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	st, err := s.JetStream.CreateOrUpdateStream(ctx, cfg)
	return afterSync(s.g, st, err)
}

func (s syncedJS) UpdateStream(ctx context.Context, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	st, err := s.JetStream.UpdateStream(ctx, cfg)
	return afterSync(s.g, st, err)
}

func (s syncedJS) CreateOrUpdateConsumer(ctx context.Context, stream string, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	c, err := s.JetStream.CreateOrUpdateConsumer(ctx, stream, cfg)
	return afterSync(s.g, c, err)
}

func (s syncedJS) PublishAsync(subj string, data []byte, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	return s.PublishMsgAsync(&nats.Msg{Subject: subj, Data: data}, opts...)
}

func (s syncedJS) PublishMsgAsync(m *nats.Msg, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	f, err := s.JetStream.PublishMsgAsync(m, opts...)
	if err != nil {
		return nil, err
	}
	sf := &syncedFuture{PubAckFuture: f, ok: make(chan *jetstream.PubAck, 1), err: make(chan error, 1)}
	go sf.await(s.g)
	return sf, nil
}

// syncedFuture is a publish's future answered after the sync that follows
// its acknowledgement.
type syncedFuture struct {
	jetstream.PubAckFuture
	ok  chan *jetstream.PubAck
	err chan error
}

func (f *syncedFuture) await(g *groupSync) {
	select {
	case ack := <-f.PubAckFuture.Ok():
		if err := g.wait(); err != nil {
			f.err <- err
			return
		}
		f.ok <- ack
	case err := <-f.PubAckFuture.Err():
		f.err <- err
	}
}

func (f *syncedFuture) Ok() <-chan *jetstream.PubAck { return f.ok }
func (f *syncedFuture) Err() <-chan error            { return f.err }
