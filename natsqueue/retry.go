package natsqueue

import (
	"errors"
	"strconv"
	"sync"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go/jetstream"
)

// retryCopy is a message to retry: m as delivered, as the handler saw it,
// its deliveries from the queue, its delay.
type retryCopy struct {
	m     jetstream.Msg
	hm    hostbridge.Message
	tries int
	delay int // seconds
}

// storeRetries stores, for each retried message, a copy with attempts + 1
// that is due after its delay: a schedule on the stream, as a delayed send
// is, so that it never comes back early, whatever restarts, crashes or
// fails over; a delay of 0 goes straight to ready. It returns the acks of
// the originals, to send once the copies are stored (a host that dies in
// between leaves both: at least once). A copy's publish ID names the
// original's stream sequence, so the original coming back and failing
// again stores no second copy. A copy the server did not take falls back
// to a nak with the delay.
func (p *Platform) storeRetries(q *queueState, rs []retryCopy) []func() error {
	if len(rs) == 0 {
		return nil
	}
	ctx, cancel := p.ctx()
	defer cancel()
	futures := make([]jetstream.PubAckFuture, len(rs))
	for i, rc := range rs {
		msg, opts := q.names.natsMsg(retryOf(rc, p.retryUnit))
		f, err := p.js.PublishMsgAsync(msg, opts...)
		if err != nil {
			p.log().Warn("natsqueue: retry copy (nak instead)", "queue", q.name, "id", rc.hm.ID, "err", err)
			continue
		}
		futures[i] = f
	}
	acts := make([]func() error, len(rs))
	for i, rc := range rs {
		acts[i] = p.retry(rc.m, rc.delay)
		if futures[i] == nil {
			continue
		}
		if _, err := waitAcks(ctx, futures[i:i+1]); err != nil {
			p.log().Warn("natsqueue: retry copy (nak instead)", "queue", q.name, "id", rc.hm.ID, "err", err)
			continue
		}
		acts[i] = p.ackSync(rc.m)
	}
	return acts
}

// ackSync is the ack of m, done once the server answers: an original whose
// retry or dead-letter copy is stored, or that is dropped, must not come
// back after a clean Close (a plain ack the server had not read yet is lost
// with the connection).
func (p *Platform) ackSync(m jetstream.Msg) func() error {
	return func() error {
		ctx, cancel := p.ctx()
		defer cancel()
		return m.DoubleAck(ctx)
	}
}

// retryOf is the copy of rc that retries it, with a delay's second unit
// long.
func retryOf(rc retryCopy, unit time.Duration) outMsg {
	h := rc.m.Headers()
	o := outMsg{id: rc.hm.ID, sentAt: rc.hm.Timestamp, attempts: rc.hm.Attempts + 1, tries: rc.tries,
		body: rc.m.Data(), ctype: h.Get(hdrType), delay: time.Duration(rc.delay) * unit}
	if md, err := rc.m.Metadata(); err == nil {
		seq := strconv.FormatUint(md.Sequence.Stream, 10)
		o.dedupe, o.retryOf = "rt:"+md.Stream+":"+seq, seq
	}
	return o
}

// retry is the nak of m with a delay.
func (p *Platform) retry(m jetstream.Msg, delaySeconds int) func() error {
	if delaySeconds == 0 {
		return m.Nak
	}
	return func() error { return m.NakWithDelay(time.Duration(delaySeconds) * p.retryUnit) }
}

// dropOriginals removes from the stream, before a retry copy in msgs
// reaches a handler, the original it retries: normally the original is
// gone (acked once the copy was stored) and the server says so, but a host
// that died between the copy and the ack left it, to come back with fewer
// attempts, maybe after the copy. An original in msgs itself is left out
// of the batch. It returns the rest of msgs.
func (p *Platform) dropOriginals(q *queueState, msgs []jetstream.Msg) []jetstream.Msg {
	stale := map[uint64]bool{}
	var wg sync.WaitGroup
	for _, m := range msgs {
		seq, err := strconv.ParseUint(m.Headers().Get(hdrRetryOf), 10, 64)
		if err != nil {
			continue
		}
		stale[seq] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := p.ctx()
			defer cancel()
			err := q.stream.DeleteMsg(ctx, seq)
			if err != nil && !errors.Is(err, jetstream.ErrMsgDeleteUnsuccessful) { // unsuccessful: gone already
				p.log().Warn("natsqueue: removing a retried original", "queue", q.name, "seq", seq, "err", err)
			}
		}()
	}
	wg.Wait()
	if len(stale) == 0 {
		return msgs
	}
	out := msgs[:0:0]
	for _, m := range msgs {
		if md, err := m.Metadata(); err != nil || !stale[md.Sequence.Stream] {
			out = append(out, m)
		}
	}
	return out
}
