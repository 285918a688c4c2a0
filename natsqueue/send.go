package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The headers a message carries through JetStream.
const (
	hdrID       = "Hb-Id"       // the message ID, kept across retries and dead-lettering
	hdrSentAt   = "Hb-Sent-At"  // the send time, Unix nanoseconds
	hdrAttempts = "Hb-Attempts" // attempts of every delivery of this copy, when not 1 (Enqueue, a retry)
	hdrTries    = "Hb-Tries"    // deliveries from this queue before this copy (a retry)
	hdrRetryOf  = "Hb-Retry-Of" // the stream sequence of the message a retry copy retries
	hdrDeadOf   = "Hb-Dead-Of"  // the stream and sequence of the message a dead-letter copy copies, <stream>:<seq>
	hdrType     = "Hb-Type"     // the content type, when not json
)

// outMsg is one message on its way to a stream.
type outMsg struct {
	id       string
	sentAt   time.Time
	attempts int // of its deliveries
	tries    int // deliveries from its queue before it (a retry's)
	body     []byte
	ctype    string
	delay    time.Duration // 0 or at least a second
	retryOf  uint64        // a retry copy's original's stream sequence (0: not a copy)
	deadOf   string        // a dead-letter copy's original, <stream>:<sequence>
	deadSubj string        // a dead-letter copy's subject
	pubID    string        // a send's publish ID (Nats-Msg-Id): see wasStored
}

// Send implements hostbridge.Platform: it stores one message on the
// binding's queue and returns once the server has it, or fails with the
// platform's reason (an unconfigured binding, a delay outside
// 0…MaxDelaySeconds, no answer within Options.Timeout, the server's error).
func (p *Platform) Send(ctx context.Context, binding string, body []byte, opts hostbridge.SendOptions) error {
	return p.SendBatch(ctx, binding, []hostbridge.BatchMessage{{Body: body, ContentType: opts.ContentType, DelaySeconds: opts.DelaySeconds}})
}

// SendBatch implements hostbridge.Platform: it publishes every message, in
// order, and waits for the server to have each. Nothing is sent when a delay
// is out of range; when a publish fails the ones before it may be stored
// (JetStream has no atomic batch with schedules), and the first error is
// returned.
func (p *Platform) SendBatch(ctx context.Context, binding string, msgs []hostbridge.BatchMessage) error {
	queue, ok := p.Queue(binding)
	if !ok {
		return errors.New("binding " + binding + " is not configured")
	}
	for _, m := range msgs {
		if m.DelaySeconds < 0 || m.DelaySeconds > hostbridge.MaxDelaySeconds {
			return errors.New("delaySeconds " + strconv.Itoa(m.DelaySeconds) + " is out of range")
		}
	}
	now := time.Now()
	out := make([]outMsg, len(msgs))
	for i, m := range msgs {
		out[i] = outMsg{id: p.newID(), sentAt: now, attempts: 1, body: m.Body, ctype: m.ContentType, delay: seconds(m.DelaySeconds)}
	}
	return p.publish(ctx, queue, out)
}

// Enqueue puts m on queue directly, as another producer of the deployment
// would, and returns its ID: an empty ID gets a new one, a zero Timestamp
// the current time, Attempts below 1 become 1. Body is a json.RawMessage
// (content type json), a string (text) or a []byte (bytes); consumers get
// the same Go type back. The delay is clamped to 0…MaxDelaySeconds.
func (p *Platform) Enqueue(ctx context.Context, queue string, m hostbridge.Message, delaySeconds int) (string, error) {
	o := outMsg{id: m.ID, sentAt: m.Timestamp, attempts: max(m.Attempts, 1), delay: seconds(min(max(delaySeconds, 0), hostbridge.MaxDelaySeconds))}
	switch b := m.Body.(type) {
	case json.RawMessage:
		o.body, o.ctype = b, "json"
	case string:
		o.body, o.ctype = []byte(b), "text"
	case []byte:
		o.body, o.ctype = b, "bytes"
	default:
		return "", fmt.Errorf("natsqueue: a %T body cannot be stored", m.Body)
	}
	if o.id == "" {
		o.id = p.newID()
	}
	if o.sentAt.IsZero() {
		o.sentAt = time.Now()
	}
	return o.id, p.publish(ctx, queue, []outMsg{o})
}

// msgNoAnswer starts the reason of a send the server did not answer in
// time (or before the caller's context ended).
const msgNoAnswer = "no answer from NATS JetStream: "

// publish stores msgs on queue's stream, pipelined, and waits for every
// acknowledgement within Options.Timeout. A ctx that has already ended
// fails it with ctx.Err() and nothing sent; one that ends (or the Timeout)
// before the server answers fails it with msgNoAnswer and ctx's error.
func (p *Platform) publish(ctx context.Context, queue string, msgs []outMsg) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx, cancel := p.callCtx(ctx)
	defer cancel()
	err := p.store(ctx, queue, msgs)
	if err == nil || errors.Is(err, ErrQueueFull) {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf(msgNoAnswer+"%w", ctx.Err())
	}
	// An asynchronous publish has a timer of its own (Options.Timeout too),
	// which may fire just before ctx's.
	if errors.Is(err, jetstream.ErrAsyncPublishTimeout) {
		return fmt.Errorf(msgNoAnswer+"%w", err)
	}
	return err
}

