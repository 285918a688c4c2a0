package natsqueue

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestClaimsExpireOnceSettled: a message's claim, held while its handler
// runs (no TTL: a holder's crash must not reset its attempts), is removed
// by the server once the message is done: the settled claim carries the
// TTL (shortened here to 1 s from an hour), and the claims stream ends
// empty, for an ack as for a retry whose copy is stored and acked.
func TestClaimsExpireOnceSettled(t *testing.T) {
	p := openSingle(t)
	p.settledTTL = time.Second
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout, s.RetryDelay = 0, 0 })
	send(t, p, `1`, 0)
	claims := func() uint64 {
		s, err := p.js.Stream(context.Background(), p.claimsStream())
		if err != nil {
			t.Fatal(err)
		}
		return s.CachedInfo().State.Msgs
	}
	var held []uint64
	handle := func(retry bool) func(hostbridge.Event) error {
		return func(ev hostbridge.Event) error {
			held = append(held, claims())
			if c, err := p.api.getMsg(context.Background(), p.claimsStream(), msgGetRequest{LastFor: "HB-claims.q.>"}); err != nil || c == nil {
				t.Errorf("no claim while held: %v", err)
			}
			if retry {
				return hostbridge.RetryQueueMessage(ev, 0, 0)
			}
			return nil
		}
	}
	deliverWithin(t, p, "q", 5*time.Second, handle(true))  // retried: its copy comes at once
	deliverWithin(t, p, "q", 5*time.Second, handle(false)) // the copy, acked
	if len(held) != 2 || held[0] != 1 || held[1] != 2 {
		t.Fatalf("claims while held: %v, want [1 2]", held)
	}
	for deadline := time.Now().Add(10 * time.Second); claims() != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the claims stream still holds %d claims", claims())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestClaimStates: a claim is created at the first hand-out (1); a second
