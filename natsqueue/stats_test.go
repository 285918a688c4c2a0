package natsqueue

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestStatsSurviveReopen: the counters live in JetStream: a Platform opened
// again on the same directory reports what the first one counted.
func TestStatsSurviveReopen(t *testing.T) {
	o := storeOptions(t)
	p := openBound(t, o) // closed by the test
	settings := func(p *Platform) {
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxRetries, s.DeadLetterQueue = 2, 0, "dlq" })
	}
	settings(p)
	send(t, p, `"ack"`, 0)
	send(t, p, `"dead"`, 0)
	send(t, p, `"later"`, 30)
	deliverWithin(t, p, "q", 5*time.Second, func(ev hostbridge.Event) error {
		for i, b := range bodies(ev) {
			if b == `"ack"` {
				_ = hostbridge.AckQueueMessage(ev, i) // the index is the batch's own: no error
			}
		}
		return errors.New("boom")
	})
	want := hostbridge.QueueStats{Sent: 3, Delivered: 2, Acked: 1, DeadLettered: 1, Pending: 1}
	waitStats(t, p, "q", want)
	_ = p.Close() // Close always returns nil
	p = openWith(t, o)
	if s := p.Stats(ctxBG, "q"); s != want {
		t.Errorf("after reopening: stats %+v, want %+v", s, want)
	}
	if s := p.Stats(ctxBG, "dlq"); s != (hostbridge.QueueStats{Sent: 1, Pending: 1}) {
		t.Errorf("dlq stats %+v", s)
	}
}

// TestLimits: a send past MaxPending is refused with ErrQueueFull and sends
// nothing; a dead-letter queue past its bound discards its oldest messages
// and counts them as Dropped.
func TestLimits(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = 0, 0, "dlq" })
	if err := p.SetLimits(ctxBG, "q", 2, 0); err != nil {
		t.Fatal(err)
	}
	if err := p.SetLimits(ctxBG, "dlq", 0, 1); err != nil {
		t.Fatal(err)
	}
	send(t, p, `1`, 0)
	send(t, p, `2`, 5)
	err := p.Send(context.Background(), "Q", []byte(`3`), hostbridge.SendOptions{ContentType: "json"})
	if !errors.Is(err, ErrQueueFull) {
		t.Fatalf("third send: %v", err)
	}
	if err := p.SendBatch(context.Background(), "Q", []hostbridge.BatchMessage{{Body: []byte(`3`)}, {Body: []byte(`4`)}}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("batch: %v", err)
	}
	if s := p.Stats(ctxBG, "q"); s.Sent != 2 || s.Pending != 2 {
		t.Fatalf("stats %+v", s)
	}
	if err := p.SetLimits(ctxBG, "q", 10, 0); err != nil {
		t.Fatal(err)
	}
	send(t, p, `3`, 0)
	r, _ := deliverWithin(t, p, "q", 5*time.Second, func(hostbridge.Event) error { return errors.New("boom") })
	if len(r.DeadLettered) != 2 {
		t.Fatalf("result %+v", r)
	}
	waitStats(t, p, "dlq", hostbridge.QueueStats{Sent: 2, Pending: 1, Dropped: 1})
}

// waitStats waits until queue's stats are want: the server applies acks a
// moment after they are sent, and Stats reads the stream's size at most
// every 100 ms.
func waitStats(t *testing.T, p *Platform, queue string, want hostbridge.QueueStats) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for s := p.Stats(ctxBG, queue); s != want; s = p.Stats(ctxBG, queue) {
		if time.Now().After(deadline) {
			t.Fatalf("%s stats %+v, want %+v", queue, s, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A stream just placed has no responders to a direct get for a moment:
// reading the counters waits that out instead of failing the queue.
func TestUntilRespondersRetries(t *testing.T) {
	tries := 0
	err := untilResponders(context.Background(), func() error {
		tries++
		if tries < 3 {
			return nats.ErrNoResponders
		}
		return jetstream.ErrMsgNotFound
	})
	if !errors.Is(err, jetstream.ErrMsgNotFound) || tries != 3 {
		t.Fatalf("got %v after %d tries, want ErrMsgNotFound after 3", err, tries)
	}
}

// It does not wait past its context.
func TestUntilRespondersStopsAtDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tries := 0
	err := untilResponders(ctx, func() error { tries++; return nats.ErrNoResponders })
	if !errors.Is(err, nats.ErrNoResponders) || tries != 1 {
		t.Fatalf("got %v after %d tries, want ErrNoResponders after 1", err, tries)
	}
}

// TestMoreStatsSurviveReopen: the batches handed to a handler and the
// sends refused with ErrQueueFull are kept in JetStream as the other
// counters are: a Platform opened again on the same directory reports
// them (the durable host's /stats batches and refusedFull).
func TestMoreStatsSurviveReopen(t *testing.T) {
	o := storeOptions(t)
	p := openBound(t, o) // closed by the test
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	if err := p.SetLimits(ctxBG, "q", 1, 0); err != nil {
		t.Fatal(err)
	}
	send(t, p, `1`, 0)
	if err := p.Send(context.Background(), "Q", []byte(`2`), hostbridge.SendOptions{ContentType: "json"}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("second send: %v", err)
	}
	if err := p.SendBatch(context.Background(), "Q", []hostbridge.BatchMessage{{Body: []byte(`3`)}}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("batch: %v", err)
	}
	deliverWithin(t, p, "q", 5*time.Second, func(hostbridge.Event) error { return nil })
	want := MoreStats{Batches: 1, RefusedFull: 2}
	if s := p.MoreStats(ctxBG, "q"); s != want {
		t.Errorf("MoreStats %+v, want %+v", s, want)
	}
	_ = p.Close() // Close always returns nil
	p = openWith(t, o)
	if s := p.MoreStats(ctxBG, "q"); s != want {
		t.Errorf("after reopening: MoreStats %+v, want %+v", s, want)
	}
}

// TestStatsHonoursContext: Stats, MoreStats and SetLimits reach the server
// within their context: with one that has ended, each returns at once
// (zeros, an error) and none creates the stream of a queue not used yet.
func TestStatsHonoursContext(t *testing.T) {
	o := storeOptions(t)
	o.Logger = slog.New(slog.DiscardHandler) // the two warnings are TestErrorsLogged's
	p := openWith(t, o)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if s := p.Stats(ctx, "fresh"); s != (hostbridge.QueueStats{}) {
		t.Errorf("Stats: %+v", s)
	}
	if s := p.MoreStats(ctx, "fresh"); s != (MoreStats{}) {
		t.Errorf("MoreStats: %+v", s)
	}
	if err := p.SetLimits(ctx, "fresh", 1, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("SetLimits: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
	sctx, scancel := p.ctx()
	defer scancel()
	if _, err := p.js.Stream(sctx, p.namesOf("fresh").stream); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("fresh's stream: %v, want none", err)
	}
}
