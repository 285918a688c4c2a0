package natsqueue

import (
	"context"
	"errors"
	"strconv"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// copyPatience is how long natsqueue tries, a retryPause apart, to have
// the server confirm a claim written, a copy stored or an original
// removed, each try bounded by Options.Timeout too: a fixed
// ceiling, whatever Options.Timeout is, longer than a cluster's election
// (a few seconds).
const (
	copyPatience = 10 * time.Second
	retryPause   = 250 * time.Millisecond
)

// tryCtx is the context of one try before deadline: it ends then, or
// after Options.Timeout, whichever comes first.
func (p *Platform) tryCtx(deadline time.Time) (context.Context, context.CancelFunc) {
	if end := time.Now().Add(p.opts.Timeout); end.Before(deadline) {
		deadline = end
	}
	return context.WithDeadline(context.Background(), deadline)
}

// applySettled applies h, the settled claim on m that this host holds:
// it removes m (ack, drop, copy stored), or stores the copy the claim asks
// for (a retry's, a dead letter's) while its lease lasts, marks the claim
// copied and removes m. A copy not confirmed stored in time leaves m to
// come back, nak'd with the retry's delay (a dead letter's: 1 s), to
// whoever finishes it then (finishSettled): never sooner than its copy
// would.
func (p *Platform) applySettled(q *queueState, m jetstream.Msg, hm hostbridge.Message, tries int, h *holding) func() error {
	return func() error {
		if h.c.final() {
			return p.remove(m)()
		}
		if err := p.storeCopy(q, m, hm, tries, h.c); err != nil {
			p.log().Warn("natsqueue: storing a copy (nak instead)", "queue", q.name, "id", hm.ID, "err", err)
			return p.retry(m, max(h.c.Delay, 1))()
		}
		if p.markCopied(h) && h.c.DLQ != "" {
			if dlq, err := p.ensureQueue(context.Background(), h.c.DLQ); err == nil {
				p.countSent(dlq, 1)
			}
		}
		return p.remove(m)()
	}
}

// finishSettled finishes m, a message whose claim h was found settled: it
// is removed when done; its copy is stored when the holder that settled it
// let its lease end before the copy was; m comes back later when that
// holder may still be storing it.
func (p *Platform) finishSettled(q *queueState, m jetstream.Msg, h *holding) func() error {
	return func() error {
		switch {
		case h.c.final():
			return p.remove(m)()
		case !h.c.leaseEnded():
			return p.nakUntil(m, time.UnixMilli(h.c.Until))()
		case !p.takeCopy(h):
			return p.retry(m, 1)()
		}
		hm, tries := message(m, h.c.N)
		return p.applySettled(q, m, hm, tries, h)()
	}
}

// storeCopy stores the copy c asks for of m: a retry's in q, a dead
// letter's in c's queue, trying until a second before c's lease ends.
func (p *Platform) storeCopy(q *queueState, m jetstream.Msg, hm hostbridge.Message, tries int, c claim) error {
	deadline := time.UnixMilli(c.Until).Add(-time.Second)
	if c.Done == doneDead {
		return p.deadLetter(q, c.DLQ, m, hm, deadline)
	}
	msg, opts := q.names.natsMsg(retryOf(m, hm, tries, c.Delay, p.retryUnit))
	_, err := p.publishConfirmed(p.js, msg, opts, deadline)
	return err
}

// published is what publishConfirmed learnt of a copy: stored by this
// publish (ack) or before (refused: a copy is in the stream), and whether
// a publish before the last went unanswered (it may have stored it).
type published struct {
	ack    *jetstream.PubAck
	before bool
	lost   bool
}

// publishConfirmed publishes msg with js, a message that expects its
// subjects empty (a copy, a firing's record), until the server confirms
// it: stored now, or refused because one is
// stored (codeWrongLast, by number), or it refuses it otherwise (an API
// error 4xx), or deadline has passed, or the connection is closed (the
// host is done). A refusal because another
// publish of it is in flight (codeWrongLastInFlight) is tried again. Since
// the server stores at most one copy, publishing again never stores two.
func (p *Platform) publishConfirmed(js jetstream.JetStream, msg *nats.Msg, opts []jetstream.PublishOpt, deadline time.Time) (published, error) {
	var r published
	for {
		ctx, cancel := p.tryCtx(deadline)
		ack, err := js.PublishMsg(ctx, msg, opts...)
		cancel()
		var api *jetstream.APIError
		switch {
		case err == nil:
			r.ack = ack
			return r, nil
		case apiCode(err) == codeWrongLast:
			r.before = true
			return r, nil
		case apiCode(err) == codeWrongLastInFlight:
		case errors.As(err, &api) && api.Code >= 400 && api.Code < 500, errors.Is(err, nats.ErrConnectionClosed):
			return r, err
		default:
			r.lost = true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return r, err
		}
		time.Sleep(min(retryPause, left))
	}
}

// remove is the removal of m, an original settled (done, retried with its
// copy stored, dead-lettered, dropped): its ack, waiting for the server (a
// plain ack the server had not read yet is lost with the connection at a
// clean Close); when the server does not confirm the ack, the message is
// deleted from its stream until the server confirms it gone, for up to
// copyPatience, so that it does not come back to be counted again.
func (p *Platform) remove(m jetstream.Msg) func() error {
	if p.loseRemovals.Load() {
		return func() error { return nil }
	}
	ack := p.ackSync(m)
	return func() error {
		err := ack()
		if err == nil || errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
			return nil
		}
		if errors.Is(err, nats.ErrConnectionClosed) {
			return err // this host is done: the message comes back to another
		}
		md, mdErr := m.Metadata()
		if mdErr != nil || !p.removeOriginal(md.Stream, md.Sequence.Stream) {
			return err
		}
		return nil
	}
}

