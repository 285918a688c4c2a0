//go:build unix

package natsqueue

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hostbridge"
)

// faultHistory records what the producers and consumers of a fault run
// saw, in memory for the checks and in a file, one line a fact (times in
// ms since the run started):
//
//	s <queue> <id> <delay> <start> <end> ok|err   a send
//	d <queue> <id> <attempts> <at>                 a handler got it
//	r <id> <attempts> <delay> <at>                 the handler retried it
//	a <queue> <id> <attempts> <at>                 the handler acked it
//	f SIGKILL|SIGSTOP|back [<node> …] <at>         a fault (back: restarted or continued)
//	n <queue> <messages> <at>                      a new largest stream size
type faultHistory struct {
	mu    sync.Mutex
	file  *os.File
	start time.Time

	sends      map[string]sendRecord // every send tried, by id
	okSends    map[string]int        // sends that returned nil, by queue
	sendErrs   map[string]int        // sends that failed, by reason
	deliveries map[string][]faultDelivery
	retries    map[string][]retryRecord
	acks       map[string]int // fq's and bq's acks by id
	dead       map[string]int // dead-letter queue deliveries by id
	deadAcks   map[string]int // dead-letter queue acks by id
	faults     map[string]int // nodes signalled, by signal
	spans      []faultSpan    // when nodes were faulted
	largest    uint64         // the bounded queue's largest stream size seen
}

// faultSpan is one fault: from the signal to the restart or SIGCONT (zero
// while it lasts).
type faultSpan struct{ start, end time.Time }

type sendRecord struct {
	queue string
	delay int
	start time.Time
	ok    bool
}

type faultDelivery struct {
	queue    string
	attempts int
	at       time.Time
}

type retryRecord struct {
	attempts, delay int
	at              time.Time
}

// newFaultHistory records in a test directory; a failed test copies the
// file into the directory NATSQUEUE_KEEP names, if set.
func newFaultHistory(t *testing.T) *faultHistory {
	f, err := os.Create(t.TempDir() + "/history")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = f.Close()
		if keep := os.Getenv("NATSQUEUE_KEEP"); keep != "" && t.Failed() {
			_ = os.CopyFS(keep, os.DirFS(filepath.Dir(f.Name())))
		}
	})
	return &faultHistory{file: f, start: time.Now(), sends: map[string]sendRecord{},
		okSends: map[string]int{}, sendErrs: map[string]int{}, deliveries: map[string][]faultDelivery{},
		retries: map[string][]retryRecord{}, acks: map[string]int{}, dead: map[string]int{}, deadAcks: map[string]int{}, faults: map[string]int{}}
}

// line writes one fact; h.mu is held.
func (h *faultHistory) line(format string, args ...any) {
	_, _ = fmt.Fprintf(h.file, format+"\n", args...)
}

func (h *faultHistory) ms(at time.Time) int64 { return at.Sub(h.start).Milliseconds() }

// fault records sig sent to nodes; 0 records their restart or SIGCONT.
func (h *faultHistory) fault(sig syscall.Signal, nodes []int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now, what := time.Now(), "back"
	if sig != 0 {
		what = map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGSTOP: "SIGSTOP"}[sig]
		h.faults[what] += len(nodes)
		h.spans = append(h.spans, faultSpan{start: now})
	} else if len(h.spans) > 0 {
		h.spans[len(h.spans)-1].end = now
	}
	h.line("f %s %v %d", what, nodes, h.ms(now))
}

// sent records a send of id to queue, started at start, and its result.
func (h *faultHistory) sent(queue, id string, delay int, start time.Time, err error) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sends[id] = sendRecord{queue: queue, delay: delay, start: start, ok: err == nil}
	result := "ok"
	if err != nil {
		result = "err"
		reason := strings.TrimPrefix(err.Error(), hostbridge.MsgSendFailed)
		h.sendErrs[reason[:min(len(reason), 40)]]++
	} else {
		h.okSends[queue]++
	}
	h.line("s %s %s %d %d %d %s", queue, id, delay, h.ms(start), h.ms(now), result)
}

// sampled records the bounded queue's stream size.
func (h *faultHistory) sampled(queue string, n uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n > h.largest {
		h.largest = n
		h.line("n %s %d %d", queue, n, h.ms(time.Now()))
	}
}

// messageID is a message's id: its body, a JSON string.
func messageID(m hostbridge.Message) string {
	raw, _ := m.Body.(json.RawMessage)
	id, _ := strconv.Unquote(string(raw))
	return id
}

// delivered records that queue's handler got m.
func (h *faultHistory) delivered(queue string, m hostbridge.Message, at time.Time) {
	id := messageID(m)
	h.mu.Lock()
	defer h.mu.Unlock()
	if queue == "dlq" {
		h.dead[id]++
	} else {
		h.deliveries[id] = append(h.deliveries[id], faultDelivery{queue: queue, attempts: m.Attempts, at: at})
	}
	h.line("d %s %s %d %d", queue, id, m.Attempts, h.ms(at))
}

