package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The counters of a queue, kept in JetStream so that they survive restarts:
// a stream <Prefix>_STATS of counters (one subject
// <Prefix>-stats.<queue>.<counter> per queue and counter, each message
// adding to the subject's value with Nats-Incr). The Platform keeps a copy
// it adds to as it goes, read from the stream once per queue.
//
// Every count is kept until the server confirms it (flush): the counts of
// a flush go out under publish IDs of their own, and a flush the server
// did not confirm is sent again under the same IDs, so the server drops
// what it already has. So with no host crash the counters are exact (as
// long as the server answers a count sent again within its 2 min duplicate
// window). Sends are counted once stored and flushed within flushEvery; a
// batch's counts are flushed before its retry copies are stored and its
// acks and naks sent. So a
// host crash loses at most the sends of its last flushEvery (and counts the
// server had not confirmed), and counts again a message it delivered
// again.
const (
	cSent = iota
	cDelivered
	cAcked
	cRetried
	cDeadLettered
	cDropped
	cBatches     // batches handed to a handler (Deliver)
	cRefusedFull // sends refused with ErrQueueFull
	nCounters
)

var counterNames = [nCounters]string{"sent", "delivered", "acked", "retried", "deadLettered", "dropped", "batches", "refusedFull"}

// counters are one queue's counters: what the stream had when the queue was
// opened plus what this Platform added.
type counters [nCounters]atomic.Int64

// statsStream is the counter stream's name.
func (p *Platform) statsStream() string { return p.opts.Prefix + "_STATS" }

func (n names) counterSubject(prefix string, c int) string {
	return prefix + "-stats." + n.token + "." + counterNames[c]
}

// ensureStats creates the counter stream (once per Platform).
func (p *Platform) ensureStats(ctx context.Context) (jetstream.Stream, error) {
	p.statsOnce.Lock()
	defer p.statsOnce.Unlock()
	if p.stats != nil {
		return p.stats, nil
	}
	s, err := p.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: p.statsStream(), Subjects: []string{p.opts.Prefix + "-stats.>"},
		Storage: jetstream.FileStorage, Replicas: p.opts.Replicas,
		AllowMsgCounter: true, AllowDirect: true, MaxMsgsPerSubject: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", p.statsStream(), err)
	}
	p.stats = s
	return s, nil
}

// loadCounters reads queue n's counters from the stream's leader. Not a
// direct get: any replica may answer one (once it was about 90% caught up,
// and again after a pause, before it catches up), and the eight counters,
// read one by one, could then come from replicas at different points (sent
// behind acked), a Platform's Stats off by that lag for as long as it runs.
func (p *Platform) loadCounters(ctx context.Context, n names, c *counters) error {
	if _, err := p.ensureStats(ctx); err != nil {
		return err
	}
	for i := range nCounters {
		var m *storedMsg
		err := untilResponders(ctx, func() (err error) {
			m, err = leaderAPI{p}.getMsg(ctx, p.statsStream(), msgGetRequest{LastFor: n.counterSubject(p.opts.Prefix, i)})
			return err
		})
		if apiCode(err) == codeNoMessage {
			continue
		}
		if err != nil {
			return fmt.Errorf("counter %s: %w", counterNames[i], err)
		}
		var v struct{ Val string }
		if err := json.Unmarshal(m.Data, &v); err != nil {
			return fmt.Errorf("counter %s: %w", counterNames[i], err)
		}
		x, err := strconv.ParseInt(v.Val, 10, 64)
		if err != nil {
			return fmt.Errorf("counter %s: %w", counterNames[i], err)
		}
		c[i].Store(x)
	}
	return nil
}

// respondersWait is how long untilResponders waits between tries.
const respondersWait = 50 * time.Millisecond

// untilResponders calls f until it returns something other than
// nats.ErrNoResponders, or ctx ends. A stream just created (or whose
// replicas just moved) answers its direct gets only once its replicas have
// elected a leader and subscribed; until then the request has no
// responders, which here means "not yet", not "never".
func untilResponders(ctx context.Context, f func() error) error {
	for {
		err := f()
		if !errors.Is(err, nats.ErrNoResponders) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(respondersWait):
		}
	}
}

// Stats returns queue's counters: Sent, Delivered, Acked, Retried,
// DeadLettered and Dropped as kept in JetStream (see counters), Pending the
// size of its stream now. Dropped also counts the messages the stream
// discarded to keep within a limit (SetLimits). InFlight and Ready are not
// kept (0). Its calls to the server end with ctx or after Options.Timeout;
// the first for a queue creates its stream and consumer, as a send would.
// While the server cannot be reached it returns zeros, or what it counted,
// with the last Pending it read.
func (p *Platform) Stats(ctx context.Context, queue string) hostbridge.QueueStats {
	q, err := p.ensureQueue(ctx, queue)
	if err != nil {
		p.log().Warn("natsqueue: stats", "queue", queue, "err", err)
		return hostbridge.QueueStats{}
	}
	c := &q.counts
	s := hostbridge.QueueStats{Sent: c[cSent].Load(), Delivered: c[cDelivered].Load(), Acked: c[cAcked].Load(),
		Retried: c[cRetried].Load(), DeadLettered: c[cDeadLettered].Load(), Dropped: c[cDropped].Load()}
	if s.Pending, err = p.pending(ctx, q); err != nil {
		p.log().Warn("natsqueue: stats: pending", "queue", queue, "err", err)
	}
	if gone := s.Sent - s.Acked - s.DeadLettered - s.Dropped - s.Pending; gone > 0 && q.limited.Load() {
		s.Dropped += gone
	}
	return s
}

