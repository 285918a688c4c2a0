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
	d := p.newDelivery(q, s, msgs)
	l.hold(d.holds)
	if len(d.taken) > 0 {
		d.err = d.b.Handle(handler)
	}
	l.release() // the outcomes are written over the last renewal
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
// redelivered: every AckWait/3 it tells the server they are in progress,
// and renews the claims of those handed to the handler.
type lease struct {
	mu    sync.Mutex
	msgs  []jetstream.Msg
	holds []*holding // renewed until release
	stop  chan struct{}
	done  chan struct{}
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
				p.renew(l.holds)
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

// hold renews hs's claims from now on.
func (l *lease) hold(hs []*holding) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holds = hs
}

// release stops renewing the claims, once a renewal in progress is done.
func (l *lease) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holds = nil
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
	holds     []*holding      // this host's claim on each
	exhausted []exhausted     // handed out more than MaxRetries+1 times already (a host died)
	later     []func() error  // what is done to the messages no handler sees
	err       error
}

// exhausted is a message that skips the handler, as it would have seen it,
// with its deliveries from this queue and this host's claim.
type exhausted struct {
	m     jetstream.Msg
	hm    hostbridge.Message
	tries int
	h     *holding
}

// errExhausted settles an exhausted message: its deliveries ended without
// an outcome, as failed ones.
var errExhausted = errors.New("natsqueue: delivered more than MaxRetries+1 times without an outcome")

// newDelivery claims msgs and keeps for the handler those this host now
// holds: a copy only once its original's claim says it is stored; one past
// MaxRetries+1 hand-outs (its holders died) is given up without a handler.
// The rest never reach a handler: a settled one is finished (its removal,
// its copy not stored yet), one another host holds is nak'd until its
// lease ends, one the server did not confirm is nak'd for a second.
func (p *Platform) newDelivery(q *queueState, s hostbridge.ConsumerSettings, msgs []jetstream.Msg) *delivery {
	d := &delivery{q: q, s: s}
	msgs = p.dropRefired(d, msgs)
	msgs = p.gateCopies(d, msgs)
	hs, sts := p.claimAll(q, msgs)
	var hms []hostbridge.Message
	for i, m := range msgs {
		switch sts[i] {
		case claimHeld:
			hm, tries := message(m, hs[i].c.N)
			if tries > s.MaxRetries+1 {
				d.exhausted = append(d.exhausted, exhausted{m: m, hm: hm, tries: tries, h: hs[i]})
				continue
			}
			d.taken, d.tries, d.holds = append(d.taken, m), append(d.tries, tries), append(d.holds, hs[i])
			hms = append(hms, hm)
		case claimSettled:
			d.later = append(d.later, p.finishSettled(q, m, hs[i]))
		case claimTaken:
			d.later = append(d.later, p.nakUntil(m, p.takeoverAt(hs[i].c)))
		default:
			p.log().Warn("natsqueue: claiming a message (held back)", "queue", q.name)
			d.later = append(d.later, p.retry(m, 1))
		}
	}
	d.b = hostbridge.NewBatchRecord(q.name, hms)
	return d
}

// dropRefired leaves out of msgs those a schedule fired a second time
// (see firingOf): each is removed, reaching no handler and counted
// nowhere, its first firing being the message. One the server did not say
// of is nak'd to come back within a second. It returns the rest of msgs.
func (p *Platform) dropRefired(d *delivery, msgs []jetstream.Msg) []jetstream.Msg {
	fired := make([]firing, len(msgs)) // firedFirst for a message no schedule fired
	var wg sync.WaitGroup
	for i, m := range msgs {
		md, err := m.Metadata()
		if subj, ok := p.firingSubject(d.q, m); ok && err == nil {
			wg.Go(func() { fired[i] = p.firingOf(subj, md.Sequence.Stream) })
		}
	}
	wg.Wait()
	out := msgs[:0:0]
	for i, m := range msgs {
		switch fired[i] {
		case firedUnknown:
			d.later = append(d.later, p.retry(m, 1))
		case firedAgain:
			p.log().Warn("natsqueue: a schedule fired twice (the second removed)", "queue", d.q.name, "id", m.Headers().Get(hdrID))
			d.later = append(d.later, p.remove(m))
		default:
			out = append(out, m)
		}
	}
	return out
}

