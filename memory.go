package hostbridge

import (
	"container/heap"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"
	"time"
)

// MemoryPlatform is an in-memory Platform with working queues: the embedded
// default of a Go host and the fake of tests. It is safe for concurrent use
// by any number of producers and consumers.
//
// A binding is Bound only when it is both granted to the app (Grant, as the
// host's permission {"QUEUE":["PAGE_QUEUE"]} does) and configured (Bind, as a
// deployment's queue binding is).
//
// # Delivery semantics
//
// The platform is modelled on Cloudflare Queues and on what workerd and
// Miniflare do locally:
//
//   - An accepted Send or SendBatch enqueues each message with a new unique
//     ID, the platform clock's time as Timestamp, Attempts 1 and the
//     canonical JSON text as a json.RawMessage Body. A message with
//     DelaySeconds becomes ready that many seconds later.
//   - Each queue has ConsumerSettings (SetConsumer; Cloudflare's defaults
//     otherwise). A batch is ready when MaxBatchSize messages are ready, or
//     when the oldest ready message has waited MaxBatchTimeout; Deliver hands
//     it to a handler as one queue Event.
//   - Handler returns nil: every message it retried (Batch.Retry) comes back
//     after its delay with Attempts+1; every other message is done, whether
//     it was acked explicitly or not.
//   - Handler returns an error or panics (a panic is caught: it fails the
//     batch and never crashes the host): the whole batch comes back with
//     Attempts+1 after RetryDelay (or a message's own retry delay).
//     Explicitly acked messages are done, as Cloudflare promises — unless
//     RedeliverAcked is set, which redelivers them too, as Miniflare does.
//   - Between Ack and Retry of one message in one event the first call wins;
//     a second Retry replaces the first one's delay (workerd does the same).
//     Calls after the handler returned are ignored.
//   - A message that fails after MaxRetries redeliveries (MaxRetries+1
//     deliveries from this queue) goes to the DeadLetterQueue, keeping its
//     ID, Timestamp and Body and starting again at Attempts 1, as Miniflare
//     does; without one it is dropped and counted in QueueStats.Dropped.
//
// What becomes of each message once the handler has returned is Settle's
// to say; MemoryPlatform and natsqueue both call it.
//
// Time comes from the platform clock: the real one, or a virtual one
// (VirtualClock) that moves only by Advance, so tests never sleep. Deliver
// is one delivery step; Run is the loop a host runs, on the same code path.
// Stats and Snapshot give counters for a host's /stats page; Calls records
// the producer calls (the last DefaultCallLimit unless SetCallLimit says
// otherwise).
//
// # Where it differs from production
//
// It is one process and memory only: messages are lost when the process
// ends, and nothing is shared between processes. Ordering is best effort
// (ready messages are delivered oldest first, but a retried message goes to
// the back). There are no size or rate limits of its own beyond what the
// package checks, no per-event time limit (a handler that never returns holds
// its batch forever), no content types other than json, and no ackAll or
// retryAll. Each queue has its consumer settings, not one per consumer
// Worker. Message IDs are 32 hex digits, unique per platform and random
// across processes, like Cloudflare's.
type MemoryPlatform struct {
	Bindings // Bind, Grant, GrantJSON, Bound

	mu       sync.Mutex
	calls    callRing
	failNext []string

	queues  map[string]*memQueue
	virtual bool
	base    time.Time     // the virtual clock's start
	offset  time.Duration // what Advance added
	idBase  string        // 16 hex digits, random per platform
	seq     uint64        // message sequence number
	changed chan struct{} // closed and cleared on every change, when someone waits
}

// Call records one Send or SendBatch the platform received, accepted or not.
type Call struct {
	Method   string // "send" or "sendBatch"
	Binding  string
	Messages []BatchMessage // one for send
	Err      string         // the reason it failed with, "" when accepted
}

var _ Platform = (*MemoryPlatform)(nil)

// NewMemoryPlatform returns an empty platform on the real clock: no queues,
// no bindings, no grants.
func NewMemoryPlatform() *MemoryPlatform {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &MemoryPlatform{
		calls:  callRing{limit: DefaultCallLimit},
		queues: map[string]*memQueue{},
		idBase: hex.EncodeToString(b[:]),
	}
}

// FailNext makes the next Send or SendBatch fail with reason, such as
// "Queue is full", enqueueing nothing. Several calls queue up, one per call.
func (p *MemoryPlatform) FailNext(reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failNext = append(p.failNext, reason)
}

// DefaultCallLimit is how many calls the record of a new MemoryPlatform
// keeps: the last 1000, so a long-running host's record stays bounded.
const DefaultCallLimit = 1000

// Calls returns a copy of the Send and SendBatch calls recorded, oldest
// first: the last DefaultCallLimit calls, or the last n after
// SetCallLimit(n).
func (p *MemoryPlatform) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls.all()
}