// acked records an ack the handler made.
func (h *faultHistory) acked(queue string, m hostbridge.Message) {
	id := messageID(m)
	h.mu.Lock()
	defer h.mu.Unlock()
	if queue == "dlq" {
		h.deadAcks[id]++
	} else {
		h.acks[id]++
	}
	h.line("a %s %s %d %d", queue, id, m.Attempts, h.ms(time.Now()))
}

// retried records a retry the handler asked for at at.
func (h *faultHistory) retried(m hostbridge.Message, delay int, at time.Time) {
	id := messageID(m)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.retries[id] = append(h.retries[id], retryRecord{attempts: m.Attempts, delay: delay, at: at})
	h.line("r %s %d %d %d", id, m.Attempts, delay, h.ms(at))
}

// done reports whether the message a send of id returned nil for reached
// its end: acked, or on the dead-letter queue.
func (h *faultHistory) done(id string) bool {
	return h.acks[id] > 0 || h.dead[id] > 0
}

// findings are what the checks found in a history, one list of
// messages (and when) a kind.
type findings struct {
	lost, earlySend, earlyRetry, back, notOne, past, over []string
}

// lost is every id whose send returned nil and that has not reached its
// end.
func (h *faultHistory) lost() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var f findings
	h.findLost(&f)
	return f.lost
}

func (h *faultHistory) findLost(f *findings) {
	for id, s := range h.sends {
		if s.ok && !h.done(id) {
			f.lost = append(f.lost, id)
		}
	}
}

// findEarly finds the deliveries before their send's delay, and those
// after a retry, with more attempts, before the retry's delay.
func (h *faultHistory) findEarly(f *findings) {
	for id, ds := range h.deliveries {
		s := h.sends[id]
		due := s.start.Add(time.Duration(s.delay) * time.Second)
		for _, d := range ds {
			if d.at.Before(due) {
				f.earlySend = append(f.earlySend, fmt.Sprintf("%s at %d ms, due %d", id, h.ms(d.at), h.ms(due)))
			}
		}
		for _, r := range h.retries[id] {
			due := r.at.Add(time.Duration(r.delay) * time.Second)
			for _, d := range ds {
				if d.at.After(r.at) && d.attempts > r.attempts && d.at.Before(due) {
					f.earlyRetry = append(f.earlyRetry, fmt.Sprintf("%s attempts %d at %d ms, due %d", id, d.attempts, h.ms(d.at), h.ms(due)))
				}
			}
		}
	}
}

// findAttempts finds attempts that went back, did not grow by one from a
// handling to the next where no fault explains it, went past
// MaxRetries+1, and messages handled more than MaxRetries+1 times.
func (h *faultHistory) findAttempts(f *findings) {
	for id, ds := range h.deliveries {
		prev := faultDelivery{}
		for _, d := range ds {
			if d.attempts < prev.attempts {
				f.back = append(f.back, fmt.Sprintf("%s %d after %d at %d ms", id, d.attempts, prev.attempts, h.ms(d.at)))
			} else if d.attempts != prev.attempts+1 && !h.faulted(prev.at, d.at) {
				f.notOne = append(f.notOne, fmt.Sprintf("%s %d after %d at %d ms", id, d.attempts, prev.attempts, h.ms(d.at)))
			}
			if d.queue == "fq" && d.attempts > faultMaxRetries+1 {
				f.past = append(f.past, fmt.Sprintf("%s attempts %d", id, d.attempts))
			}
			prev = d
		}
		if len(ds) > faultMaxRetries+1 {
			f.over = append(f.over, fmt.Sprintf("%s handled %d times", id, len(ds)))
		}
	}
}

// faultSettle is how long after a fault ends its failover may still
// redeliver: a delivery whose record a failed leader took with it comes
// back after AckWait.
const faultSettle = 5 * time.Second

// faulted reports whether a fault (or its settling) overlaps from…to,
// where a failover may lose a delivery's record (the message then comes
// back with the same attempts) or a delivery on its way (one attempt no
// handler saw). from is zero before a message's first handling.
func (h *faultHistory) faulted(from, to time.Time) bool {
	for _, s := range h.spans {
		if !s.start.After(to) && (s.end.IsZero() || !s.end.Add(faultSettle).Before(from)) {
			return true
		}
	}
	return false
}

