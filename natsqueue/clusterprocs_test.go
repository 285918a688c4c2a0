//go:build unix

package natsqueue

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// procCluster is a 3-node JetStream cluster of nats-server processes on
// 127.0.0.1 (client and cluster ports), each with its store in a test
// directory, so that a test can SIGKILL, SIGSTOP and SIGCONT real servers.
type procCluster struct {
	t     testing.TB
	bin   string
	args  [][]string
	urls  []string
	mu    sync.Mutex
	procs []*exec.Cmd
	nc    *nats.Conn // an observer's connection, for stream info
	js    jetstream.JetStream
}

// buildNatsServer builds the nats-server of this module's go.mod (from the
// module cache) into a test directory.
func buildNatsServer(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "nats-server")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2").CombinedOutput()
	if err != nil {
		t.Fatalf("building nats-server: %v\n%s", err, out)
	}
	return bin
}

// startProcCluster starts the three servers and waits until they can
// place an R3 stream.
func startProcCluster(t testing.TB) *procCluster {
	t.Helper()
	c := newProcCluster(t)
	for i := range c.args {
		c.start(i)
	}
	c.observe()
	c.waitHealthy()
	return c
}

// newProcCluster configures the three servers; none is started.
func newProcCluster(t testing.TB) *procCluster {
	t.Helper()
	const n = 3
	ports := freePorts(t, 2*n)
	routes := routeURLs(ports[n:])
	c := &procCluster{t: t, bin: buildNatsServer(t), procs: make([]*exec.Cmd, n)}
	for i := range n {
		dir := t.TempDir()
		c.args = append(c.args, []string{"-n", fmt.Sprintf("n%d", i), "-a", "127.0.0.1",
			"-p", fmt.Sprint(ports[i]), "-js", "-sd", dir, "-l", filepath.Join(dir, "log"),
			"--cluster_name", "hb", "--cluster", routes[i], "--routes", strings.Join(routes, ",")})
		c.urls = append(c.urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	t.Cleanup(c.killAll)
	return c
}

// observe connects the observer, which waits for a server to answer.
func (c *procCluster) observe() {
	c.t.Helper()
	nc, err := nats.Connect(strings.Join(c.urls, ","), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond), nats.RetryOnFailedConnect(true))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(nc.Close)
	c.nc = nc
	c.js, _ = jetstream.New(nc)
}

// start runs node i's process (again, on the same directory and ports).
func (c *procCluster) start(i int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, c.args[i]...)
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.procs[i] = cmd
	c.mu.Unlock()
}

// signal sends sig to node i; after SIGKILL it reaps the process.
func (c *procCluster) signal(i int, sig syscall.Signal) {
	c.t.Helper()
	c.mu.Lock()
	cmd := c.procs[i]
	c.mu.Unlock()
	if cmd == nil {
		c.t.Fatalf("node %d is not running", i)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		c.t.Fatalf("signal %v to node %d: %v", sig, i, err)
	}
	if sig == syscall.SIGKILL {
		_ = cmd.Wait() // a killed process's status
		c.mu.Lock()
		c.procs[i] = nil
		c.mu.Unlock()
	}
}

func (c *procCluster) killAll() {
	for i := range c.procs {
		c.mu.Lock()
		running := c.procs[i] != nil
		c.mu.Unlock()
		if running {
			c.signal(i, syscall.SIGKILL)
		}
	}
}

// streamInfo asks the cluster about stream, within 2 s.
func (c *procCluster) streamInfo(stream string) (*jetstream.StreamInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s, err := c.js.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	return s.Info(ctx)
}

// leader is the index of the node that leads stream.
func (c *procCluster) leader(stream string) int {
	c.t.Helper()
	info, err := c.streamInfo(stream)
	if err != nil || info.Cluster == nil {
		c.t.Fatalf("stream %s: %v", stream, err)
	}
	var i int
	if _, err := fmt.Sscanf(info.Cluster.Leader, "n%d", &i); err != nil || i < 0 || i >= len(c.args) {
		c.t.Fatalf("stream %s: leader %q unknown", stream, info.Cluster.Leader)
	}
	return i
}

// consumerLeader is the index of the node that leads stream's consumer,
// -1 when the cluster does not say.
func (c *procCluster) consumerLeader(stream string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cons, err := c.js.Consumer(ctx, stream, consumerName)
	if err != nil {
		return -1
	}
	info, err := cons.Info(ctx)
	if err != nil || info.Cluster == nil {
		return -1
	}
	var i int
	if _, err := fmt.Sscanf(info.Cluster.Leader, "n%d", &i); err != nil {
		return -1
	}
	return i
}

// healthy reports whether the cluster can place and write an R3 stream and
// each of streams has a leader and two current replicas.
func (c *procCluster) healthy(streams ...string) error {
	if err := probeR3(c.js); err != nil {
		return err
	}
	for _, s := range streams {
		info, err := c.streamInfo(s)
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		if info.Cluster == nil || info.Cluster.Leader == "" || len(info.Cluster.Replicas) != 2 {
			return fmt.Errorf("%s: no leader or replicas: %+v", s, info.Cluster)
		}
		for _, r := range info.Cluster.Replicas {
			if !r.Current || r.Offline {
				return fmt.Errorf("%s: replica %s not current", s, r.Name)
			}
		}
	}
	return nil
}

// waitHealthy waits up to 60 s for healthy.
func (c *procCluster) waitHealthy(streams ...string) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := c.healthy(streams...)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("cluster not healthy after 60 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestOpenWaitsForCluster: with ReadyWait, Open right after the servers
// start (the cluster recipe) waits until the cluster can place streams of
// three replicas, then works; with one server of three up it gives up
// after ReadyWait, saying the cluster is not ready and what it waited for.
func TestOpenWaitsForCluster(t *testing.T) {
	long(t, "starts a cluster of processes late, about 10 s")
	c := newProcCluster(t)
	c.start(0)
	begin := time.Now()
	_, err := Open(Options{URLs: c.urls, Replicas: 3, Timeout: time.Second, ReadyWait: 2 * time.Second})
	want := "natsqueue: the cluster at " + strings.Join(c.urls, ",") + " is not ready after 2s: waited for a server to connect to, a JetStream leader and servers for each stream's replicas (3); last: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || time.Since(begin) < 2*time.Second {
		t.Errorf("one server of three: %v after %v", err, time.Since(begin))
	}
	c.start(1)
	c.start(2)
	p, err := Open(Options{URLs: c.urls, Replicas: 3, Timeout: 5 * time.Second, ReadyWait: time.Minute})
	if err != nil {
		t.Fatalf("three servers just started: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() }) // Close always returns nil
	t.Logf("ready %v after the servers started", time.Since(begin))
	p.Bind("Q", "q")
	p.Grant("Q")
	send(t, p, `1`, 0)
	if s := p.Stats(ctxBG, "q"); s.Sent != 1 {
		t.Errorf("stats %+v", s)
	}
}
