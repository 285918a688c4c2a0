package natsqueue

import (
	"context"
	"errors"
	"slices"
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

// copyPatience is how long natsqueue tries, a retryPause apart, to have
// the server confirm a copy stored, an original removed or a redelivered
// message looked up, each try bounded by Options.Timeout too: a fixed
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

// storeRetries stores, for each retried message, a copy with attempts + 1
// that is due after its delay: a schedule on the stream, as a delayed send
// is, so that it never comes back early, whatever restarts, crashes or
// fails over; a delay of 0 goes straight to ready. It returns the removals
// of the originals, to apply once the copies are stored (a host that dies
// in between leaves both: at least once).
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

// storeRetry stores rc's copy and returns the removal of its original. The
// copy of the message at sequence S is on subjects of its own (<ready>.r.S,
// or the schedule <sched>r.S that fires onto it) and is published
// expecting none stored there: the server refuses a second copy of S while
// one is in the stream (pending, ready or in flight), whichever host
// publishes it, however long after; that refusal says a copy is stored, and
// the original is removed as when this publish stored it. A copy the server
// has not confirmed within copyPatience (it may have stored it or not)
// falls back to a nak of the original with the delay: it comes back no
// sooner than the copy would, and then whoever it comes back to looks its
// copy up first (see dropRetried). An original another host settled while
// this one held it is not copied (see settledElsewhere).
func (p *Platform) storeRetry(q *queueState, rc retryCopy) func() error {
	if p.settledElsewhere(q, rc.m) {
		return p.retry(rc.m, rc.delay)
	}
	o := retryOf(rc, p.retryUnit)
	msg, opts := q.names.natsMsg(o)
	if _, err := p.publishConfirmed(msg, opts); err != nil {
		p.log().Warn("natsqueue: retry copy (nak instead)", "queue", q.name, "id", rc.hm.ID, "err", err)
		return p.retry(rc.m, rc.delay)
	}
	return p.remove(rc.m)
}

// published is what publishConfirmed learnt of a copy: stored by this
// publish (ack) or before (refused: a copy is in the stream), and whether
// a publish before the last went unanswered (it may have stored it).
type published struct {
	ack    *jetstream.PubAck
	before bool
	lost   bool
}

// publishConfirmed publishes msg, a copy that expects its subjects empty,
// until the server confirms it: stored now, or refused because a copy is
// stored (codeWrongLast, by number), or it refuses it otherwise (an API
// error 4xx), or copyPatience has passed, or the connection is closed (the
// host is done). A refusal because another
// publish of it is in flight (codeWrongLastInFlight) is tried again. Since
// the server stores at most one copy, publishing again never stores two.
func (p *Platform) publishConfirmed(msg *nats.Msg, opts []jetstream.PublishOpt) (published, error) {
	deadline := time.Now().Add(p.patience)
	var r published
	for {
		ctx, cancel := p.tryCtx(deadline)
		ack, err := p.js.PublishMsg(ctx, msg, opts...)
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

// retryOf is the copy of rc that retries it, with a delay's second unit
// long.
func retryOf(rc retryCopy, unit time.Duration) outMsg {
	h := rc.m.Headers()
	o := outMsg{id: rc.hm.ID, sentAt: rc.hm.Timestamp, attempts: rc.hm.Attempts + 1, tries: rc.tries,
		body: rc.m.Data(), ctype: h.Get(hdrType), delay: time.Duration(rc.delay) * unit}
	if md, err := rc.m.Metadata(); err == nil {
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

// mayBeRetried reports whether a message delivered so could be an original
// that a host retried (or dead-lettered) already: one delivered before,
// as the server counts or as the delivery journal remembers.
func (p *Platform) mayBeRetried(md *jetstream.MsgMetadata) bool {
	return md.NumDelivered+p.journal().forgotten(md) > 1
}

// dropRetried leaves out of msgs, before they reach a handler, the
// redelivered ones that are settled already, whichever host settled them:
// an original whose retry copy is stored (found on its copy's subjects,
// asking the stream's leader) is acked and left out; one that is no longer
// in the stream (its copy's deliverer deleted it, or it was acked) is
// left out and nak'd, not acked: the server drops a message it no longer
// holds, and one that a leader lagging behind said wrongly was gone comes
// back a second later, never lost. The copy is looked up first, then the
// original: a copy reaches a handler only after its original is gone, so
// an original found with no copy found before it has none. One the server
// cannot tell about within copyPatience is held back: nak'd to come back
// a second later (a delivery no handler saw, that counts). It returns the
// rest of msgs.
func (p *Platform) dropRetried(q *queueState, msgs []jetstream.Msg) []jetstream.Msg {
	state := make([]owed, len(msgs))
	var wg sync.WaitGroup
	for i, m := range msgs {
		md, err := m.Metadata()
		if err != nil || !p.mayBeRetried(md) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			state[i] = p.stillOwed(q, md.Sequence.Stream)
		}()
	}
	wg.Wait()
	out := msgs[:0:0]
	var acts []func() error
	for i, m := range msgs {
		switch state[i] {
		case owedYes:
			out = append(out, m)
		case owedCopied:
			acts = append(acts, p.ackSync(m))
		case owedGone:
			acts = append(acts, p.retry(m, 1))
		case owedUnknown:
			p.log().Warn("natsqueue: looking up a redelivered message (held back)", "queue", q.name)
			acts = append(acts, p.retry(m, 1))
		}
	}
	p.apply(q, acts)
	return out
}

// owed is what a lookup found of a redelivered message: still owed to a
// handler, settled (its copy stored, or gone from the stream), or unknown.
type owed int

const (
	owedYes owed = iota
	owedCopied
	owedGone
	owedUnknown
)

// settledElsewhere reports whether m, about to be retried or
// dead-lettered, was settled by another host while this one held it: its
// retry copy is stored, or it is no longer in the stream (JetStream hands a
// message to a second host when its consumer's leader changes, or when the
// first lets its lease lapse). Such a message is not copied again, so that
// a host that held it too long does not give it a second life, after its
// copies were handled, acked or dead-lettered. It is nak'd instead, with
// the delay its copy would have had: the server drops it if it is gone,
// and if a leader that lagged said so wrongly it comes back, to be looked
// up again, never lost. The look-up and the publish after it are two
// steps: two hosts settling one message in the same moment can both copy
// it (doc.go's bound).
func (p *Platform) settledElsewhere(q *queueState, m jetstream.Msg) bool {
	md, err := m.Metadata()
	if err != nil {
		return false
	}
	o := p.stillOwed(q, md.Sequence.Stream)
	return o == owedCopied || o == owedGone
}

// stillOwed looks up the message at seq on q's stream: its retry copy on
// the copy's subjects, then itself.
func (p *Platform) stillOwed(q *queueState, seq uint64) owed {
	_, _, both := q.names.retrySubjects(seq)
	deadline := time.Now().Add(p.patience)
	for {
		ctx, cancel := p.tryCtx(deadline)
		_, err := p.api.getMsg(ctx, q.names.stream, msgGetRequest{LastFor: both})
		if err == nil {
			cancel()
			return owedCopied
		}
		if apiCode(err) == codeNoMessage {
			_, err = p.api.getMsg(ctx, q.names.stream, msgGetRequest{Seq: seq})
			if err == nil {
				cancel()
				return owedYes
			}
			if apiCode(err) == codeNoMessage {
				cancel()
				return owedGone
			}
		}
		cancel()
		left := time.Until(deadline)
		if left <= 0 || errors.Is(err, nats.ErrConnectionClosed) {
			return owedUnknown
		}
		time.Sleep(min(retryPause, left))
	}
}

// originalOf is the stream and sequence of the message that m, a retry
// copy or a dead-letter copy, copies; ok is false for any other m.
func originalOf(q *queueState, m jetstream.Msg) (stream string, seq uint64, ok bool) {
	h := m.Headers()
	if s, err := strconv.ParseUint(h.Get(hdrRetryOf), 10, 64); err == nil {
		return q.names.stream, s, true
	}
	v := h.Get(hdrDeadOf)
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return "", 0, false
	}
	s, err := strconv.ParseUint(v[i+1:], 10, 64)
	return v[:i], s, err == nil
}

// dropOriginals removes from its stream, before a copy in msgs (a retry
// copy, or a dead-letter copy) reaches a handler, the original it copies:
// normally the original is gone (acked once the copy was stored) and the
// server says so, but a host that died between the copy and the ack left
// it, to come back with fewer attempts, maybe after the copy. The removal
// is tried again while the batch's lease keeps the copy, for up to
// copyPatience. An original in msgs itself is left out of the batch, and
// so is a copy whose original the server did not confirm gone by then: it
// is nak'd to come back a second later (past its due time) and try again,
// a delivery that no handler saw and that counts. It returns the rest of
// msgs.
func (p *Platform) dropOriginals(q *queueState, msgs []jetstream.Msg) []jetstream.Msg {
	stale := map[uint64]bool{}
	held := make([]bool, len(msgs))
	var wg sync.WaitGroup
	for i, m := range msgs {
		stream, seq, ok := originalOf(q, m)
		if !ok {
			continue
		}
		if stream == q.names.stream {
			stale[seq] = true
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			held[i] = !p.removeOriginal(stream, seq)
		}()
	}
	wg.Wait()
	if len(stale) == 0 && !slices.Contains(held, true) {
		return msgs
	}
	out := msgs[:0:0]
	for i, m := range msgs {
		if held[i] {
			if err := p.retry(m, 1)(); err != nil {
				p.log().Warn("natsqueue: holding back a copy", "queue", q.name, "err", err)
			}
		} else if md, err := m.Metadata(); err != nil || !stale[md.Sequence.Stream] {
			out = append(out, m)
		}
	}
	return out
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
