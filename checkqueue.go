package hostbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// CheckQueuePlatform checks a host's queue platform against what the
// consumer functions rely on, the way testing/fstest.TestFS checks a file
// system: it returns nil, or every problem it found joined with errors.Join.
// A host runs it in its own tests; MemoryPlatform passes it. ctx is handed
// to the platform's Send and SendBatch.
//
// binding must be Bound and send to a queue that is empty, whose consumer
// has at least 2 retries left. deliver must deliver the next batch of that
// queue to handler, as the host's consumer does, and report whether it
// delivered one; it may wait for a batch timeout or a retry delay (a test
// on MemoryPlatform advances a virtual clock), and should return false
// rather than block when nothing comes. CheckQueuePlatform calls it at
// most 20 times while a message is not done, then once more to see that
// nothing comes.
//
// It sends three messages (one Send, one SendBatch of two), then checks:
// every event is a queue event whose Batch gives the same messages in the
// same order on every call; IDs are non-empty and unique, Attempts at least
// 1, Timestamps set, Bodies the JSON bytes sent, as json.RawMessage;
// ReadQueueBatch reads every batch; an acked message and a message left
// alone by a handler that returned normally are not delivered again; a
// retried message comes back with the same ID, Timestamp and body and
// Attempts+1; a failed batch comes back with Attempts+1.
func CheckQueuePlatform(ctx context.Context, p Platform, binding string, deliver func(handler func(Event) error) bool) error {
	if !p.Bound(binding) {
		return fmt.Errorf("Bound(%q) = false", binding)
	}
	c := &queueChecker{
		bodies: [][]byte{[]byte(`{"check":"ack"}`), []byte(`{"check":"retry","n":[1,"二",null]}`), []byte(`"check: implicit \"ack\""`)},
		first:  make([]*Message, 3),
		want:   []int{1, 1, 1},
		done:   make([]bool, 3),
	}
	if err := p.Send(ctx, binding, c.bodies[checkAck], SendOptions{ContentType: contentTypeJSON}); err != nil {
		return fmt.Errorf("Send: %w", err)
	}
	batch := []BatchMessage{{Body: c.bodies[checkRetry], ContentType: contentTypeJSON}, {Body: c.bodies[checkImplicit], ContentType: contentTypeJSON}}
	if err := p.SendBatch(ctx, binding, batch); err != nil {
		return fmt.Errorf("SendBatch: %w", err)
	}
	for tries := 0; tries < checkDeliveries && !(c.done[checkAck] && c.done[checkImplicit] && c.done[checkRetry]); tries++ {
		deliver(c.handle)
	}
	for k, b := range c.bodies {
		switch {
		case c.first[k] == nil:
			c.fail("message %s never delivered", b)
		case !c.done[k]:
			// Only the retried message can be: handle makes the others
			// done at their first delivery.
			c.fail("retried message %s: did not come back after a retry and a failed batch (reached step %d of 3)", b, c.step)
		}
	}
	if deliver(c.handleAfter) {
		c.fail("a batch was delivered after every message was done")
	}
	return errors.Join(c.errs...) // Q93
}

// The three messages CheckQueuePlatform sends, by what its handler does.
const checkAck, checkRetry, checkImplicit = 0, 1, 2

// checkDeliveries is how many deliveries CheckQueuePlatform waits for its
// messages to be done (its doc says 20).
const checkDeliveries = 20

// queueChecker is one run of CheckQueuePlatform.
type queueChecker struct {
	errs   []error
	bodies [][]byte
	first  []*Message // each body's first delivery
	want   []int      // the attempts of each body's next delivery
	done   []bool     // acked, or left alone by a handler that returned nil
	// The retried message goes through three steps: retried on its first
	// delivery, failed with its batch (or retried again, when the batch
	// holds other messages) on the second, acked on the third.
	step int
}

func (c *queueChecker) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

// which is the body a message carries, or -1.
func (c *queueChecker) which(m Message) int {
	raw, _ := m.Body.(json.RawMessage)
	for k, b := range c.bodies {
		if bytes.Equal(raw, b) {
			return k
		}
	}
	return -1
}