// SetCallLimit makes the record keep the last n calls (DefaultCallLimit
// until it is called), dropping the oldest ones beyond n now; n = 0 records
// nothing and n < 0 keeps every call, without bound. Recording a call costs
// the same at any n.
func (p *MemoryPlatform) SetCallLimit(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls.setLimit(n)
}

// callRing is the record of calls: the last limit of them (every one when
// limit < 0), in a ring once it is full, so adding one is O(1) at any limit
// (trimming a slice by copying cost O(limit) per call).
type callRing struct {
	buf   []Call // the calls; once len(buf) == limit, a ring whose oldest is at start
	start int
	limit int
}

// add records c, replacing the oldest call when the ring is full.
func (r *callRing) add(c Call) {
	switch {
	case r.limit == 0:
	case r.limit < 0 || len(r.buf) < r.limit:
		r.buf = append(r.buf, c)
	default:
		r.buf[r.start] = c
		r.start = (r.start + 1) % len(r.buf)
	}
}

// all returns a copy of the calls, oldest first.
func (r *callRing) all() []Call {
	out := make([]Call, 0, len(r.buf))
	out = append(out, r.buf[r.start:]...)
	return append(out, r.buf[:r.start]...)
}

// setLimit keeps the last n calls (all when n < 0) and records up to n.
func (r *callRing) setLimit(n int) {
	calls := r.all()
	if n >= 0 && len(calls) > n {
		calls = append([]Call(nil), calls[len(calls)-n:]...) // let the dropped ones go
	}
	r.buf, r.start, r.limit = calls, 0, n
}

// Send implements Platform: it enqueues one message on the binding's queue.
// It fails, enqueueing nothing, for a binding that is not configured, after
// FailNext, and for a delay outside 0…MaxDelaySeconds (the spec's range,
// D17; Cloudflare now takes up to 86400, PLATFORMS.md); it does not check
// grants (Bound does). A ctx that has ended fails it with ctx.Err(),
// unrecorded: the call never reached the queue.
func (p *MemoryPlatform) Send(ctx context.Context, binding string, body []byte, opts SendOptions) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m := BatchMessage{Body: append([]byte(nil), body...), ContentType: opts.ContentType, DelaySeconds: opts.DelaySeconds}
	return p.record("send", binding, []BatchMessage{m})
}

// SendBatch implements Platform: it enqueues every message, in order, or
// none; a ctx that has ended fails it as it fails Send.
func (p *MemoryPlatform) SendBatch(ctx context.Context, binding string, msgs []BatchMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	own := make([]BatchMessage, len(msgs))
	for i, m := range msgs {
		own[i] = m
		own[i].Body = append([]byte(nil), m.Body...)
	}
	return p.record("sendBatch", binding, own)
}

func (p *MemoryPlatform) record(method, binding string, msgs []BatchMessage) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := Call{Method: method, Binding: binding, Messages: msgs}
	queue, ok := p.Queue(binding)
	if !ok {
		c.Err = "binding " + binding + " is not configured"
	} else if len(p.failNext) > 0 {
		c.Err, p.failNext = p.failNext[0], p.failNext[1:]
	} else {
		for _, m := range msgs {
			if !delayInRange(m.DelaySeconds) {
				c.Err = "delaySeconds " + strconv.Itoa(m.DelaySeconds) + " is out of range"
				break
			}
		}
	}
	p.calls.add(c)
	if c.Err != "" {
		return errors.New(c.Err)
	}
	q := p.queueLocked(queue)
	now := p.nowLocked()
	q.promote(now)
	for _, m := range msgs {
		q.push(&memMsg{Message: Message{ID: p.newIDLocked(), Timestamp: now, Attempts: 1, Body: BodyValue(m.ContentType, m.Body)}}, now, m.DelaySeconds)
		q.stats.Sent++
	}
	p.notifyLocked()
	return nil
}

// Enqueue puts m on queue directly, as another producer of the deployment
// would, and returns its ID. An empty ID gets a new one, a zero Timestamp
// the clock's time, Attempts below 1 become 1; Body is what consumers get,
// so any Go value other than json.RawMessage is a message that is not JSON
// (a structured-clone Date, Map, bytes, …). The delay is clamped to
// 0…MaxDelaySeconds.
func (p *MemoryPlatform) Enqueue(queue string, m Message, delaySeconds int) string {
	delaySeconds = min(max(delaySeconds, 0), MaxDelaySeconds)
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queueLocked(queue)
	now := p.nowLocked()
	q.promote(now)
	if m.ID == "" {
		m.ID = p.newIDLocked()
	}
	if m.Timestamp.IsZero() {
		m.Timestamp = now
	}
	if m.Attempts < 1 {
		m.Attempts = 1
	}
	q.push(&memMsg{Message: m}, now, delaySeconds)
	q.stats.Sent++
	p.notifyLocked()
	return m.ID
}

