package natsqueue

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// testOptions are short timeouts for tests: a lost lease comes back within
// seconds, a send to nobody fails within two.
func testOptions() Options {
	return Options{AckWait: 3 * time.Second, Timeout: 2 * time.Second}
}

// storeOptions are testOptions with a fresh StoreDir: an embedded server
// of the test's own.
func storeOptions(t testing.TB) Options {
	o := testOptions()
	o.StoreDir = t.TempDir()
	return o
}

// openSingle opens a Platform on an embedded server in a fresh directory,
// with binding Q granted and bound to queue q.
func openSingle(t testing.TB) *Platform {
	t.Helper()
	return openWith(t, storeOptions(t))
}

func openWith(t testing.TB, o Options) *Platform {
	t.Helper()
	p := openBound(t, o)
	t.Cleanup(func() { _ = p.Close() }) // Close always returns nil
	return p
}

// openBound opens a Platform with Q bound to q; the caller closes it.
func openBound(t testing.TB, o Options) *Platform {
	t.Helper()
	p, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	p.Bind("Q", "q")
	p.Grant("Q")
	return p
}

// startServer starts a single-node JetStream server that keeps its streams
// in dir and takes connections on 127.0.0.1:port, open to anyone: the
// stand-in for a server at URLs.
func startServer(dir string, port int) (*server.Server, error) {
	return runServer(&server.Options{ServerName: "hostbridge", Host: "127.0.0.1", Port: port,
		JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
}

// cluster is a 3-node JetStream cluster in this process, on loopback.
type cluster struct {
	t       testing.TB
	opts    []*server.Options
	client  []nats.Option // what a client needs to connect
	mu      sync.Mutex
	servers []*server.Server
}

// freePorts reserves n distinct loopback ports (the listeners stay open
// until every port is drawn).
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, n)
	var ls []net.Listener
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	for _, l := range ls {
		_ = l.Close() // nothing written is left to flush
	}
	return ports
}

func startCluster(t testing.TB) *cluster {
	t.Helper()
	return startClusterWith(t, nil)
}

// routeURLs are the cluster URLs of nodes on 127.0.0.1 at ports.
func routeURLs(ports []int) []string {
	var routes []string
	for _, port := range ports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", port))
	}
	return routes
}

// startClusterWith starts a cluster whose nodes' options secure edits; a
// client connects with client.
func startClusterWith(t testing.TB, secure func(*server.Options), client ...nats.Option) *cluster {
	t.Helper()
	const n = 3
	ports := freePorts(t, 2*n)
	routes := routeURLs(ports[n:])
	c := &cluster{t: t, servers: make([]*server.Server, n), client: client}
	for i := range n {
		c.opts = append(c.opts, &server.Options{
			ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: ports[i],
			JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "hb", Host: "127.0.0.1", Port: ports[n+i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
		})
		if secure != nil {
			secure(c.opts[i])
		}
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); c.start(i) }()
	}
	wg.Wait()
	t.Cleanup(c.shutdown)
	c.waitJetStream()
	return c
}

// start runs node i (again, on the same directory and ports).
func (c *cluster) start(i int) {
	s, err := server.NewServer(c.opts[i])
	if err != nil {
		c.t.Error(err)
		return
	}
	go s.Start()
	if !s.ReadyForConnections(20 * time.Second) {
		c.t.Errorf("node %d did not start", i)
	}
	c.mu.Lock()
	c.servers[i] = s
	c.mu.Unlock()
}

func (c *cluster) stop(i int) {
	c.mu.Lock()
	s := c.servers[i]
	c.servers[i] = nil
	c.mu.Unlock()
	if s != nil {
		s.Shutdown()
		s.WaitForShutdown()
	}
}

func (c *cluster) shutdown() {
	for i := range c.servers {
		c.stop(i)
	}
}

func (c *cluster) urls() []string {
	var u []string
	for _, o := range c.opts {
		u = append(u, fmt.Sprintf("nats://127.0.0.1:%d", o.Port))
	}
	return u
}

// waitJetStream waits until the cluster can place an R3 stream on all
// three peers and store in it: a meta leader alone is not enough ("no
// suitable peers for placement, peer offline" on a loaded machine).
func (c *cluster) waitJetStream() {
	c.t.Helper()
	nc, err := nats.Connect(strings.Join(c.urls(), ","), c.client...)
	if err != nil {
		c.t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := probeR3(js)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("JetStream not ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// index is the node named name.
func (c *cluster) index(name string) int {
	for i, o := range c.opts {
		if o.ServerName == name {
			return i
		}
	}
	return -1
}

// openCluster opens an R3 Platform on the cluster, with Q bound to q.
func openCluster(t testing.TB, c *cluster) *Platform {
	o := testOptions()
	o.URLs, o.Replicas = c.urls(), 3
	o.Timeout = 5 * time.Second // an election takes a few seconds
	return openWith(t, o)
}

// probeR3 creates, writes to and deletes an R3 stream.
func probeR3(js jetstream.JetStream) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "PROBE", Subjects: []string{"probe"}, Replicas: 3})
	if err == nil {
		_, err = js.Publish(ctx, "probe", nil)
	}
	if err == nil {
		err = js.DeleteStream(ctx, st.CachedInfo().Config.Name)
	}
	return err
}
