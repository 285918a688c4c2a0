//go:build unix

package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hostbridge"
)

// The queues of TestClusterProcessFaults. On fq a message fq-<n> is sent
// with a delay of 1+n%3 s when n%7 == 3; when n%10 == 0 it is retried with
// 1 s at every delivery until it goes to the dead-letter queue dlq after
// faultMaxRetries; when n%10 == 1 it is retried once with 1+n/10%2 s, then
// acked; any other is acked. bq is bounded by faultMaxPending; its
// producer sends as fast as it may and its consumer starts only once the
// faults are over.
const (
	faultMaxRetries = 2
	faultMaxPending = 150
)

// TestClusterProcessFaults is a Jepsen-style run on a cluster of three
// nats-server processes with R3 streams: producers send numbered messages
// (some delayed) while consumers ack, retry and dead-letter them; the
// stream leader is SIGKILLed and restarted, SIGSTOPped for 5 s (past
// AckWait) and continued, and two of the three nodes are SIGKILLed for 4 s
// and restarted (one round; five with -faults.long). The host is never
// crashed. After draining, faultHistory.check finds 0 of every anomaly
// (acknowledged sends lost, deliveries before their send delay or retry
// delay, attempts going back, not one more at a redelivery or past
// MaxRetries+1, a message handled more than MaxRetries+1 times, while
// another held it, or after its ack or dead-lettering, a dead-letter
// copy twice), allowing nothing for the node faults but the lease
// overlap whose earlier holder's outcome was refused; the bounded queue
// is never above its MaxPending, and a new Platform reads exact counters
// from the cluster, refused outcomes counting for nothing. -v logs a
// summary. Pins D31.
func TestClusterProcessFaults(t *testing.T) {
	long(t, "a cluster of processes under faults, about a minute")
	rounds := 1
	if *faultsLong {
		rounds = 5
	}
	c := startProcCluster(t)
	p, closeP, streams := openFaultPlatform(t, c)
	h := newFaultHistory(t)
	stopConsumers := runFaultConsumers(t, p, h, "fq", "dlq")
	stopProducers := runFaultProducers(t, p, h, c, streams[2])
	for range rounds {
		c.faultRound(h, streams)
	}
	stopProducers()
	stopBounded := runFaultConsumers(t, p, h, "bq")
	waitFaultDrained(t, c, h, streams)
	stopConsumers()
	stopBounded()
	if err := closeP(); err != nil {
		t.Error(err)
	}
	f := h.check(t, false)
	h.checkCounters(t, c, "")
	t.Log(h.summary(f, handlings))
}

// openFaultPlatform opens the producers' and consumers' Platform on c, R3,
// and creates its queues; it returns the Platform, a Close that may be
// called again, and the streams of fq, dlq, bq and the counters.
func openFaultPlatform(t *testing.T, c *procCluster) (*Platform, func() error, []string) {
	t.Helper()
	p, err := Open(Options{URLs: c.urls, Replicas: 3, AckWait: 3 * time.Second, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	closeP := sync.OnceValue(p.Close)
	t.Cleanup(func() { _ = closeP() }) // Close always returns nil
	p.Bind("FQ", "fq")
	p.Bind("BQ", "bq")
	p.Grant("FQ", "BQ")
	setConsumer(t, p, "fq", func(s *hostbridge.ConsumerSettings) {
		s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = 50*time.Millisecond, faultMaxRetries, "dlq"
	})
	for _, q := range []string{"dlq", "bq"} {
		setConsumer(t, p, q, func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 50 * time.Millisecond })
	}
	var streams []string
	for _, q := range []string{"fq", "dlq", "bq"} {
		limit := 0
		if q == "bq" {
			limit = faultMaxPending
		}
		if err := p.SetLimits(ctxBG, q, limit, 0); err != nil {
			t.Fatal(err)
		}
		streams = append(streams, p.namesOf(q).stream)
	}
	p.Stats(ctxBG, "fq") // the counter stream exists
	streams = append(streams, p.statsStream())
	c.waitHealthy(streams...)
	return p, closeP, streams
}

// runFaultConsumers runs the queues' consumers; the function returned
// stops them and waits (at the latest when the test ends).
func runFaultConsumers(t *testing.T, p *Platform, h *faultHistory, queues ...string) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, q := range queues {
		handler := ackAll
		if q == "fq" {
			handler = handleFQ
		}
		wg.Go(func() { h.run(ctx, p, q, handler) })
	}
	stop := func() { cancel(); wg.Wait() }
	t.Cleanup(stop)
	return stop
}

