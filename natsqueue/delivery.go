package natsqueue

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go/jetstream"
)

// pollWait is how long one pull request waits for a first message; Deliver
// and Run notice a cancelled context within it.
const pollWait = time.Second

// Run delivers batches from queue to handler until ctx ends. When ctx ends
// it takes no new batch: the batch in flight finishes (Run returns after
// its handler) and every other message stays on the stream. While the
// server cannot be reached it keeps trying, logging each failure to
// Options.Logger. It returns ctx.Err().
func (p *Platform) Run(ctx context.Context, queue string, handler func(hostbridge.Event) error) error {
	for ctx.Err() == nil {
		if _, _, err := p.Deliver(ctx, queue, handler); err != nil && ctx.Err() == nil {
			p.log().Warn("natsqueue: delivering (tried again)", "queue", queue, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(pollWait / 4):
			}
		}
	}
	return ctx.Err()
}

// Deliver is one delivery step on queue: it waits, until ctx ends, for a
// message; fills the batch until it holds MaxBatchSize messages or its
// oldest has waited MaxBatchTimeout since it became ready; hands it to
// handler as one queue Event; applies the outcome and reports it. It
// returns false when ctx ended first (or the server failed: the error).
func (p *Platform) Deliver(ctx context.Context, queue string, handler func(hostbridge.Event) error) (hostbridge.DeliveryResult, bool, error) {
	q, err := p.ensureQueue(ctx, queue)
	if err != nil {
		return hostbridge.DeliveryResult{}, false, err
	}
	s := p.Consumer(queue)
	l := p.startLease(queue)
	defer l.end()
	msgs, err := p.take(ctx, q, s, l)
	if len(msgs) == 0 {
		return hostbridge.DeliveryResult{}, false, err
	}
	d := p.newDelivery(q, s, p.dropOriginals(q, p.dropRetried(q, msgs)))
	if len(d.taken) > 0 {
		if err := p.journal().record(d.taken, d.counts); err != nil {
			p.log().Warn("natsqueue: delivery journal", "queue", queue, "err", err)
		}
		d.err = d.b.Handle(handler)
	}
	d.b.Close()
	return p.finish(d), true, nil
}

// take waits for a first message, then fills the batch. When ctx ends or a
// pull fails while the batch fills, the batch is what it has (the error
// logged: its messages are delivered all the same).
func (p *Platform) take(ctx context.Context, q *queueState, s hostbridge.ConsumerSettings, l *lease) ([]jetstream.Msg, error) {
	msgs, err := fetch(q.cons, l, s.MaxBatchSize, 0)
	for len(msgs) == 0 {
		if ctx.Err() != nil || err != nil {
			return nil, err
		}
		msgs, err = fetch(q.cons, l, 1, waitWithin(ctx, pollWait))
	}
	oldest := readyAt(msgs[0])
	for err == nil && len(msgs) < s.MaxBatchSize && ctx.Err() == nil {
		left := s.MaxBatchTimeout - time.Since(oldest)
		if left <= 0 {
			break
		}
		var more []jetstream.Msg
		more, err = fetch(q.cons, l, s.MaxBatchSize-len(msgs), waitWithin(ctx, min(left, pollWait)))
		msgs = append(msgs, more...)
	}
	if err != nil {
		p.log().Warn("natsqueue: filling a batch", "queue", q.name, "err", err)
	}
	return msgs, nil
}

// waitWithin is d, or less when ctx ends sooner.
func waitWithin(ctx context.Context, d time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl))
	}
	return d
}

// fetch pulls up to n messages, waiting up to wait for them all (0: only
// those there now), and puts each on the lease as it comes.
func fetch(cons jetstream.Consumer, l *lease, n int, wait time.Duration) ([]jetstream.Msg, error) {
	var mb jetstream.MessageBatch
	var err error
	if wait <= 0 {
		mb, err = cons.FetchNoWait(n)
	} else {
		mb, err = cons.Fetch(n, jetstream.FetchMaxWait(max(wait, time.Millisecond)))
	}
	if err != nil {
		return nil, err
	}
	var out []jetstream.Msg
	for m := range mb.Messages() {
		l.add(m) // at once: the fetch may wait a long time for the rest
		out = append(out, m)
	}
	return out, mb.Error()
}

