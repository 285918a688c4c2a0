package natsqueue

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go"
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

// The patience of a retry copy's publish: it is published again, with the
// same publish ID, until the server confirms it or retryPatience times
// Options.Timeout have passed, retryPause apart.
const (
	retryPatience = 5
	retryPause    = 250 * time.Millisecond
)

// storeRetries stores, for each retried message, a copy with attempts + 1
// that is due after its delay: a schedule on the stream, as a delayed send
// is, so that it never comes back early, whatever restarts, crashes or
// fails over; a delay of 0 goes straight to ready. It returns the acks of
// the originals, to send once the copies are stored (a host that dies in
// between leaves both: at least once). A copy's publish ID names the
// original's stream sequence, so the original coming back and failing
// again stores no second copy.
func (p *Platform) storeRetries(q *queueState, rs []retryCopy) []func() error {
	acts := make([]func() error, len(rs))
	var wg sync.WaitGroup
	for i, rc := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acts[i] = p.storeRetry(q, rc)
		}()
	}
	wg.Wait()
	return acts
}

// storeRetry stores rc's copy and returns the ack of its original. A copy
// the server has not confirmed within the patience (it may have stored it
// or not) or has refused falls back to a nak of the original with the
// delay: it comes back no sooner than the copy would, and then its copy is
// published again before anything else (see dropCopied).
func (p *Platform) storeRetry(q *queueState, rc retryCopy) func() error {
	o := retryOf(rc, p.retryUnit)
	msg, opts := q.names.natsMsg(o)
	if _, _, err := p.publishConfirmed(o.dedupe, msg, opts); err != nil {
		p.log().Warn("natsqueue: retry copy (nak instead)", "queue", q.name, "id", rc.hm.ID, "err", err)
		p.markRetried(o.dedupe, &retryMark{msg: msg, opts: opts, delay: rc.delay})
		return p.retry(rc.m, rc.delay)
	}
	p.markRetried(o.dedupe, &retryMark{stored: true})
	return p.ackOriginal(o.dedupe, rc.m)
}

// retryMark is what the host knows of a retried original that may still be
// in the stream: its copy is stored (the original's ack was not
// confirmed; so too for one dead-lettered or dropped), or its copy's
// publish went unanswered (msg, to publish it again with the same publish
// ID; delay, to nak the original with).
type retryMark struct {
	stored bool
	msg    *nats.Msg
	opts   []jetstream.PublishOpt
	delay  int
}

// markRetried notes mark under a copy's publish ID key ("" : none).
func (p *Platform) markRetried(key string, mark *retryMark) {
	if key == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retried[key] = mark
}

// ackOriginal is the ack of m, the original of the copy key, waiting for
// the server; once it answers, the original is gone and forgotten.
func (p *Platform) ackOriginal(key string, m jetstream.Msg) func() error {
	ack := p.ackSync(m)
	return func() error {
		err := ack()
		if err == nil || errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
			p.mu.Lock()
			delete(p.retried, key)
			p.mu.Unlock()
		}
		return err
	}
}

// dropCopied leaves out of msgs, for the host not to hand a message over
// twice, the originals it retried that came back: one whose copy is stored
// (or that it dead-lettered or dropped) is acked (its ack was lost); one whose copy's publish went unanswered
// gets it published again, then is acked, or nak'd with its delay again
// when the server still does not confirm it. It returns the rest of msgs.
func (p *Platform) dropCopied(q *queueState, msgs []jetstream.Msg) []jetstream.Msg {
	out := msgs[:0:0]
	var acts []func() error
	for _, m := range msgs {
		key := copyKey(m)
		p.mu.Lock()
		mark := p.retried[key]
		p.mu.Unlock()
		if key == "" || mark == nil {
			out = append(out, m)
			continue
		}
		acts = append(acts, func() error {
			if !mark.stored {
				if _, _, err := p.publishConfirmed(key, mark.msg, mark.opts); err != nil {
					return p.retry(m, mark.delay)()
				}
			}
			p.markRetried(key, &retryMark{stored: true})
			return p.ackOriginal(key, m)()
		})
	}
	p.apply(q, acts)
	return out
}

// copyKey is the publish ID of m's retry copy ("" when m has no metadata).
func copyKey(m jetstream.Msg) string {
	md, err := m.Metadata()
	if err != nil {
		return ""
	}
	return retryKey(md.Stream, md.Sequence.Stream)
}

