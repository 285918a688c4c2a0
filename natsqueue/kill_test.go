//go:build unix

package natsqueue

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go/jetstream"
)

var faultsLong = flag.Bool("faults.long", false, "run the fault tests with many more faults (minutes)")

func init() {
	hosts["NATSQUEUE_HOST"] = func(dir string) error {
		n, _ := strconv.Atoi(os.Getenv("NATSQUEUE_HOST_SEND")) // unset: 0, send nothing
		return runHost(dir, n)
	}
}

// The settings of the killed host's queue q: every batch fails, so each
// message is retried after hostRetryDelay until MaxRetries, then goes to
// the dead-letter queue dlq. A batch a killed host held comes back after
// hostAckWait, one attempt more: past the retry delay by more than the
// second a restarted server may take off it (it keeps a delivery's time
// in whole seconds), so that it is never taken for an early retry.
const (
	hostRetryDelay = 2
	hostMaxRetries = 3
	hostAckWait    = 4 * time.Second
)

// runHost is the killed host: on an embedded server in dir/store it sends
// n messages "m-<i>", then runs q and dlq, writing its history to
// dir/history, one line a fact:
//
//	s <body> <unix ns>             the send returned nil
//	d <body> <attempts> <unix ns>  q's handler got it
//	f <body> <attempts> <unix ns>  q's handler returned (failing it)
//	x <body>                       dlq's handler got it (and acks it)
//
// A line is one write: a SIGKILL keeps what was written. Each batch takes
// 50 ms, so that kills find some held.
func runHost(dir string, n int) error {
	p, err := openHost(dir)
	if err != nil {
		return err
	}
	write, err := historyWriter(dir + "/history")
	if err != nil {
		return err
	}
	for i := range n {
		body := fmt.Sprintf(`"m-%d"`, i)
		if err := hostbridge.SendQueueMessage(context.Background(), p, "Q", body, 0); err == nil {
			write("s %s %d", body, time.Now().UnixNano())
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	defer p.Close()
	var dlq sync.WaitGroup
	defer dlq.Wait()
	dlq.Add(1)
	go func() {
		defer dlq.Done()
		_ = p.Run(ctx, "dlq", func(ev hostbridge.Event) error { // Run ends with ctx
			for i, m := range ev.Batch().Messages() {
				write("x %s", m.Body)
				_ = hostbridge.AckQueueMessage(ev, i) // the index is the batch's own: no error
			}
			return nil
		})
	}()
	err = p.Run(ctx, "q", func(ev hostbridge.Event) error {
		ms := ev.Batch().Messages()
		for _, m := range ms {
			write("d %s %d %d", m.Body, m.Attempts, time.Now().UnixNano())
		}
		time.Sleep(50 * time.Millisecond) // work: a kill finds batches held
		now := time.Now().UnixNano()
		for _, m := range ms {
			write("f %s %d %d", m.Body, m.Attempts, now)
		}
		return errors.New("always failing")
	})
	if errors.Is(err, context.Canceled) { // SIGTERM
		return nil
	}
	return err
}

// openHost opens the killed host's Platform with Q bound to q and q's and
// dlq's settings.
func openHost(dir string) (*Platform, error) {
	p, err := Open(Options{StoreDir: dir + "/store", AckWait: hostAckWait, Timeout: 2 * time.Second})
	if err != nil {
		return nil, err
	}
	p.Bind("Q", "q")
	p.Grant("Q")
	s := hostbridge.DefaultConsumerSettings()
	s.MaxBatchTimeout, s.MaxRetries, s.RetryDelay, s.DeadLetterQueue = 50*time.Millisecond, hostMaxRetries, hostRetryDelay, "dlq"
	if err := p.SetConsumer("q", s); err != nil {
		return nil, err
	}
	// The dead-letter queue's batches must not fill for 5 s: a host killed
	// every second or so would hold them at every kill, until they were
	// delivered MaxRetries+1 times without an outcome and dropped.
	s = hostbridge.DefaultConsumerSettings()
	s.MaxBatchTimeout = 50 * time.Millisecond
	return p, p.SetConsumer("dlq", s)
}

// historyWriter appends lines to the file at path, one write each.
func historyWriter(path string) (func(format string, args ...any), error) {
	h, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = fmt.Fprintf(h, format+"\n", args...) // a line lost shows as a failed check
	}, nil
}

// startHost starts runHost in a process of its own.
func startHost(t *testing.T, dir string, send int) *exec.Cmd {
	t.Helper()
	return startProcess(t, "NATSQUEUE_HOST="+dir, "NATSQUEUE_HOST_SEND="+strconv.Itoa(send))
}

// startProcess starts the test binary as the host process env names (see
// hosts).
func startProcess(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestRetriesUnderKill: a host whose every batch fails is SIGKILLed again
// and again while it sends, handles and retries. Every message sent
// reaches the dead-letter queue; no retry comes back before its delay
// after the handler that failed it returned (a batch whose host was
// killed before it stored the retries comes back as a dead host's batch,
// see retryDue); attempts never go back and
// grow by one from one handling to the next, a batch back from a killed
// host included (more only where a kill explains it, never the same, see
// attemptsError); no message has attempts past MaxRetries+1, and none is
// handled more than MaxRetries+1 times: every delivery a handler saw
// counts, a killed host's too.
// Pins D31.
func TestRetriesUnderKill(t *testing.T) {
	long(t, "kills host processes, about 10 s (30 s with -faults.long)")
	dir := t.TempDir()
	kills, n := 4, 60
	if *faultsLong {
		kills, n = 30, 400
	}
	cmd := startHost(t, dir, n)
	var killed []time.Time
	for range kills {
		time.Sleep(time.Duration(500+rand.IntN(1500)) * time.Millisecond)
		killed = append(killed, time.Now())
		_ = cmd.Process.Signal(syscall.SIGKILL) // it may have ended already
		_ = cmd.Wait()                          // a killed process's status
		cmd = startHost(t, dir, 0)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }() // it may have ended already
	deadline := time.Now().Add(120 * time.Second)
	for {
		h := readHistory(t, dir+"/history")
		missing := h.notDeadLettered()
		if len(missing) == 0 {
			h.check(t, killed)
			t.Logf("%d sent, %d kills, %d deliveries", len(h.sent), kills, h.deliveries)
			_ = cmd.Process.Signal(syscall.SIGTERM) // a clean stop: Close stores the last counts
			_ = cmd.Wait()                          // a killed process's status
			h.checkCounters(t, dir, killed)
			return
		}
		if time.Now().After(deadline) {
			h.check(t, killed)
			for _, b := range missing[:min(len(missing), 5)] {
				t.Logf("%s: handled %+v, failed %v", b, h.handled[b], h.failed[b])
			}
			if keep := os.Getenv("NATSQUEUE_KEEP"); keep != "" {
				_ = os.CopyFS(keep, os.DirFS(dir)) // best effort: the evidence of a failed run
			}
			t.Fatalf("%d of %d sent messages never reached the dead-letter queue: %.200v", len(missing), len(h.sent), missing)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkCounters reads the counters the hosts left on the server and checks
// them against the history, within what a crash may cost (see stats.go):
// q's Sent misses at most the sends of the last moments before a kill
// (one flush interval and its round trip: 300 ms allowed); q's
// DeadLettered and dlq's Acked, counted before the acks they count, are
// never below what happened; q's Retried lies between the retry copies
// delivered and the failing handlings that returned (a kill while a batch
// is held makes its redelivery count towards MaxRetries, so a message may
// be retried fewer than MaxRetries times).
func (h *history) checkCounters(t *testing.T, dir string, killed []time.Time) {
	t.Helper()
	p := openWith(t, Options{StoreDir: dir + "/store", Timeout: 5 * time.Second})
	q, dlq := p.Stats(ctxBG, "q"), p.Stats(ctxBG, "dlq")
	mayLose := 0
	for _, at := range h.sentAt {
		for _, k := range killed {
			if at.Before(k) && k.Sub(at) < 300*time.Millisecond {
				mayLose++
				break
			}
		}
	}
	n := int64(len(h.sent))
	if q.Sent > n || q.Sent < n-int64(mayLose) {
		t.Errorf("q sent %d: %d sends returned nil, %d of them just before a kill", q.Sent, n, mayLose)
	}
	// A retry is counted before its copy is stored, and only by a handling
	// that returned: at most one per "f", and at least one per copy seen:
	// attempts one more than the handling before with no kill between
	// (across a kill it may be that handling back from the dead host).
	var copies, returned int64
	for body, hs := range h.handled {
		for i := 1; i < len(hs); i++ {
			if hs[i].attempts > hs[i-1].attempts && killsBetween(killed, hs[i-1].at, hs[i].at) == 0 {
				copies++
			}
		}
		returned += int64(h.returned[body])
	}
	if q.Retried < copies || q.Retried > returned {
		t.Errorf("q retried %d: %d retry copies delivered, %d failing handlings returned", q.Retried, copies, returned)
	}
	if q.DeadLettered < n || dlq.Acked < n || q.Pending != 0 || dlq.Pending != 0 {
		t.Errorf("%d sent; q %+v, dlq %+v", n, q, dlq)
	}
	t.Logf("q %+v, dlq %+v", q, dlq)
}

// history is what runHost wrote.
type history struct {
	sent       []string
	sentAt     []time.Time
	dead       map[string]bool
	handled    map[string][]handling // q's deliveries of each body, in order
	failed     map[string]map[int]time.Time
	returned   map[string]int // "f" lines of each body
	deliveries int
}

type handling struct {
	attempts int
	at       time.Time
}

func readHistory(t *testing.T, path string) *history {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := &history{dead: map[string]bool{}, handled: map[string][]handling{}, failed: map[string]map[int]time.Time{}, returned: map[string]int{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 3 && fs[0] == "s":
			h.sent = append(h.sent, fs[1])
			ns, _ := strconv.ParseInt(fs[2], 10, 64)
			h.sentAt = append(h.sentAt, time.Unix(0, ns))
		case len(fs) == 2 && fs[0] == "x":
			h.dead[fs[1]] = true
		case len(fs) == 4 && (fs[0] == "d" || fs[0] == "f"):
			a, _ := strconv.Atoi(fs[2])
			ns, _ := strconv.ParseInt(fs[3], 10, 64)
			at := time.Unix(0, ns)
			if fs[0] == "d" {
				h.handled[fs[1]] = append(h.handled[fs[1]], handling{a, at})
				h.deliveries++
				continue
			}
			h.returned[fs[1]]++
			if h.failed[fs[1]] == nil {
				h.failed[fs[1]] = map[int]time.Time{}
			}
			if first, ok := h.failed[fs[1]][a]; !ok || at.Before(first) {
				h.failed[fs[1]][a] = at
			}
		}
	}
	return h
}

func (h *history) notDeadLettered() []string {
	var out []string
	for _, b := range h.sent {
		if !h.dead[b] {
			out = append(out, b)
		}
	}
	return out
}

// check reports, for each body's handlings in order, attempts going back,
// not growing by one, or past MaxRetries+1, retries before their delay,
// and handlings past MaxRetries+1 plus the kills.
func (h *history) check(t *testing.T, killed []time.Time) {
	t.Helper()
	early, off := 0, 0
	across := map[int]int{} // handlings after a kill, by attempts added
	for body, hs := range h.handled {
		for i, d := range hs {
			if i > 0 && killsBetween(killed, hs[i-1].at, d.at) > 0 {
				across[d.attempts-hs[i-1].attempts]++
			}
			if e := h.attemptsError(hs, i, killed); e != "" {
				off++
				t.Errorf("%s: %s", body, e)
			}
			if d.attempts > hostMaxRetries+1 {
				t.Errorf("%s: attempts %d past MaxRetries+1", body, d.attempts)
			}
			if due, ok := h.retryDue(body, d.attempts, d.at, killed); ok && d.at.Before(due) {
				early++
				t.Errorf("%s: attempts %d back %v before its retry was due", body, d.attempts, due.Sub(d.at))
			}
		}
		if len(hs) > hostMaxRetries+1 {
			t.Errorf("%s: handled %d times, MaxRetries %d (%d kills)", body, len(hs), hostMaxRetries, len(killed))
		}
	}
	t.Logf("handlings with a kill since the one before, by attempts added: %v", across)
	if early+off > 0 {
		t.Logf("%d early retries, %d attempts not one more than the handling before", early, off)
	}
}

// attemptsError says what is wrong with the attempts of hs[i], "" if
// nothing: every delivery adds one, so attempts are one more than the
// handling before's; more where a kill took deliveries no handler saw
// (one per kill at most: a host that died during a fetch), never the
// same (a kill that made the server forget a delivery a handler saw is
// counted from the claims) nor fewer.
func (h *history) attemptsError(hs []handling, i int, killed []time.Time) string {
	if i == 0 {
		if hs[0].attempts > 1+killsBetween(killed, time.Time{}, hs[0].at) {
			return fmt.Sprintf("first handled with attempts %d", hs[0].attempts)
		}
		return ""
	}
	d, prev := hs[i], hs[i-1]
	switch {
	case d.attempts < prev.attempts:
		return fmt.Sprintf("attempts %d after %d", d.attempts, prev.attempts)
	case d.attempts == prev.attempts:
		return fmt.Sprintf("attempts %d again (%d kills since the handling before it)", d.attempts, killsBetween(killed, prev.at, d.at))
	case d.attempts > prev.attempts+1+killsBetween(killed, prev.at, d.at):
		return fmt.Sprintf("attempts %d after %d with %d kills between", d.attempts, prev.attempts, killsBetween(killed, prev.at, d.at))
	}
	return ""
}

// retryDue is when a handling with attempts may come at the earliest as
// the retry of the one with an attempt less that failed first: its retry
// delay after that handling returned. ok is false where no handling
// failed so, or a kill came between it and at: the host may have died
// before it stored the retry, and then the message comes back as a batch
// a dead host held (at once when the server forgot the delivery).
func (h *history) retryDue(body string, attempts int, at time.Time, killed []time.Time) (due time.Time, ok bool) {
	f, ok := h.failed[body][attempts-1]
	return f.Add(hostRetryDelay * time.Second), ok && killsBetween(killed, f, at) == 0
}

// killsBetween is how many of killed fall between from and to.
func killsBetween(killed []time.Time, from, to time.Time) int {
	n := 0
	for _, k := range killed {
		if k.After(from) && k.Before(to) {
			n++
		}
	}
	return n
}

func init() {
	hosts["NATSQUEUE_FIRE"] = runFiring
}

// fireSends is how many delayed messages runFiring sends, fireDelay
// seconds ahead: their schedules fire within a second or two, and a kill
// in that time finds the server firing.
const (
	fireSends = 2000
	fireDelay = 2
)

// runFiring is the host of TestScheduleFiresTwiceUnderKill, on an
// embedded server in dir/store. With NATSQUEUE_FIRE_SEND=1 it sends
// fireSends messages "f-<i>" with a delay of fireDelay seconds, stores
// their count and writes the file dir/due (the first one's due time, Unix
// ns), then waits to be killed. Else it waits until no schedule is left,
// writes "stored <messages on the stream>" to dir/history, and handles q
// until SIGTERM, writing "d <body>" for each message and acking it.
func runFiring(dir string) error {
	p, err := Open(Options{StoreDir: dir + "/store"})
	if err != nil {
		return err
	}
	defer p.Close()
	p.Bind("Q", "q")
	p.Grant("Q")
	if os.Getenv("NATSQUEUE_FIRE_SEND") == "1" {
		return sendFiring(p, dir)
	}
	write, err := historyWriter(dir + "/history")
	if err != nil {
		return err
	}
	n, err := firedAll(p)
	if err != nil {
		return err
	}
	write("stored %d", n)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	err = p.Run(ctx, "q", func(ev hostbridge.Event) error {
		for _, m := range ev.Batch().Messages() {
			write("d %s", m.Body)
		}
		return nil
	})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// sendFiring is runFiring's sending half.
func sendFiring(p *Platform, dir string) error {
	start := time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)
	time.Sleep(time.Until(start)) // sent within a second, all are due at once
	due := dueTime(start, fireDelay*time.Second)
	for i := 0; i < fireSends; i += 100 {
		batch := make([]hostbridge.BatchMessage, 100)
		for j := range batch {
			batch[j] = hostbridge.BatchMessage{Body: fmt.Appendf(nil, `"f-%d"`, i+j), ContentType: "json", DelaySeconds: fireDelay}
		}
		if err := p.SendBatch(context.Background(), "Q", batch); err != nil {
			return err
		}
	}
	p.flushAll()
	if err := os.WriteFile(dir+"/due", []byte(strconv.FormatInt(due.UnixNano(), 10)), 0o644); err != nil {
		return err
	}
	select {} // until killed
}

// firedAll waits until q's stream holds no schedule, and returns how many
// messages it holds then.
func firedAll(p *Platform) (uint64, error) {
	q, err := p.ensureQueue(context.Background(), "q")
	if err != nil {
		return 0, err
	}
	for {
		info, err := q.stream.Info(context.Background(), jetstream.WithSubjectFilter(q.names.sched+">"))
		if err != nil {
			return 0, err
		}
		if len(info.State.Subjects) == 0 {
			return info.State.Msgs, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestScheduleFiresTwiceUnderKill: a host sends fireSends messages with a
// delay and is SIGKILLed while their schedules fire; restarted, it handles
// them all. The server, killed between storing what a schedule fired and
// removing the schedule, fires it again once back (the stream holds more
// messages than were sent: the round's "duplicates"); each message
// reaches a handler once all the same, and q's counts are exact. The kill
// comes 15-65 ms after the schedules are due, when the server fires them
// here (about one kill in two then makes a duplicate); rounds run until
// two showed duplicates, at most 10. TestScheduleFiredTwice pins the same
// rule without kills.
func TestScheduleFiresTwiceUnderKill(t *testing.T) {
	long(t, "kills host processes while schedules fire, about 30 s")
	seen := 0
	for round := 0; round < 10 && seen < 2; round++ {
		dir := t.TempDir()
		cmd := startFiring(t, dir, "NATSQUEUE_FIRE_SEND=1")
		due := waitDue(t, dir, cmd)
		// the server fires them then
		time.Sleep(time.Until(due) + time.Duration(15+rand.IntN(50))*time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL) // it may have ended already
		_ = cmd.Wait()                          // a killed process's status
		cmd = startFiring(t, dir)
		stored, handled := waitHandled(t, dir, fireSends)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait() // its status: the history is what counts
		if stored > fireSends {
			seen++
		}
		twice := 0
		for _, n := range handled {
			if n > 1 {
				twice++
			}
		}
		p := openWith(t, Options{StoreDir: dir + "/store"})
		s := p.Stats(ctxBG, "q")
		t.Logf("round %d: %d sent, %d stored (%d duplicates), %d handled, %d twice; %+v", round, fireSends, stored, stored-fireSends, len(handled), twice, s)
		if len(handled) != fireSends || twice > 0 || s.Sent != fireSends || s.Delivered != fireSends || s.Acked != fireSends || s.Pending != 0 {
			t.Errorf("round %d: %d of %d handled, %d of them twice; stats %+v", round, len(handled), fireSends, twice, s)
		}
		_ = p.Close() // Close always returns nil
	}
	t.Logf("%d rounds with duplicates fired", seen)
}

// startFiring starts runFiring in a process of its own.
func startFiring(t *testing.T, dir string, env ...string) *exec.Cmd {
	t.Helper()
	return startProcess(t, append(env, "NATSQUEUE_FIRE="+dir)...)
}

// waitDue waits for runFiring's dir/due and returns the time it holds.
func waitDue(t *testing.T, dir string, cmd *exec.Cmd) time.Time {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(dir + "/due"); err == nil {
			ns, err := strconv.ParseInt(string(b), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return time.Unix(0, ns)
		}
	}
	_ = cmd.Process.Kill()
	t.Fatal("the sending host wrote no due time in a minute")
	return time.Time{}
}

// waitHandled waits until the history shows n bodies handled, or a minute
// has passed, and returns the messages the stream held before handling
// and how many times each body was handled.
func waitHandled(t *testing.T, dir string, n int) (stored int, handled map[string]int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		stored, handled = 0, map[string]int{}
		if b, err := os.ReadFile(dir + "/history"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "stored "); ok {
					stored, _ = strconv.Atoi(v)
				} else if body, ok := strings.CutPrefix(line, "d "); ok {
					handled[body]++
				}
			}
		}
		if len(handled) >= n || time.Now().After(deadline) {
			return stored, handled
		}
	}
}