// handleFQ retries fq's messages by their number (the platform
// dead-letters those past MaxRetries) and acks the others; the history
// records what became of each (faultHistory.run).
func handleFQ(ev hostbridge.Event) error {
	for i, m := range ev.Batch().Messages() {
		n := idNumber(messageID(m))
		if n%10 != 0 && (n%10 != 1 || m.Attempts > 1) {
			if err := hostbridge.AckQueueMessage(ev, i); err != nil {
				return err
			}
			continue
		}
		delay := 1
		if n%10 == 1 {
			delay += n / 10 % 2
		}
		if err := hostbridge.RetryQueueMessage(ev, i, delay); err != nil {
			return err
		}
	}
	return nil
}

// ackAll acks every message of a batch.
func ackAll(ev hostbridge.Event) error {
	for i := range ev.Batch().Messages() {
		if err := hostbridge.AckQueueMessage(ev, i); err != nil {
			return err
		}
	}
	return nil
}

// idNumber is n of an id "<queue>-<n>".
func idNumber(id string) int {
	n, _ := strconv.Atoi(id[strings.LastIndexByte(id, '-')+1:])
	return n
}

// runFaultProducers runs two producers on fq, one every 10 ms each, one
// on bq as fast as it may, and a sampler of bq's stream size; the function
// returned stops them and waits (at the latest when the test ends).
func runFaultProducers(t *testing.T, p *Platform, h *faultHistory, c *procCluster, bqStream string) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); produce(ctx, p, h, "fq", g, 2, 10*time.Millisecond) }()
	}
	wg.Add(2)
	go func() { defer wg.Done(); produce(ctx, p, h, "bq", 0, 1, 0) }()
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if info, err := c.streamInfo(bqStream); err == nil {
				h.sampled("bq", info.State.Msgs)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	stop := func() { cancel(); wg.Wait() }
	t.Cleanup(stop)
	return stop
}

// produce sends queue's messages <queue>-<first>, <queue>-<first+step>, …
// one every gap (5 ms after a failed send) until ctx ends.
func produce(ctx context.Context, p *Platform, h *faultHistory, queue string, first, step int, gap time.Duration) {
	binding := strings.ToUpper(queue)
	for n := first; ctx.Err() == nil; n += step {
		id := fmt.Sprintf("%s-%d", queue, n)
		delay := 0
		if queue == "fq" && n%7 == 3 {
			delay = 1 + n%3
		}
		start := time.Now()
		err := hostbridge.SendQueueMessage(context.Background(), p, binding, strconv.Quote(id), delay)
		h.sent(queue, id, delay, start, err)
		if err != nil && gap == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(gap)
	}
}

// faultRound: the leader of fq's stream SIGKILLed for 2 s, then
// SIGSTOPped for 5 s, then it and another node SIGKILLed for 4 s; before
// each fault the cluster is healthy and runs 2 s unfaulted.
func (c *procCluster) faultRound(h *faultHistory, streams []string) {
	for _, f := range []struct {
		d    time.Duration
		sig  syscall.Signal
		more int // nodes faulted besides the leader
	}{{2 * time.Second, syscall.SIGKILL, 0}, {5 * time.Second, syscall.SIGSTOP, 0}, {4 * time.Second, syscall.SIGKILL, 1}} {
		c.waitHealthy(streams...)
		time.Sleep(2 * time.Second)
		l := c.leader(streams[0])
		nodes := []int{l}
		for i := range f.more {
			nodes = append(nodes, (l+1+i)%3)
		}
		c.faultFor(h, f.d, f.sig, nodes...)
	}
	c.waitHealthy(streams...)
}

// faultFor sends sig to nodes, waits d, and restarts them (after SIGKILL)
// or continues them (after SIGSTOP), recording both in the history.
func (c *procCluster) faultFor(h *faultHistory, d time.Duration, sig syscall.Signal, nodes ...int) {
	for _, i := range nodes {
		c.signal(i, sig)
	}
	h.fault(sig, nodes)
	time.Sleep(d)
	for _, i := range nodes {
		if sig == syscall.SIGKILL {
			c.start(i)
		} else {
			c.signal(i, syscall.SIGCONT)
		}
	}
	h.fault(0, nodes)
}

// waitFaultDrained waits up to 60 s until every send that returned nil
// was acked or dead-lettered and the queues' streams are empty.
func waitFaultDrained(t *testing.T, c *procCluster, h *faultHistory, streams []string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		missing := h.lost()
		err := errors.New("messages missing")
		if len(missing) == 0 {
			err = c.empty(streams[:3])
		}
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not drained after 60 s: %v; %d acknowledged sends lost: %.300v", err, len(missing), missing)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// empty fails unless every stream holds no message.
func (c *procCluster) empty(streams []string) error {
	for _, s := range streams {
		info, err := c.streamInfo(s)
		if err != nil {
			return err
		}
		if info.State.Msgs != 0 {
			return fmt.Errorf("%s holds %d messages", s, info.State.Msgs)
		}
	}
	return nil
}
