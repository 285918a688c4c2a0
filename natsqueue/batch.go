package natsqueue

import (
	"sync"

	"hostbridge"
)

// batch is the hostbridge.Batch of one delivery: it records what the
// handler asked for each message, with MemoryPlatform's rules (between ack
// and retry the first call wins, a second retry replaces the delay, calls
// after the handler returned are ignored). The Platform applies it when the
// handler has returned. Its methods are safe for concurrent use.
type batch struct {
	queue   string
	msgs    []hostbridge.Message
	mu      sync.Mutex
	state   []msgState
	acks    int32 // explicit acks that took effect
	retries int32 // messages explicitly retried
	closed  bool
}

// msgState is what the handler asked for one message.
type msgState struct {
	kind  uint8 // stateNone, stateAcked, stateRetried
	order int32 // of the first call among the acks or the retries
	delay int   // the last retry's delay
}

const (
	stateNone uint8 = iota
	stateAcked
	stateRetried
)

// event is the queue Event of one delivery.
type event struct{ b *batch }

func (e event) Kind() string                { return hostbridge.KindQueue }
func (e event) Request() hostbridge.Request { return nil }
func (e event) Batch() hostbridge.Batch     { return e.b }

func (b *batch) Queue() string { return b.queue }

// Messages returns the same slice on every call; callers must not modify it.
func (b *batch) Messages() []hostbridge.Message { return b.msgs }

// Ack marks message i done, unless it was retried in this event.
func (b *batch) Ack(i int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || i < 0 || i >= len(b.state) || b.state[i].kind != stateNone {
		return
	}
	b.state[i] = msgState{kind: stateAcked, order: b.acks}
	b.acks++
}

// Retry asks for message i again after delaySeconds (0: the queue's
// RetryDelay), unless it was acked in this event; a second Retry replaces
// the delay. An index or delay out of range is ignored.
func (b *batch) Retry(i, delaySeconds int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || i < 0 || i >= len(b.state) || delaySeconds < 0 || delaySeconds > hostbridge.MaxDelaySeconds {
		return
	}
	switch b.state[i].kind {
	case stateAcked:
		return
	case stateNone:
		b.state[i] = msgState{kind: stateRetried, order: b.retries}
		b.retries++
	}
	b.state[i].delay = delaySeconds
}

// close ends the event: later calls are ignored.
func (b *batch) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
}

// calls fills r's ExplicitAcks and RetryMessages from the recorded calls.
func (b *batch) calls(r *hostbridge.DeliveryResult) {
	if b.acks > 0 {
		r.ExplicitAcks = make([]string, b.acks)
	}
	if b.retries > 0 {
		r.RetryMessages = make([]hostbridge.RetryMessage, b.retries)
	}
	for i, st := range b.state {
		switch st.kind {
		case stateAcked:
			r.ExplicitAcks[st.order] = b.msgs[i].ID
		case stateRetried:
			r.RetryMessages[st.order] = hostbridge.RetryMessage{ID: b.msgs[i].ID, DelaySeconds: st.delay}
		}
	}
}
