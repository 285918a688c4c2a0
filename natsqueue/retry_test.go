package natsqueue

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hostbridge"
)

// TestRetryNotEarlyAfterReopen: messages retried with a 3 s delay, then a
// clean Close and Open of the embedded server on the same directory: each
// comes back no earlier than 3 s after its handler returned, with attempts
// 2 (the server keeps a nak's due time in whole seconds: a nak'ed message
// came back up to a second early here).
func TestRetryNotEarlyAfterReopen(t *testing.T) {
	o := testOptions()
	o.StoreDir = t.TempDir()
	p := openBound(t, o)
	settings := func(p *Platform) {
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = 3, time.Second })
	}
	settings(p)
	for _, b := range []string{`1`, `2`, `3`} {
		send(t, p, b, 0)
	}
	var done time.Time
	r, ok := deliverWithin(t, p, "q", 10*time.Second, func(ev hostbridge.Event) error {
		for i := range ev.Batch().Messages() {
			if err := hostbridge.RetryQueueMessage(ev, i, 3); err != nil {
				t.Error(err)
			}
		}
		done = time.Now()
		return nil
	})
	if !ok || len(r.Retried) != 3 {
		t.Fatalf("first delivery: %+v", r)
	}
	_ = p.Close()
	p = openWith(t, o)
	settings(p)
	got := 0
	for got < 3 {
		_, ok := deliverWithin(t, p, "q", 10*time.Second, func(ev hostbridge.Event) error {
			for _, m := range ev.Batch().Messages() {
				got++
				if early := done.Add(3 * time.Second).Sub(time.Now()); early > 0 || m.Attempts != 2 {
					t.Errorf("%s (attempts %d) back %v before its 3 s delay", m.ID, m.Attempts, early)
				}
			}
			return nil
		})
		if !ok {
			t.Fatalf("%d of 3 retried messages came back", got)
		}
	}
}

// TestOriginalNotAfterItsCopy: a host that dies between storing a retry's
// copy and acking the original (here: the ack is never sent, and the lease
// lapses) leaves both on the stream; the copy, attempts 2, comes first and
// removes the original, which never comes back with attempts 1.
func TestOriginalNotAfterItsCopy(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	send(t, p, `1`, 0)
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	l := p.startLease("q")
	msgs, err := fetch(q.cons, l, 1, 5*time.Second)
	l.end()
	if err != nil || len(msgs) != 1 {
		t.Fatal(msgs, err)
	}
	hm, tries := message(msgs[0])
	_ = p.storeRetries(q, []retryCopy{{m: msgs[0], hm: hm, tries: tries}}) // the acks are never sent
	var attempts []int
	// AckWait is 3 s: the original would be back by then.
	deadline := time.Now().Add(p.opts.AckWait + 2*time.Second)
	for time.Now().Before(deadline) {
		deliverWithin(t, p, "q", time.Until(deadline), func(ev hostbridge.Event) error {
			for i, m := range ev.Batch().Messages() {
				attempts = append(attempts, m.Attempts)
				_ = hostbridge.AckQueueMessage(ev, i)
			}
			return nil
		})
	}
	if fmt.Sprint(attempts) != "[2]" {
		t.Errorf("deliveries with attempts %v, want [2]", attempts)
	}
}