// journal is the embedded server's delivery journal, nil on URLs.
func (p *Platform) journal() *deliveryJournal {
	if p.own == nil {
		return nil
	}
	return p.own.journal
}

// readyAt is when m became ready: when it was stored (or its schedule
// fired) for a first delivery, now for a redelivery.
func readyAt(m jetstream.Msg) time.Time {
	md, err := m.Metadata()
	if err != nil || md.NumDelivered > 1 {
		return time.Now()
	}
	return md.Timestamp
}

// lease keeps the messages of a batch being filled or handled from being
// redelivered: every AckWait/3 it tells the server they are in progress.
type lease struct {
	mu   sync.Mutex
	msgs []jetstream.Msg
	stop chan struct{}
	done chan struct{}
}

func (p *Platform) startLease(queue string) *lease {
	l := &lease{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(p.opts.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				l.mu.Lock()
				for _, m := range l.msgs {
					if err := m.InProgress(); err != nil {
						p.log().Warn("natsqueue: in progress", "queue", queue, "err", err)
					}
				}
				l.mu.Unlock()
			}
		}
	}()
	return l
}

func (l *lease) add(m jetstream.Msg) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, m)
}

func (l *lease) end() {
	close(l.stop)
	<-l.done
}

// delivery is one batch on its way through a handler.
type delivery struct {
	q         *queueState
	s         hostbridge.ConsumerSettings
	b         *hostbridge.BatchRecord
	taken     []jetstream.Msg // the handler's messages, as b.Messages()
	tries     []int           // deliveries of each from this queue
	counts    []uint64        // deliveries of each as a copy, this one included (the journal's)
	exhausted []exhausted     // delivered more than MaxRetries+1 times already (a consumer died)
	err       error
}

// exhausted is a message that skips the handler, as it would have seen it,
// with its deliveries from this queue.
type exhausted struct {
	m     jetstream.Msg
	hm    hostbridge.Message
	tries int
}

// errExhausted settles an exhausted message: its deliveries ended without
// an outcome, as failed ones.
var errExhausted = errors.New("natsqueue: delivered more than MaxRetries+1 times without an outcome")

// newDelivery reads msgs, counting the deliveries the server forgot (see
// deliveryJournal); those already past MaxRetries+1 deliveries (their
// consumer died or let the lease lapse) skip the handler.
func (p *Platform) newDelivery(q *queueState, s hostbridge.ConsumerSettings, msgs []jetstream.Msg) *delivery {
	d := &delivery{q: q, s: s}
	var hms []hostbridge.Message
	for _, m := range msgs {
		hm, tries := message(m)
		count := uint64(1)
		if md, err := m.Metadata(); err == nil {
			lost := p.journal().forgotten(md)
			hm.Attempts, tries, count = hm.Attempts+int(lost), tries+int(lost), md.NumDelivered+lost
		}
		if tries > s.MaxRetries+1 {
			d.exhausted = append(d.exhausted, exhausted{m: m, hm: hm, tries: tries})
			continue
		}
		d.taken = append(d.taken, m)
		d.tries = append(d.tries, tries)
		d.counts = append(d.counts, count)
		hms = append(hms, hm)
	}
	d.b = hostbridge.NewBatchRecord(q.name, hms)
	return d
}

