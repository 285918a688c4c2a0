package natsqueue

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// names are the stream, subjects and consumer of one queue.
type names struct {
	stream   string // <Prefix>_<token>
	prefix   string // <Prefix>.<token>.
	ready    string // <Prefix>.<token>.ready: what the consumer reads, with ready.>
	sched    string // <Prefix>.<token>.sched.: + a message ID, one schedule each
	token    string
	consumer string
}

// retrySubjects are the subjects of the retry copy of the message at seq:
// its schedule, the ready subject it fires onto (or it is stored on, for
// no delay), and the filter that matches both, on which the server finds
// it (see storeRetry).
func (n names) retrySubjects(seq uint64) (sched, ready, both string) {
	s := strconv.FormatUint(seq, 10)
	return n.sched + "r." + s, n.ready + ".r." + s, n.prefix + "*.r." + s
}

// deadSubject is the subject of the dead-letter copy, on this queue, of the
// message at seq of the queue of token src (see deadLetter).
func (n names) deadSubject(src string, seq uint64) string {
	return n.ready + ".d." + src + "." + strconv.FormatUint(seq, 10)
}

// consumerName is the durable consumer of every queue stream.
const consumerName = "hostbridge"

// namesOf maps a queue name onto JetStream names. A name of letters,
// digits, - and _ is kept; any other is written as ~ and its hex, so that
// every queue name has its own stream and no two collide.
func (p *Platform) namesOf(queue string) names {
	token := subjectToken(queue)
	pre := p.opts.Prefix
	return names{stream: pre + "_" + token, prefix: pre + "." + token + ".", ready: pre + "." + token + ".ready",
		sched: pre + "." + token + ".sched.", token: token, consumer: consumerName}
}

// subjectToken is s as one subject token and part of a stream name.
func subjectToken(s string) string {
	if plainName(s) {
		return s
	}
	return "~" + hex.EncodeToString([]byte(s))
}

func plainName(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// duplicateWindow is how long the server remembers a message ID to drop a
// repeated publish of it.
const duplicateWindow = 2 * time.Minute

// ensureQueue creates queue's stream and durable consumer once per Platform
// (idempotent on the server: a restarted host finds them as they were) and
// reads its counters. One goroutine at a time creates (p.opening): a
// sender and a consumer meeting a new queue together would otherwise
// update its stream while the other adds its consumer, two requests
// nats-server v2.15 runs without a common lock (the race detector reports
// the stream's config written and read at once).
func (p *Platform) ensureQueue(ctx context.Context, queue string) (*queueState, error) {
	if q := p.opened(queue); q != nil {
		return q, nil
	}
	p.opening.Lock()
	defer p.opening.Unlock()
	if q := p.opened(queue); q != nil {
		return q, nil
	}
	p.mu.Lock()
	l, limited := p.limits[queue]
	p.mu.Unlock()
	q := &queueState{name: queue, names: p.namesOf(queue)}
	n := q.names
	ctx, cancel := p.callCtx(ctx)
	defer cancel()
	maxMsgs := l.maxMsgs
	var err error
	if !limited {
		if maxMsgs, err = p.storedMaxMsgs(ctx, n); err != nil {
			return nil, fmt.Errorf("stream %s: %w", n.stream, err)
		}
	}
	if err := p.ensureClaims(ctx); err != nil {
		return nil, err
	}
	q.stream, err = p.js.CreateOrUpdateStream(ctx, p.streamConfig(n, maxMsgs))
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", n.stream, err)
	}
	q.cons, err = p.js.CreateOrUpdateConsumer(ctx, n.stream, jetstream.ConsumerConfig{
		Durable: n.consumer,
		// Sends on ready, retry and dead-letter copies on subjects of their
		// own below it.
		FilterSubjects: []string{n.ready, n.ready + ".>"},
		AckPolicy:      jetstream.AckExplicitPolicy,
		AckWait:        p.opts.AckWait,
		MaxDeliver:     -1,
		// A retry that fell back to a nak holds an ack-pending slot until
		// it comes back (up to 12 h): no limit, or such retries would stall
		// the queue.
		MaxAckPending: -1,
		Replicas:      p.opts.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", n.stream, err)
	}
	if err := p.loadCounters(ctx, n, &q.counts); err != nil {
		return nil, err
	}
	q.limited.Store(maxMsgs > 0)
	p.mu.Lock()
	p.queues[queue] = q
	p.mu.Unlock()
	return q, nil
}

// opened is queue's state once ensureQueue created it, else nil.
func (p *Platform) opened(queue string) *queueState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.queues[queue]
}

// storedMaxMsgs is the bound on the size of n's stream that a SetLimits
// before this Platform set (0: none, or no stream yet), so that a queue
// opened again keeps it, and Stats counts what it discards.
func (p *Platform) storedMaxMsgs(ctx context.Context, n names) (int64, error) {
	s, err := p.js.Stream(ctx, n.stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return max(s.CachedInfo().Config.MaxMsgs, 0), nil
}

// streamConfig is the stream of a queue that keeps at most maxMsgs
// messages (0: no bound).
func (p *Platform) streamConfig(n names, maxMsgs int64) jetstream.StreamConfig {
	c := jetstream.StreamConfig{
		Name:              n.stream,
		Subjects:          []string{n.ready, n.ready + ".>", n.sched + ">"},
		Retention:         jetstream.WorkQueuePolicy,
		Storage:           jetstream.FileStorage,
		Replicas:          p.opts.Replicas,
		Duplicates:        duplicateWindow,
		AllowMsgSchedules: true,
		AllowDirect:       true,
		MaxMsgs:           -1,
	}
	if maxMsgs > 0 {
		c.MaxMsgs = maxMsgs
	}
	return c
}

// queueState is what the Platform keeps of one queue whose stream and
// consumer exist.
type queueState struct {
	name   string
	names  names
	stream jetstream.Stream
	cons   jetstream.Consumer
	counts counters
	// Counts not yet on the server (stats.go): unflushed under cmu, the
	// batch being stored under fmu.
	cmu       sync.Mutex
	unflushed [nCounters]int64
	fmu       sync.Mutex
	inflight  *countBatch
	// limited: the stream discards its oldest messages past a limit.
	limited atomic.Bool

	pmu         sync.Mutex
	pendingAt   time.Time // when pendingVal was read
	pendingVal  int64
	pendingSent int64 // counts[cSent] then
	reserved    int64 // room taken by sends not yet stored and counted (reserve)
}