// gateCopies leaves out of msgs the copies whose original's claim does not
// say yet that they are stored (see openCopy), nak'd to come back within a
// second, or when the lease of the host storing it ends, and counts as sent the dead-letter copies this host marked stored.
// It returns the rest of msgs.
func (p *Platform) gateCopies(d *delivery, msgs []jetstream.Msg) []jetstream.Msg {
	gates, untils, marked := make([]copyGate, len(msgs)), make([]time.Time, len(msgs)), make([]bool, len(msgs))
	var wg sync.WaitGroup
	for i, m := range msgs {
		if subj, ok := p.originalClaim(d.q, m); ok {
			wg.Go(func() { gates[i], untils[i], marked[i] = p.openCopy(subj) })
		}
	}
	wg.Wait()
	out := msgs[:0:0]
	for i, m := range msgs {
		if marked[i] && m.Headers().Get(hdrDeadOf) != "" {
			p.countSent(d.q, 1)
		}
		switch gates[i] {
		case gateOpen:
			out = append(out, m)
		case gateWait: // its host is likely marking it this very moment: look again soon
			soon := time.Now().Add(time.Second)
			if untils[i].Before(soon) {
				soon = untils[i]
			}
			d.later = append(d.later, p.nakUntil(m, soon))
		default:
			d.later = append(d.later, p.retry(m, 1))
		}
	}
	return out
}

// nakUntil is the nak of m to come back just after t.
func (p *Platform) nakUntil(m jetstream.Msg, t time.Time) func() error {
	return func() error { return m.NakWithDelay(max(time.Until(t), 0) + retryPause) }
}