// message is m as a hostbridge.Message, and how many times this queue
// delivered it. Its attempts are those its stored copy carries plus the
// copy's redeliveries: JetStream counts a copy's deliveries, so a copy
// that comes back (its host died holding it, or let its lease lapse, or
// its ack was lost) has one attempt more each time; a retry is a new copy
// with attempts + 1 (see storeRetries). The deliveries count the copy's
// deliveries and those of the copies before it (its tries header), so a
// message whose host dies every time still reaches its MaxRetries. Both
// grow by one with every delivery, so attempts are the deliveries plus
// what the message was sent with (Enqueue) less one.
func message(m jetstream.Msg) (hostbridge.Message, int) {
	h := m.Headers()
	md, err := m.Metadata()
	if err != nil {
		md = &jetstream.MsgMetadata{NumDelivered: 1, Timestamp: time.Now()}
	}
	hm := hostbridge.Message{ID: h.Get(hdrID), Timestamp: md.Timestamp, Attempts: 1}
	if hm.ID == "" {
		hm.ID = md.Stream + "-" + strconv.FormatUint(md.Sequence.Stream, 10)
	}
	if ns, err := strconv.ParseInt(h.Get(hdrSentAt), 10, 64); err == nil {
		hm.Timestamp = time.Unix(0, ns)
	}
	if a, err := strconv.Atoi(h.Get(hdrAttempts)); err == nil && a > 1 {
		hm.Attempts = a
	}
	tries := int(max(md.NumDelivered, 1))
	hm.Attempts += tries - 1
	if n, err := strconv.Atoi(h.Get(hdrTries)); err == nil && n > 0 {
		tries += n
	}
	hm.Body = hostbridge.BodyValue(h.Get(hdrType), m.Data())
	return hm, tries
}

// finish applies the outcome of a batch, message by message, as
// hostbridge.Settle says, and reports it. Dead letters are copied first; then
// the counters are stored, then the retry copies, then the acks and naks
// sent (see counters for why in that order: a host that dies in between
// leaves the originals to come back and be counted again). Every ack waits
// for the server, which removes an R1 stream's message before it answers,
// and the stream size read before is forgotten: once finish returns,
// Stats' Pending is what the batch left (the durable host's final line
// reads it so).
func (p *Platform) finish(d *delivery) hostbridge.DeliveryResult {
	r := hostbridge.DeliveryResult{Queue: d.q.name, Outcome: hostbridge.OutcomeOK, Err: d.err, IDs: make([]string, len(d.taken))}
	if d.err != nil {
		r.Outcome = hostbridge.OutcomeException
	}
	d.b.ReportCalls(&r)
	hms := d.b.Messages()
	var acts []func() error
	var retries []retryCopy
	for i, m := range d.taken {
		id := hms[i].ID
		r.IDs[i] = id
		switch a, delay := hostbridge.Settle(d.b.Outcome(i), d.err, d.tries[i], d.s); a {
		case hostbridge.ActionAck:
			acts = append(acts, p.remove(m))
			r.Acked = append(r.Acked, id)
		case hostbridge.ActionRetry:
			retries = append(retries, retryCopy{m: m, hm: hms[i], tries: d.tries[i], delay: delay})
			r.Retried = append(r.Retried, hostbridge.RetryMessage{ID: id, DelaySeconds: delay})
		default:
			acts = append(acts, p.giveUp(d, m, hms[i], a, &r))
		}
	}
	for _, x := range d.exhausted {
		a, _ := hostbridge.Settle(hostbridge.MessageOutcome{}, errExhausted, x.tries, d.s)
		acts = append(acts, p.giveUp(d, x.m, x.hm, a, &r))
	}
	p.countOutcome(d, &r)
	acts = append(acts, p.storeRetries(d.q, retries)...)
	p.apply(d.q, acts)
	d.q.forgetPending()
	return r
}

// countOutcome counts r, the outcome of d, and stores the counts (or keeps
// them for the next flush when the server does not answer).
func (p *Platform) countOutcome(d *delivery, r *hostbridge.DeliveryResult) {
	var deltas [nCounters]int64
	deltas[cDelivered] = int64(len(d.taken)) // the deliveries a handler saw: an exhausted message skips it
	if len(d.taken) > 0 {
		deltas[cBatches] = 1 // the handler ran
	}
	deltas[cAcked], deltas[cRetried] = int64(len(r.Acked)), int64(len(r.Retried))
	deltas[cDeadLettered], deltas[cDropped] = int64(len(r.DeadLettered)), int64(len(r.Dropped))
	p.count(d.q, deltas)
	ctx, cancel := p.ctx()
	defer cancel()
	if err := p.flush(ctx, d.q); err != nil {
		p.log().Warn("natsqueue: storing counts before acks (kept, tried again)", "queue", d.q.name, "err", err)
	}
}

