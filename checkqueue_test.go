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

// TestCheckQueuePlatformAnyOrder: a platform whose batches give their
// messages newest first keeps every promise CheckQueuePlatform checks (no
// order between messages is promised, only the same order on every call),
// so it passes. Pins Q93.
func TestCheckQueuePlatformAnyOrder(t *testing.T) {
	for _, size := range []int{3, 2} {
		p := newVirtual(t)
		setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchSize = size })
		deliver := memoryDeliver(p, func(ev Event) Event {
			return testEvent{kind: EventQueue, batch: reversedBatch{ev.Batch()}}
		})
		if err := CheckQueuePlatform(context.Background(), p, "B", deliver); err != nil {
			t.Errorf("batches of %d, newest first: %v", size, err)
		}
	}
}

// TestCheckQueuePlatformLateSend: a platform that delivers a plain Send
// late (no delivery time is promised) passes too. 90 s late (the test's
// deliveries are a minute apart), the message sent alone comes beside the
// retried message's second delivery, and where an acked message comes
// back with a failed batch (RedeliverAcked) the checker must not fail a
// batch holding one; 300 s late, it comes after the retried message is
// done, and the checker must wait for it. Pins Q93.
func TestCheckQueuePlatformLateSend(t *testing.T) {
	for _, late := range []int{90, 300} {
		for _, size := range []int{1, 2, 3} {
			p := newVirtual(t)
			setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchSize, s.RedeliverAcked = size, true })
			err := CheckQueuePlatform(context.Background(), lateSender{p, late}, "B", memoryDeliver(p, func(ev Event) Event { return ev }))
			if err != nil {
				t.Errorf("batches of %d, a Send %d s late: %v", size, late, err)
			}
		}
	}
}

// lateSender delivers what Send sends late seconds late.
type lateSender struct {
	*MemoryPlatform
	late int
}

func (l lateSender) Send(ctx context.Context, binding string, body []byte, o SendOptions) error {
	o.DelaySeconds += l.late
	return l.MemoryPlatform.Send(ctx, binding, body, o)
}

// reversedBatch gives its batch's messages newest first.
type reversedBatch struct{ Batch }

func (b reversedBatch) Messages() []Message {
	msgs := b.Batch.Messages()
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[len(msgs)-1-i] = m
	}
	return out
}

func (b reversedBatch) Ack(i int)      { b.Batch.Ack(b.index(i)) }
func (b reversedBatch) Retry(i, d int) { b.Batch.Retry(b.index(i), d) }
func (b reversedBatch) index(i int) int {
	return len(b.Batch.Messages()) - 1 - i
}

// TestCheckQueuePlatformPatience: CheckQueuePlatform calls deliver up to
// 20 times while a message is not done (its doc). MemoryPlatform needs 3
// calls (the first batch, the retried message failed, then acked): idle
// for its first 17 calls it passes, idle for 18 it does not. Pins Q93.
func TestCheckQueuePlatformPatience(t *testing.T) {
	for idle, pass := range map[int]bool{0: true, 17: true, 18: false} {
		p := newVirtual(t)
		deliver := memoryDeliver(p, func(ev Event) Event { return ev })
		calls := 0
		err := CheckQueuePlatform(context.Background(), p, "B", func(h func(Event) error) bool {
			calls++
			return calls > idle && deliver(h)
		})
		if (err == nil) != pass {
			t.Errorf("idle for %d calls: %v", idle, err)
		}
		if pass && calls != idle+4 {
			t.Errorf("idle for %d calls: deliver called %d times, want %d", idle, calls, idle+4)
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

// outcomeBatch breaks what a handler's outcome does: "no fail" takes an
// error for success; "no implicit" retries the messages a handler that
// returned nil neither acked nor retried.
type outcomeBatch struct {
	Batch
	flaw    string
	touched map[int]bool
}

func (b *outcomeBatch) Ack(i int)      { b.touch(i); b.Batch.Ack(i) }
func (b *outcomeBatch) Retry(i, d int) { b.touch(i); b.Batch.Retry(i, d) }

func (b *outcomeBatch) touch(i int) {
	if b.touched == nil {
		b.touched = map[int]bool{}
	}
	b.touched[i] = true
}

// outcome is what the delivery reports for a handler that returned err.
func (b *outcomeBatch) outcome(err error) error {
	if b.flaw == "no fail" {
		return nil
	}
	if err == nil {
		for i := range b.Messages() {
			if !b.touched[i] {
				b.Batch.Retry(i, 0)
			}
		}
	}
	return err
}

// TestCheckQueuePlatformFindsFlaws: CheckQueuePlatform reports each
// broken promise of a platform, its events, batches and messages, with
// its own words.
func TestCheckQueuePlatformFindsFlaws(t *testing.T) {
	// Pins Q93.
	for flaw, want := range map[string]string{
		"order":        "Messages changed order: index 0 was [0-9a-f]+01, then [0-9a-f]+02",
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
		"no fail":      "did not come back after a retry and a failed batch",
		"no implicit":  `"check: implicit \\"ack\\"" delivered again after it was done`,
		// The same flaws on platforms that keep every other promise in
		// another way: one message a batch, or newest first.
		"retry, one at a time":      "did not come back",
		"no implicit, newest first": `"check: implicit \\"ack\\"" delivered again after it was done`,
	} {
		p := newVirtual(t)
		if flaw == "replay soon" || strings.HasSuffix(flaw, ", one at a time") {
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
// long, at its next delivery too), of a handler's outcome ("no fail": an
// error taken as success; "no implicit": a message the handler left alone
// retried, not acked), or else of a batch (brokenBatch).
func flawedDeliver(p *MemoryPlatform, flaw string) func(func(Event) error) bool {
	flaw, variant, _ := strings.Cut(flaw, ", ")
	var first Event
	var outcomes *outcomeBatch
	replayed := false
	deliver := memoryDeliver(p, func(ev Event) Event {
		switch flaw {
		case "no fail", "no implicit":
			outcomes = &outcomeBatch{Batch: ev.Batch(), flaw: flaw}
			if variant == "newest first" {
				return testEvent{kind: EventQueue, batch: reversedBatch{outcomes}}
			}
			return testEvent{kind: EventQueue, batch: outcomes}
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
	if flaw == "no fail" || flaw == "no implicit" {
		return func(h func(Event) error) bool {
			return deliver(func(ev Event) error { return outcomes.outcome(h(ev)) })
		}
	}
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