// message is m as a hostbridge.Message in its n-th hand-out (its claim's
// count), and how many times this queue delivered it. Its attempts are
// those its stored copy carries plus the copy's hand-outs before this one;
// a retry is a new copy with attempts + 1 (see storeRetry). The deliveries
// count those of the copies before it too (its tries header), so a message
// whose host dies every time still reaches its MaxRetries. Both grow by
// one with every hand-out, a crashed host's included.
func message(m jetstream.Msg, n int) (hostbridge.Message, int) {
	h := m.Headers()
	md, err := m.Metadata()
	if err != nil {
		md = &jetstream.MsgMetadata{Timestamp: time.Now()}
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
	hm.Attempts += n - 1
	tries := n
	if t, err := strconv.Atoi(h.Get(hdrTries)); err == nil && t > 0 {
		tries += t
	}
	hm.Body = hostbridge.BodyValue(h.Get(hdrType), m.Data())
	return hm, tries
}

// settling is one outcome on its way: the message, as the handler saw it,
// its deliveries, this host's claim, what Settle said, and whether the
// settled claim committed.
type settling struct {
	m         jetstream.Msg
	hm        hostbridge.Message
	tries     int
	h         *holding
	done      claim
	exhausted bool
	ok        bool // committed
	unknown   bool // not known to be committed or refused
}

// finish applies the outcome of a batch, message by message, as
// hostbridge.Settle says, and reports it. The outcomes are counted and the
// counts stored first (a host that dies after an outcome committed has
// counted it; one that dies before leaves the message to come back and be
// counted again). Then each outcome is committed on the message's claim,
// over this host's hold: one refused (the lease ended and another host
// took the message) is neither applied nor reported, and its count is
// taken back; the message is then in r.IDs only. One the server did not
// confirm either way stays counted, unapplied: committed, whoever the
// message comes back to applies it; not, it is handled and counted again. Then the copies and the
// removals are done (a host that dies in between leaves them to whoever
// the message comes back to). Every ack waits for the server, which
// removes an R1 stream's message before it answers, and the stream size
// read before is forgotten: once finish returns, Stats' Pending is what
// the batch left (the durable host's final line reads it so).
func (p *Platform) finish(d *delivery) hostbridge.DeliveryResult {
	r := hostbridge.DeliveryResult{Queue: d.q.name, Outcome: hostbridge.OutcomeOK, Err: d.err, IDs: make([]string, len(d.taken))}
	if d.err != nil {
		r.Outcome = hostbridge.OutcomeException
	}
	d.b.ReportCalls(&r)
	hms := d.b.Messages()
	var ss []*settling
	for i, m := range d.taken {
		r.IDs[i] = hms[i].ID
		a, delay := hostbridge.Settle(d.b.Outcome(i), d.err, d.tries[i], d.s)
		ss = append(ss, &settling{m: m, hm: hms[i], tries: d.tries[i], h: d.holds[i], done: p.doneOf(a, delay, d.s)})
	}
	for _, x := range d.exhausted {
		a, _ := hostbridge.Settle(hostbridge.MessageOutcome{}, errExhausted, x.tries, d.s)
		ss = append(ss, &settling{m: x.m, hm: x.hm, tries: x.tries, h: x.h, done: p.doneOf(a, 0, d.s), exhausted: true})
	}
	p.countOutcome(d.q, ss, len(d.taken) > 0, 1)
	p.settleAll(ss)
	acts := d.later
	var refused []*settling
	for _, st := range ss {
		if !st.ok && !st.unknown {
			refused = append(refused, st)
		}
		if !st.ok {
			continue
		}
		report(&r, st)
		acts = append(acts, p.applySettled(d.q, st.m, st.hm, st.tries, st.h))
	}
	if len(refused) > 0 {
		p.countOutcome(d.q, refused, false, -1)
	}
	p.apply(d.q, acts)
	d.q.forgetPending()
	return r
}

// doneOf is the settled claim of an outcome a.
func (p *Platform) doneOf(a hostbridge.Action, delay int, s hostbridge.ConsumerSettings) claim {
	switch a {
	case hostbridge.ActionAck:
		return claim{Done: doneAck}
	case hostbridge.ActionRetry:
		return claim{Done: doneRetry, Delay: delay}
	case hostbridge.ActionDeadLetter:
		return claim{Done: doneDead, DLQ: s.DeadLetterQueue}
	}
	return claim{Done: doneDrop}
}

// settleAll commits each outcome of ss on its claim, over this host's
// hold (see settled), the writes pipelined (writeEach), and records in
// each whether it committed, and only then may the outcome be applied and
// counted, or whether the server did not say so within the settle
// patience (unknown). A hold lost to another write is refused.
func (p *Platform) settleAll(ss []*settling) {
	var held []*settling
	var ws []claimWrite
	for _, st := range ss {
		if st.h.rev != 0 { // a hold lost to another write: refused
			held, ws = append(held, st), append(ws, p.settled(st.h, st.done))
		}
	}
	oks, errs := p.writeEach(ws, time.Now().Add(p.settlePatience()))
	for i, st := range held {
		st.ok, st.unknown = oks[i], errs[i] != nil
		if errs[i] != nil {
			p.log().Warn("natsqueue: settling a claim (outcome not applied)", "subject", st.h.subj, "err", errs[i])
		}
	}
}

// report adds st, an outcome committed, to r.
func report(r *hostbridge.DeliveryResult, st *settling) {
	id := st.hm.ID
	switch st.done.Done {
	case doneAck:
		r.Acked = append(r.Acked, id)
	case doneRetry:
		r.Retried = append(r.Retried, hostbridge.RetryMessage{ID: id, DelaySeconds: st.done.Delay})
	case doneDead:
		r.DeadLettered = append(r.DeadLettered, hostbridge.DeadLetter{ID: id, Queue: st.done.DLQ, Attempts: st.hm.Attempts})
	default:
		r.Dropped = append(r.Dropped, id)
	}
}

// countOutcome counts the outcomes ss (sign -1: takes them back) and the
// handler's run, and stores the counts (or keeps them for the next flush
// when the server does not answer).
func (p *Platform) countOutcome(q *queueState, ss []*settling, ran bool, sign int64) {
	var deltas [nCounters]int64
	if ran {
		deltas[cBatches] = 1
	}
	for _, st := range ss {
		if !st.exhausted {
			deltas[cDelivered] += sign // a delivery a handler saw
		}
		deltas[counterOf[st.done.Done]] += sign
	}
	p.count(q, deltas)
	ctx, cancel := p.ctx()
	defer cancel()
	if err := p.flush(ctx, q); err != nil {
		p.log().Warn("natsqueue: storing counts before outcomes (kept, tried again)", "queue", q.name, "err", err)
	}
}

// counterOf is the counter of each outcome a claim records.
var counterOf = map[string]int{doneAck: cAcked, doneRetry: cRetried, doneDead: cDeadLettered, doneDrop: cDropped}

// apply runs acts, all at once (some wait for the server), and logs their
// errors.
func (p *Platform) apply(q *queueState, acts []func() error) {
	var wg sync.WaitGroup
	for _, act := range acts {
		wg.Go(func() {
			if err := act(); err != nil {
				p.log().Warn("natsqueue: ack or nak", "queue", q.name, "err", err)
			}
		})
	}
	wg.Wait()
}
