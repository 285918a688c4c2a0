package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
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
	t.Parallel() // waits on timers; see TestMain
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
	_ = p.Close() // Close always returns nil
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
// ack is never sent (the lease lapses), leaving both on the stream. The
// original's claim says its copy is stored: whether the copy (delay 0)
// comes first or the original does (after AckWait, 3 s, before its copy,
// due in 5 s), the original is removed without reaching a handler, and
// the copy is handed out once, with attempts 2. Pins D31.
func TestOriginalNotAfterItsCopy(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	for _, delay := range []int{0, 5} {
		p := openSingle(t)
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
		send(t, p, `1`, 0)
		storeCopyWithoutAck(t, p, "q", delay)
		attempts := attemptsWithin(t, p, p.opts.AckWait+time.Duration(delay+2)*time.Second)
		if fmt.Sprint(attempts) != "[2]" {
			t.Errorf("delay %d: deliveries with attempts %v, want [2]", delay, attempts)
		}
	}
}

// TestOriginalAckedWhenBack: a retry's copy (due in 30 s) is stored but
// the original's ack never reached the server: the original, back after
// AckWait, finds its copy on the copy's own schedule subject
// (<sched>r.<its sequence>) and is acked there and then without reaching a
// handler; the copy stays, to come when it is due.
func TestOriginalAckedWhenBack(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
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
	c, err := p.api.getMsg(context.Background(), q.names.stream, msgGetRequest{LastFor: "HB.q.sched.r.1"})
	if n := streamMsgs(t, p, "q"); n != 1 || err != nil || c.Sequence != 2 {
		t.Errorf("the stream holds %d messages (want the copy alone); the copy on HB.q.sched.r.1: %+v, %v", n, c, err)
	}
}

// storeCopyWithoutAck takes the one message on queue, settles it as a
// retry with delay and stores its copy, never sending the original's ack.
func storeCopyWithoutAck(t *testing.T, p *Platform, queue string, delay int) {
	t.Helper()
	q, m := takeOne(t, p, queue)
	h := settled(t, p, q, m, claim{Done: doneRetry, Delay: delay})
	hm, tries := message(m, h.c.N)
	p.loseRemovals.Store(true)
	defer p.loseRemovals.Store(false)
	if err := p.applySettled(q, m, hm, tries, h)(); err != nil {
		t.Fatal(err)
	}
}