// ackSync is the ack of m, done once the server answers.
func (p *Platform) ackSync(m jetstream.Msg) func() error {
	return func() error {
		ctx, cancel := p.ctx()
		defer cancel()
		return m.DoubleAck(ctx)
	}
}

// retryOf is the copy of m, as a handler saw it (hm), that retries it
// after its deliveries from the queue: attempts + 1, due after delay
// seconds, each unit long.
func retryOf(m jetstream.Msg, hm hostbridge.Message, tries, delay int, unit time.Duration) outMsg {
	o := outMsg{id: hm.ID, sentAt: hm.Timestamp, attempts: hm.Attempts + 1, tries: tries,
		body: m.Data(), ctype: m.Headers().Get(hdrType), delay: time.Duration(delay) * unit}
	if md, err := m.Metadata(); err == nil {
		o.retryOf = md.Sequence.Stream
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

// removeOriginal deletes the message at seq from stream, trying again for
// up to copyPatience, and reports whether the server confirmed it gone:
// deleted now, or not there (codeSeqNotFound, its stream gone, or any other refusal of the
// delete followed by a get that finds nothing: codeNoMessage), all by
// number.
func (p *Platform) removeOriginal(stream string, seq uint64) bool {
	deadline := time.Now().Add(p.patience)
	for {
		ctx, cancel := p.tryCtx(deadline)
		err := p.api.deleteMsg(ctx, stream, seq)
		if err == nil || apiCode(err) == codeSeqNotFound || apiCode(err) == codeNoStream {
			cancel()
			return true
		}
		if apiCode(err) != 0 {
			if _, err = p.api.getMsg(ctx, stream, msgGetRequest{Seq: seq}); apiCode(err) == codeNoMessage {
				cancel()
				return true
			}
		}
		cancel()
		left := time.Until(deadline)
		if left <= 0 || errors.Is(err, nats.ErrConnectionClosed) {
			p.log().Warn("natsqueue: removing a message (not confirmed)", "stream", stream, "seq", seq, "err", err)
			return false
		}
		time.Sleep(min(retryPause, left))
	}
}

// deadLetter stores a copy of m, from queue src, on queue dlq, trying until
// deadline: same ID, send time and body, attempts from 1 again, published
// as a retry copy is. The copy of the message at sequence S of src is on a
// subject of its own, <dlq ready>.d.<src token>.S, published expecting none
// stored there, so that the server keeps one copy while one is in the
// dead-letter queue; it names its original (Hb-Dead-Of), whose claim its
// deliverer reads before a handler sees it (openCopy).
func (p *Platform) deadLetter(src *queueState, dlq string, m jetstream.Msg, hm hostbridge.Message, deadline time.Time) error {
	q, err := p.ensureQueue(context.Background(), dlq)
	if err != nil {
		return err
	}
	md, err := m.Metadata()
	if err != nil {
		return err
	}
	o := outMsg{id: hm.ID, sentAt: hm.Timestamp, attempts: 1, body: m.Data(), ctype: m.Headers().Get(hdrType)}
	o.deadOf = md.Stream + ":" + strconv.FormatUint(md.Sequence.Stream, 10)
	o.deadSubj = q.names.deadSubject(src.names.token, md.Sequence.Stream)
	msg, opts := q.names.natsMsg(o)
	_, err = p.publishConfirmed(p.js, msg, opts, deadline)
	return err
}
