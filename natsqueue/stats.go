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
// adding to the subject's value with Nats-Incr). The Platform
// keeps a copy it adds to as it goes, read from the stream once per queue.
//
// Their order with the messages makes them err one way only: sent is added
// after the messages are stored (a crash in between undercounts it), acked,
// deadLettered and dropped are stored before the acks and terms they count
// (a crash in between overcounts them, when the message comes back and is
// counted again). So once nothing is pending, acked + deadLettered +
// dropped ≥ sent, whatever crashed when.
const (
	cSent = iota
	cDelivered
	cAcked
	cRetried
	cDeadLettered
	cDropped
	nCounters
)

var counterNames = [nCounters]string{"sent", "delivered", "acked", "retried", "deadLettered", "dropped"}

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

// loadCounters reads queue n's counters from the stream.
func (p *Platform) loadCounters(ctx context.Context, n names, c *counters) error {
	s, err := p.ensureStats(ctx)
	if err != nil {
		return err
	}
	for i := range nCounters {
		var m *jetstream.RawStreamMsg
		err := untilResponders(ctx, func() (err error) {
			m, err = s.GetLastMsgForSubject(ctx, n.counterSubject(p.opts.Prefix, i))
			return err
		})
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("counter %s: %w", counterNames[i], err)
		}
		var v struct{ Val string }
		if err := json.Unmarshal(m.Data, &v); err != nil {
			return fmt.Errorf("counter %s: %w", counterNames[i], err)
		}
		x, _ := strconv.ParseInt(v.Val, 10, 64)
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

// add adds deltas to q's counters, here and on the server, and returns
// once the server has them (or could not take them).
func (p *Platform) add(q *queueState, deltas [nCounters]int64) {
	var futures []jetstream.PubAckFuture
	for i, d := range deltas {
		if d != 0 {
			q.counts[i].Add(d)
			futures = append(futures, p.publishCount(q, i, d, false)...)
		}
	}
	ctx, cancel := p.ctx()
	defer cancel()
	_, _ = waitAcks(ctx, futures)
}

// publishCount adds d to counter c of q on the server: it waits for the
// answer with wait, else returns the future.
func (p *Platform) publishCount(q *queueState, c int, d int64, wait bool) []jetstream.PubAckFuture {
	m := &nats.Msg{Subject: q.names.counterSubject(p.opts.Prefix, c), Header: nats.Header{"Nats-Incr": {strconv.FormatInt(d, 10)}}}
	f, err := p.js.PublishMsgAsync(m)
	if err != nil {
		return nil
	}
	if !wait {
		return []jetstream.PubAckFuture{f}
	}
	ctx, cancel := p.ctx()
	defer cancel()
	_, _ = waitAcks(ctx, []jetstream.PubAckFuture{f})
	return nil
}

// Stats returns queue's counters: Sent, Delivered, Acked, Retried,
// DeadLettered and Dropped as kept in JetStream (see counters), Pending the
// size of its stream now. Dropped also counts the messages the stream
// discarded to keep within a limit (SetLimits). InFlight and Ready are not
// kept (0). While the server cannot be reached it returns zeros, or what
// it counted, with the last Pending it read.
func (p *Platform) Stats(queue string) hostbridge.QueueStats {
	q, err := p.ensureQueue(context.Background(), queue)
	if err != nil {
		p.log().Warn("natsqueue: stats", "queue", queue, "err", err)
		return hostbridge.QueueStats{}
	}
	c := &q.counts
	s := hostbridge.QueueStats{Sent: c[cSent].Load(), Delivered: c[cDelivered].Load(), Acked: c[cAcked].Load(),
		Retried: c[cRetried].Load(), DeadLettered: c[cDeadLettered].Load(), Dropped: c[cDropped].Load()}
	if s.Pending, err = p.pending(context.Background(), q); err != nil {
		p.log().Warn("natsqueue: stats: pending", "queue", queue, "err", err)
	}
	if gone := s.Sent - s.Acked - s.DeadLettered - s.Dropped - s.Pending; gone > 0 && q.limited.Load() {
		s.Dropped += gone
	}
	return s
}

// countSent counts n messages stored on q; the flusher stores the count.
func (p *Platform) countSent(q *queueState, n int) {
	q.counts[cSent].Add(int64(n))
	q.unsent.Add(int64(n))
}

// flushEvery is how often sends are counted on the server: a crash loses
// at most this long's sends from the count (never from the queue).
const flushEvery = 50 * time.Millisecond

// flusher stores the send counts until stop is closed, then once more.
func (p *Platform) flusher(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			p.flushSent(true)
			return
		case <-t.C:
			p.flushSent(false)
		}
	}
}

func (p *Platform) flushSent(wait bool) {
	p.mu.Lock()
	qs := make([]*queueState, 0, len(p.queues))
	for _, q := range p.queues {
		qs = append(qs, q)
	}
	p.mu.Unlock()
	for _, q := range qs {
		if n := q.unsent.Swap(0); n > 0 {
			p.publishCount(q, cSent, n, wait)
		}
	}
}