// host finds it taken while the lease runs and for AckWait/2 after (a
// second after it ended), and takes it over, one hand-out more (2), once
// that is past; the first
// holder's writes over its own revision are refused then (its renewal
// loses the claim, its outcome is not committed); a settled claim is
// found settled, never taken. Pins D31.
func TestClaimStates(t *testing.T) {
	p := openSingle(t)
	if _, err := p.ensureQueue(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	subj := p.claimSubject("q", 7)
	first, st := p.claimOne(subj)
	if st != claimHeld || first.c.N != 1 {
		t.Fatalf("first claim %+v, state %d", first, st)
	}
	if h, st := p.claimOne(subj); st != claimTaken || h.c.Holder != first.c.Holder {
		t.Fatalf("while the lease runs: %+v, state %d, want taken by %s", h, st, first.c.Holder)
	}
	ended := *first
	ended.c.Until = time.Now().Add(-time.Second).UnixMilli() // ended, not AckWait/2 (15 s) ago
	if ok, err := p.write(&ended, ended.c, 0, time.Now().Add(time.Second)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if h, st := p.claimOne(subj); st != claimTaken {
		t.Fatalf("a second after the lease: %+v, state %d, want still taken", h, st)
	}
	ended.c.Until = time.Now().Add(-time.Minute).UnixMilli() // past AckWait/2 after it too
	if ok, err := p.write(&ended, ended.c, 0, time.Now().Add(time.Second)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	second, st := p.claimOne(subj)
	if st != claimHeld || second.c.N != 2 {
		t.Fatalf("after the lease: %+v, state %d, want held, hand-out 2", second, st)
	}
	stale := &holding{subj: subj, rev: ended.rev, c: ended.c}
	p.renew([]*holding{stale})
	if ok, _ := p.settle(stale, claim{Done: doneAck}); ok || stale.rev != 0 {
		t.Errorf("the first holder's renewal and outcome: %+v, settled %v, want refused", stale, ok)
	}
	if ok, _ := p.settle(second, claim{Done: doneAck}); !ok {
		t.Fatal("the holder's outcome refused")
	}
	if h, st := p.claimOne(subj); st != claimSettled || h.c.Done != doneAck {
		t.Errorf("after the outcome: %+v, state %d, want settled", h, st)
	}
}

// TestClaimWriteUnsure: a claim's write the server stored but never
// answered (every answer lost until the deadline) leaves the holding
// unsure; the next write over it finds the stream holding that write and
// takes it for its own, so a renewal lost that way does not lose the
// claim, and the outcome after it commits. Pins D31.
func TestClaimWriteUnsure(t *testing.T) {
	o := storeOptions(t)
	o.Timeout = 200 * time.Millisecond
	p := openWith(t, o)
	if _, err := p.ensureQueue(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	h, st := p.claimOne(p.claimSubject("q", 1))
	if st != claimHeld {
		t.Fatal(st)
	}
	js := &unansweredClaims{JetStream: p.js}
	p.js = js
	renewed := h.c
	renewed.Until++
	if ok, err := p.write(h, renewed, 0, time.Now().Add(time.Second)); ok || err != errClaimUnknown || h.unsure == nil {
		t.Fatalf("the unanswered renewal: %v, %v, unsure %+v", ok, err, h.unsure)
	}
	js.off.Store(true)
	if ok, _ := p.settle(h, claim{Done: doneAck}); !ok || h.c.Done != doneAck || h.unsure != nil {
		t.Errorf("the outcome over an unsure renewal: %v, claim %+v, unsure %+v", ok, h.c, h.unsure)
	}
}

// unansweredClaims is a JetStream whose claim writes are stored, the first
// one, but never answered, until off.
type unansweredClaims struct {
	jetstream.JetStream
	off    atomic.Bool
	stored atomic.Bool
}

func (j *unansweredClaims) PublishMsg(ctx context.Context, m *nats.Msg, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	if j.off.Load() || !strings.HasPrefix(m.Subject, "HB-claims.") {
		return j.JetStream.PublishMsg(ctx, m, opts...)
	}
	if !j.stored.Swap(true) {
		if _, err := j.JetStream.PublishMsg(ctx, m, opts...); err != nil {
			return nil, err
		}
	}
	return nil, context.DeadlineExceeded
}

// settle commits the outcome done over h, this host's hold, as a batch of
// one (settleAll), and reports whether it committed or whether that is
// unknown.
func (p *Platform) settle(h *holding, done claim) (ok, unknown bool) {
	st := &settling{h: h, done: done}
	p.settleAll([]*settling{st})
	return st.ok, st.unknown
}

// TestRenewOwn: a claim of this host's whose lease ended before it learnt
// that it committed is renewed over its own revision, keeping its count
// (no handler saw that hand-out); once another write is over it, the
// renewal is refused. Pins D31.
func TestRenewOwn(t *testing.T) {
	p := openSingle(t)
	if _, err := p.ensureQueue(context.Background(), "q"); err != nil {
		t.Fatal(err)
	}
	h := &holding{subj: p.claimSubject("q", 3)}
	if ok, err := p.write(h, claim{N: 1, Holder: "this host", Until: time.Now().Add(-time.Second).UnixMilli()}, 0, time.Now().Add(time.Second)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	stale := *h
	if !p.renewOwn(h, time.Now().Add(time.Second)) || h.c.N != 1 || h.c.leaseEnded() {
		t.Errorf("renewed: %+v, want hand-out 1 with a lease running", h.c)
	}
	if p.renewOwn(&stale, time.Now().Add(time.Second)) {
		t.Error("a renewal over a revision another write is over committed")
	}
}

// TestScheduleFiredTwice: a schedule fires twice, as it does when its
// server is killed between storing what it fired and removing the
// schedule (TestScheduleFiresTwiceUnderKill; here the fired message is
// stored again as it is). A delayed send, then its delayed retry copy,
// each reach a handler once, with attempts 1 then 2; the second firings
// are removed, counted nowhere, and the stream ends empty. Without
// dropRefired, here attempts [1 1 2 2 2].
func TestScheduleFiredTwice(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	send(t, p, `1`, 1)
	fireAgain(t, p, q, q.names.ready)
	var attempts []int
	handle := func(ev hostbridge.Event) error {
		for i, m := range ev.Batch().Messages() {
			attempts = append(attempts, m.Attempts)
			if m.Attempts == 1 {
				_ = hostbridge.RetryQueueMessage(ev, i, 1) // the index is the batch's own: no error
			}
		}
		return nil
	}
	deliverWithin(t, p, "q", 5*time.Second, handle)
	fireAgain(t, p, q, q.names.ready+".r.*") // whichever firing was handled, its copy
	for deadline := time.Now().Add(p.opts.AckWait + 2*time.Second); time.Now().Before(deadline); {
		deliverWithin(t, p, "q", time.Until(deadline), handle)
	}
	if fmt.Sprint(attempts) != "[1 2]" || streamMsgs(t, p, "q") != 0 {
		t.Errorf("handled with attempts %v, want [1 2]; the stream holds %d messages", attempts, streamMsgs(t, p, "q"))
	}
	want := hostbridge.QueueStats{Sent: 1, Delivered: 2, Acked: 1, Retried: 1}
	if s := p.Stats(ctxBG, "q"); s != want {
		t.Errorf("stats %+v, want %+v", s, want)
	}
}

// fireAgain waits for a message a schedule of q's fires onto a subject
// that filter matches and stores it again, headers and all, as a server
// that fires it a second time does.
func fireAgain(t *testing.T, p *Platform, q *queueState, filter string) {
	t.Helper()
	m := waitFired(t, q, filter)
	if _, err := p.js.PublishMsg(context.Background(), &nats.Msg{Subject: m.Subject, Header: m.Header, Data: m.Data}); err != nil {
		t.Fatal(err)
	}
}

// waitFired waits for a message a schedule of q's fires onto a subject
// that filter matches, and returns it.
func waitFired(t *testing.T, q *queueState, filter string) *jetstream.RawStreamMsg {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m, err := q.stream.GetLastMsgForSubject(context.Background(), filter); err == nil && m.Header.Get(hdrScheduler) != "" {
			return m
		}
	}
	t.Fatalf("no message fired onto %s", filter)
	return nil
}

// TestFiringOf: the first message a schedule fired is recorded as such,
// and found so again (a redelivery, or its record's answer lost); another
// is fired again. A server that never answers (here for the 300 ms
// patience), or a connection closed, says neither: the message is then
// nak'd, never removed.
func TestFiringOf(t *testing.T) {
	p := openSingle(t)
	p.patience = 300 * time.Millisecond
	if err := p.ensureClaims(context.Background()); err != nil {
		t.Fatal(err)
	}
	const subj = "HB-claims.q.f.r.1"
	got := []firing{p.firingOf(subj, 5), p.firingOf(subj, 5), p.firingOf(subj, 6)}
	if fmt.Sprint(got) != fmt.Sprint([]firing{firedFirst, firedFirst, firedAgain}) {
		t.Errorf("firings of 5, 5 again, then 6: %v", got)
	}
	js := &unansweredClaims{JetStream: p.js}
	js.stored.Store(true) // nothing stored, nothing answered
	p.js = js
	if f := p.firingOf("HB-claims.q.f.r.2", 7); f != firedUnknown {
		t.Errorf("unanswered: %v, want firedUnknown", f)
	}
	p.nc.Close()
	if f := p.firingOf("HB-claims.q.f.r.3", 8); f != firedUnknown {
		t.Errorf("connection closed: %v, want firedUnknown", f)
	}
}

// TestFiringUnknownKept: a delayed send, fired, whose firing the server
// does not say anything of (no claim write answered, for the 300 ms
// patience) reaches no handler and stays on the stream, nak'd; once the
// server answers, it is handled, once, with attempts 1.
func TestFiringUnknownKept(t *testing.T) {
	p := openSingle(t)
	p.patience = 300 * time.Millisecond
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	send(t, p, `1`, 1)
	waitFired(t, q, q.names.ready)
	js := &unansweredClaims{JetStream: p.js}
	js.stored.Store(true) // nothing stored, nothing answered
	p.js = js
	deliverWithin(t, p, "q", 2*time.Second, func(ev hostbridge.Event) error {
		t.Errorf("a handler got %v while the firing was unknown", bodies(ev))
		return nil
	})
	js.off.Store(true)
	var attempts []int
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && len(attempts) == 0; {
		deliverWithin(t, p, "q", time.Until(deadline), func(ev hostbridge.Event) error {
			for _, m := range ev.Batch().Messages() {
				attempts = append(attempts, m.Attempts)
			}
			return nil
		})
	}
	if fmt.Sprint(attempts) != "[1]" {
		t.Errorf("once the server answers: attempts %v, want [1]", attempts)
	}
}
