package natsqueue

import (
	"context"
	"testing"
	"time"

	"hostbridge"
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
// host finds it taken while the lease runs, and takes it over, one
// hand-out more (2), once it has ended; the first holder's writes over its
// own revision are refused then (its renewal loses the claim, its outcome
// is not committed); a settled claim is found settled, never taken. Pins
// D31.
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
	ended.c.Until = time.Now().Add(-time.Second).UnixMilli()
	if ok, err := p.write(&ended, ended.c, time.Now().Add(time.Second)); !ok || err != nil {
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
