//go:build unix

package natsqueue

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hostbridge"
)

// faultHistory records what the producers and consumers of a fault run
// saw, and checks it: in memory for the checks and in a file, one line a
// fact (times in µs since the run started; <host> names the process that
// saw it, "p" in TestClusterProcessFaults' own):
//
//	s <queue> <id> <delay> <start> <end> ok|err [<reason>]  a send
//	d <queue> <id> <attempts> <at> <host>                  a handler got it
//	r <id> <attempts> <delay> <at> <host>                  the handler retried it
//	a <queue> <id> <attempts> <at> <host>                  the handler acked it
//	f SIGKILL|SIGSTOP|back [<node> …] <at>                 a node fault (back: restarted or
//	                                                       continued)
//	k <host> <at>                                          a host process SIGKILLed
//	n <queue> <messages> <at>                              a new largest stream size
//
// Every fact enters the history through apply, whether recorded here or
// read from the files of host processes (readFaultHistory: the
// multi-host suite merges the files of every process of a run).
type faultHistory struct {
	mu    sync.Mutex
	file  *os.File
	start time.Time
	host  string // who records: "p" in the test process

	// maxRetries and dlq are the settings of the retried queue "fq".
	maxRetries int
	dlq        string

	sends      map[string]sendRecord // every send tried, by id
	okSends    map[string]int        // sends that returned nil, by queue
	sendErrs   map[string]int        // sends that failed, by reason
	deliveries map[string][]faultDelivery
	retries    map[string][]retryRecord
	acks       map[string][]ackRecord // fq's and bq's acks by id
	dead       map[string][]faultDelivery
	deadAcks   map[string]int // dead-letter queue acks by id
	faults     map[string]int // nodes signalled, by signal
	spans      []faultSpan    // when nodes were faulted
	kills      []hostKill     // when host processes were SIGKILLed
	largest    uint64         // the bounded queue's largest stream size seen
}

// faultSpan is one node fault: from the signal to the restart or SIGCONT
// (zero while it lasts). Every node holds a replica of every stream and
// consumer (R3 on three nodes), so any fault may change a consumer's
// leader: the node's own, or, when a node comes back from a pause, any
// (it calls an election at once, and JetStream's Raft has no pre-vote).
type faultSpan struct {
	start, end time.Time
	paused     bool // SIGSTOP: the node came back still taking itself for the leader it was
}

type ackRecord struct {
	at       time.Time
	host     string
	attempts int
}

type hostKill struct {
	host string
	at   time.Time
}

type sendRecord struct {
	queue string
	delay int
	start time.Time
	ok    bool
}

type faultDelivery struct {
	queue, host string
	attempts    int
	at          time.Time
}

type retryRecord struct {
	attempts, delay int
	at              time.Time
	host            string
}

// newFaultHistory records in a test directory; a failed test copies the
// file into the directory NATSQUEUE_KEEP names, if set.
func newFaultHistory(t *testing.T) *faultHistory {
	f, err := os.Create(t.TempDir() + "/history")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = f.Close() // nothing written is left to flush
		if keep := os.Getenv("NATSQUEUE_KEEP"); keep != "" && t.Failed() {
			_ = os.CopyFS(keep, os.DirFS(filepath.Dir(f.Name()))) // best effort: the evidence of a failed run
		}
	})
	h := emptyFaultHistory(time.Now(), "p", faultMaxRetries, "dlq")
	h.file = f
	return h
}

// emptyFaultHistory is a history of no fact, its times counted from
// start, recorded by host, of a queue fq with maxRetries and dlq.
func emptyFaultHistory(start time.Time, host string, maxRetries int, dlq string) *faultHistory {
	return &faultHistory{start: start, host: host, maxRetries: maxRetries, dlq: dlq, sends: map[string]sendRecord{},
		okSends: map[string]int{}, sendErrs: map[string]int{}, deliveries: map[string][]faultDelivery{},
		retries: map[string][]retryRecord{}, acks: map[string][]ackRecord{}, dead: map[string][]faultDelivery{},
		deadAcks: map[string]int{}, faults: map[string]int{}}
}