// check fails the test on a lost message, an early delivery, attempts
// going back or past MaxRetries+1, or bq over its MaxPending.
func (h *faultHistory) check(t *testing.T) findings {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var f findings
	h.findLost(&f)
	h.findEarly(&f)
	h.findAttempts(&f)
	for _, c := range []struct {
		what string
		ids  []string
	}{
		{"acknowledged sends lost", f.lost},
		{"deliveries before their send delay", f.earlySend},
		{"deliveries before their retry delay", f.earlyRetry},
		{"attempts going back", f.back},
		{"attempts not one more than the handling before's, no fault between", f.notOne},
		{"attempts past MaxRetries+1", f.past},
		{"messages handled more than MaxRetries+1 times", f.over},
	} {
		if len(c.ids) > 0 {
			t.Errorf("%d %s: %.500v", len(c.ids), c.what, c.ids)
		}
	}
	if h.largest > faultMaxPending {
		t.Errorf("bq's stream held %d messages, its MaxPending is %d", h.largest, faultMaxPending)
	}
	return f
}

// expected is what the history says each queue's counters are (the last
// retry of a message that reached the dead-letter queue was its dead
// letter: the platform counts every delivery against MaxRetries, a
// message delivered again after a lost outcome included),
// and by how much
// acked + dead-lettered + dropped exceeds sent: the messages stored
// although their send failed, and each outcome of a message after its
// first (delivered again: its ack was lost in a failover).
func (h *faultHistory) expected() (map[string]hostbridge.QueueStats, map[string]int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	want := map[string]hostbridge.QueueStats{"fq": {Sent: int64(h.okSends["fq"])}, "bq": {Sent: int64(h.okSends["bq"])}}
	excess := map[string]int64{}
	for id, ds := range h.deliveries {
		q := ds[0].queue
		w := want[q]
		w.Delivered += int64(len(ds))
		w.Acked += int64(h.acks[id])
		outcomes, retries := h.acks[id], len(h.retries[id])
		if h.dead[id] > 0 && retries > 0 { // its last retry was its dead letter
			w.DeadLettered++
			outcomes++
			retries--
		}
		w.Retried += int64(retries)
		want[q] = w
		excess[q] += int64(max(outcomes-1, 0))
		if !h.sends[id].ok {
			excess[q]++
		}
	}
	var dlq hostbridge.QueueStats
	for id, n := range h.dead {
		dlq.Sent++
		dlq.Delivered += int64(n)
		dlq.Acked += int64(h.deadAcks[id])
		excess["dlq"] += int64(max(h.deadAcks[id]-1, 0))
	}
	want["dlq"] = dlq
	return want, excess
}

// checkCounters opens a new Platform on the cluster and checks that the
// counters it reads are what happened, exactly (the host never crashed):
// Sent is the sends that returned nil, Acked the handlers' acks, and so
// on; nothing is pending, and acked + dead-lettered + dropped is sent but
// for what expected explains.
func (h *faultHistory) checkCounters(t *testing.T, c *procCluster) {
	t.Helper()
	p, err := Open(Options{URLs: c.urls, Replicas: 3, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want, excess := h.expected()
	for q, w := range want {
		got := p.Stats(q)
		if got != w {
			t.Errorf("%s: counters read from the cluster %+v, the history says %+v", q, got, w)
		}
		if got.Acked+got.DeadLettered+got.Dropped != got.Sent+excess[q] {
			t.Errorf("%s: acked %d + deadLettered %d + dropped %d != sent %d + %d (stored although their send failed, or counted again when delivered again)",
				q, got.Acked, got.DeadLettered, got.Dropped, got.Sent, excess[q])
		}
	}
}

// summary is one line: what was sent, delivered and injected, and what the
// checks found.
func (h *faultHistory) summary(f findings) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, dup := 0, 0
	strays := 0
	for id, ds := range h.deliveries {
		n += len(ds)
		dup += max(len(ds)-handlings(id), 0)
		if !h.sends[id].ok {
			strays++
		}
	}
	for _, k := range h.dead {
		n += k
		dup += k - 1
	}
	s := fmt.Sprintf("sends ok fq %d bq %d, failed %v (stored all the same %d); deliveries %d, extra deliveries %d, dead-lettered %d; nodes signalled %v; "+
		"lost %d, early sends %d, early retries %d, attempts back %d, not one more %d, past MaxRetries+1 %d; bq largest %d of %d; history %s",
		h.okSends["fq"], h.okSends["bq"], h.sendErrs, strays, n, dup, len(h.dead), h.faults,
		len(f.lost), len(f.earlySend), len(f.earlyRetry), len(f.back), len(f.notOne), len(f.past), h.largest, faultMaxPending, h.file.Name())
	h.line("# %s", s)
	return s
}

// handlings is how many times a handler gets id with no fault: fq
// retries n%10 == 0 until it is dead-lettered, n%10 == 1 once.
func handlings(id string) int {
	switch {
	case !strings.HasPrefix(id, "fq-"):
		return 1
	case idNumber(id)%10 == 0:
		return faultMaxRetries + 1
	case idNumber(id)%10 == 1:
		return 2
	}
	return 1
}
