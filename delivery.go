package hostbridge

// MemoryPlatform's delivery: one step (Deliver), the loop (Run), the batch a
// handler gets and how its outcome is applied. The semantics are in
// MemoryPlatform's doc.

import (
	"container/heap"
	"context"
	"fmt"
	"time"
)

// DeliveryResult is what one delivery step did, in the shape of Cloudflare's
// getQueueResult (outcome, explicitAcks, retryMessages) plus what the
// platform then did with each message. Every message of the batch is in
// exactly one of Acked, Retried, DeadLettered and Dropped.
type DeliveryResult struct {
	Queue string
	// Outcome is "ok" when the handler returned nil, "exception" when it
	// returned an error or panicked.
	Outcome string
	// Err is what the handler returned, or a *HandlerPanic.
	Err error
	// IDs are the messages of the batch, in order.
	IDs []string
	// ExplicitAcks are the messages the handler acked, in the order of the
	// calls that took effect.
	ExplicitAcks []string
	// RetryMessages are the messages the handler retried, in the order of
	// the first call, each with the delay of the last one (0: the default).
	RetryMessages []RetryMessage
	// Acked are the messages done.
	Acked []string
	// Retried are the messages scheduled again, with the delay applied.
	Retried []RetryMessage
	// DeadLettered are the messages moved to the dead-letter queue, with the
	// attempts they reached.
	DeadLettered []DeadLetter
	// Dropped are the messages dropped after MaxRetries.
	Dropped []string
}

// RetryMessage is one retried message (getQueueResult's retryMessages item).
type RetryMessage struct {
	ID           string
	DelaySeconds int
}

// DeadLetter is one message moved to a dead-letter queue.
type DeadLetter struct {
	ID       string
	Queue    string // the dead-letter queue
	Attempts int    // deliveries it had
}

// HandlerPanic is the error of a batch whose handler panicked: the panic
// failed the batch, as an uncaught exception does.
type HandlerPanic struct {
	Value any
	Stack []byte
}

// Error returns "hostbridge: queue handler panicked: " and the panic's
// value.
func (e *HandlerPanic) Error() string {
	return fmt.Sprintf("hostbridge: queue handler panicked: %v", e.Value)
}

// Outcomes of DeliveryResult, as workerd names them.
const (
	OutcomeOK        = "ok"        // the handler returned nil
	OutcomeException = "exception" // the handler returned an error or panicked
)

// Deliver hands the next ready batch of queue to handler as a queue Event,
// applies the outcome and returns what it did, with true; when no batch is
// ready it does nothing and returns false. It is one delivery step: a batch
// is ready when MaxBatchSize messages are ready, or when the oldest ready one
// has waited MaxBatchTimeout. A nil handler counts as one that returns nil.
// Several goroutines may deliver from one queue at once: each gets its own
// batch.
//
// With the default settings (DefaultConsumerSettings, Cloudflare's) fewer
// than 10 messages make a batch only once the oldest has been ready for 5 s:
// on a VirtualClock, Deliver returns false until Advance has moved the clock
// that far. A test that wants every ready message at once sets
// MaxBatchTimeout to 0 (SetConsumer). ExampleMemoryPlatform_Deliver shows
// both.
func (p *MemoryPlatform) Deliver(queue string, handler func(Event) error) (DeliveryResult, bool) {
	r, ok, _ := p.step(queue, handler)
	return r, ok
}

