package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go/jetstream"
)

// TestAttemptsAfterCrash: a host whose connection drops while its handler
// holds a batch (it died holding it) leaves the message to come back, to
// a new Platform on the same store, after AckWait; the spec's attempts
// start at 1 and grow by one on every redelivery, so the crashes give
// attempts 1, 2, 3. Those redeliveries count toward MaxRetries (3 here)
// as the attempts do: the third, failing, is retried as a copy with
// attempts 4, whose failure is past MaxRetries+1 deliveries and
// dead-letters it with attempts 4. Pins D31.
func TestAttemptsAfterCrash(t *testing.T) {
	o := storeOptions(t)
	o.AckWait, o.Logger = time.Second, slog.New(slog.NewTextHandler(io.Discard, nil))
	o.Timeout = 300 * time.Millisecond // the dead host's counts give up sooner
	var seen []int
	record := func(ev hostbridge.Event) error {
		for _, m := range ev.Batch().Messages() {
			seen = append(seen, m.Attempts)
		}
		return errors.New("failing")
	}
	var last hostbridge.DeliveryResult
	for i, crash := range []bool{true, true, false} {
		p := openBound(t, o)
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) {
			s.MaxBatchTimeout, s.MaxRetries, s.RetryDelay, s.DeadLetterQueue = 0, 3, 0, "dlq"
		})
		if i == 0 {
			send(t, p, `1`, 0)
		}
		h := record
		if crash {
			h = func(ev hostbridge.Event) error {
				p.Conn().Close() // the host dies: no outcome reaches the server
				return record(ev)
			}
		}
		last, _ = deliverWithin(t, p, "q", o.AckWait+5*time.Second, h)
		for !crash && len(last.DeadLettered) == 0 && len(seen) < 6 {
			last, _ = deliverWithin(t, p, "q", 5*time.Second, h)
		}
		_ = p.Close()
	}
	if fmt.Sprint(seen) != "[1 2 3 4]" {
		t.Errorf("a handler saw attempts %v, want [1 2 3 4]", seen)
	}
	if len(last.DeadLettered) != 1 || last.DeadLettered[0].Attempts != 4 {
		t.Errorf("the last delivery: %+v, want one dead letter with attempts 4", last)
	}
}

// TestHeldBackNotCounted: a retry copy whose original the server does not
// confirm gone (here its first removal fails) is held back and comes back
// a second later; that delivery reached no handler, so the copy then has
// attempts 2, not 3, and counts 2 deliveries toward MaxRetries (1 here):
// failing, it is dead-lettered with attempts 2 instead of skipping the
// handler.
func TestHeldBackNotCounted(t *testing.T) {
	o := storeOptions(t)
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	p := openWith(t, o)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) {
		s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = 0, 1, "dlq"
	})
	send(t, p, `1`, 0)
	storeCopyWithoutAck(t, p, "q", 0)
	p.mu.Lock()
	clear(p.retried) // the host that stored the copy is gone
	p.mu.Unlock()
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	fd := &failDelete{Stream: q.stream, left: 1}
	q.stream = fd
	var seen []int
	var r hostbridge.DeliveryResult
	for deadline := time.Now().Add(10 * time.Second); len(r.DeadLettered) == 0 && time.Now().Before(deadline); {
		r, _ = deliverWithin(t, p, "q", time.Until(deadline), func(ev hostbridge.Event) error {
			for _, m := range ev.Batch().Messages() {
				seen = append(seen, m.Attempts)
			}
			return errors.New("failing")
		})
	}
	if fd.left != 0 || fmt.Sprint(seen) != "[2]" {
		t.Errorf("removal failures left %d; a handler saw attempts %v, want [2]", fd.left, seen)
	}
	if len(r.DeadLettered) != 1 || r.DeadLettered[0].Attempts != 2 {
		t.Errorf("result %+v, want one dead letter with attempts 2", r)
	}
}

// failDelete is a stream whose first left message deletions fail with an
// error that leaves the message's fate unknown.
type failDelete struct {
	jetstream.Stream
	left int
}

func (s *failDelete) DeleteMsg(ctx context.Context, seq uint64) error {
	if s.left > 0 {
		s.left--
		return context.DeadlineExceeded
	}
	return s.Stream.DeleteMsg(ctx, seq)
}
