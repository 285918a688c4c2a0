//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hostbridge/internal/pagehost"
)

// TestMain runs the test binary as the command when PAGEQUEUE_MAIN is set,
// so that the tests can kill a real process.
func TestMain(m *testing.M) {
	if os.Getenv("PAGEQUEUE_MAIN") != "" {
		main()
	}
	os.Exit(m.Run())
}

// start runs the command on dir and returns its base URL.
func start(t testing.TB, dir string) (*exec.Cmd, string) {
	t.Helper()
	return startArgs(t, "-store", dir, "-addr", "127.0.0.1:0", "-batch-timeout", "5ms",
		"-fail", "0.3", "-max-retries", "1", "-retry-delay", "1", "-ack-wait", "2s")
}

// startArgs runs the command with args and returns its base URL.
func startArgs(t testing.TB, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd, base, log, _ := startLog(t, args...)
	go func() { _, _ = io.Copy(io.Discard, log) }() // draining: the log ends with the host
	return cmd, base
}

// startLog runs the command with args and returns its base URL, its log
// after the listening line, and that line.
func startLog(t testing.TB, args ...string) (*exec.Cmd, string, *bufio.Reader, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PAGEQUEUE_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // it may have ended already
	log := bufio.NewReader(stderr)
	for {
		line, err := log.ReadString('\n')
		if err != nil {
			t.Fatalf("no listening line: %v", err)
		}
		if _, rest, ok := strings.Cut(line, "listening on "); ok {
			base, _, _ := strings.Cut(rest, " ")
			return cmd, base, log, line
		}
	}
}

func stats(t testing.TB, base string) pagehost.Stats {
	t.Helper()
	resp, err := http.Get(base + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s pagehost.Stats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// load posts pages from 4 clients until stop is closed and counts in
// accepted how many the host accepted (202).
func load(base string, stop <-chan struct{}, accepted *atomic.Int64) {
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			client := &http.Client{Timeout: 5 * time.Second}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Post(fmt.Sprintf("%s/pages/c%d/p%d?version=v1", base, c, i), "", nil)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body) // draining for reuse: the status is what is checked
				resp.Body.Close()
				if resp.StatusCode == http.StatusAccepted {
					accepted.Add(1)
				}
			}
		})
	}
	wg.Wait()
}

// TestKillAndRestart: the host is killed (SIGKILL) while clients send and
// its consumers fail 30% of messages; restarted on the same directory, it
// delivers everything: pending reaches 0, and acked + the dead-letter
// queue's size covers every message sent, and every one a client got 202
// for.
func TestKillAndRestart(t *testing.T) {
	dir := t.TempDir()
	cmd, base := start(t, dir)
	stop := make(chan struct{})
	var acceptedN atomic.Int64
	done := make(chan struct{})
	go func() { load(base, stop, &acceptedN); close(done) }()
	time.Sleep(1500 * time.Millisecond)
	// On a loaded machine the first 202 can take longer than that.
	for deadline := time.Now().Add(30 * time.Second); acceptedN.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL) // it may have ended already
	_ = cmd.Wait()                          // a killed process's status
	close(stop)
	<-done
	accepted := acceptedN.Load()
	_, base = start(t, dir)
	deadline := time.Now().Add(60 * time.Second)
	s := stats(t, base)
	for s.Pending != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("pending never reached 0: %+v", s)
		}
		time.Sleep(100 * time.Millisecond)
		s = stats(t, base)
	}
	t.Logf("accepted %d before SIGKILL; after the restart %+v", accepted, s)
	// The dead-letter queue's size is what it stores; deadLettered may be
	// short of it after a crash (a copy stored, its count not yet sent, the
	// original then removed unseen and uncounted: natsqueue's doc), never
	// above it.
	if accepted == 0 || s.Acked+s.DeadLetterQueue < s.Sent || s.Acked+s.DeadLetterQueue < accepted ||
		s.Sent > accepted+4 || s.DeadLettered > s.DeadLetterQueue {
		t.Errorf("accepted %d, stats %+v", accepted, s)
	}
}

// TestSecondHostRefused: a second host on a -store in use ends at once
// with the store's reason, and the first keeps serving.
func TestSecondHostRefused(t *testing.T) {
	dir := t.TempDir()
	_, base := start(t, dir)
	cmd := exec.Command(os.Args[0], "-store", dir, "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "PAGEQUEUE_MAIN=1")
	out, err := cmd.CombinedOutput()
	want := "natsqueue: store " + dir + " is in use by another Platform (its lock file natsqueue.lock is held): resource temporarily unavailable"
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("second host: %v\n%s", err, out)
	}
	stats(t, base)
}

