package natsqueue

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// oldServer is the nats-server Debian's package installs: it accepts a
// delayed message and never delivers it.
const oldServer = "v2.9.10"

// TestOldServerRefused: Open on a real nats-server 2.9.10 (built from the
// Go module proxy, cached by GOCACHE) fails, naming the version found and
// the minimum. It fails, not skips, where the server cannot be built.
func TestOldServerRefused(t *testing.T) {
	long(t, "builds and runs nats-server v2.9.10, about a minute the first time")
	bin := buildServer(t, oldServer)
	port := freePorts(t, 1)[0]
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // it may have ended already
	addr := "127.0.0.1:" + strconv.Itoa(port)
	waitListening(t, addr)
	p, err := Open(Options{URLs: []string{"nats://" + addr}, Timeout: 5 * time.Second})
	want := "natsqueue: nats-server 2.9.10 is too old: natsqueue needs nats-server 2.12.5 or newer (message schedules)"
	if err == nil || err.Error() != want {
		t.Errorf("Open: %v, want %s", err, want)
	}
	if p != nil {
		_ = p.Close() // Close always returns nil
	}
}

// buildServer builds nats-server at version into a temporary directory.
func buildServer(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "install", "github.com/nats-io/nats-server/v2@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building nats-server %s: %v\n%s", version, err, out)
	}
	return filepath.Join(dir, "nats-server")
}

// waitListening waits up to 30 s until addr takes TCP connections.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close() // nothing written is left to flush
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCheckVersion: the minimum is 2.12.5, compared by number.
func TestCheckVersion(t *testing.T) {
	for v, ok := range map[string]bool{"2.12.5": true, "2.12.10": true, "2.15.2": true, "3.0.0": true, "2.13.0-beta.1": true,
		"2.12.4": false, "2.11.99": false, "2.9.10": false, "1.99.99": false, "": false, "2.12": false, "x.y.z": false} {
		if err := checkVersion(v); (err == nil) != ok {
			t.Errorf("%q: %v", v, err)
		}
	}
	if err := checkVersion("2.12.4"); err == nil || err.Error() != "natsqueue: nats-server 2.12.4 is too old: natsqueue needs nats-server 2.12.5 or newer (message schedules)" {
		t.Error(err)
	}
}