// settled claims m, a message of q that p took, and commits done on its
// claim, as a host does once its handler returned.
func settled(t *testing.T, p *Platform, q *queueState, m jetstream.Msg, done claim) *holding {
	t.Helper()
	md, err := m.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	h, st := p.claimOne(p.claimSubject(q.names.token, md.Sequence.Stream))
	if ok, _ := p.settle(h, done); st != claimHeld || !ok {
		t.Fatalf("claim %+v (state %d) not settled as %+v", h, st, done)
	}
	return h
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

// TestDeadLetterCopyCountedOnce: a dead-letter copy published a second
// time is refused by the server, its subject holding a copy already; the
// copy is counted as sent to the dead-letter queue once, by the host that
// marks its original's claim copied, even when its first publish went
// unanswered though the server stored it (here the store's sync failed
// once); the copy's deliverer, finding the claim marked, counts nothing.
func TestDeadLetterCopyCountedOnce(t *testing.T) {
	p := openSingle(t)
	send(t, p, `1`, 0)
	q, m := takeOne(t, p, "q")
	hm, _ := message(m, 1)
	for i := range 2 {
		if err := p.deadLetter(q, "dlq", m, hm, time.Now().Add(p.patience)); err != nil {
			t.Fatalf("copy %d: %v", i+1, err)
		}
	}
	if n := streamMsgs(t, p, "dlq"); n != 1 {
		t.Errorf("dlq holds %d messages, want 1", n)
	}
	js, ok := p.js.(syncedJS)
	if !ok {
		return // the server syncs; a publish cannot be stored yet unanswered here
	}
	send(t, p, `2`, 0)
	_, m = takeOne(t, p, "q")
	h := settled(t, p, q, m, claim{Done: doneDead, DLQ: "dlq"})
	hm, tries := message(m, h.c.N)
	failed := failSyncOnce(js.g)
	if err := p.applySettled(q, m, hm, tries, h)(); err != nil || !failed.Load() || h.c.Done != doneCopied {
		t.Fatalf("applied: %v (a sync failed: %v); claim %+v", err, failed.Load(), h.c)
	}
	if g, _, marked := p.openCopy(h.subj); g != gateOpen || marked {
		t.Errorf("the copy's gate %d, marked again %v", g, marked)
	}
	if s := p.Stats(ctxBG, "dlq"); s.Sent != 1 || s.Pending != 2 {
		t.Errorf("dlq stats %+v, want Sent 1 (the first copy was published outside a settlement), Pending 2", s)
	}
}

// TestRemoveOriginalCodes: an original deleted already reads as gone (the
// server's codes, by number: 10043 to the delete), so does one whose
// delete is refused otherwise and that a get does not find (10037); one
// that a get finds, or whose delete got a timeout or no responders (no
// answer from the server, nothing else asked), does not: each is tried
// again until the patience ends.
func TestRemoveOriginalCodes(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	p := openSingle(t)
	p.patience = 600 * time.Millisecond
	send(t, p, `1`, 0)
	send(t, p, `2`, 0)
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if err := q.stream.DeleteMsg(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if !p.removeOriginal(q.names.stream, 1) {
		t.Error("a message deleted already does not read as gone")
	}
	refused := &jetstream.APIError{Code: 500, ErrorCode: 10057, Description: "no message found"}
	unavailable := &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}
	for _, c := range []struct {
		err  error
		seq  uint64
		gone bool
	}{{refused, 1, true}, {unavailable, 1, true}, {unavailable, 2, false}, {context.DeadlineExceeded, 1, false}, {nats.ErrTimeout, 1, false}, {nats.ErrNoResponders, 1, false}} {
		api := &scriptedDelete{msgAPI: leaderAPI{p}, err: c.err}
		p.api = api
		start := time.Now()
		if got := p.removeOriginal(q.names.stream, c.seq); got != c.gone || !c.gone && (api.tries < 2 || time.Since(start) < p.patience) {
			t.Errorf("a delete of %d answered %v: gone %v, want %v (%d tries in %v)", c.seq, c.err, got, c.gone, api.tries, time.Since(start))
		}
	}
}

// scriptedDelete is a msgAPI whose deletions all fail with err.
type scriptedDelete struct {
	msgAPI
	err   error
	tries int
}

func (s *scriptedDelete) deleteMsg(context.Context, string, uint64) error {
	s.tries++
	return s.err
}

// TestRetryCopyUnconfirmed: a retry copy the server does not confirm
// within the patience (here every publish of a copy gets no answer, the
// first stored or none) is logged and falls back to a nak of the original
// with the delay. The original comes back first; its claim says retry,
// its holder's lease over: it stores the copy (refused when the first was
// stored), marks the claim copied and is removed. The message is handed
// over once, with attempts 2, no sooner than its delay (3 s, past the 1 s
// patience), and neither stays in the stream. Pins D31's "never early".
func TestRetryCopyUnconfirmed(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	for _, stored := range []bool{true, false} {
		logs := new(logBuffer)
		o := storeOptions(t)
		o.Timeout, o.Logger = 500*time.Millisecond, slog.New(slog.NewTextHandler(logs, nil))
		p := openWith(t, o)
		p.patience = time.Second
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
		send(t, p, `1`, 0)
		js := &unansweredCopies{JetStream: p.js, store: stored}
		p.js = js
		var retried time.Time
		r, _ := deliverWithin(t, p, "q", 10*time.Second, func(ev hostbridge.Event) error {
			retried = time.Now()
			return hostbridge.RetryQueueMessage(ev, 0, 3)
		})
		js.off.Store(true)
		if len(r.Retried) != 1 || !strings.Contains(logs.String(), "natsqueue: storing a copy (nak instead)") || js.tries.Load() < 2 {
			t.Fatalf("stored %v: result %+v; %d publishes; log %q", stored, r, js.tries.Load(), logs.String())
		}
		attempts, at := deliveriesWithin(t, p, p.opts.AckWait+5*time.Second)
		if fmt.Sprint(attempts) != "[2]" {
			t.Errorf("stored %v: deliveries with attempts %v, want [2]", stored, attempts)
		} else if early := retried.Add(3 * time.Second).Sub(at[0]); early > 0 {
			t.Errorf("stored %v: back %v before its 3 s delay", stored, early)
		}
		if n := streamMsgs(t, p, "q"); n != 0 {
			t.Errorf("stored %v: the stream still holds %d messages", stored, n)
		}
	}
}

// unansweredCopies is a JetStream whose publishes of copies (retry and
// dead-letter copies) get no answer, as in a server fault: the first is
// stored when store is set, none otherwise, until off.
type unansweredCopies struct {
	jetstream.JetStream
	store bool
	off   atomic.Bool
	tries atomic.Int32
}

func (j *unansweredCopies) PublishMsg(ctx context.Context, m *nats.Msg, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	if j.off.Load() || m.Header.Get(hdrRetryOf) == "" && m.Header.Get(hdrDeadOf) == "" {
		return j.JetStream.PublishMsg(ctx, m, opts...)
	}
	if j.tries.Add(1) == 1 && j.store {
		if _, err := j.JetStream.PublishMsg(ctx, m, opts...); err != nil {
			return nil, err
		}
	}
	return nil, context.DeadlineExceeded
}

// attemptsWithin delivers q for d, acking every message, and returns the
// attempts of each message delivered, in order.
func attemptsWithin(t *testing.T, p *Platform, d time.Duration) []int {
	t.Helper()
	attempts, _ := deliveriesWithin(t, p, d)
	return attempts
}

// deliveriesWithin is attemptsWithin with the time each message reached
// the handler.
func deliveriesWithin(t *testing.T, p *Platform, d time.Duration) (attempts []int, at []time.Time) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		deliverWithin(t, p, "q", time.Until(deadline), func(ev hostbridge.Event) error {
			for i, m := range ev.Batch().Messages() {
				attempts, at = append(attempts, m.Attempts), append(at, time.Now())
				_ = hostbridge.AckQueueMessage(ev, i) // the index is the batch's own: no error
			}
			return nil
		})
	}
	return attempts, at
}