// store is publish within ctx. Each message goes out under a publish ID
// of its own, so that one the server stored without its answer reaching
// this host is still counted as sent, once (askStored).
func (p *Platform) store(ctx context.Context, queue string, msgs []outMsg) error {
	q, err := p.ensureQueue(ctx, queue)
	if err != nil {
		return err
	}
	release, err := p.reserve(ctx, q, len(msgs))
	if err != nil {
		return err
	}
	for i := range msgs {
		msgs[i].pubID = p.newID()
	}
	asked := time.Now().Add(askWindow)
	stored, unanswered, err := p.publishAll(ctx, q, msgs)
	if err == nil && p.losePubAcks.Load() { // tests: stored, the answers lost
		stored, unanswered, err = 0, msgs, jetstream.ErrAsyncPublishTimeout
	}
	p.countSent(q, stored)
	p.askStored(q, unanswered, asked)
	release(err != nil)
	return err
}

// publishAll publishes msgs on q's stream and returns how many the server
// confirmed it stored, those it may have stored without confirming, and
// the first error.
func (p *Platform) publishAll(ctx context.Context, q *queueState, msgs []outMsg) (int, []outMsg, error) {
	if len(msgs) == 1 {
		m, opts := q.names.natsMsg(msgs[0])
		_, err := p.js.PublishMsg(ctx, m, opts...)
		switch {
		case err == nil:
			return 1, nil, nil
		case mayBeStored(err):
			return 0, msgs, err
		}
		return 0, nil, err
	}
	futures := make([]jetstream.PubAckFuture, 0, len(msgs))
	var err error
	for _, o := range msgs {
		m, opts := q.names.natsMsg(o)
		var f jetstream.PubAckFuture
		if f, err = p.js.PublishMsgAsync(m, opts...); err != nil {
			break
		}
		futures = append(futures, f)
	}
	ok, unknown, ackErr := waitAcks(ctx, futures)
	if err == nil {
		err = ackErr
	}
	var unanswered []outMsg
	for _, i := range unknown {
		unanswered = append(unanswered, msgs[i])
	}
	return ok, unanswered, err
}

// mayBeStored reports whether a publish that failed with err may have
// been stored: anything but the server's refusal (no answer in time, no
// stream answering, a connection lost).
func mayBeStored(err error) bool {
	var api *jetstream.APIError
	return !errors.As(err, &api)
}

// waitAcks waits for every future and returns how many the server
// confirmed, the indexes of those it may have stored without confirming
// (mayBeStored, or not answered when ctx ended), and the first error.
func waitAcks(ctx context.Context, futures []jetstream.PubAckFuture) (int, []int, error) {
	var first error
	var unknown []int
	ok := 0
	for i, f := range futures {
		select {
		case <-f.Ok():
			ok++
		case err := <-f.Err():
			if first == nil {
				first = err
			}
			if mayBeStored(err) {
				unknown = append(unknown, i)
			}
		case <-ctx.Done():
			for j := i; j < len(futures); j++ {
				unknown = append(unknown, j)
			}
			return ok, unknown, ctx.Err()
		}
	}
	return ok, unknown, first
}

// askWindow is how long after a send natsqueue asks the server whether it
// stored it (askStored): half the duplicate window, which the server
// measures on its own clock from when it stored the message, so that a
// server clock stepped or skewed by less than a minute cannot end the
// window before the last question.
const askWindow = duplicateWindow / 2

// askStored counts as sent, in the background, those of msgs the server
// stored although their sends got no answer, asking the server about each
// (wasStored) until it answers, before deadline, or until Close. One it
// could not tell about is logged and not counted.
func (p *Platform) askStored(q *queueState, msgs []outMsg, deadline time.Time) {
	if len(msgs) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing {
		return
	}
	p.asking.Add(1)
	go func() {
		defer p.asking.Done()
		for _, o := range msgs {
			stored, known := p.wasStored(q, o.pubID, deadline)
			if stored {
				p.countSentStored(q)
			} else if !known {
				p.log().Warn("natsqueue: a send without an answer may be stored (not counted as sent)", "queue", q.name, "id", o.id)
			}
		}
	}()
}

// confirmPause is how long after a first "not stored" wasStored asks
// again before it believes it: longer than a server back from a pause
// takes to hear of its successor.
const confirmPause = 2 * time.Second

// neverMsgID is a publish ID that no message carries.
const neverMsgID = "natsqueue-never"

