package hostbridge

import (
	"context"
	"encoding/json"
	"regexp"
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
	for i := range msgs {
		msgs[i] = b.breakMessage(msgs[i], msgs[0].ID)
	}
	switch b.flaw {
	case "empty":
		return nil
	case "empty first", "forgets":
		if (b.flaw == "empty first") == (b.calls == 1) || b.flaw == "forgets" && b.calls > 2 {
			return nil
		}
	case "shrinks":
		if b.calls%2 == 0 && len(msgs) > 1 {
			return msgs[:len(msgs)-1]
		}
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

// breakMessage breaks one promise of a message (first is the batch's
// first message's ID).
func (b *brokenBatch) breakMessage(m Message, first string) Message {
	switch {
	case b.flaw == "no id":
		m.ID = ""
	case b.flaw == "same id":
		m.ID = first
	case b.flaw == "attempts 0":
		m.Attempts = 0
	case b.flaw == "no timestamp":
		m.Timestamp = time.Time{}
	case b.flaw == "foreign body":
		m.Body = json.RawMessage(`{"sent":"never"}`)
	case b.flaw == "not json":
		m.Body = json.RawMessage(`{`)
	case b.flaw == "new id" && m.Attempts > 1:
		m.ID += "-again"
	case b.flaw == "new time" && m.Attempts > 1:
		m.Timestamp = m.Timestamp.Add(time.Second)
	}
	return m
}

func (b *brokenBatch) Retry(i, d int) {
	if b.flaw != "retry" {
		b.Batch.Retry(i, d)
	}
}

// TestCheckQueuePlatformFindsFlaws: CheckQueuePlatform reports each
// broken promise of a platform, its events, batches and messages, with
// its own words.
func TestCheckQueuePlatformFindsFlaws(t *testing.T) {
	// Pins Q93.
	for flaw, want := range map[string]string{
		"order":        "Messages changed order",
		"attempts":     "attempts 1, want 2",
		"body":         `(?s)not a json\.RawMessage.*body \[\]byte "\{`,
		"retry":        "did not come back",
		"empty":        "empty batch",
		"shrinks":      "Messages gave 3 messages, then 2",
		"no id":        `ID "" empty or repeated`,
		"same id":      "empty or repeated",
		"attempts 0":   `: attempts 0(\n|$)`,
		"no timestamp": "no timestamp",
		"foreign body": `body "\{\\"sent\\":\\"never\\"\}" is none of the bodies sent`,
		"empty first":  "empty batch",
		"forgets":      "(?s)AckQueueMessage: .*RetryQueueMessage: ",
		"replay soon":  `(?s)delivered again after it was done.*"check":"ack"\} delivered again after it was done`,
		"not json":     "ReadQueueBatch: ",
		"new id":       "came back as",
		"new time":     "came back as",
		"kind":         `event kind is not "queue"`,
		"no batch":     "queue event without a Batch",
		"nil event":    `event kind is not "queue"`,
		"replay":       "(?s)delivered again after it was done.*a batch was delivered after every message was done",
	} {
		p := newVirtual(t)
		if flaw == "replay soon" {
			setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchSize = 1 })
		}
		err := CheckQueuePlatform(context.Background(), p, "B", flawedDeliver(p, flaw))
		t.Logf("%s:\n%v", flaw, err)
		if err == nil || !regexp.MustCompile(want).MatchString(err.Error()) {
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

// flawedDeliver delivers from p's queue q as memoryDeliver does, but
// breaks the promise flaw names: of an event ("kind", "no batch", "nil
// event"), of the platform (a "replay" of its first event when it has
// nothing to deliver; a "replay soon" of its first batch, one message
// long, at its next delivery too), or else of a batch (brokenBatch).
func flawedDeliver(p *MemoryPlatform, flaw string) func(func(Event) error) bool {
	var first Event
	replayed := false
	deliver := memoryDeliver(p, func(ev Event) Event {
		switch flaw {
		case "kind":
			return testEvent{kind: EventFetch, batch: ev.Batch()}
		case "no batch":
			return testEvent{kind: EventQueue}
		case "nil event":
			return nil
		case "replay", "replay soon":
			if first == nil {
				first = testEvent{kind: EventQueue, batch: &brokenBatch{Batch: ev.Batch()}}
			}
			return ev
		}
		return testEvent{kind: EventQueue, batch: &brokenBatch{Batch: ev.Batch(), flaw: flaw}}
	})
	return func(h func(Event) error) bool {
		if flaw == "replay soon" && first != nil && !replayed {
			replayed = true
			_ = h(first)
			return true
		}
		if deliver(h) {
			return true
		}
		if (flaw == "replay" || flaw == "replay soon") && first != nil {
			_ = h(first)
			return true
		}
		return false
	}
}
