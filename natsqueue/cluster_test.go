package natsqueue

import (
	"context"
	"testing"
	"time"

	"hostbridge"
)

// TestClusterR3 runs on a 3-node cluster in this process, every stream
// with three replicas: the platform check, the consumer vectors, and the
// loss of a stream leader mid-run.
func TestClusterR3(t *testing.T) {
	c := startCluster(t)
	p := openCluster(t, c)
	t.Run("CheckQueuePlatform", func(t *testing.T) {
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 100 * time.Millisecond })
		checkPlatform(t, p)
	})
	t.Run("ConsumerVectors", func(t *testing.T) { replayRows(t, p) })
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