// TestPublishConfirmed: a copy the server refuses for another reason than
// a copy stored (an API error 4xx, here another stream expected) is not published again; a second copy of an original is refused
// (10071), which reads as stored before, not as an error; a copy whose
// answer was lost (its sync failed once) is published again, refused so,
// and says an earlier publish went unanswered.
func TestPublishConfirmed(t *testing.T) {
	o := storeOptions(t)
	o.Timeout = 200 * time.Millisecond
	p := openWith(t, o)
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	copyOf := func(seq uint64) (*nats.Msg, []jetstream.PublishOpt) {
		return q.names.natsMsg(outMsg{id: "x", attempts: 2, body: []byte(`1`), retryOf: seq})
	}
	var api *jetstream.APIError
	msg, opts := copyOf(1)
	r, err := p.publishConfirmed(p.js, msg, append(opts, jetstream.WithExpectStream("NOT_Q")), time.Now().Add(p.patience))
	if !errors.As(err, &api) || api.Code != 400 || r.lost || r.before {
		t.Errorf("refused: %+v, %v, want a 400 at once", r, err)
	}
	for i := range 2 {
		msg, opts := copyOf(1)
		if r, err := p.publishConfirmed(p.js, msg, opts, time.Now().Add(p.patience)); err != nil || r.before != (i == 1) || r.lost || (r.ack == nil) != (i == 1) {
			t.Errorf("copy %d of sequence 1: %+v, %v", i+1, r, err)
		}
	}
	js, ok := p.js.(syncedJS)
	if !ok {
		return // the server syncs; a publish cannot be stored yet unanswered here
	}
	failSyncOnce(js.g)
	msg, opts = copyOf(3)
	if r, err = p.publishConfirmed(p.js, msg, opts, time.Now().Add(p.patience)); err != nil || !r.before || !r.lost {
		t.Errorf("a copy whose first answer was lost: %+v, %v, want stored before, lost", r, err)
	}
}