// record writes one fact to the file (one write: a SIGKILL of the process
// keeps every line written before it) and applies it.
func (h *faultHistory) record(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.file != nil {
		_, _ = h.file.WriteString(line + "\n") // a line lost shows as a failed check
	}
	h.apply(line)
}

func (h *faultHistory) us(at time.Time) int64 { return at.Sub(h.start).Microseconds() }

// at is the time of a line's field of µs since the start.
func (h *faultHistory) at(field string) time.Time {
	us, _ := strconv.ParseInt(field, 10, 64)
	return h.start.Add(time.Duration(us) * time.Microsecond)
}

// apply adds one line's fact to the history; h.mu is held. Lines it does
// not know (a summary "# …") change nothing.
func (h *faultHistory) apply(line string) {
	fs := strings.Fields(line)
	if len(fs) == 0 {
		return
	}
	atoi := func(i int) int { n, _ := strconv.Atoi(fs[i]); return n }
	switch {
	case fs[0] == "s" && len(fs) >= 7:
		ok := fs[6] == "ok"
		h.sends[fs[2]] = sendRecord{queue: fs[1], delay: atoi(3), start: h.at(fs[4]), ok: ok}
		if ok {
			h.okSends[fs[1]]++
		} else {
			h.sendErrs[strings.Join(fs[7:], " ")]++
		}
	case fs[0] == "d" && len(fs) == 6:
		d := faultDelivery{queue: fs[1], host: fs[5], attempts: atoi(3), at: h.at(fs[4])}
		if fs[1] == h.dlq {
			h.dead[fs[2]] = append(h.dead[fs[2]], d)
		} else {
			h.deliveries[fs[2]] = append(h.deliveries[fs[2]], d)
		}
	case fs[0] == "r" && len(fs) == 6:
		h.retries[fs[1]] = append(h.retries[fs[1]], retryRecord{attempts: atoi(2), delay: atoi(3), at: h.at(fs[4]), host: fs[5]})
	case fs[0] == "a" && len(fs) == 6:
		if fs[1] == h.dlq {
			h.deadAcks[fs[2]]++
		} else {
			h.acks[fs[2]] = append(h.acks[fs[2]], ackRecord{at: h.at(fs[4]), host: fs[5], attempts: atoi(3)})
		}
	case fs[0] == "f" && len(fs) >= 3:
		// f <what> [<node> …] <at>
		last := len(fs) - 1
		at := h.at(fs[last])
		if fs[1] == "back" {
			if len(h.spans) > 0 {
				h.spans[len(h.spans)-1].end = at
			}
			return
		}
		nodes := strings.Fields(strings.Trim(strings.Join(fs[2:last], " "), "[]"))
		h.faults[fs[1]] += len(nodes)
		h.spans = append(h.spans, faultSpan{start: at, paused: fs[1] == "SIGSTOP"})
	case fs[0] == "k" && len(fs) == 3:
		h.kills = append(h.kills, hostKill{host: fs[1], at: h.at(fs[2])})
	case fs[0] == "n" && len(fs) == 4:
		if n, _ := strconv.ParseUint(fs[2], 10, 64); n > h.largest {
			h.largest = n
		}
	}
}

// fault records sig sent to nodes; 0 records their restart or SIGCONT.
func (h *faultHistory) fault(sig syscall.Signal, nodes []int) {
	what := "back"
	if sig != 0 {
		what = map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGSTOP: "SIGSTOP"}[sig]
	}
	h.record("f %s %v %d", what, nodes, h.us(time.Now()))
}

// hostKilled records a SIGKILL of the host process host.
func (h *faultHistory) hostKilled(host string) {
	h.record("k %s %d", host, h.us(time.Now()))
}

// sent records a send of id to queue, started at start, and its result.
func (h *faultHistory) sent(queue, id string, delay int, start time.Time, err error) {
	result := "ok"
	if err != nil {
		reason := strings.TrimPrefix(err.Error(), hostbridge.MsgSendFailed)
		result = "err " + strings.Join(strings.Fields(reason[:min(len(reason), 40)]), " ")
	}
	h.record("s %s %s %d %d %d %s", queue, id, delay, h.us(start), h.us(time.Now()), result)
}