// Run delivers batches from queue to handler until ctx ends, waiting for the
// next ready batch in between (on a timer, or for Advance on a virtual
// clock). When ctx ends it takes no new batch: the batch in flight finishes
// (Run returns after its handler) and every other message stays queued. It
// returns ctx.Err().
func (p *MemoryPlatform) Run(ctx context.Context, queue string, handler func(Event) error) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, ok, w := p.step(queue, handler)
		if ok {
			continue
		}
		var tick <-chan time.Time
		if w.timed {
			if timer == nil {
				timer = time.NewTimer(w.after)
			} else {
				timer.Reset(w.after)
			}
			tick = timer.C
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.changed:
		case <-tick:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// wait says what an idle Run waits for.
type wait struct {
	changed <-chan struct{}
	timed   bool          // a real-clock timer is due
	after   time.Duration // when the next batch can be ready
}

// step is Deliver; when no batch is ready it also says what to wait for.
func (p *MemoryPlatform) step(queue string, handler func(Event) error) (DeliveryResult, bool, wait) {
	p.mu.Lock()
	q := p.queueLocked(queue)
	now := p.nowLocked()
	q.promote(now)
	n := q.batchLen(now)
	if n == 0 {
		w := wait{changed: p.changedLocked()}
		if next, ok := q.nextReady(); ok && !p.virtual {
			w.timed, w.after = true, max(next.Sub(now), 0)
		}
		p.mu.Unlock()
		return DeliveryResult{}, false, w
	}
	taken := make([]*memMsg, n)
	copy(taken, q.ready)
	clear(q.ready[:n])
	q.ready = q.ready[n:]
	msgs := make([]Message, n)
	for i, m := range taken {
		m.tries++
		msgs[i] = m.Message
	}
	b := NewBatchRecord(queue, msgs)
	q.inFlight += int64(n)
	q.stats.Delivered += int64(n)
	p.notifyLocked()
	p.mu.Unlock()

	err := b.Handle(handler) // Q4

	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.finishLocked(q, taken, b, err)
	p.notifyLocked()
	return r, true, wait{}
}

// finishLocked applies the outcome of a batch, message by message, as
// Settle says, and reports it.
func (p *MemoryPlatform) finishLocked(q *memQueue, taken []*memMsg, b *BatchRecord, err error) DeliveryResult {
	now := p.nowLocked()
	q.promote(now)
	r := DeliveryResult{Queue: q.name, Outcome: OutcomeOK, Err: err, IDs: make([]string, len(taken))}
	if err != nil {
		r.Outcome = OutcomeException // Q87
	}
	b.ReportCalls(&r)
	q.inFlight -= int64(len(taken))
	for i, m := range taken {
		r.IDs[i] = m.ID
		a, delay := Settle(b.Outcome(i), err, m.tries, q.settings)
		p.applyLocked(q, m, a, delay, now, &r)
	}
	return r
}

// applyLocked does a, what Settle said, to m, and reports it in r.
func (p *MemoryPlatform) applyLocked(q *memQueue, m *memMsg, a Action, delay int, now time.Time, r *DeliveryResult) {
	switch a {
	case ActionAck:
		q.stats.Acked++
		r.Acked = append(r.Acked, m.ID)
	case ActionRetry:
		m.Attempts++ // Q55
		q.push(m, now, delay)
		q.stats.Retried++
		r.Retried = append(r.Retried, RetryMessage{m.ID, delay})
	case ActionDeadLetter:
		dlq := q.settings.DeadLetterQueue
		d := p.queueLocked(dlq)
		d.promote(now)
		r.DeadLettered = append(r.DeadLettered, DeadLetter{ID: m.ID, Queue: dlq, Attempts: m.Attempts})
		q.stats.DeadLettered++
		// D29: a dead letter starts again at attempts 1, as Miniflare's
		// does; id, timestamp and body are kept.
		m.Attempts = 1
		m.tries = 0
		d.push(m, now, 0)
		d.stats.Sent++
	case ActionDrop:
		q.stats.Dropped++
		r.Dropped = append(r.Dropped, m.ID)
	}
}

// memMsg is a message on a queue.
type memMsg struct {
	Message
	readyAt time.Time // when it is (or was) ready for delivery
	tries   int       // deliveries from this queue
	seq     uint64    // tie-break: arrival order
}

// memQueue is one queue: ready messages oldest first, delayed ones by time.
type memQueue struct {
	name     string
	settings ConsumerSettings
	ready    []*memMsg
	delayed  msgHeap
	inFlight int64
	seq      uint64
	stats    QueueStats
}

// push adds m, ready at once or after delaySeconds.
func (q *memQueue) push(m *memMsg, now time.Time, delaySeconds int) {
	q.seq++
	m.seq = q.seq
	m.readyAt = now
	if delaySeconds > 0 { // Q24
		m.readyAt = now.Add(time.Duration(delaySeconds) * time.Second)
		heap.Push(&q.delayed, m)
		return
	}
	q.ready = append(q.ready, m)
}

// promote moves the delayed messages whose time has come to the ready ones,
// in time order. Every operation promotes before it adds, so the ready
// messages stay ordered by readyAt.
func (q *memQueue) promote(now time.Time) {
	for len(q.delayed) > 0 && !q.delayed[0].readyAt.After(now) {
		q.ready = append(q.ready, heap.Pop(&q.delayed).(*memMsg))
	}
}

// batchLen is the size of the batch ready now, 0 when none is.
func (q *memQueue) batchLen(now time.Time) int {
	n, s := len(q.ready), q.settings
	switch {
	case n >= s.MaxBatchSize:
		return s.MaxBatchSize
	case n > 0 && now.Sub(q.ready[0].readyAt) >= s.MaxBatchTimeout:
		return n
	}
	return 0
}

// nextReady is the earliest time a batch may become ready, when something
// is queued.
func (q *memQueue) nextReady() (time.Time, bool) {
	var t time.Time
	ok := false
	if len(q.ready) > 0 {
		t, ok = q.ready[0].readyAt.Add(q.settings.MaxBatchTimeout), true
	}
	if len(q.delayed) > 0 && (!ok || q.delayed[0].readyAt.Before(t)) {
		t, ok = q.delayed[0].readyAt, true
	}
	return t, ok
}

func (q *memQueue) snapshot(now time.Time) QueueStats {
	q.promote(now)
	s := q.stats
	s.InFlight = q.inFlight
	s.Ready = int64(len(q.ready))
	s.Pending = int64(len(q.ready)+len(q.delayed)) + q.inFlight
	return s
}

// msgHeap orders delayed messages by readyAt, then arrival.
type msgHeap []*memMsg

func (h msgHeap) Len() int { return len(h) }
func (h msgHeap) Less(i, j int) bool {
	if !h[i].readyAt.Equal(h[j].readyAt) {
		return h[i].readyAt.Before(h[j].readyAt)
	}
	return h[i].seq < h[j].seq
}
func (h msgHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *msgHeap) Push(x any)   { *h = append(*h, x.(*memMsg)) }
func (h *msgHeap) Pop() any {
	old := *h
	m := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return m
}
