package natsqueue

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"hostbridge"
)

// TestAttemptsAfterCrash: a host whose connection drops while its handler
// holds a batch (it died holding it) leaves the message to come back, to
// a new Platform on the same store, after AckWait; the spec's attempts
// start at 1 and grow by one on every redelivery, so the crashes give
// attempts 1, 2, 3. Those redeliveries count toward MaxRetries (3 here)
// as the attempts do: the third, failing, is retried as a copy with
// attempts 4, whose failure is past MaxRetries+1 deliveries and
// dead-letters it with attempts 4. The same when the embedded server
// forgets each delivery, as it does when the host process, and the server
// in it, is killed within 100 ms of a fetch (here the queue's consumer is
// deleted before the next host opens the store, so that it delivers the
// message as new, at once): every hand-out is counted on the message's
// claim, whatever the server forgot. Pins D31.
func TestAttemptsAfterCrash(t *testing.T) {
	for _, forgets := range []bool{false, true} {
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
			} else if forgets {
				forgetDeliveries(t, p, "q")
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
			_ = p.Close() // Close always returns nil
		}
		if fmt.Sprint(seen) != "[1 2 3 4]" {
			t.Errorf("server forgets %v: a handler saw attempts %v, want [1 2 3 4]", forgets, seen)
		}
		if len(last.DeadLettered) != 1 || last.DeadLettered[0].Attempts != 4 {
			t.Errorf("server forgets %v: the last delivery: %+v, want one dead letter with attempts 4", forgets, last)
		}
	}
}

// forgetDeliveries deletes queue's consumer, whose record of deliveries
// goes with it: p makes it again, and it delivers every message as new.
func forgetDeliveries(t *testing.T, p *Platform, queue string) {
	t.Helper()
	ctx, cancel := p.ctx()
	defer cancel()
	if err := p.js.DeleteConsumer(ctx, p.namesOf(queue).stream, consumerName); err != nil {
		t.Fatal(err)
	}
}

// TestCopyHeldUntilStored: a retry copy whose original's claim does not
// say yet that it is stored (its host stored it and died before marking
// the claim) is held back, nak'd until that host's lease on the copy ends,
// then marked and handed out: the handler sees attempts 2 once, the hold
// back is no delivery (the copy counts 2 deliveries toward MaxRetries, 1
// here: failing, it is dead-lettered with attempts 2, not skipped). Pins
// D31.
func TestCopyHeldUntilStored(t *testing.T) {
	o := storeOptions(t)
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	p := openWith(t, o)
	p.patience = time.Second // the lease on the copy: 2 s
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) {
		s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = 0, 1, "dlq"
	})
	send(t, p, `1`, 0)
	q, m := takeOne(t, p, "q")
	h := settled(t, p, q, m, claim{Done: doneRetry})
	hm, tries := message(m, h.c.N)
	if err := p.storeCopy(q, m, hm, tries, h.c); err != nil {
		t.Fatal(err)
	}
	var seen []int
	var r hostbridge.DeliveryResult
	for deadline := time.Now().Add(p.opts.AckWait + 5*time.Second); len(r.DeadLettered) == 0 && time.Now().Before(deadline); {
		r, _ = deliverWithin(t, p, "q", time.Until(deadline), func(ev hostbridge.Event) error {
			for _, m := range ev.Batch().Messages() {
				seen = append(seen, m.Attempts)
			}
			return errors.New("failing")
		})
	}
	if fmt.Sprint(seen) != "[2]" {
		t.Errorf("a handler saw attempts %v, want [2]", seen)
	}
	if len(r.DeadLettered) != 1 || r.DeadLettered[0].Attempts != 2 {
		t.Errorf("result %+v, want one dead letter with attempts 2", r)
	}
}
