package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestRetryNotEarlyAfterReopen: messages retried with a 3 s delay, then a
// clean Close and Open of the embedded server on the same directory: each
// comes back no earlier than 3 s after its handler returned, with attempts
// 2 (the server keeps a nak's due time in whole seconds: a nak'ed message
// came back up to a second early here).
func TestRetryNotEarlyAfterReopen(t *testing.T) {
	o := storeOptions(t)
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

// TestOriginalNotAfterItsCopy: a retry's copy is stored but the original's
// ack is never sent (the lease lapses), leaving both on the stream. A host
// that died in between forgets it retried: the copy (delay 0), attempts 2,
// comes first and removes the original. A host that lives remembers: the
// original, back after AckWait (3 s) before its copy (delay 5 s), is acked
// without reaching a handler. Either way, the original never comes back
// with attempts 1.
func TestOriginalNotAfterItsCopy(t *testing.T) {
	for _, c := range []struct {
		forgets bool
		delay   int
	}{{true, 0}, {false, 5}} {
		p := openSingle(t)
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
		send(t, p, `1`, 0)
		storeCopyWithoutAck(t, p, "q", c.delay)
		if c.forgets {
			p.mu.Lock()
			clear(p.retried)
			p.mu.Unlock()
		}
		attempts := attemptsWithin(t, p, p.opts.AckWait+time.Duration(c.delay+2)*time.Second)
		if fmt.Sprint(attempts) != "[2]" {
			t.Errorf("%+v: deliveries with attempts %v, want [2]", c, attempts)
		}
	}
}

// TestOriginalAckedWhenBack: a host that stored a retry's copy (due in
// 30 s) but whose ack of the original never reached the server
// remembers it: the original, back after AckWait, is acked there and then
// without reaching a handler, and forgotten; the copy stays, to come when
// it is due.
func TestOriginalAckedWhenBack(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	send(t, p, `1`, 0)
	storeCopyWithoutAck(t, p, "q", 30)
	deliverWithin(t, p, "q", p.opts.AckWait+2*time.Second, func(ev hostbridge.Event) error {
		t.Errorf("a handler got %v", bodies(ev))
		return nil
	})
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.stream.GetMsg(context.Background(), 1); !errors.Is(err, jetstream.ErrMsgNotFound) {
		t.Errorf("the original (sequence 1) after it came back: %v", err)
	}
	p.mu.Lock()
	marks := len(p.retried)
	p.mu.Unlock()
	if n := streamMsgs(t, p, "q"); n != 1 || marks != 0 {
		t.Errorf("the stream holds %d messages (want the copy alone); %d retried originals remembered", n, marks)
	}
}

// storeCopyWithoutAck takes the one message on queue and stores its retry
// copy with delay, never sending the original's ack.
func storeCopyWithoutAck(t *testing.T, p *Platform, queue string, delay int) {
	t.Helper()
	q, m := takeOne(t, p, queue)
	hm, tries := message(m)
	_ = p.storeRetries(q, []retryCopy{{m: m, hm: hm, tries: tries, delay: delay}}) // the acks are never sent
}

// takeOne takes the one message on queue, outside any delivery.
func takeOne(t *testing.T, p *Platform, queue string) (*queueState, jetstream.Msg) {
	t.Helper()
	q, err := p.ensureQueue(context.Background(), queue)
	if err != nil {
		t.Fatal(err)
	}
	l := p.startLease(queue)
	msgs, err := fetch(q.cons, l, 1, 5*time.Second)
	l.end()
	if err != nil || len(msgs) != 1 {
		t.Fatal(msgs, err)
	}
	return q, msgs[0]
}

// TestDeadLetterCopyCountedOnce: a dead-letter copy stored a second time
// (its original came back: the host died before its ack) is dropped as a
// duplicate within the window and counted once; one whose first publish
// went unanswered though the server stored it (here the store's sync
// failed once) is published again, answered as a duplicate, and counted
// once too.
func TestDeadLetterCopyCountedOnce(t *testing.T) {
	p := openSingle(t)
	send(t, p, `1`, 0)
	_, m := takeOne(t, p, "q")
	hm, _ := message(m)
	for range 2 {
		if err := p.deadLetter("dlq", m, hm); err != nil {
			t.Fatal(err)
		}
	}
	if s := p.Stats("dlq"); s.Sent != 1 || s.Pending != 1 {
		t.Errorf("dlq stats %+v, want Sent 1, Pending 1", s)
	}
	js, ok := p.js.(syncedJS)
	if !ok {
		return // the server syncs; a publish cannot be stored yet unanswered here
	}
	send(t, p, `2`, 0)
	_, m = takeOne(t, p, "q")
	hm, _ = message(m)
	failed := failSyncOnce(js.g)
	if err := p.deadLetter("dlq", m, hm); err != nil || !failed.Load() {
		t.Fatalf("%v (a sync failed: %v)", err, failed.Load())
	}
	if s := p.Stats("dlq"); s.Sent != 2 || s.Pending != 2 {
		t.Errorf("dlq stats %+v, want Sent 2, Pending 2", s)
	}
}

// TestAlreadyGone: the server's answer to deleting a message deleted
// already reads as gone; a timeout, or "temporarily unavailable"
// (10008), does not: the message may still be there.
func TestAlreadyGone(t *testing.T) {
	p := openSingle(t)
	send(t, p, `1`, 0)
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.stream.DeleteMsg(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	again := q.stream.DeleteMsg(context.Background(), 1)
	unavailable := fmt.Errorf("%w: %s", jetstream.ErrMsgDeleteUnsuccessful,
		&jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"})
	for _, c := range []struct {
		err  error
		gone bool
	}{{again, true}, {context.DeadlineExceeded, false}, {nats.ErrTimeout, false}, {unavailable, false}} {
		if got := alreadyGone(c.err); got != c.gone {
			t.Errorf("alreadyGone(%v) = %v, want %v", c.err, got, c.gone)
		}
	}
}

// TestRetryCopyUnconfirmed: a retry copy the server does not confirm
// within the patience (here the store's sync fails after the server
// stored it) is logged and falls back to a nak of the original with the
// delay. Whichever comes back first, the copy (which then removes the
// original) or the original (acked once its copy is published again under
// the same publish ID), the message is handed over once, with attempts 2,
// and neither stays in the stream.
func TestRetryCopyUnconfirmed(t *testing.T) {
	p, js, logs := openSyncedLogged(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	send(t, p, `1`, 0)
	real := setSync(js.g, func() error { return errors.New("the disk is gone") })
	r, _ := deliverWithin(t, p, "q", 10*time.Second, func(ev hostbridge.Event) error {
		return hostbridge.RetryQueueMessage(ev, 0, 1)
	})
	setSync(js.g, real)
	if len(r.Retried) != 1 || !strings.Contains(logs.String(), "natsqueue: retry copy (nak instead)") {
		t.Fatalf("result %+v; log %q", r, logs.String())
	}
	if attempts := attemptsWithin(t, p, p.opts.AckWait+3*time.Second); fmt.Sprint(attempts) != "[2]" {
		t.Errorf("deliveries with attempts %v, want [2]", attempts)
	}
	if n := streamMsgs(t, p, "q"); n != 0 {
		t.Errorf("the stream still holds %d messages", n)
	}
}

// attemptsWithin delivers q for d, acking every message, and returns the
// attempts of each message delivered, in order.
func attemptsWithin(t *testing.T, p *Platform, d time.Duration) []int {
	t.Helper()
	var attempts []int
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		deliverWithin(t, p, "q", time.Until(deadline), func(ev hostbridge.Event) error {
			for i, m := range ev.Batch().Messages() {
				attempts = append(attempts, m.Attempts)
				_ = hostbridge.AckQueueMessage(ev, i)
			}
			return nil
		})
	}
	return attempts
}

// TestPublishConfirmed: a publish the server refuses (an API error 4xx,
// here a wrong last sequence) is not published again; one with no publish
// ID is published once, answered or not (here its sync fails); one with an
// ID whose answer was lost (its sync failed once) is published again,
// answered as a duplicate, and says an earlier publish went unanswered.
func TestPublishConfirmed(t *testing.T) {
	o := storeOptions(t)
	o.Timeout = 200 * time.Millisecond
	p := openWith(t, o)
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	msg := func() *nats.Msg { return &nats.Msg{Subject: q.names.ready, Data: []byte(`1`)} }
	var api *jetstream.APIError
	_, lost, err := p.publishConfirmed("k1", msg(), []jetstream.PublishOpt{jetstream.WithExpectLastSequence(999)})
	if !errors.As(err, &api) || api.Code != 400 || lost {
		t.Errorf("refused: %v (lost %v), want a 400 at once", err, lost)
	}
	js, ok := p.js.(syncedJS)
	if !ok {
		return // the server syncs; a publish cannot be stored yet unanswered here
	}
	real := setSync(js.g, func() error { return errors.New("the disk is gone") })
	if _, lost, err = p.publishConfirmed("", msg(), nil); err == nil || lost {
		t.Errorf("no publish ID, unanswered: %v (lost %v), want the error at once", err, lost)
	}
	setSync(js.g, real)
	failSyncOnce(js.g)
	ack, lost, err := p.publishConfirmed("k3", msg(), []jetstream.PublishOpt{jetstream.WithMsgID("k3")})
	if err != nil || ack == nil || !ack.Duplicate || !lost {
		t.Errorf("publish ID, first answer lost: %+v, %v (lost %v), want a duplicate, lost", ack, err, lost)
	}
}

// TestDeadLetterUnconfirmedNotCounted: a message past MaxRetries whose
// dead-letter copy the server does not confirm within the patience (here
// the store's sync fails) comes back a second later, skips the handler and
// is dead-lettered then. The counters say what the handler saw: one
// delivery, no retry, one dead letter (Delivered and Retried count a
// handler's deliveries and the retries its outcome asked for).
func TestDeadLetterUnconfirmedNotCounted(t *testing.T) {
	p, js, logs := openSyncedLogged(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) {
		s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = 0, 0, "dlq"
	})
	send(t, p, `1`, 0)
	if _, err := p.ensureQueue(context.Background(), "dlq"); err != nil {
		t.Fatal(err)
	}
	real := setSync(js.g, func() error { return errors.New("the disk is gone") })
	r, _ := deliverWithin(t, p, "q", 10*time.Second, func(hostbridge.Event) error {
		return errors.New("fails")
	})
	setSync(js.g, real)
	if len(r.Retried)+len(r.DeadLettered) != 0 || !strings.Contains(logs.String(), "natsqueue: dead-letter copy (retried in 1 s)") {
		t.Fatalf("result %+v; log %q", r, logs.String())
	}
	handled := 0
	for deadline := time.Now().Add(p.opts.AckWait + 3*time.Second); time.Now().Before(deadline) && p.Stats("q").DeadLettered == 0; {
		deliverWithin(t, p, "q", time.Second, func(hostbridge.Event) error { handled++; return nil })
	}
	s := p.Stats("q")
	if handled != 0 || s.Delivered != 1 || s.Retried != 0 || s.DeadLettered != 1 || s.Pending != 0 {
		t.Errorf("handled again %d times; stats %+v, want Delivered 1, Retried 0, DeadLettered 1, Pending 0", handled, s)
	}
}

// openSyncedLogged opens an embedded Platform whose store sync a test can
// fail (it skips where the server syncs), with a 500 ms timeout and its log
// kept.
func openSyncedLogged(t *testing.T) (*Platform, syncedJS, *logBuffer) {
	t.Helper()
	logs := new(logBuffer)
	o := storeOptions(t)
	o.Timeout, o.Logger = 500*time.Millisecond, slog.New(slog.NewTextHandler(logs, nil))
	p := openWith(t, o)
	js, ok := p.js.(syncedJS)
	if !ok {
		t.Skip("only where natsqueue syncs the store itself")
	}
	return p, js, logs
}