// sampled records the bounded queue's stream size.
func (h *faultHistory) sampled(queue string, n uint64) {
	h.mu.Lock()
	larger := n > h.largest
	h.mu.Unlock()
	if larger {
		h.record("n %s %d %d", queue, n, h.us(time.Now()))
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
	h.record("d %s %s %d %d %s", queue, messageID(m), m.Attempts, h.us(at), h.host)
}

// acked records an ack the handler made.
func (h *faultHistory) acked(queue string, m hostbridge.Message) {
	h.record("a %s %s %d %d %s", queue, messageID(m), m.Attempts, h.us(time.Now()), h.host)
}

// retried records a retry the handler asked for at at.
func (h *faultHistory) retried(m hostbridge.Message, delay int, at time.Time) {
	h.record("r %s %d %d %d %s", messageID(m), m.Attempts, delay, h.us(at), h.host)
}

// readFaultHistory merges the history files at paths, their times counted
// from start, into one history of a queue fq with maxRetries and dlq. A
// file's facts are put in the order of their times, the files'
// together; a file's last line without its newline (a process writing it, or killed in
// the middle of the write) is left out.
func readFaultHistory(paths []string, start time.Time, maxRetries int, dlq string) (*faultHistory, error) {
	h := emptyFaultHistory(start, "", maxRetries, dlq)
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		text := string(b[:strings.LastIndexByte(string(b), '\n')+1])
		for line := range strings.Lines(text) {
			h.apply(line)
		}
	}
	for _, m := range []map[string][]faultDelivery{h.deliveries, h.dead} {
		for _, ds := range m {
			slices.SortStableFunc(ds, func(a, b faultDelivery) int { return a.at.Compare(b.at) })
		}
	}
	for _, rs := range h.retries {
		slices.SortStableFunc(rs, func(a, b retryRecord) int { return a.at.Compare(b.at) })
	}
	for _, as := range h.acks {
		slices.SortStableFunc(as, func(a, b ackRecord) int { return a.at.Compare(b.at) })
	}
	slices.SortStableFunc(h.kills, func(a, b hostKill) int { return a.at.Compare(b.at) })
	return h, nil
}

// done reports whether the message a send of id returned nil for reached
// its end: acked, or on the dead-letter queue.
func (h *faultHistory) done(id string) bool {
	return len(h.acks[id]) > 0 || len(h.dead[id]) > 0
}