// handle is the handler of the batches, while messages are not all done.
func (c *queueChecker) handle(ev Event) error {
	msgs, problems := checkQueueEvent(ev)
	c.errs = append(c.errs, problems...)
	failBatch := false
	var leave []int
	for i, m := range msgs {
		k := c.which(m)
		if !c.seen(m, k) {
			continue
		}
		switch {
		case k == checkAck:
			c.ack(ev, i, k)
		case k == checkImplicit:
			leave = append(leave, k)
		case c.step < 2 && (c.step == 0 || len(msgs) > 1):
			if err := RetryQueueMessage(ev, i, 0); err != nil {
				c.fail("RetryQueueMessage: %v", err)
			}
			c.step++
		case c.step < 2:
			failBatch = true
			c.step++
		default:
			c.ack(ev, i, k)
			c.step++
		}
	}
	if failBatch {
		return errors.New("hostbridge: CheckQueuePlatform fails this batch on purpose")
	}
	for _, k := range leave {
		c.done[k] = true
	}
	return nil
}

// seen checks a delivery of message m, body k, against the earlier ones,
// and reports whether the handler should act on it.
func (c *queueChecker) seen(m Message, k int) bool {
	switch {
	case k < 0:
		c.fail("message %s: body %s is none of the bodies sent", m.ID, describeBody(m.Body))
		return false
	case c.done[k]:
		c.fail("message %s (%s) delivered again after it was done", m.ID, c.bodies[k])
		return false
	case c.first[k] == nil:
		first := m
		c.first[k] = &first
	case m.ID != c.first[k].ID || !m.Timestamp.Equal(c.first[k].Timestamp):
		c.fail("message %s (%s) came back as %s, time %v; want time %v",
			c.first[k].ID, c.bodies[k], m.ID, m.Timestamp, c.first[k].Timestamp)
	}
	if m.Attempts != c.want[k] {
		c.fail("message %s (%s): attempts %d, want %d", m.ID, c.bodies[k], m.Attempts, c.want[k])
	}
	c.want[k] = m.Attempts + 1
	return true
}

// ack acknowledges message i, body k, which is then done.
func (c *queueChecker) ack(ev Event, i, k int) {
	if err := AckQueueMessage(ev, i); err != nil {
		c.fail("AckQueueMessage: %v", err)
	}
	c.done[k] = true
}

// handleAfter is the handler once every message is done: nothing may come.
func (c *queueChecker) handleAfter(ev Event) error {
	msgs, _ := checkQueueEvent(ev)
	for _, m := range msgs {
		if k := c.which(m); k >= 0 {
			c.fail("message %s delivered again after it was done", c.bodies[k])
		}
	}
	return nil
}

// checkQueueEvent checks one queue event's shape and returns its messages.
func checkQueueEvent(ev Event) ([]Message, []error) {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if ev == nil || ev.Kind() != EventQueue {
		fail("event kind is not %q", EventQueue)
		return nil, errs
	}
	b := ev.Batch()
	if b == nil {
		fail("queue event without a Batch")
		return nil, errs
	}
	msgs := b.Messages()
	again := b.Messages()
	if len(msgs) == 0 {
		fail("empty batch")
	}
	if len(again) != len(msgs) {
		fail("Messages gave %d messages, then %d", len(msgs), len(again))
	}
	seen := map[string]bool{}
	for i, m := range msgs {
		if i < len(again) && again[i].ID != m.ID {
			fail("Messages changed order: index %d was %s, then %s", i, m.ID, again[i].ID)
		}
		if m.ID == "" || seen[m.ID] {
			fail("message %d: ID %q empty or repeated", i, m.ID)
		}
		seen[m.ID] = true
		if m.Attempts < 1 {
			fail("message %s: attempts %d", m.ID, m.Attempts)
		}
		if m.Timestamp.IsZero() {
			fail("message %s: no timestamp", m.ID)
		}
		if _, ok := m.Body.(json.RawMessage); !ok {
			fail("message %s: body is a %T, not a json.RawMessage", m.ID, m.Body)
		}
	}
	if text, err := ReadQueueBatch(ev); err != nil || !json.Valid([]byte(text)) {
		fail("ReadQueueBatch: %v", err)
	}
	return msgs, errs
}

// describeBody words a message body for a checker's error.
func describeBody(body any) string {
	switch b := body.(type) {
	case json.RawMessage:
		return fmt.Sprintf("%.80q", b)
	case []byte:
		return fmt.Sprintf("[]byte %.80q", b)
	}
	return fmt.Sprintf("%T %.80v", body, body)
}