// TestDeadLetterUnconfirmedCountedOnce: a message past MaxRetries is
// settled as a dead letter (reported and counted then), and its copy the
// server does not confirm within the patience (here it stores the first
// publish and answers none): the original comes back, skips the handler,
// and once its holder's lease is over the copy is published again,
// refused (one is stored), its claim marked copied and the copy counted as
// sent once. The counters say what the handler saw: one delivery, no
// retry, one dead letter.
func TestDeadLetterUnconfirmedCountedOnce(t *testing.T) {
	logs := new(logBuffer)
	o := storeOptions(t)
	o.Timeout, o.Logger = 500*time.Millisecond, slog.New(slog.NewTextHandler(logs, nil))
	p := openWith(t, o)
	p.patience = time.Second
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) {
		s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = 0, 0, "dlq"
	})
	send(t, p, `1`, 0)
	if _, err := p.ensureQueue(context.Background(), "dlq"); err != nil {
		t.Fatal(err)
	}
	js := &unansweredCopies{JetStream: p.js, store: true}
	p.js = js
	r, _ := deliverWithin(t, p, "q", 10*time.Second, func(hostbridge.Event) error {
		return errors.New("fails")
	})
	js.off.Store(true)
	if len(r.Retried) != 0 || len(r.DeadLettered) != 1 || !strings.Contains(logs.String(), "natsqueue: storing a copy (nak instead)") {
		t.Fatalf("result %+v; log %q", r, logs.String())
	}
	handled := 0
	for deadline := time.Now().Add(p.opts.AckWait + 3*time.Second); time.Now().Before(deadline) && p.Stats(ctxBG, "dlq").Sent == 0; {
		deliverWithin(t, p, "q", time.Second, func(hostbridge.Event) error { handled++; return nil })
	}
	p.opened("dlq").forgetPending() // the size read before the copy was counted
	s, dl := p.Stats(ctxBG, "q"), p.Stats(ctxBG, "dlq")
	if handled != 0 || s.Delivered != 1 || s.Retried != 0 || s.DeadLettered != 1 || s.Pending != 0 || dl.Sent != 1 || dl.Pending != 1 {
		t.Errorf("handled again %d times; stats %+v, dlq %+v, want Delivered 1, Retried 0, DeadLettered 1, Pending 0; dlq Sent 1, Pending 1", handled, s, dl)
	}
}

// TestRemoveWhenAckUnconfirmed: a settled original whose ack the server
// does not confirm (here the ack times out, never sent) is deleted from its
// stream until the server confirms it gone, so it cannot come back to be
// handled and counted again; the removal then reports no error.
func TestRemoveWhenAckUnconfirmed(t *testing.T) {
	p := openSingle(t)
	send(t, p, `1`, 0)
	_, m := takeOne(t, p, "q")
	if err := p.remove(unackable{m})(); err != nil {
		t.Errorf("removal: %v", err)
	}
	if n := streamMsgs(t, p, "q"); n != 0 {
		t.Errorf("the stream holds %d messages after the removal", n)
	}
}

// unackable is a message whose ack never gets an answer.
type unackable struct{ jetstream.Msg }

func (unackable) DoubleAck(context.Context) error { return context.DeadlineExceeded }
