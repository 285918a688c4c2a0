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

	"github.com/nats-io/nats-server/v2/server"

	"hostbridge"
)

// ledger counts what a test's consumers saw, by body.
type ledger struct {
	mu        sync.Mutex
	delivered map[string]int // deliveries that ended in an ack
	at        map[string]time.Time
}

func newLedger() *ledger {
	return &ledger{delivered: map[string]int{}, at: map[string]time.Time{}}
}

// handler acks every message but those whose body starts with "poison",
// which fail their batch on queue q; it counts a body delivered from the
// dead-letter queue as "dlq:" and the body.
func (l *ledger) handler(ev hostbridge.Event) error {
	var poison bool
	for i, m := range ev.Batch().Messages() {
		body := string(m.Body.(json.RawMessage))
		if ev.Batch().Queue() == "dlq" {
			body = "dlq:" + body
		} else if strings.HasPrefix(body, `"poison`) {
			poison = true
			continue
		}
		_ = hostbridge.AckQueueMessage(ev, i) // the index is the batch's own: no error
		l.mu.Lock()
		l.delivered[body]++
		l.at[body] = time.Now()
		l.mu.Unlock()
	}
	if poison {
		return errors.New("poison")
	}
	return nil
}

// acks is how many deliveries ended in an ack.
func (l *ledger) acks() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for _, d := range l.delivered {
		n += int64(d)
	}
	return n
}

// seen reports whether every body was delivered, and how many deliveries
// were duplicates.
func (l *ledger) seen(bodies []string) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	dup := 0
	for _, n := range l.delivered {
		dup += n - 1
	}
	for _, b := range bodies {
		if l.delivered[b] == 0 {
			return false, dup
		}
	}
	return true, dup
}

// waitSeen waits until every body was delivered.
func (l *ledger) waitSeen(t *testing.T, bodies []string, within time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, dup := l.seen(bodies)
		if ok {
			return dup
		}
		if time.Now().After(deadline) {
			var missing []string
			l.mu.Lock()
			for _, b := range bodies {
				if l.delivered[b] == 0 {
					missing = append(missing, b)
				}
			}
			l.mu.Unlock()
			t.Fatalf("%d of %d accepted messages never delivered: %.200v", len(missing), len(bodies), missing)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sender sends n bodies named prefix-i, one every gap, and returns the
// bodies the platform accepted and how many sends failed.
func sender(p *Platform, prefix string, n int, gap time.Duration) ([]string, int) {
	return senderTo(p, "Q", prefix, n, gap)
}

func senderTo(p *Platform, binding, prefix string, n int, gap time.Duration) ([]string, int) {
	var ok []string
	failed := 0
	for i := range n {
		body := fmt.Sprintf(`"%s-%d"`, prefix, i)
		if err := hostbridge.SendQueueMessage(context.Background(), p, binding, body, 0); err != nil {
			failed++
		} else {
			ok = append(ok, body)
		}
		time.Sleep(gap)
	}
	return ok, failed
}

// runConsumers runs the queue's and the dead-letter queue's consumers until
// the test ends.
func runConsumers(t *testing.T, p *Platform, l *ledger, queues ...string) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, q := range queues {
		wg.Add(1)
		go func() { defer wg.Done(); _ = p.Run(ctx, q, l.handler) }() // Run ends with ctx
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// TestServerRestart: the embedded server stopped and started again on the
// same directory while messages are sent and delivered: every accepted
// message is delivered (a poison one dead-lettered), a delayed one too, none
// lost; duplicates only as at-least-once allows, and counted.
func TestServerRestart(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	srv := newRestartable(t)
	o := testOptions()
	o.URLs = []string{srv.s.ClientURL()}
	p := openWith(t, o)
	deadLettering(t, p, 50*time.Millisecond)
	sentDelayed := time.Now()
	send(t, p, `"delayed"`, 2)
	send(t, p, `"poison"`, 0)
	l := newLedger()
	runConsumers(t, p, l, "q", "dlq")
	var accepted []string
	var failed int
	done := make(chan struct{})
	go func() {
		accepted, failed = sender(p, "m", 200, 5*time.Millisecond)
		close(done)
	}()
	time.Sleep(300 * time.Millisecond)
	srv.restart()
	<-done
	dup := l.waitSeen(t, append(accepted, `"delayed"`, `dlq:"poison"`), 30*time.Second)
	t.Logf("%d accepted, %d sends failed while the server was down, %d duplicate deliveries", len(accepted), failed, dup)
	l.notEarly(t, `"delayed"`, sentDelayed.Add(2*time.Second))
	waitDrained(t, p, "q", "dlq")
}

// restartable is a single-node server a test stops and starts again on the
// same store and port; it is shut down when the test ends.
type restartable struct {
	t    *testing.T
	dir  string
	port int
	s    *server.Server
}

func newRestartable(t *testing.T) *restartable {
	r := &restartable{t: t, dir: t.TempDir(), port: freePorts(t, 1)[0]}
	var err error
	if r.s, err = startServer(r.dir, r.port); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.s.Shutdown() })
	return r
}

// restart stops the server and starts it again on its store and port.
func (r *restartable) restart() {
	r.s.Shutdown()
	r.s.WaitForShutdown()
	r.s = restartServer(r.t, r.dir, r.port)
}

// deadLettering sets queue q to dead-letter to dlq after one retry, both
// filling batches for at most timeout.
func deadLettering(t *testing.T, p *Platform, timeout time.Duration) {
	t.Helper()
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) {
		s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = timeout, 1, "dlq"
	})
	setConsumer(t, p, "dlq", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = timeout })
}

