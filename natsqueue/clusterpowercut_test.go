//go:build linux

package natsqueue

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"hostbridge/natsqueue/internal/lazyfs"

	"github.com/nats-io/nats.go/jetstream"
)

// clusterPowerSends is how many messages the cluster power cut's producers
// send before the cut, from powerSenders goroutines.
const clusterPowerSends = 1000

// TestClusterPowerCut: a 3-node R3 cluster of nats-server processes, each
// node's store on a lazy file system of its own (internal/lazyfs), loses
// power on all three nodes at once after clusterPowerSends sends were
// answered; the servers are started again on what their disks kept and
// the queue drained. With sync_interval: always in every server's
// configuration no answered message is lost; with nats-server's default
// (a sync every 2 min) the cut loses what was answered since the last
// sync, which the test logs (and requires to be some, or the cut showed
// nothing). Pins D31.
func TestClusterPowerCut(t *testing.T) {
	long(t, "cuts the power under a cluster of three nats-server processes, about 30 s")
	t.Run("sync_interval always", func(t *testing.T) {
		r := clusterPowerCut(t, true)
		if r.lost != 0 || r.answered == 0 {
			t.Errorf("%d of %d answered sends lost", r.lost, r.answered)
		}
	})
	t.Run("default sync (control)", func(t *testing.T) {
		if r := clusterPowerCut(t, false); r.lost == 0 {
			t.Errorf("none of %d answered sends lost: the cut lost nothing", r.answered)
		}
	})
}

// clusterPowerCut runs one cut: servers configured with sync_interval:
// always or not, sends, the cut of all three, the servers started again on
// the disks' contents, and the drain. It returns what the cut cost.
func clusterPowerCut(t *testing.T, always bool) powerLoss {
	var fss [3]*lazyfs.FS
	var backing [3]string
	c := newProcCluster(t)
	for i := range c.args {
		var mnt string
		fss[i], backing[i], mnt = lazyfs.MountForTest(t)
		setArg(c.args[i], "-sd", mnt)
		if always {
			conf := filepath.Join(t.TempDir(), "n.conf")
			if err := os.WriteFile(conf, []byte("jetstream { sync_interval: always }\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c.args[i] = append(c.args[i], "-c", conf)
		}
		c.start(i)
	}
	c.observe()
	c.waitHealthy()
	answered := clusterPowerSend(t, c)
	for i := range c.args { // the cut: every server stopped, its unsynced writes lost, then killed
		c.signal(i, syscall.SIGSTOP)
	}
	unsynced := 0
	for i := range c.args {
		unsynced += fss[i].Cut()
		c.signal(i, syscall.SIGKILL)
		if err := fss[i].Unmount(); err != nil {
			t.Fatal(err)
		}
		setArg(c.args[i], "-sd", backing[i])
		c.start(i)
	}
	c.waitHealthy()
	r := clusterDrain(t, c, answered)
	t.Logf("always: %v; %d sends answered; %d files held data not synced at the cut; the cluster started again held %d messages (stream lost: %v); %d answered ones lost",
		always, r.answered, unsynced, r.stored, r.configLost, r.lost)
	return r
}

// setArg sets the value after flag in args.
func setArg(args []string, flag, value string) {
	for i := range len(args) - 1 {
		if args[i] == flag {
			args[i+1] = value
		}
	}
}

// clusterPowerSend sends clusterPowerSends messages "p-<i>" to q on the
// cluster from powerSenders goroutines and returns the bodies of the sends
// answered; the Platform is closed before the cut.
func clusterPowerSend(t *testing.T, c *procCluster) []string {
	p := openBound(t, Options{URLs: c.urls, Replicas: 3, Timeout: 5 * time.Second})
	defer p.Close()
	var mu sync.Mutex
	var answered []string
	sendEach(p, clusterPowerSends, func(body string, _ int64) {
		mu.Lock()
		answered = append(answered, body)
		mu.Unlock()
	})
	return answered
}

// clusterDrain opens a Platform on the cluster started again, drains q
// and counts the answered sends it never delivered; configLost says the
// cluster no longer knew q's stream.
func clusterDrain(t *testing.T, c *procCluster, answered []string) powerLoss {
	p := openBound(t, Options{URLs: c.urls, Replicas: 3, Timeout: 5 * time.Second, ReadyWait: 30 * time.Second})
	t.Cleanup(func() { _ = p.Close() }) // Close always returns nil
	ctx, cancel := p.ctx()
	defer cancel()
	_, err := p.js.Stream(ctx, p.namesOf("q").stream)
	r := powerLoss{answered: len(answered), configLost: errors.Is(err, jetstream.ErrStreamNotFound)}
	r.stored, r.lost = drainLost(t, p, answered)
	return r
}
