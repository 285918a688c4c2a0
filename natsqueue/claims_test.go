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