// wasStored asks q's stream whether it stored the message published under
// pubID, until the server answers, deadline passes or the Platform
// closes; known is false when it did not answer. The question is an empty
// publish under the same ID with an expectation that never holds, so it
// stores nothing; the server looks the ID up before it checks that
// expectation: a message stored under the ID makes the question a
// duplicate, answered with its sequence, else the expectation refuses it.
// Which expectation is checked after the ID depends on the stream: on a
// replicated one, a last sequence of MaxUint64 (codeWrongLast), checked by
// the leader before proposing, as the ID is; a leader answers only once it
// applied every entry of the terms before its own, so a message stored
// before the question is found. On a single server, whose checks of last
// sequences come before the ID, the last message's publish ID being
// neverMsgID (codeWrongLastMsgID); a replicated stream checks that one
// only when applying the question from its log, and nats-server 2.15.2
// then stops answering publishes for many seconds. Any other answer (the
// ID in flight, no answer) is asked again a retryPause later. A refusal
// is believed once it is given again confirmPause after the first: the
// check comes before the proposal, so a server that only believes it leads
// (back from a pause) may refuse a question its successor would find a
// duplicate, until it hears of the new term.
func (p *Platform) wasStored(q *queueState, pubID string, deadline time.Time) (stored, known bool) {
	m := &nats.Msg{Subject: q.names.ready}
	opts := []jetstream.PublishOpt{jetstream.WithMsgID(pubID), jetstream.WithExpectLastMsgID(neverMsgID)}
	if p.opts.Replicas > 1 {
		opts[1] = jetstream.WithExpectLastSequence(math.MaxUint64)
	}
	var refused time.Time // the first "not stored"
	for {
		ctx, cancel := p.tryCtx(deadline)
		_, err := p.js.PublishMsg(ctx, m, opts...)
		cancel()
		switch {
		case err == nil: // a duplicate (or, were the expectation ever met, stored now: sent all the same)
			return true, true
		case apiCode(err) == codeWrongLast, apiCode(err) == codeWrongLastMsgID:
			if !refused.IsZero() && time.Since(refused) >= confirmPause {
				return false, true
			}
			if refused.IsZero() {
				refused = time.Now()
			}
		case errors.Is(err, nats.ErrConnectionClosed):
			return false, false
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, false
		}
		select {
		case <-p.stopAsking:
			return false, false
		case <-time.After(min(retryPause, left)):
		}
	}
}

// natsMsg is o as a JetStream message: on the ready subject, or for a delay
// on a schedule subject of its own that the server copies to the ready one
// when its time comes. A retry copy of the message at stream sequence S is
// on subjects of its own, <ready>.r.S or the schedule <sched>r.S firing onto
// it, and a dead-letter copy on its own subject below ready (see
// deadLetter); both are published expecting no message on those subjects,
// so that the server stores one copy of a message at a time and refuses
// any other while it is in the stream (JSStreamWrongLastSequenceErrF),
// however long after, whichever host publishes it.
func (n names) natsMsg(o outMsg) (*nats.Msg, []jetstream.PublishOpt) {
	m := &nats.Msg{Subject: n.ready, Data: o.body, Header: nats.Header{}}
	m.Header.Set(hdrID, o.id)
	m.Header.Set(hdrSentAt, strconv.FormatInt(o.sentAt.UnixNano(), 10))
	if o.pubID != "" {
		m.Header.Set(jetstream.MsgIDHeader, o.pubID)
	}
	if o.attempts > 1 {
		m.Header.Set(hdrAttempts, strconv.Itoa(o.attempts))
	}
	if o.tries > 0 {
		m.Header.Set(hdrTries, strconv.Itoa(o.tries))
	}
	if o.ctype != "json" && o.ctype != "" {
		m.Header.Set(hdrType, o.ctype)
	}
	var opts []jetstream.PublishOpt
	target := n.ready
	switch {
	case o.retryOf > 0:
		m.Header.Set(hdrRetryOf, strconv.FormatUint(o.retryOf, 10))
		sched, ready, both := n.retrySubjects(o.retryOf)
		m.Subject, target = ready, ready
		if o.delay > 0 {
			m.Subject = sched
		}
		opts = append(opts, jetstream.WithExpectLastSequenceForSubject(0, both))
	case o.deadOf != "":
		m.Header.Set(hdrDeadOf, o.deadOf)
		m.Subject = o.deadSubj
		opts = append(opts, jetstream.WithExpectLastSequencePerSubject(0))
	case o.delay > 0:
		m.Subject = n.sched + subjectToken(o.id)
	}
	if o.delay > 0 {
		opts = append(opts, jetstream.WithScheduleAt(dueTime(time.Now(), o.delay)), jetstream.WithScheduleTarget(target))
	}
	return m, opts
}

// seconds is n seconds.
func seconds(n int) time.Duration { return time.Duration(n) * time.Second }

// dueTime is when a message sent at now with a delay may be delivered:
// schedules have whole seconds, so the time is rounded up, never down (a
// delay never fires early).
func dueTime(now time.Time, delay time.Duration) time.Time {
	at := now.Add(delay)
	if t := at.Truncate(time.Second); t.Before(at) {
		return t.Add(time.Second)
	}
	return at
}