// restartServer starts the embedded server again on dir and port, trying
// for up to 30 s: on a loaded machine the port just freed can be held a
// moment longer (or briefly taken by another process's socket).
func restartServer(t *testing.T, dir string, port int) *server.Server {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := startServer(dir, port)
		if err == nil {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (l *ledger) notEarly(t *testing.T, body string, due time.Time) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if at := l.at[body]; at.Before(due) {
		t.Errorf("%s delivered %v before it was due", body, due.Sub(at))
	}
}

// waitDrained waits until the queues' streams are empty: every message
// acked or dead-lettered, no schedule left.
func waitDrained(t *testing.T, p *Platform, queues ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, q := range queues {
		for n := streamMsgs(t, p, q); n != 0; n = streamMsgs(t, p, q) {
			if time.Now().After(deadline) {
				t.Fatalf("queue %s keeps %d messages", q, n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// TestServerUnreachable: with the server gone, a send fails with the
// platform's reason within Options.Timeout (a Failure), never hangs; with
// no server at all, Open fails.
func TestServerUnreachable(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	o := storeOptions(t)
	o.Timeout = time.Second
	p := openWith(t, o)
	send(t, p, `1`, 0) // q's stream exists
	p.Bind("FRESH", "fresh")
	p.Grant("FRESH")
	p.embed.Shutdown()
	p.embed.WaitForShutdown()
	for _, binding := range []string{"Q", "FRESH"} {
		start := time.Now()
		err := hostbridge.SendQueueMessage(context.Background(), p, binding, `2`, 0)
		var e *hostbridge.Error
		if !errors.As(err, &e) || e.Kind != hostbridge.Failure || !strings.HasPrefix(e.Msg, hostbridge.MsgSendFailed) || len(e.Msg) == len(hostbridge.MsgSendFailed) {
			t.Errorf("%s: %v", binding, err)
		}
		// "Never hangs": generous slack over Timeout for a loaded machine.
		if d := time.Since(start); d > 3*p.opts.Timeout+5*time.Second {
			t.Errorf("%s: failing took %v", binding, d)
		}
		t.Logf("%s: %v", binding, err)
	}
	start := time.Now()
	_, err := Open(Options{URLs: []string{fmt.Sprintf("nats://127.0.0.1:%d", freePorts(t, 1)[0])}, Timeout: time.Second})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("Open with no server: %v after %v", err, time.Since(start))
	}
}
