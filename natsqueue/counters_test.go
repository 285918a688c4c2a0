package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go/jetstream"
)

// TestDroppedAfterReopen: a dead-letter queue bounded by SetLimits keeps
// its bound and its Dropped count when the Platform is opened again,
// before SetLimits is called again.
func TestDroppedAfterReopen(t *testing.T) {
	o := storeOptions(t)
	p := openBound(t, o)
	if err := p.SetLimits(ctxBG, "dlq", 0, 1); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{`1`, `2`} {
		if _, err := p.Enqueue(context.Background(), "dlq", hostbridge.Message{Body: json.RawMessage(b)}, 0); err != nil {
			t.Fatal(err)
		}
	}
	want := hostbridge.QueueStats{Sent: 2, Pending: 1, Dropped: 1}
	waitStats(t, p, "dlq", want)
	_ = p.Close() // Close always returns nil
	p = openWith(t, o)
	if _, err := p.Enqueue(context.Background(), "dlq", hostbridge.Message{Body: json.RawMessage(`3`)}, 0); err != nil {
		t.Fatal(err)
	}
	waitStats(t, p, "dlq", hostbridge.QueueStats{Sent: 3, Pending: 1, Dropped: 2})
}

// TestCountsStoredOnce: a batch of counts stored again under its IDs (its
// answer was lost) is counted once.
func TestCountsStoredOnce(t *testing.T) {
	o := storeOptions(t)
	p := openBound(t, o)
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	b := &countBatch{id: "batch-1"}
	b.deltas[cSent], b.deltas[cAcked] = 5, 3
	for range 2 {
		ctx, cancel := p.ctx()
		if err := p.publishCounts(ctx, q, b); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	_ = p.Close() // Close always returns nil
	p = openWith(t, o)
	if s := p.Stats(ctxBG, "q"); s.Sent != 5 || s.Acked != 3 {
		t.Errorf("stats %+v, want Sent 5, Acked 3", s)
	}
}

// results collects the DeliveryResults of consumers.
type results struct {
	mu sync.Mutex
	rs []hostbridge.DeliveryResult
}

// consume runs Deliver on queue until ctx ends, keeping every result;
// bodies starting "poison" fail their batch.
func (r *results) consume(ctx context.Context, p *Platform, queue string) {
	for ctx.Err() == nil {
		res, ok, err := p.Deliver(ctx, queue, func(ev hostbridge.Event) error {
			var poison bool
			for i, m := range ev.Batch().Messages() {
				if strings.HasPrefix(string(m.Body.(json.RawMessage)), `"poison`) && queue == "q" {
					poison = true
					continue
				}
				_ = hostbridge.AckQueueMessage(ev, i) // the index is the batch's own: no error
			}
			if poison {
				return errors.New("poison")
			}
			return nil
		})
		if err != nil {
			time.Sleep(50 * time.Millisecond)
		}
		if ok {
			r.mu.Lock()
			r.rs = append(r.rs, res)
			r.mu.Unlock()
		}
	}
}

// sum is what the results of queue add up to, as counters.
func (r *results) sum(queue string) hostbridge.QueueStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s hostbridge.QueueStats
	for _, x := range r.rs {
		if x.Queue == queue {
			s.Acked += int64(len(x.Acked))
			s.Retried += int64(len(x.Retried))
			s.DeadLettered += int64(len(x.DeadLettered))
			s.Dropped += int64(len(x.Dropped))
		}
	}
	return s
}

// sendSome sends n messages "m-<i>", one in 25 "poison-<i>", and returns
// how many sends returned nil.
func sendSome(p *Platform, n int) int {
	ok := 0
	for i := range n {
		body := fmt.Sprintf(`"m-%d"`, i)
		if i%25 == 0 {
			body = fmt.Sprintf(`"poison-%d"`, i)
		}
		if hostbridge.SendQueueMessage(context.Background(), p, "Q", body, 0) == nil {
			ok++
		}
		time.Sleep(2 * time.Millisecond)
	}
	return ok
}