// Queued returns the messages waiting on queue, not those in flight, in the
// order they would be delivered (the ready ones, then the delayed ones by
// time).
func (p *MemoryPlatform) Queued(queue string) []Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queues[queue]
	if q == nil {
		return nil
	}
	q.promote(p.nowLocked())
	out := make([]Message, 0, len(q.ready)+len(q.delayed))
	for _, m := range q.ready {
		out = append(out, m.Message)
	}
	delayed := append(msgHeap(nil), q.delayed...)
	for len(delayed) > 0 {
		out = append(out, heap.Pop(&delayed).(*memMsg).Message)
	}
	return out
}

// SetConsumer sets the consumer settings of queue, or returns an error and
// changes nothing when one is out of range (CheckConsumerSettings). They
// apply from the next delivery step on.
func (p *MemoryPlatform) SetConsumer(queue string, s ConsumerSettings) error {
	if err := CheckConsumerSettings(queue, s); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queueLocked(queue).settings = s
	p.notifyLocked()
	return nil
}

// Consumer returns the consumer settings of queue.
func (p *MemoryPlatform) Consumer(queue string) ConsumerSettings {
	p.mu.Lock()
	defer p.mu.Unlock()
	if q := p.queues[queue]; q != nil {
		return q.settings
	}
	return DefaultConsumerSettings()
}

// VirtualClock stops the platform clock at start: from now on it moves only
// by Advance, and Run waits for Advance or a send instead of a timer.
func (p *MemoryPlatform) VirtualClock(start time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.virtual, p.base, p.offset = true, start, 0
	p.notifyLocked()
}

// Advance moves the platform clock forward by d (a negative d is ignored).
// On the real clock it adds d to the real time.
func (p *MemoryPlatform) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.offset += d
	now := p.nowLocked()
	for _, q := range p.queues {
		q.promote(now)
	}
	p.notifyLocked()
}

// Now returns the platform clock's time.
func (p *MemoryPlatform) Now() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nowLocked()
}

func (p *MemoryPlatform) nowLocked() time.Time {
	if p.virtual {
		return p.base.Add(p.offset)
	}
	return time.Now().Add(p.offset)
}

func (p *MemoryPlatform) newIDLocked() string {
	p.seq++
	var b [32]byte
	copy(b[:16], p.idBase)
	s := strconv.AppendUint(b[16:16], p.seq, 16)
	n := len(s)
	copy(b[32-n:], s)
	for i := 16; i < 32-n; i++ {
		b[i] = '0'
	}
	return string(b[:])
}

func (p *MemoryPlatform) queueLocked(name string) *memQueue {
	q := p.queues[name]
	if q == nil {
		q = &memQueue{name: name, settings: DefaultConsumerSettings()}
		p.queues[name] = q
	}
	return q
}

// notifyLocked wakes every waiter (Run, Wait): something changed.
func (p *MemoryPlatform) notifyLocked() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

func (p *MemoryPlatform) changedLocked() <-chan struct{} {
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

// QueueStats are the counters of one queue. At any time
// Sent = Acked + DeadLettered + Dropped + Pending.
type QueueStats struct {
	Sent         int64 `json:"sent"`         // messages that entered the queue: sends, Enqueue, dead letters of other queues
	Delivered    int64 `json:"delivered"`    // deliveries, each attempt counted
	Acked        int64 `json:"acked"`        // messages done: acked explicitly or by a handler that returned nil
	Retried      int64 `json:"retried"`      // redeliveries scheduled: explicit retries and failed batches
	DeadLettered int64 `json:"deadLettered"` // messages moved to the dead-letter queue
	Dropped      int64 `json:"dropped"`      // messages dropped after MaxRetries, no dead-letter queue
	Pending      int64 `json:"pending"`      // messages on the queue now, in flight included
	InFlight     int64 `json:"inFlight"`     // messages in a batch a handler holds now
	Ready        int64 `json:"ready"`        // messages ready for delivery now, not in flight
}

// Stats returns a snapshot of queue's counters.
func (p *MemoryPlatform) Stats(queue string) QueueStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queues[queue]
	if q == nil {
		return QueueStats{}
	}
	return q.snapshot(p.nowLocked())
}

// Snapshot returns the counters of every queue, by name (for a /stats page:
// it encodes with encoding/json as is).
func (p *MemoryPlatform) Snapshot() map[string]QueueStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.nowLocked()
	out := make(map[string]QueueStats, len(p.queues))
	for name, q := range p.queues {
		out[name] = q.snapshot(now)
	}
	return out
}

// Wait blocks until cond reports true, or ctx ends (then it returns
// ctx.Err()). It evaluates cond at once and again after every change of the
// platform (a send, a delivery, a result, Advance); cond runs without the
// platform's lock held, so it may call Stats and the like.
func (p *MemoryPlatform) Wait(ctx context.Context, cond func() bool) error {
	for {
		p.mu.Lock()
		ch := p.changedLocked()
		p.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}