// retryKey is the publish ID of the retry copy of the message at seq on
// stream.
func retryKey(stream string, seq uint64) string {
	return "rt:" + stream + ":" + strconv.FormatUint(seq, 10)
}

// publishConfirmed publishes msg until the server confirms it (stored, or
// stored before: a duplicate), refuses it (an API error 4xx), or the
// patience runs out; only once when key, its publish ID, is "" (a second
// publish could store it twice). It returns the last answer and whether
// an earlier publish went unanswered (it may have stored msg).
func (p *Platform) publishConfirmed(key string, msg *nats.Msg, opts []jetstream.PublishOpt) (*jetstream.PubAck, bool, error) {
	deadline := time.Now().Add(retryPatience * p.opts.Timeout)
	lost := false
	for {
		ctx, cancel := p.ctx()
		ack, err := p.js.PublishMsg(ctx, msg, opts...)
		cancel()
		var api *jetstream.APIError
		if err == nil || errors.As(err, &api) && api.Code >= 400 && api.Code < 500 || key == "" {
			return ack, lost, err
		}
		lost = true
		left := time.Until(deadline)
		if left <= 0 {
			return nil, lost, err
		}
		time.Sleep(min(retryPause, left))
	}
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
		o.dedupe, o.retryOf = copyKey(rc.m), strconv.FormatUint(md.Sequence.Stream, 10)
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
// of the batch, and so is a copy whose original the server did not confirm
// gone: it is nak'd to come back a second later (past its due time) and
// try again (a delivery that heldBack does not count). It returns the rest
// of msgs.
func (p *Platform) dropOriginals(q *queueState, msgs []jetstream.Msg) []jetstream.Msg {
	stale := map[uint64]bool{}
	held := make([]bool, len(msgs))
	var wg sync.WaitGroup
	for i, m := range msgs {
		seq, err := strconv.ParseUint(m.Headers().Get(hdrRetryOf), 10, 64)
		if err != nil {
			continue
		}
		stale[seq] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			held[i] = !p.removeOriginal(q, m, seq)
		}()
	}
	wg.Wait()
	if len(stale) == 0 {
		return msgs
	}
	out := msgs[:0:0]
	for i, m := range msgs {
		if held[i] {
			p.mu.Lock()
			p.held[copyKey(m)]++
			p.mu.Unlock()
			if err := p.retry(m, 1)(); err != nil {
				p.log().Warn("natsqueue: holding back a retry copy", "queue", q.name, "err", err)
			}
		} else if md, err := m.Metadata(); err != nil || !stale[md.Sequence.Stream] {
			out = append(out, m)
		}
	}
	return out
}

// removeOriginal deletes the original at seq of copy c from q's stream
// and reports whether it is gone: deleted now, or before (and forgotten).
func (p *Platform) removeOriginal(q *queueState, c jetstream.Msg, seq uint64) bool {
	ctx, cancel := p.ctx()
	defer cancel()
	err := q.stream.DeleteMsg(ctx, seq)
	if err != nil && !alreadyGone(err) {
		p.log().Warn("natsqueue: removing a retried original (its copy held back)", "queue", q.name, "seq", seq, "err", err)
		return false
	}
	if md, err := c.Metadata(); err == nil {
		p.mu.Lock()
		delete(p.retried, retryKey(md.Stream, seq))
		p.mu.Unlock()
	}
	return true
}

// alreadyGone reports whether err is the server's answer to deleting a
// message that is not in the stream: nats-server answers "sequence not
// found" (10043) for one deleted or acked already, and 10057 "no message
// found" for one below a block; any other answer (10008 "temporarily
// unavailable", a timeout, no responders) leaves it unknown.
func alreadyGone(err error) bool {
	if !errors.Is(err, jetstream.ErrMsgDeleteUnsuccessful) {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "err_code=10043 ") || strings.HasSuffix(s, "err_code=10057 description=no message found")
}

// heldBack is how many times m was held back by dropOriginals since it was
// last handed over (m's deliveries that no handler saw); it forgets them.
func (p *Platform) heldBack(m jetstream.Msg) int {
	key := copyKey(m)
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.held[key]
	delete(p.held, key)
	return n
}