// BenchmarkHostPages measures pages/s into the durable host from 128
// keep-alive clients, each posting one page at a time, under both sync
// policies side by side (the host's consumers ack every page).
func BenchmarkHostPages(b *testing.B) {
	for _, policy := range []string{"0", "2m"} {
		b.Run("sync-interval="+policy, func(b *testing.B) {
			_, base := startArgs(b, "-store", b.TempDir(), "-addr", "127.0.0.1:0", "-fail", "0", "-sync-interval", policy,
				"-max-pending", "1000000", "-batch-size", "100", "-batch-timeout", "50ms")
			tr := &http.Transport{MaxIdleConnsPerHost: 128}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
			var next atomic.Int64
			b.ResetTimer()
			var wg sync.WaitGroup
			for range 128 {
				wg.Go(func() { postPages(b, client, base, &next) })
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

// postPages posts pages until next reaches b.N; each must get 202.
func postPages(b *testing.B, client *http.Client, base string, next *atomic.Int64) {
	for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
		resp, err := client.Post(fmt.Sprintf("%s/pages/b/p%d?version=v1", base, i), "", nil)
		if err != nil {
			b.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body) // draining for reuse: the status is what is checked
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			b.Errorf("page %d: %s", i, resp.Status)
			return
		}
	}
}

// TestFinalLinePending: the final line counts what is pending once the
// last batch is applied. SIGINT comes while the consumer holds the page in
// a batch still filling: the batch is handed over, acked, and the final
// line, read at once (within the store's 100 ms reuse of the stream size),
// must not count the page both acked and pending; a restart's /stats
// agrees with it.
func TestFinalLinePending(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-store", dir, "-addr", "127.0.0.1:0", "-batch-size", "2", "-batch-timeout", "1s", "-fail", "0"}
	cmd, base, log, _ := startLog(t, args...)
	resp, err := http.Post(base+"/pages/one?version=1", "", nil)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("post: %v %v", err, resp)
	}
	resp.Body.Close()
	_ = cmd.Process.Signal(syscall.SIGINT) // it may have ended already
	rest, _ := io.ReadAll(log)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
	var sent, acked, pending int64
	_, final, _ := strings.Cut(string(rest), "msg=\"stopped: ")
	if _, after, ok := strings.Cut(final, " sent="); !ok {
		t.Fatalf("no final line:\n%s", rest)
	} else if _, err := fmt.Sscanf(after, "%d acked=%d retried=0 deadLettered=0 pending=%d", &sent, &acked, &pending); err != nil {
		t.Fatalf("final line %q: %v", final, err)
	}
	if sent != 1 || acked+pending != 1 {
		t.Errorf("final line: sent %d, acked %d, pending %d; want acked + pending = 1", sent, acked, pending)
	}
	_, base = startArgs(t, args...)
	if s := stats(t, base); s.Sent != 1 || s.Acked < acked || s.Pending > pending {
		t.Errorf("after the restart %+v; the final line said acked %d, pending %d", s, acked, pending)
	}
}

// TestStatsSurviveRestart: every counter of /stats but connections and
// logDropped survives a restart: batches and refusedFull too. The page is
// retried a minute later, so nothing moves while the test looks.
func TestStatsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-store", dir, "-addr", "127.0.0.1:0", "-batch-timeout", "5ms", "-fail", "1", "-retry-delay", "1m", "-max-pending", "1"}
	cmd, base := startArgs(t, args...)
	post := func() int {
		resp, err := http.Post(base+"/pages/one?version=1", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(); code != http.StatusAccepted {
		t.Fatalf("first page: %d", code)
	}
	deadline := time.Now().Add(30 * time.Second)
	for stats(t, base).Retried != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("never retried: %+v", stats(t, base))
		}
	}
	if code := post(); code != http.StatusServiceUnavailable {
		t.Fatalf("second page, queue full: %d", code)
	}
	before := stats(t, base)
	_ = cmd.Process.Signal(syscall.SIGINT) // it may have ended already
	_ = cmd.Wait()                         // a killed process's status
	_, base = startArgs(t, args...)
	after := stats(t, base)
	before.Connections, after.Connections = 0, 0
	if after != before || after.Batches != 1 || after.RefusedFull != 1 {
		t.Errorf("after the restart %+v, before %+v", after, before)
	}
}

// TestUnreachableCluster: -nats to a server that is not there ends with
// exit 1 and an error naming the URL, its credentials left out; with
// -nats-wait above 0s it tries for that long and says the cluster is not
// ready.
func TestUnreachableCluster(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	for _, c := range []struct{ wait, want string }{
		{"0s", `err="natsqueue: connect to nats://xxxxx@` + addr + `: nats: no servers available for connection"`},
		{"1s", `err="natsqueue: the cluster at nats://xxxxx@` + addr + ` is not ready after 1s: waited for a server to connect to, a JetStream leader and servers for each stream's replicas (1); last: nats: no servers available for connection"`},
	} {
		cmd := exec.Command(os.Args[0], "-nats", "nats://app:s3cret@"+addr, "-nats-wait", c.wait, "-addr", "127.0.0.1:0")
		cmd.Env = append(os.Environ(), "PAGEQUEUE_MAIN=1")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "s3cret") {
			t.Errorf("-nats-wait %s: exit %d\n%s", c.wait, code, out)
		}
	}
}

// TestListeningLineStore: the durable host's first line names its store,
// where it is and its sync policy.
func TestListeningLineStore(t *testing.T) {
	dir := t.TempDir()
	for policy, want := range map[string]string{
		"0":  ` store=embedded dir=` + dir + ` sync="before each answer" `,
		"2m": ` store=embedded dir=` + dir + ` sync="every 2m0s" `,
	} {
		cmd, _, _, line := startLog(t, "-store", dir, "-addr", "127.0.0.1:0", "-sync-interval", policy)
		if !strings.Contains(line, want) {
			t.Errorf("-sync-interval %s: %s", policy, line)
		}
		_ = cmd.Process.Signal(syscall.SIGINT) // it may have ended already
		_ = cmd.Wait()                         // a killed process's status
	}
}
