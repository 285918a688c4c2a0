package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrQueueFull is the reason Send and SendBatch refuse messages that would
// take a queue over its MaxPending (SetLimits).
var ErrQueueFull = errors.New("queue is full: too many messages pending")

// SetLimits bounds queue from now on: Send and SendBatch refuse, with
// ErrQueueFull and sending nothing, messages that would take it over
// maxPending messages (0: no bound; see reserve: this Platform never takes
// it over, producers elsewhere may); and its stream keeps at most maxMsgs
// messages, discarding the oldest (0: no bound): for a dead-letter queue
// nobody consumes. Stats counts the discarded ones as Dropped, also once
// the bound is lifted. Its calls to the server end with ctx or after
// Options.Timeout; the first for a queue creates its stream and consumer.
func (p *Platform) SetLimits(ctx context.Context, queue string, maxPending, maxMsgs int) error {
	if maxPending < 0 || maxMsgs < 0 {
		return errors.New(msgNegativeLimits)
	}
	p.mu.Lock()
	p.limits[queue] = queueLimits{maxPending: int64(maxPending), maxMsgs: int64(maxMsgs)}
	p.mu.Unlock()
	q, err := p.ensureQueue(ctx, queue)
	if err != nil {
		return err
	}
	uctx, cancel := p.callCtx(ctx)
	defer cancel()
	if _, err := p.js.UpdateStream(uctx, p.streamConfig(q.names, int64(maxMsgs))); err != nil {
		return fmt.Errorf("stream %s: %w", q.names.stream, err)
	}
	if maxMsgs == 0 && q.limited.Load() {
		p.keepDiscarded(ctx, q)
	}
	q.limited.Store(maxMsgs > 0)
	return nil
}

// keepDiscarded counts as Dropped for good the messages q's stream
// discarded to keep within its bound, which is being lifted: Stats finds
// them only while q is bounded.
func (p *Platform) keepDiscarded(ctx context.Context, q *queueState) {
	q.forgetPending()
	var d [nCounters]int64
	d[cDropped] = p.Stats(ctx, q.name).Dropped - q.counts[cDropped].Load()
	if d[cDropped] > 0 {
		p.count(q, d)
	}
}

type queueLimits struct{ maxPending, maxMsgs int64 }

// forgetPending makes the next pending read q's stream size again.
func (q *queueState) forgetPending() {
	q.pmu.Lock()
	q.pendingAt = time.Time{}
	q.pmu.Unlock()
}

// countSentStored counts as sent a message q's stream holds already (a
// send found stored after it failed) and makes the next pending read the
// stream's size again, both under pmu: a size read since the send failed
// holds the message, and counting it as sent after that read would count
// it twice (a MaxPending of 2 refused the second send of a queue holding
// one).
func (p *Platform) countSentStored(q *queueState) {
	q.pmu.Lock()
	defer q.pmu.Unlock()
	p.countSent(q, 1)
	q.pendingAt = time.Time{}
}

// pendingCache is how long a queue's stream size is reused.
const pendingCache = 100 * time.Millisecond

// pending is the number of messages on q's stream (ready, delayed, in
// flight, waiting for a retry), read at most every pendingCache, plus the
// messages sent since; when the read fails, the last size read plus the
// messages sent since, with the error.
func (p *Platform) pending(ctx context.Context, q *queueState) (int64, error) {
	q.pmu.Lock()
	defer q.pmu.Unlock()
	return p.pendingLocked(ctx, q)
}

// pendingLocked is pending with q.pmu held. The send count is read before
// the stream's size: a message stored in between is counted twice (the
// bound errs on the safe side), never not at all.
func (p *Platform) pendingLocked(ctx context.Context, q *queueState) (int64, error) {
	if time.Since(q.pendingAt) > pendingCache {
		ctx, cancel := p.callCtx(ctx)
		defer cancel()
		sent := q.counts[cSent].Load()
		info, err := q.stream.Info(ctx)
		if err != nil { // the last size read, with the sends since
			return q.pendingVal + q.counts[cSent].Load() - q.pendingSent, err
		}
		q.pendingVal, q.pendingAt, q.pendingSent = int64(info.State.Msgs), time.Now(), sent
	}
	return q.pendingVal + q.counts[cSent].Load() - q.pendingSent, nil
}

// reserve takes room for n messages on q within its MaxPending, or fails
// with ErrQueueFull. Until release, the room counts as pending, so that
// concurrent sends of this Platform never take q over its bound together;
// release(stored) gives it back once the stored messages are counted as
// sent, and forgets the cached size when the send failed (some may be
// stored all the same).
func (p *Platform) reserve(ctx context.Context, q *queueState, n int) (release func(failed bool), err error) {
	p.mu.Lock()
	limit := p.limits[q.name].maxPending
	p.mu.Unlock()
	if limit <= 0 {
		return func(bool) {}, nil
	}
	q.pmu.Lock()
	defer q.pmu.Unlock()
	pend, err := p.pendingLocked(ctx, q)
	if err != nil {
		return nil, err
	}
	if pend+q.reserved+int64(n) > limit {
		p.countOne(q, cRefusedFull, 1)
		return nil, ErrQueueFull
	}
	q.reserved += int64(n)
	return func(failed bool) {
		q.pmu.Lock()
		defer q.pmu.Unlock()
		q.reserved -= int64(n)
		if failed {
			q.pendingAt = time.Time{}
		}
	}, nil
}