// apply runs acts, all at once (some wait for the server), and logs their
// errors.
func (p *Platform) apply(q *queueState, acts []func() error) {
	var wg sync.WaitGroup
	for _, act := range acts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := act(); err != nil {
				p.log().Warn("natsqueue: ack or nak", "queue", q.name, "err", err)
			}
		}()
	}
	wg.Wait()
}

// giveUp does a, what Settle said of a message past MaxRetries: it moves
// the message to the dead-letter queue, or drops it, and returns the
// removal of the original, waiting for the server as for a retry. When the dead-letter queue cannot take it, it is retried a
// second later and dead-lettered on its next delivery, which skips the
// handler. A dead-letter copy some other publish stored (the original came
// back: its removal was lost) is not reported nor counted again.
func (p *Platform) giveUp(d *delivery, m jetstream.Msg, hm hostbridge.Message, a hostbridge.Action, r *hostbridge.DeliveryResult) func() error {
	if p.settledElsewhere(d.q, m) {
		return p.retry(m, 1) // not reported: another host settled it
	}
	if a == hostbridge.ActionDrop {
		r.Dropped = append(r.Dropped, hm.ID)
		return p.remove(m)
	}
	dlq := d.s.DeadLetterQueue
	stored, err := p.deadLetter(d.q, dlq, m, hm)
	if err != nil {
		// Not a retry a handler asked for, so not counted as one: the
		// message comes back in 1 s, skips the handler and is given up again.
		p.log().Warn("natsqueue: dead-letter copy (retried in 1 s)", "queue", d.q.name, "id", hm.ID, "err", err)
		return p.retry(m, 1)
	}
	if stored {
		r.DeadLettered = append(r.DeadLettered, hostbridge.DeadLetter{ID: hm.ID, Queue: dlq, Attempts: hm.Attempts})
	}
	return p.remove(m)
}

// deadLetter stores a copy of m, from queue src, on queue dlq: same ID,
// send time and body, attempts from 1 again, published as a retry copy is.
// The copy of the message at sequence S of src is on a subject of its own,
// <dlq ready>.d.<src token>.S, published expecting none stored there, so
// that the server refuses a second copy while one is in the dead-letter
// queue, whichever host publishes it; it names its original (Hb-Dead-Of),
// which its deliverer deletes before a handler sees it. It reports whether
// this host stored the copy: its publish was confirmed, or refused after a
// publish of this host's got no answer (that one stored it); a refusal
// otherwise is a copy stored by another publish, counted by its host.
func (p *Platform) deadLetter(src *queueState, dlq string, m jetstream.Msg, hm hostbridge.Message) (bool, error) {
	q, err := p.ensureQueue(context.Background(), dlq)
	if err != nil {
		return false, err
	}
	h := m.Headers()
	o := outMsg{id: hm.ID, sentAt: hm.Timestamp, attempts: 1, body: m.Data(), ctype: h.Get(hdrType)}
	md, err := m.Metadata()
	if err != nil {
		return false, err
	}
	o.deadOf = md.Stream + ":" + strconv.FormatUint(md.Sequence.Stream, 10)
	o.deadSubj = q.names.deadSubject(src.names.token, md.Sequence.Stream)
	msg, opts := q.names.natsMsg(o)
	res, err := p.publishConfirmed(msg, opts)
	if err != nil {
		p.mu.Lock()
		p.uncounted[o.deadSubj] = true
		p.mu.Unlock()
		return false, err
	}
	p.mu.Lock()
	lostBefore := p.uncounted[o.deadSubj]
	delete(p.uncounted, o.deadSubj)
	p.mu.Unlock()
	if stored := !res.before || res.lost || lostBefore; !stored {
		return false, nil
	}
	p.countSent(q, 1)
	return true, nil
}