// findings are what the checks found in a history, one list of
// messages (and when) a kind; the counts at the end are what a documented
// bound explains, for the summary.
type findings struct {
	lost, earlySend, earlyRetry, late, back, notOne, twice, originalAgain, sameAcrossCrash, moreAcrossCrash, past, over, afterAck, deadTwice []string

	sameAcrossNode, repeatAcrossNode, earlyAcrossNode, moreAcrossNode, moreCrashes, deadTwiceNode, backAfterPause int
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

// lateBy is how late past its due time a delayed send or a retry may
// reach a handler in a run with no fault: the documented rounding up to a
// whole second, and 2 s for the batch to fill and a consumer to be free
// on a loaded 2-core machine.
const lateBy = time.Second + 2*time.Second

// findEarly finds the deliveries before their send's delay, and those
// after a retry, with more attempts, before the retry's delay, but where
// a node fault came between the handling retried and the early one
// (doc.go, "Bounds under node faults": a change of the consumer's
// leader loses the holder's in-progress notices, and the original, its
// copy not stored yet, reaches a second handler); when late
// is set (a run with no fault), also the first deliveries later than
// lateBy past their due time.
func (h *faultHistory) findEarly(f *findings, late bool) {
	for id, ds := range h.deliveries {
		s := h.sends[id]
		due := s.start.Add(time.Duration(s.delay) * time.Second)
		for _, d := range ds {
			if d.at.Before(due) {
				f.earlySend = append(f.earlySend, fmt.Sprintf("%s at %d µs, due %d", id, h.us(d.at), h.us(due)))
			}
		}
		if late && s.ok && s.delay > 0 && len(ds) > 0 && ds[0].at.After(due.Add(lateBy)) {
			f.late = append(f.late, fmt.Sprintf("%s delayed %d s handled at %d µs, due %d", id, s.delay, h.us(ds[0].at), h.us(due)))
		}
		for _, r := range h.retries[id] {
			due := r.at.Add(time.Duration(r.delay) * time.Second)
			var next *faultDelivery
			for i, d := range ds {
				if d.at.After(r.at) && d.attempts > r.attempts {
					if d.at.Before(due) && h.faulted(h.handlingOf(id, r), d.at) {
						f.earlyAcrossNode++ // doc.go's bound: two holders across a change of the consumer's leader
					} else if d.at.Before(due) {
						f.earlyRetry = append(f.earlyRetry, fmt.Sprintf("%s attempts %d at %d µs (host %s), due %d (retried on %s)", id, d.attempts, h.us(d.at), d.host, h.us(due), r.host))
					}
					if next == nil {
						next = &ds[i]
					}
				}
			}
			if late && next != nil && next.at.After(due.Add(lateBy)) {
				f.late = append(f.late, fmt.Sprintf("%s retried with %d s handled at %d µs, due %d", id, r.delay, h.us(next.at), h.us(due)))
			}
		}
	}
}

// handlingOf is when the handling that r retried began (r's own time if
// none is found).
func (h *faultHistory) handlingOf(id string, r retryRecord) time.Time {
	at := r.at
	for _, d := range h.deliveries[id] {
		if d.host == r.host && d.attempts == r.attempts && !d.at.After(r.at) {
			at = d.at
		}
	}
	return at
}

// findAttempts checks each message's handlings in order, against the
// bounds doc.go states ("Attempts count deliveries", "Bounds under node
// faults", "At least once"), where a node fault is what may
// change a consumer's leader (faultSpan):
//   - attempts never go back, but within faultSettle after a node came
//     back from a pause (it may serve, as the consumer's leader it was,
//     messages as they stood when it stopped); they grow by one from a
//     handling to the next, the same again only across a node fault (the consumer's new
//     leader may lack the record of a delivery), more across a node fault
//     (a delivery on its way lost, or held back) or by at most one per
//     host crash between (a delivery to a host that died before its
//     handler ran); the same across a host crash alone is a crash
//     breaking the count;
//   - a retried original never reaches a handler again, on whichever
//     host: no handling has the attempts of one before that retried the
//     message (its copy has them too), but once per node fault in the
//     message's life (two hosts holding it: attempts may repeat once);
//   - never alive twice: no handling before the outcome of the one before
//     on another host, with no fault of that host or of a node between;
//     none after the message's ack with no fault between;
//   - attempts never pass MaxRetries+1 on fq, and a message is handled at
//     most MaxRetries+1 times, plus once per crash of a host that held it
//     (its last handling before the crash was there) and once per node
//     fault in its life;
//   - a dead-letter copy is stored once: delivered once with attempts 1,
//     but once more per node fault in the message's life (two hosts that
//     held it at once settled it in the same moment).
func (h *faultHistory) findAttempts(f *findings) {
	for id, ds := range h.deliveries {
		prev := faultDelivery{}
		repeats := 0 // retried attempts handed over again across a node fault
		for i, d := range ds {
			crashes := h.killsBetween(prev.at, d.at)
			more := d.attempts - prev.attempts
			where := fmt.Sprintf("%s %d after %d at %d µs (host %s after %s)", id, d.attempts, prev.attempts, h.us(d.at), d.host, prev.host)
			switch {
			case more < 0 && h.resumedBefore(d.at):
				f.backAfterPause++ // doc.go's bound: a leader back from a pause serves its old state
			case more < 0:
				f.back = append(f.back, where)
			case more == 1:
			case more == 0 && h.retriedAt(id, prev) && repeats < h.nodeFaults(ds[0].at, d.at):
				repeats++ // doc.go's bound: a change of the consumer's leader
				f.repeatAcrossNode++
			case more == 0 && h.retriedAt(id, prev):
				f.originalAgain = append(f.originalAgain, where)
			case more == 0 && h.faulted(prev.at, d.at):
				f.sameAcrossNode++
			case more > 1 && h.faulted(prev.at, d.at):
				f.moreAcrossNode++
			case more == 0 && crashes > 0:
				f.sameAcrossCrash = append(f.sameAcrossCrash, where)
			case more > 1 && more <= 1+crashes:
				f.moreCrashes++
			case more > 1 && crashes > 0:
				f.moreAcrossCrash = append(f.moreAcrossCrash, where)
			default:
				f.notOne = append(f.notOne, where)
			}
			if d.queue == "fq" && d.attempts > h.maxRetries+1 {
				f.past = append(f.past, fmt.Sprintf("%s attempts %d (host %s)", id, d.attempts, d.host))
			}
			if i > 0 {
				if out, ok := h.outcome(id, prev); ok && d.at.Before(out) && h.killsOf(prev.host, prev.at, d.at) == 0 && !h.faulted(prev.at, d.at) {
					f.twice = append(f.twice, fmt.Sprintf("%s attempts %d at %d µs (host %s) while host %s held attempts %d (its outcome at %d µs)", id, d.attempts, h.us(d.at), d.host, prev.host, prev.attempts, h.us(out)))
				}
			}
			prev = d
		}
		if held, lost := h.crashesHolding(ds), h.nodeFaults(ds[0].at, ds[len(ds)-1].at); len(ds) > h.maxRetries+1+held+lost {
			f.over = append(f.over, fmt.Sprintf("%s handled %d times, %d host crashes while held, %d node faults", id, len(ds), held, lost))
		}
		if acks := h.acks[id]; len(acks) > 0 {
			for _, d := range ds {
				if first := acks[0].at; d.at.After(first) && !h.faulted(first, d.at) && h.killsBetween(first, d.at) == 0 {
					f.afterAck = append(f.afterAck, fmt.Sprintf("%s attempts %d at %d µs (host %s), acked at %d", id, d.attempts, h.us(d.at), d.host, h.us(first)))
				}
			}
		}
	}
	for id, ds := range h.dead {
		firsts := h.deadCopies(id)
		if len(firsts) < 2 {
			continue
		}
		life := ds[0].at
		if fq := h.deliveries[id]; len(fq) > 0 {
			life = fq[0].at
		}
		if extra := len(firsts) - 1; extra <= h.nodeFaults(life, firsts[len(firsts)-1].at) {
			f.deadTwiceNode += extra
		} else {
			f.deadTwice = append(f.deadTwice, fmt.Sprintf("%s on %s %d times, at %d µs (host %s) first and at %d µs (host %s) last", id, h.dlq, len(firsts), h.us(firsts[0].at), firsts[0].host, h.us(firsts[len(firsts)-1].at), firsts[len(firsts)-1].host))
		}
	}
}

// deadCopies are the dead-letter queue's deliveries of id with attempts 1:
// one a copy stored.
func (h *faultHistory) deadCopies(id string) []faultDelivery {
	var firsts []faultDelivery
	for _, d := range h.dead[id] {
		if d.attempts == 1 {
			firsts = append(firsts, d)
		}
	}
	return firsts
}

// outcome is when the handler that got d recorded its outcome for it (an
// ack or a retry by the same host with the same attempts), false if it
// recorded none.
func (h *faultHistory) outcome(id string, d faultDelivery) (time.Time, bool) {
	for _, a := range h.acks[id] {
		if a.host == d.host && a.attempts == d.attempts && !a.at.Before(d.at) {
			return a.at, true
		}
	}
	for _, r := range h.retries[id] {
		if r.host == d.host && r.attempts == d.attempts && !r.at.Before(d.at) {
			return r.at, true
		}
	}
	return time.Time{}, false
}

// retriedAt reports whether the handler that got d retried it: a copy
// with one attempt more was stored, so a later handling with d's attempts
// is the original handed over again.
func (h *faultHistory) retriedAt(id string, d faultDelivery) bool {
	for _, r := range h.retries[id] {
		if r.host == d.host && r.attempts == d.attempts && !r.at.Before(d.at) {
			return true
		}
	}
	return false
}

// killsOf is how many times host crashed between from and to.
func (h *faultHistory) killsOf(host string, from, to time.Time) int {
	n := 0
	for _, k := range h.kills {
		if k.host == host && k.at.After(from) && k.at.Before(to) {
			n++
		}
	}
	return n
}

// killsBetween is how many host crashes fall between from and to.
func (h *faultHistory) killsBetween(from, to time.Time) int {
	n := 0
	for _, k := range h.kills {
		if k.at.After(from) && k.at.Before(to) {
			n++
		}
	}
	return n
}

// crashesHolding is how many host crashes came while the host killed held
// the message of handlings ds: its last handling before the crash was on
// that host.
func (h *faultHistory) crashesHolding(ds []faultDelivery) int {
	n := 0
	for _, k := range h.kills {
		var last *faultDelivery
		for i := range ds {
			if ds[i].at.Before(k.at) {
				last = &ds[i]
			}
		}
		if last != nil && last.host == k.host {
			n++
		}
	}
	return n
}

// nodeFaults is how many node faults overlap from…to (with their
// settling).
func (h *faultHistory) nodeFaults(from, to time.Time) int {
	n := 0
	for _, s := range h.spans {
		if !s.start.After(to) && (s.end.IsZero() || !s.end.Add(faultSettle).Before(from)) {
			n++
		}
	}
	return n
}

// faultSettle is how long after a fault ends its failover may still
// redeliver: a delivery whose record a failed leader took with it comes
// back after AckWait.
const faultSettle = 5 * time.Second

// resumedBefore reports whether a paused node came back within
// faultSettle before at.
func (h *faultHistory) resumedBefore(at time.Time) bool {
	for _, s := range h.spans {
		if s.paused && !s.end.IsZero() && !s.end.After(at) && at.Sub(s.end) <= faultSettle {
			return true
		}
	}
	return false
}

// faulted reports whether a node fault (or its settling) overlaps
// from…to, where a change of the consumer's leader may lose a delivery's
// record (the message then comes back with the same attempts) or a
// delivery on its way (one attempt no handler saw). from is zero before a
// message's first handling.
func (h *faultHistory) faulted(from, to time.Time) bool {
	return h.nodeFaults(from, to) > 0
}

// check fails the test on a lost message, an early delivery (or, with
// late, a late one), attempts going back, not one more where no bound
// explains it or past MaxRetries+1, a message handled too often or again
// after its ack, a dead-letter copy stored twice, or bq over its
// MaxPending.
func (h *faultHistory) check(t *testing.T, late bool) findings {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var f findings
	h.findLost(&f)
	h.findEarly(&f, late)
	h.findAttempts(&f)
	for _, c := range []struct {
		what string
		ids  []string
	}{
		{"acknowledged sends lost", f.lost},
		{"deliveries before their send delay", f.earlySend},
		{"deliveries before their retry delay", f.earlyRetry},
		{"deliveries more than 1 s (and 2 s of slack) after their delay or retry delay, no fault in the run", f.late},
		{"attempts going back", f.back},
		{"attempts not one more than the handling before's, no fault between", f.notOne},
		{"messages alive twice: handed to a handler while another held them, no fault between", f.twice},
		{"retried originals handed over again (attempts the same as a handling before that retried the message)", f.originalAgain},
		{"attempts the same again across a host crash, no node fault between", f.sameAcrossCrash},
		{"attempts more than one more per host crash between", f.moreAcrossCrash},
		{"attempts past MaxRetries+1", f.past},
		{"messages handled more than MaxRetries+1 times plus the crashes of hosts that held them", f.over},
		{"messages handled again after their ack, no fault between", f.afterAck},
		{"dead-letter copies stored twice", f.deadTwice},
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

// expected is what the history says each queue's counters are, copies
// being how many dead-letter copies the dead-letter queue's stream stored
// (its last sequence: nothing else is stored there), and by how much
// acked + dead-lettered + dropped exceeds sent: the messages stored
// although their send failed, each outcome of a message after its first
// (delivered again: its ack was lost in a failover), and each dead-letter
// copy of a message after its first. A retry a handler asked for at
// attempts past MaxRetries is the message given up (dead-lettered, or
// found settled by another host: not counted), not a retry: the platform
// counts every delivery against MaxRetries.
func (h *faultHistory) expected(copies int64) (map[string]hostbridge.QueueStats, map[string]int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	want := map[string]hostbridge.QueueStats{"fq": {Sent: int64(h.okSends["fq"]), DeadLettered: copies}}
	if n, ok := h.okSends["bq"]; ok {
		want["bq"] = hostbridge.QueueStats{Sent: int64(n)}
	}
	excess := map[string]int64{"fq": copies}
	for id, ds := range h.deliveries {
		q := ds[0].queue
		w := want[q]
		w.Delivered += int64(len(ds))
		w.Acked += int64(len(h.acks[id]))
		for _, r := range h.retries[id] {
			if q != "fq" || r.attempts <= h.maxRetries {
				w.Retried++
			}
		}
		want[q] = w
		excess[q] += int64(len(h.acks[id]))
		if len(h.acks[id]) > 0 || len(h.dead[id]) > 0 {
			excess[q]-- // its first outcome
		}
		if !h.sends[id].ok {
			excess[q]++
		}
	}
	dlq := hostbridge.QueueStats{Sent: copies}
	for id, ds := range h.dead {
		dlq.Delivered += int64(len(ds))
		dlq.Acked += int64(h.deadAcks[id])
	}
	want[h.dlq] = dlq
	excess[h.dlq] = dlq.Acked - copies
	return want, excess
}

// checkCounters opens a new Platform on the cluster with the given Prefix
// ("" for the default) and checks that the counters it reads are what
// happened, exactly (no host crashed): Sent is the sends that returned
// nil, Acked the handlers' acks, and so on; nothing is pending, and
// acked + dead-lettered + dropped is sent but for what expected explains.
// It returns how many counters differed.
func (h *faultHistory) checkCounters(t *testing.T, c *procCluster, prefix string) int {
	t.Helper()
	p, err := Open(Options{URLs: c.urls, Replicas: 3, Timeout: 5 * time.Second, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	info, err := c.streamInfo(p.namesOf(h.dlq).stream)
	if err != nil {
		t.Fatal(err)
	}
	want, excess := h.expected(int64(info.State.LastSeq))
	off := 0
	for q, w := range want {
		got := p.Stats(ctxBG, q)
		if got != w {
			off++
			t.Errorf("%s: counters read from the cluster %+v, the history says %+v", q, got, w)
		}
		if got.Acked+got.DeadLettered+got.Dropped != got.Sent+excess[q] {
			t.Errorf("%s: acked %d + deadLettered %d + dropped %d != sent %d + %d (stored although their send failed, or counted again when delivered again)",
				q, got.Acked, got.DeadLettered, got.Dropped, got.Sent, excess[q])
		}
	}
	return off
}

// summary is one line: what was sent, delivered and injected, and what the
// checks found; handlings says how many times a handler gets a message
// with no fault.
func (h *faultHistory) summary(f findings, handlings func(id string) int) string {
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
	for _, ds := range h.dead {
		n += len(ds)
		dup += len(ds) - 1
	}
	s := fmt.Sprintf("sends ok fq %d bq %d, failed %v (stored all the same %d); deliveries %d, extra deliveries %d, dead-lettered %d; nodes signalled %v, hosts killed %d; "+
		"lost %d, early sends %d, early retries %d, late %d, attempts back %d, not one more %d, alive twice %d, retried original again %d, same across a host crash %d, more across a host crash %d, past MaxRetries+1 %d, "+
		"handled too often %d, again after ack %d, dead-letter copies twice %d; explained: same across a node fault %d, retried attempts again across one %d, early across one %d, more across one %d, more by crashes %d, "+
		"dead-letter copy again across one %d, attempts back after a paused node's return %d; bq largest %d of %d",
		h.okSends["fq"], h.okSends["bq"], h.sendErrs, strays, n, dup, len(h.dead), h.faults, len(h.kills),
		len(f.lost), len(f.earlySend), len(f.earlyRetry), len(f.late), len(f.back), len(f.notOne), len(f.twice), len(f.originalAgain), len(f.sameAcrossCrash), len(f.moreAcrossCrash), len(f.past),
		len(f.over), len(f.afterAck), len(f.deadTwice), f.sameAcrossNode, f.repeatAcrossNode, f.earlyAcrossNode, f.moreAcrossNode, f.moreCrashes, f.deadTwiceNode, f.backAfterPause, h.largest, faultMaxPending)
	if h.file != nil {
		_, _ = fmt.Fprintf(h.file, "# %s\n", s) // a line lost shows as a failed check
		s += "; history " + h.file.Name()
	}
	return s
}

// handlings is how many times a handler gets id with no fault in
// TestClusterProcessFaults: fq retries n%10 == 0 until it is
// dead-lettered, n%10 == 1 once.
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