// TestCountersExactUnderServerRestarts: the server (not the host) is
// stopped and started again twice while messages are sent, delivered,
// acked, retried and dead-lettered. Afterwards a new Platform reads from
// the server exactly what happened: Sent the sends that returned nil, and
// Acked, Retried, DeadLettered and Dropped what the deliveries reported.
// Pins D31.
func TestCountersExactUnderServerRestarts(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	srv := newRestartable(t)
	o := testOptions()
	o.URLs = []string{srv.s.ClientURL()}
	p := openBound(t, o)
	deadLettering(t, p, 20*time.Millisecond)
	var r results
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, q := range []string{"q", "dlq"} {
		wg.Add(1)
		go func() { defer wg.Done(); r.consume(ctx, p, q) }()
	}
	accepted := make(chan int)
	go func() { accepted <- sendSome(p, 400) }()
	for range 2 {
		time.Sleep(300 * time.Millisecond)
		srv.restart()
	}
	sent := <-accepted
	waitDrained(t, p, "q", "dlq")
	cancel()
	wg.Wait()
	_ = p.Close() // Close always returns nil
	p = openWith(t, o)
	for _, q := range []string{"q", "dlq"} {
		want := r.sum(q)
		want.Sent = int64(sent)
		if q == "dlq" {
			want.Sent = r.sum("q").DeadLettered
		}
		got := p.Stats(ctxBG, q)
		got.Delivered, got.Pending = 0, 0
		if got != want {
			t.Errorf("%s: stats %+v, want %+v", q, got, want)
		}
	}
	t.Logf("%d sent", sent)
}

// TestCountersReadFromLeader: a Platform reads a queue's counters from the
// counter stream's leader, never with a direct get, which any member of the
// stream's direct-get group answers: here a mirror of the counter stream
// (MirrorDirect) that has another queue's counters and lacks q's, as a
// replica that lags behind does. Twenty reads all give the stored counts.
// Pins D31.
func TestCountersReadFromLeader(t *testing.T) {
	p := openSingle(t)
	p.Bind("O", "other")
	p.Grant("O")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := p.js.CreateStream(ctx, jetstream.StreamConfig{
		Name: "LAGGING", Storage: jetstream.MemoryStorage, MirrorDirect: true,
		Mirror: &jetstream.StreamSource{Name: p.statsStream(), FilterSubject: "HB-stats.other.>"},
	}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		send(t, p, `1`, 0)
	}
	if err := hostbridge.SendQueueMessage(ctx, p, "O", `1`, 0); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"q", "other"} {
		if err := p.flush(ctx, p.opened(q)); err != nil {
			t.Fatal(err)
		}
	}
	for { // the mirror answers direct gets once it has mirrored a message
		s, err := p.js.Stream(ctx, "LAGGING")
		if err != nil {
			t.Fatal(err)
		}
		if s.CachedInfo().State.Msgs > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := range 20 {
		var c counters
		if err := p.loadCounters(ctx, p.opened("q").names, &c); err != nil {
			t.Fatal(err)
		}
		if got := c[cSent].Load(); got != 3 {
			t.Fatalf("read %d: sent %d, want 3", i, got)
		}
	}
}

// TestSentWhenAnswerLost: D30, D31: sends whose answers were lost, but
// that the server stored, fail as before (they "may still have been
// stored"), and once delivered and acked the counters say they were sent:
// Sent equals Acked, with no host crash. A Send and a SendBatch of three.
func TestSentWhenAnswerLost(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize = 4 })
	p.losePubAcks.Store(true)
	for _, err := range []error{
		p.Send(ctxBG, "Q", []byte(`1`), hostbridge.SendOptions{}),
		p.SendBatch(ctxBG, "Q", []hostbridge.BatchMessage{{Body: []byte(`2`)}, {Body: []byte(`3`)}, {Body: []byte(`4`)}}),
	} {
		if err == nil || !strings.HasPrefix(err.Error(), msgNoAnswer) {
			t.Fatalf("send whose answer was lost: %v, want %q…", err, msgNoAnswer)
		}
	}
	p.losePubAcks.Store(false)
	r, ok := deliverWithin(t, p, "q", 5*time.Second, func(hostbridge.Event) error { return nil })
	if !ok || len(r.Acked) != 4 {
		t.Fatalf("delivered %+v (%v), want the 4 messages acked", r, ok)
	}
	p.asking.Wait() // the questions about the sends were answered
	want := hostbridge.QueueStats{Sent: 4, Delivered: 4, Acked: 4}
	if s := p.Stats(ctxBG, "q"); s != want {
		t.Errorf("stats %+v, want %+v", s, want)
	}
}
