package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// store is publish within ctx.
func (p *Platform) store(ctx context.Context, queue string, msgs []outMsg) error {
	q, err := p.ensureQueue(ctx, queue)
	if err != nil {
		return err
	}
	release, err := p.reserve(ctx, q, len(msgs))
	if err != nil {
		return err
	}
	stored, err := p.publishAll(ctx, q, msgs)
	p.countSent(q, stored)
	release(err != nil)
	return err
}

// publishAll publishes msgs on q's stream and returns how many the server
// confirmed it stored, and the first error.
func (p *Platform) publishAll(ctx context.Context, q *queueState, msgs []outMsg) (int, error) {
	if len(msgs) == 1 {
		m, opts := q.names.natsMsg(msgs[0])
		if _, err := p.js.PublishMsg(ctx, m, opts...); err != nil {
			return 0, err
		}
		return 1, nil
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
	ok, ackErr := waitAcks(ctx, futures)
	if err == nil {
		err = ackErr
	}
	return ok, err
}

// waitAcks waits for every future and returns how many the server
// confirmed, and the first error.
func waitAcks(ctx context.Context, futures []jetstream.PubAckFuture) (int, error) {
	var first error
	ok := 0
	for _, f := range futures {
		select {
		case <-f.Ok():
			ok++
		case err := <-f.Err():
			if first == nil {
				first = err
			}
		case <-ctx.Done():
			return ok, ctx.Err()
		}
	}
	return ok, first
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
