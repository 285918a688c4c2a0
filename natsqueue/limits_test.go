package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostbridge"
)

// TestMaxPendingConcurrent: 8 producers sending at once, one message a
// call and then ten a call, never take a queue past its MaxPending of
// 1000; every message refused is refused with ErrQueueFull, and Sent
// counts exactly what was stored.
func TestMaxPendingConcurrent(t *testing.T) {
	for _, per := range []int{1, 10} {
		t.Run(fmt.Sprint(per, " a call"), func(t *testing.T) {
			p := openSingle(t)
			if err := p.SetLimits(ctxBG, "q", 1000, 0); err != nil {
				t.Fatal(err)
			}
			var stored, other atomic.Int64
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					msgs := make([]hostbridge.BatchMessage, per)
					for i := range msgs {
						msgs[i] = hostbridge.BatchMessage{Body: []byte(`1`)}
					}
					for range 1600 / 8 / per {
						err := p.SendBatch(context.Background(), "Q", msgs)
						switch {
						case err == nil:
							stored.Add(int64(per))
						case !errors.Is(err, ErrQueueFull):
							other.Add(1)
							t.Error(err)
						}
					}
				}()
			}
			wg.Wait()
			n := streamMsgs(t, p, "q")
			if n > 1000 || int64(n) != stored.Load() {
				t.Errorf("stream holds %d messages, sends stored %d; the bound is 1000", n, stored.Load())
			}
			if s := p.Stats(ctxBG, "q"); s.Sent != int64(n) {
				t.Errorf("sent %d, stream %d", s.Sent, n)
			}
			t.Logf("%d stored", n)
		})
	}
}

// TestLimitsNotNegative: SetLimits refuses a negative MaxPending or
// MaxMsgs and bounds nothing.
func TestLimitsNotNegative(t *testing.T) {
	p := openSingle(t)
	for _, l := range [][2]int{{-1, 0}, {0, -1}, {-1, -1}} {
		if err := p.SetLimits(ctxBG, "q", l[0], l[1]); err == nil || err.Error() != "natsqueue: limits must not be negative" {
			t.Errorf("SetLimits(%d, %d): %v", l[0], l[1], err)
		}
	}
	for range 3 {
		send(t, p, `1`, 0)
	}
}

// TestLimitsOnAQueueInUse: a queue already in use bounded to 1 message
// keeps the newest and counts the others as Dropped; once the bound is
// lifted they are still counted, and the queue keeps what it is sent.
func TestLimitsOnAQueueInUse(t *testing.T) {
	p := openSingle(t)
	for _, b := range []string{`1`, `2`, `3`} {
		send(t, p, b, 0)
	}
	if err := p.SetLimits(ctxBG, "q", 0, 1); err != nil {
		t.Fatal(err)
	}
	waitStats(t, p, "q", hostbridge.QueueStats{Sent: 3, Pending: 1, Dropped: 2})
	send(t, p, `4`, 0)
	send(t, p, `5`, 0)
	if err := p.SetLimits(ctxBG, "q", 0, 0); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(ctxBG, "q"); s.Dropped != 4 {
		t.Errorf("the bound lifted: %+v, want Dropped 4", s)
	}
	send(t, p, `6`, 0)
	waitStats(t, p, "q", hostbridge.QueueStats{Sent: 6, Pending: 2, Dropped: 4})
}

// TestMaxPendingAfterFailedSend: a send that failed once its message was
// stored (here its store's sync failed) still counts: the queue's
// MaxPending of 2 then takes one more message, not two.
func TestMaxPendingAfterFailedSend(t *testing.T) {
	p := openSingle(t)
	js, ok := p.js.(syncedJS)
	if !ok {
		t.Skip("only where natsqueue syncs the store itself")
	}
	if err := p.SetLimits(ctxBG, "q", 2, 0); err != nil {
		t.Fatal(err)
	}
	real := setSync(js.g, func() error { return errors.New("the disk is gone") })
	if err := p.Send(context.Background(), "Q", []byte(`1`), hostbridge.SendOptions{ContentType: "json"}); err == nil {
		t.Fatal("a send whose sync failed succeeded")
	}
	setSync(js.g, real)
	send(t, p, `2`, 0)
	err := p.Send(context.Background(), "Q", []byte(`3`), hostbridge.SendOptions{ContentType: "json"})
	if n := streamMsgs(t, p, "q"); !errors.Is(err, ErrQueueFull) || n != 2 {
		t.Errorf("third send: %v; the stream holds %d messages, the bound is 2", err, n)
	}
}

// TestPendingExactAfterBatch: once Deliver returns, Stats' Pending is what
// the batch left on the embedded store, at once: the acks are confirmed by
// the server (which removes an R1 stream's message before it answers), and
// a stream size read while the batch was in flight is not reused. (The
// durable host's final line reads it right after its last batch.)
func TestPendingExactAfterBatch(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = 3, 0 })
	for i := range 3 {
		send(t, p, fmt.Sprint(i), 0)
	}
	for round := range 3 {
		deliverWithin(t, p, "q", 5*time.Second, func(ev hostbridge.Event) error {
			if s := p.Stats(ctxBG, "q"); s.Pending != int64(3-round) { // read while the batch is in flight: cached
				t.Errorf("round %d: in flight, pending %d, want %d", round, s.Pending, 3-round)
			}
			for i := range ev.Batch().Messages() {
				if i < 1 || round == 2 {
					_ = hostbridge.AckQueueMessage(ev, i) // the index is the batch's own: no error
				} else {
					_ = hostbridge.RetryQueueMessage(ev, i, 0) // the index is the batch's own: no error
				}
			}
			return nil
		})
		if s, want := p.Stats(ctxBG, "q"), map[int]int64{0: 2, 1: 1, 2: 0}[round]; s.Pending != want {
			t.Errorf("round %d: after the batch, pending %d, want %d", round, s.Pending, want)
		}
	}
}
