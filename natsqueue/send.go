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
	hdrAttempts = "Hb-Attempts" // attempts of the first delivery, when not 1 (Enqueue)
	hdrType     = "Hb-Type"     // the content type, when not json
)

// outMsg is one message on its way to a stream.
type outMsg struct {
	id       string
	sentAt   time.Time
	attempts int // of its first delivery
	body     []byte
	ctype    string
	delay    int    // seconds
	dedupe   string // the Nats-Msg-Id, if any
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
	queue, ok := p.queueOf(binding)
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
		out[i] = outMsg{id: p.newID(), sentAt: now, attempts: 1, body: m.Body, ctype: m.ContentType, delay: m.DelaySeconds}
	}
	return p.publish(ctx, queue, out)
}

// Enqueue puts m on queue directly, as another producer of the deployment
// would, and returns its ID: an empty ID gets a new one, a zero Timestamp
// the current time, Attempts below 1 become 1. Body is a json.RawMessage
// (content type json), a string (text) or a []byte (bytes); consumers get
// the same Go type back. The delay is clamped to 0…MaxDelaySeconds.
func (p *Platform) Enqueue(ctx context.Context, queue string, m hostbridge.Message, delaySeconds int) (string, error) {
	o := outMsg{id: m.ID, sentAt: m.Timestamp, attempts: max(m.Attempts, 1), delay: min(max(delaySeconds, 0), hostbridge.MaxDelaySeconds)}
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

// publish stores msgs on queue's stream, pipelined, and waits for every
// acknowledgement within Options.Timeout.
func (p *Platform) publish(ctx context.Context, queue string, msgs []outMsg) error {
	q, err := p.ensureQueue(queue)
	if err != nil {
		return err
	}
	if full, err := p.full(q, len(msgs)); err != nil || full {
		if err == nil {
			err = ErrQueueFull
		}
		return err
	}
	ctx, cancel := p.callCtx(ctx)
	defer cancel()
	if len(msgs) == 1 {
		m, opts := q.names.natsMsg(msgs[0])
		if _, err := p.js.PublishMsg(ctx, m, opts...); err != nil {
			return err
		}
		p.countSent(q, 1)
		return nil
	}
	futures := make([]jetstream.PubAckFuture, 0, len(msgs))
	for _, o := range msgs {
		m, opts := q.names.natsMsg(o)
		f, err := p.js.PublishMsgAsync(m, opts...)
		if err != nil {
			return err
		}
		futures = append(futures, f)
	}
	err = waitAcks(ctx, futures)
	if err == nil {
		p.countSent(q, len(futures))
	}
	return err
}

// waitAcks waits for every future and returns the first error.
func waitAcks(ctx context.Context, futures []jetstream.PubAckFuture) error {
	var first error
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			if first == nil {
				first = err
			}
		case <-ctx.Done():
			return fmt.Errorf("no answer from NATS JetStream: %w", ctx.Err())
		}
	}
	return first
}

// natsMsg is o as a JetStream message: on the ready subject, or for a delay
// on a schedule subject of its own that the server copies to the ready one
// when its time comes.
func (n names) natsMsg(o outMsg) (*nats.Msg, []jetstream.PublishOpt) {
	m := &nats.Msg{Subject: n.ready, Data: o.body, Header: nats.Header{}}
	m.Header.Set(hdrID, o.id)
	m.Header.Set(hdrSentAt, strconv.FormatInt(o.sentAt.UnixNano(), 10))
	if o.attempts > 1 {
		m.Header.Set(hdrAttempts, strconv.Itoa(o.attempts))
	}
	if o.ctype != "json" && o.ctype != "" {
		m.Header.Set(hdrType, o.ctype)
	}
	var opts []jetstream.PublishOpt
	if o.dedupe != "" {
		opts = append(opts, jetstream.WithMsgID(o.dedupe))
	}
	if o.delay > 0 {
		m.Subject = n.sched + subjectToken(o.id)
		opts = append(opts, jetstream.WithScheduleAt(dueTime(time.Now(), o.delay)), jetstream.WithScheduleTarget(n.ready))
	}
	return m, opts
}

// dueTime is when a message sent at now with a delay of seconds may be
// delivered: schedules have whole seconds, so the time is rounded up, never
// down (a delay never fires early).
func dueTime(now time.Time, seconds int) time.Time {
	at := now.Add(time.Duration(seconds) * time.Second)
	if t := at.Truncate(time.Second); t.Before(at) {
		return t.Add(time.Second)
	}
	return at
}