// MoreStats are a queue's counters that hostbridge.QueueStats has no field
// for, kept in JetStream as the others are (see counters): Batches is the
// batches Deliver handed to a handler (a batch delivered again after a host
// crash counts again), RefusedFull the sends and batches refused with
// ErrQueueFull.
type MoreStats struct {
	Batches     int64
	RefusedFull int64
}

// MoreStats returns queue's counters beyond Stats (zeros while the server
// cannot be reached and nothing was counted). Like Stats, its calls to the
// server end with ctx or after Options.Timeout, and the first for a queue
// creates its stream and consumer.
func (p *Platform) MoreStats(ctx context.Context, queue string) MoreStats {
	q, err := p.ensureQueue(ctx, queue)
	if err != nil {
		p.log().Warn("natsqueue: stats", "queue", queue, "err", err)
		return MoreStats{}
	}
	return MoreStats{Batches: q.counts[cBatches].Load(), RefusedFull: q.counts[cRefusedFull].Load()}
}

// count adds deltas to q's counters here and to those the next flush
// stores on the server.
func (p *Platform) count(q *queueState, deltas [nCounters]int64) {
	q.cmu.Lock()
	defer q.cmu.Unlock()
	for i, d := range deltas {
		q.counts[i].Add(d)
		q.unflushed[i] += d
	}
}

// countSent counts n messages stored on q; the flusher stores the count.
func (p *Platform) countSent(q *queueState, n int) { p.countOne(q, cSent, n) }

// countOne adds n to q's counter c; the flusher stores the count.
func (p *Platform) countOne(q *queueState, c, n int) {
	if n > 0 {
		var d [nCounters]int64
		d[c] = int64(n)
		p.count(q, d)
	}
}

// countBatch is counts on their way to the server under one publish ID.
type countBatch struct {
	id     string
	deltas [nCounters]int64
}

// flush stores q's counts on the server: first a batch it did not confirm
// (again, under the same IDs, so the server drops what it already has),
// then all counted since. One flush of q runs at a time; a count is never
// dropped, only kept for the next flush when the server does not answer.
func (p *Platform) flush(ctx context.Context, q *queueState) error {
	q.fmu.Lock()
	defer q.fmu.Unlock()
	if q.inflight != nil {
		if err := p.publishCounts(ctx, q, q.inflight); err != nil {
			return err
		}
		q.inflight = nil
	}
	q.cmu.Lock()
	b := &countBatch{deltas: q.unflushed}
	q.unflushed = [nCounters]int64{}
	q.cmu.Unlock()
	if b.deltas == ([nCounters]int64{}) {
		return nil
	}
	b.id = p.newID()
	q.inflight = b
	if err := p.publishCounts(ctx, q, b); err != nil {
		return err
	}
	q.inflight = nil
	return nil
}

// publishCounts adds b's deltas to q's counters on the server, each under
// the publish ID b.id.<counter>, and waits for the answers.
func (p *Platform) publishCounts(ctx context.Context, q *queueState, b *countBatch) error {
	var futures []jetstream.PubAckFuture
	for c, d := range b.deltas {
		if d == 0 {
			continue
		}
		m := &nats.Msg{Subject: q.names.counterSubject(p.opts.Prefix, c), Header: nats.Header{"Nats-Incr": {strconv.FormatInt(d, 10)}}}
		f, err := p.js.PublishMsgAsync(m, jetstream.WithMsgID(b.id+"."+counterNames[c]))
		if err != nil {
			return err
		}
		futures = append(futures, f)
	}
	_, _, err := waitAcks(ctx, futures) // one not confirmed is sent again under its ID
	return err
}

// flushEvery is how often counts are stored on the server: a host crash
// loses at most the counts of this long (never a message).
const flushEvery = 50 * time.Millisecond

// flusher stores the counts until stop is closed, then once more.
func (p *Platform) flusher(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			p.flushAll()
			return
		case <-t.C:
			p.flushAll()
		}
	}
}

// flushAll flushes every queue's counts, logging what the server did not
// take (it is tried again at the next flush).
func (p *Platform) flushAll() {
	p.mu.Lock()
	qs := make([]*queueState, 0, len(p.queues))
	for _, q := range p.queues {
		qs = append(qs, q)
	}
	p.mu.Unlock()
	for _, q := range qs {
		ctx, cancel := p.ctx()
		if err := p.flush(ctx, q); err != nil {
			p.log().Warn("natsqueue: storing counts (kept, tried again)", "queue", q.name, "err", err)
		}
		cancel()
	}
}
