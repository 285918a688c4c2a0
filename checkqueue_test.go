package hostbridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// memoryDeliver delivers from queue q of a virtual-clock platform, letting
// batch timeouts and retry delays pass first; wrap may wrap each event.
func memoryDeliver(p *MemoryPlatform, wrap func(Event) Event) func(func(Event) error) bool {
	return func(h func(Event) error) bool {
		p.Advance(time.Minute)
		_, ok := p.Deliver("q", func(ev Event) error { return h(wrap(ev)) })
		return ok
	}
}

func TestCheckQueuePlatformMemory(t *testing.T) {
	// Pins Q27, Q93.
	for _, s := range []func(*ConsumerSettings){
		func(*ConsumerSettings) {},
		func(s *ConsumerSettings) { s.MaxBatchSize = 1 },
		func(s *ConsumerSettings) { s.MaxBatchSize = 2; s.RetryDelay = 30; s.RedeliverAcked = true },
	} {
		p := newVirtual(t)
		setConsumer(t, p, "q", s)
		if err := CheckQueuePlatform(context.Background(), p, "B", memoryDeliver(p, func(ev Event) Event { return ev })); err != nil {
			t.Errorf("%+v: %v", p.Consumer("q"), err)
		}
	}
}

// brokenBatch breaks one promise of Batch.
type brokenBatch struct {
	Batch
	flaw  string
	calls int
}

func (b *brokenBatch) Messages() []Message {
	msgs := append([]Message(nil), b.Batch.Messages()...)
	b.calls++
	switch b.flaw {
	case "order":
		if b.calls%2 == 0 && len(msgs) > 1 {
			msgs[0], msgs[1] = msgs[1], msgs[0]
		}
	case "attempts":
		for i := range msgs {
			msgs[i].Attempts = 1
		}
	case "body":
		for i := range msgs {
			msgs[i].Body = []byte(msgs[i].Body.(json.RawMessage))
		}
	}
	return msgs
}

func (b *brokenBatch) Retry(i, d int) {
	if b.flaw != "retry" {
		b.Batch.Retry(i, d)
	}
}

func TestCheckQueuePlatformFindsFlaws(t *testing.T) {
	// Pins Q93.
	for flaw, want := range map[string]string{
		"order":    "Messages changed order",
		"attempts": "attempts 1, want 2",
		"body":     "not a json.RawMessage",
		"retry":    "did not come back",
	} {
		p := newVirtual(t)
		err := CheckQueuePlatform(context.Background(), p, "B", memoryDeliver(p, func(ev Event) Event {
			return testEvent{kind: EventQueue, batch: &brokenBatch{Batch: ev.Batch(), flaw: flaw}}
		}))
		t.Logf("%s:\n%v", flaw, err)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", flaw, err, want)
		}
	}
	p := NewMemoryPlatform()
	if err := CheckQueuePlatform(context.Background(), p, "B", func(func(Event) error) bool { return false }); err == nil {
		t.Error("an unbound binding passed")
	}
	p.Bind("B", "q")
	p.Grant("B")
	if err := CheckQueuePlatform(context.Background(), p, "B", func(func(Event) error) bool { return false }); err == nil || !strings.Contains(err.Error(), "never delivered") {
		t.Errorf("nothing delivered: %v", err)
	}
}
