package hostbridge

import (
	"runtime/debug"
	"sync"
)

// BatchRecord is a Batch for Platform implementers: the platform hands one
// to the handler of each delivery (Handle, which closes it when the handler
// returns), then settles each message by its Outcome (Settle) and reports
// the calls (ReportCalls). It keeps the rules every platform must follow
// (MemoryPlatform's and natsqueue's delivery both use it):
//   - between Ack and Retry of one message the first call wins;
//   - a second Retry of a message replaces the delay of the first;
//   - an index out of range, or a delay outside 0…MaxDelaySeconds, is
//     ignored;
//   - every call after Close is ignored.
//
// Its methods are safe for concurrent use. A platform should not build its
// own Batch for a delivery: its acks and retries would then follow other
// rules than MemoryPlatform's.
type BatchRecord struct {
	queue   string
	msgs    []Message
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

// NewBatchRecord returns the record of one delivery of msgs from queue, with
// no call made yet. It keeps msgs: the caller must not modify it afterwards.
func NewBatchRecord(queue string, msgs []Message) *BatchRecord {
	return &BatchRecord{queue: queue, msgs: msgs, state: make([]msgState, len(msgs))}
}

// Queue returns the name of the queue the messages came from.
func (b *BatchRecord) Queue() string { return b.queue }

// Messages returns the same slice on every call; callers must not modify it.
func (b *BatchRecord) Messages() []Message { return b.msgs }

// Ack marks message i done, unless it was retried in this event (the first
// call wins). An index out of range is ignored.
func (b *BatchRecord) Ack(i int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || i < 0 || i >= len(b.state) || b.state[i].kind != stateNone { // Q67
		return
	}
	b.state[i] = msgState{kind: stateAcked, order: b.acks}
	b.acks++
}

// Retry asks for message i again after delaySeconds (0: the queue's
// RetryDelay), unless it was acked in this event (the first call wins); a
// second Retry replaces the delay. An index or delay out of range is ignored.
func (b *BatchRecord) Retry(i, delaySeconds int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || i < 0 || i >= len(b.state) || !delayInRange(delaySeconds) {
		return
	}
	switch b.state[i].kind {
	case stateAcked: // Q61
		return
	case stateNone:
		b.state[i] = msgState{kind: stateRetried, order: b.retries}
		b.retries++
	}
	b.state[i].delay = delaySeconds
}

// Handle hands b to handler as one queue Event, closes b when the handler
// returns, and returns what the handler returned: a panic in the handler
// is caught and returned as a *HandlerPanic, failing the batch as an
// uncaught exception does. A nil handler returns nil.
func (b *BatchRecord) Handle(handler func(Event) error) (err error) {
	defer b.Close()
	if handler == nil {
		return nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = &HandlerPanic{Value: v, Stack: debug.Stack()}
		}
	}()
	return handler(recordEvent{b})
}

// recordEvent is the queue Event of one delivery.
type recordEvent struct{ b *BatchRecord }

func (e recordEvent) Kind() string     { return EventQueue } // Q3
func (e recordEvent) Request() Request { return nil }
func (e recordEvent) Batch() Batch     { return e.b }

// Close ends the event: every later Ack and Retry is ignored.
func (b *BatchRecord) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true // Q52
}

// Outcome returns what the handler asked for message i (untouched for an
// index out of range). A platform should read it only after Close.
func (b *BatchRecord) Outcome(i int) MessageOutcome {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i < 0 || i >= len(b.state) {
		return MessageOutcome{}
	}
	st := b.state[i]
	return MessageOutcome{Acked: st.kind == stateAcked, Retried: st.kind == stateRetried, DelaySeconds: st.delay}
}

// ReportCalls fills r's ExplicitAcks and RetryMessages with the calls that
// took effect, in the order of their first call, each retry with its last
// delay. A platform should call it only after Close.
func (b *BatchRecord) ReportCalls(r *DeliveryResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.acks > 0 {
		r.ExplicitAcks = make([]string, b.acks)
	}
	if b.retries > 0 {
		r.RetryMessages = make([]RetryMessage, b.retries)
	}
	for i, st := range b.state {
		switch st.kind {
		case stateAcked:
			r.ExplicitAcks[st.order] = b.msgs[i].ID
		case stateRetried:
			r.RetryMessages[st.order] = RetryMessage{b.msgs[i].ID, st.delay}
		}
	}
}
