package natsqueue

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hostbridge"
)

// TestClusterR3 runs on a 3-node cluster in this process, every stream
// with three replicas: the platform check, the consumer vectors, and the
// loss of a stream leader mid-run.
func TestClusterR3(t *testing.T) {
	long(t, "a three-node cluster losing leaders, about 20 s")
	c := startCluster(t)
	p := openCluster(t, c)
	t.Run("CheckQueuePlatform", func(t *testing.T) {
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 100 * time.Millisecond })
		checkPlatform(t, p)
	})
	t.Run("ConsumerVectors", func(t *testing.T) { replayRows(t, p) })
	t.Run("RetriesAcrossFailover", func(t *testing.T) { retriesAcrossFailover(t, c, p) })
	t.Run("CounterLeaderLoss", func(t *testing.T) { counterLeaderLoss(t, c, p) })
	t.Run("LeaderLoss", func(t *testing.T) { leaderLoss(t, c, p) })
}

// leaderLoss shuts the leader of queue fo's stream down while messages are
// sent and delivered, a delayed one pending: sends and deliveries resume on
// the two nodes left, and every accepted message is delivered, the delayed
// one not before it is due.
func leaderLoss(t *testing.T, c *cluster, p *Platform) {
	p.Bind("FO", "fo")
	p.Grant("FO")
	setConsumer(t, p, "fo", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 50 * time.Millisecond })
	sentDelayed := time.Now()
	if err := hostbridge.SendQueueMessage(context.Background(), p, "FO", `"delayed"`, 2); err != nil {
		t.Fatal(err)
	}
	l := newLedger()
	runConsumers(t, p, l, "fo")
	var accepted []string
	var failed int
	done := make(chan struct{})
	go func() {
		accepted, failed = senderTo(p, "FO", "m", 150, 5*time.Millisecond)
		close(done)
	}()
	time.Sleep(200 * time.Millisecond)
	leader := c.streamLeader(t, p.namesOf("fo").stream)
	c.stop(leader)
	t.Logf("stopped stream leader n%d", leader)
	<-done
	dup := l.waitSeen(t, append(accepted, `"delayed"`), 30*time.Second)
	t.Logf("%d accepted, %d sends failed during the election, %d duplicate deliveries", len(accepted), failed, dup)
	l.notEarly(t, `"delayed"`, sentDelayed.Add(2*time.Second))
	waitDrained(t, p, "fo")
	acked := l.acks()
	want := hostbridge.QueueStats{Sent: int64(len(accepted) + 1), Delivered: acked, Acked: acked}
	wantClusterStats(t, c, p, "fo", want)
}

// retriesAcrossFailover retries 20 messages with a 3 s delay, then stops
// the leader of their stream: on the two nodes left each comes back once,
// with attempts 2, no earlier than 3 s after its handler returned; the
// counters a new Platform reads from the cluster are exactly what happened.
func retriesAcrossFailover(t *testing.T, c *cluster, p *Platform) {
	p.Bind("RF", "rf")
	p.Grant("RF")
	setConsumer(t, p, "rf", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = 20, time.Second })
	for i := range 20 {
		if err := hostbridge.SendQueueMessage(context.Background(), p, "RF", fmt.Sprint(i), 0); err != nil {
			t.Fatal(err)
		}
	}
	done := map[string]time.Time{}
	back, stopped := 0, false
	for back < 20 {
		_, ok := deliverWithin(t, p, "rf", 30*time.Second, func(ev hostbridge.Event) error {
			for i, m := range ev.Batch().Messages() {
				if m.Attempts == 1 {
					_ = hostbridge.RetryQueueMessage(ev, i, 3) // the index is the batch's own: no error
					continue
				}
				back++
				_ = hostbridge.AckQueueMessage(ev, i) // the index is the batch's own: no error
				if early := done[m.ID].Add(3 * time.Second).Sub(time.Now()); early > 0 || m.Attempts != 2 {
					t.Errorf("%s (attempts %d) back %v before its 3 s delay", m.ID, m.Attempts, early)
				}
			}
			for _, m := range ev.Batch().Messages() {
				if m.Attempts == 1 {
					done[m.ID] = time.Now()
				}
			}
			return nil
		})
		if !ok {
			t.Fatalf("%d of 20 retries came back", back)
		}
		if len(done) == 20 && !stopped {
			stopped = true
			leader := c.streamLeader(t, p.namesOf("rf").stream)
			c.stop(leader)
			defer func() { c.start(leader); c.waitJetStream() }()
			t.Logf("stopped stream leader n%d", leader)
		}
	}
	want := hostbridge.QueueStats{Sent: 20, Delivered: 40, Acked: 20, Retried: 20}
	wantClusterStats(t, c, p, "rf", want)
}

// counterLeaderLoss stops the leader of the counter stream while messages
// are sent and delivered, then starts it again: the counters a new
// Platform reads from the cluster are exactly the sends that returned nil
// and the acks the handlers made.
func counterLeaderLoss(t *testing.T, c *cluster, p *Platform) {
	p.Bind("CL", "cl")
	p.Grant("CL")
	setConsumer(t, p, "cl", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 50 * time.Millisecond })
	send := func() {
		if err := hostbridge.SendQueueMessage(context.Background(), p, "CL", `"first"`, 0); err != nil {
			t.Fatal(err)
		}
	}
	send() // the queue and its counters exist
	l := newLedger()
	runConsumers(t, p, l, "cl")
	var accepted []string
	failed := 0
	done := make(chan struct{})
	go func() {
		accepted, failed = senderTo(p, "CL", "m", 150, 5*time.Millisecond)
		close(done)
	}()
	time.Sleep(200 * time.Millisecond)
	leader := c.streamLeader(t, p.statsStream())
	c.stop(leader)
	t.Logf("stopped the counter stream's leader n%d", leader)
	<-done
	l.waitSeen(t, append(accepted, `"first"`), 30*time.Second)
	waitDrained(t, p, "cl")
	c.start(leader)
	c.waitJetStream()
	// Sent counts the messages stored, a send that failed but was stored
	// included, each delivered and acked once: acked of them, at most the
	// sends that failed more than the accepted ones.
	acked := l.acks()
	if acked > int64(len(accepted)+1+failed) {
		t.Errorf("%d acked of %d accepted and %d failed sends", acked, len(accepted)+1, failed)
	}
	want := hostbridge.QueueStats{Sent: acked, Delivered: acked, Acked: acked}
	wantClusterStats(t, c, p, "cl", want)
}

// wantClusterStats waits until p's counters of queue are want, stores
// them, and checks that a new Platform reads the same from the cluster.
func wantClusterStats(t *testing.T, c *cluster, p *Platform, queue string, want hostbridge.QueueStats) {
	t.Helper()
	waitStats(t, p, queue, want)
	p.flushAll()
	if s := openCluster(t, c).Stats(ctxBG, queue); s != want {
		t.Errorf("stats read from the cluster %+v, want %+v", s, want)
	}
}

// streamLeader is the index of the node that leads stream.
func (c *cluster) streamLeader(t *testing.T, stream string) int {
	t.Helper()
	p := openWith(t, Options{URLs: c.urls(), Timeout: 5 * time.Second})
	ctx, cancel := p.ctx()
	defer cancel()
	s, err := p.js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil || info.Cluster == nil {
		t.Fatal(info, err)
	}
	i := c.index(info.Cluster.Leader)
	if i < 0 {
		t.Fatalf("leader %q unknown", info.Cluster.Leader)
	}
	return i
}
