//go:build unix

package natsqueue

import (
	"cmp"
	"context"
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
//	w <queue> <id> <attempts> <at> <host>                  it returned asking its ack
//	a <queue> <id> <attempts> <at> <host>                  its handling ended acked
//	r <queue> <id> <attempts> <delay> <at> <host>          … retried with delay
//	g <queue> <id> <attempts> <at> <host>                  … dead-lettered or dropped
//	x <queue> <id> <attempts> <at> <host>                  … with its outcome refused
//	f SIGKILL|SIGSTOP|back [<node> …] <at>                 a node fault (back: restarted or
//	                                                       continued)
//	k <host> <at>                                          a host process SIGKILLed
//	n <queue> <messages> <at>                              a new largest stream size
//
// A handling's outcome (a, r, g, x) is what Deliver's result says the
// platform applied, recorded once Deliver returned, at the time the
// handler returned (the earliest a retry's delay can count from): x is a
// message of the batch in none of the result's Acked, Retried,
// DeadLettered and Dropped, an outcome the platform refused (another
// holder took the message over, or the claim could not be settled). A
// "w" line, written before the platform applies the outcome, is the only
// trace of an ack committed by a host killed before Deliver returned.
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

	sends       map[string]sendRecord // every send tried, by id
	okSends     map[string]int        // sends that returned nil, by queue
	sendErrs    map[string]int        // sends that failed, by reason
	deliveries  map[string][]faultDelivery
	outcomes    map[string][]outcomeRecord // fq's and bq's handlings' outcomes by id
	wanted      map[string][]outcomeRecord // the acks their handlers asked for ("w")
	dead        map[string][]faultDelivery
	deadAcks    map[string]int // dead-letter queue acks by id
	deadRefused int            // dead-letter queue handlings refused
	faults      map[string]int // nodes signalled, by signal
	kills       []hostKill     // when host processes were SIGKILLed
	largest     uint64         // the bounded queue's largest stream size seen
}

// outcomeRecord is how a handling ended: acked ('a'), retried with delay
// ('r'), dead-lettered or dropped ('g'), or refused ('x').
type outcomeRecord struct {
	kind     byte
	attempts int
	delay    int
	at       time.Time
	host     string
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
		outcomes: map[string][]outcomeRecord{}, wanted: map[string][]outcomeRecord{}, dead: map[string][]faultDelivery{},
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
	case fs[0] == "a" && len(fs) == 6 && fs[1] == h.dlq:
		h.deadAcks[fs[2]]++
	case fs[0] == "x" && len(fs) == 6 && fs[1] == h.dlq:
		h.deadRefused++
	case (fs[0] == "a" || fs[0] == "g" || fs[0] == "x") && len(fs) == 6 && fs[1] != h.dlq:
		h.outcomes[fs[2]] = append(h.outcomes[fs[2]], outcomeRecord{kind: fs[0][0], attempts: atoi(3), at: h.at(fs[4]), host: fs[5]})
	case fs[0] == "w" && len(fs) == 6 && fs[1] != h.dlq:
		h.wanted[fs[2]] = append(h.wanted[fs[2]], outcomeRecord{kind: 'a', attempts: atoi(3), at: h.at(fs[4]), host: fs[5]})
	case fs[0] == "r" && len(fs) == 7 && fs[1] != h.dlq:
		h.outcomes[fs[2]] = append(h.outcomes[fs[2]], outcomeRecord{kind: 'r', attempts: atoi(3), delay: atoi(4), at: h.at(fs[5]), host: fs[6]})
	case fs[0] == "f" && len(fs) >= 3 && fs[1] != "back":
		// f <what> [<node> …] <at>
		nodes := strings.Fields(strings.Trim(strings.Join(fs[2:len(fs)-1], " "), "[]"))
		h.faults[fs[1]] += len(nodes)
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

// run delivers queue's batches to handler until ctx ends, as Platform.Run
// does (a failed step tried again after pollWait/4), recording each
// handling: a "d" line when the handler gets a message, and once Deliver
// returns the outcome its result reports (handled).
func (h *faultHistory) run(ctx context.Context, p *Platform, queue string, handler func(hostbridge.Event) error) {
	for ctx.Err() == nil {
		var got []hostbridge.Message
		var ended time.Time
		r, ok, err := p.Deliver(ctx, queue, func(ev hostbridge.Event) error {
			got = ev.Batch().Messages()
			now := time.Now()
			for _, m := range got {
				h.record("d %s %s %d %d %s", queue, messageID(m), m.Attempts, h.us(now), h.host)
			}
			err := handler(ev)
			ended = time.Now()
			h.wantAcks(queue, ev.Batch(), err, p.Consumer(queue), ended)
			return err
		})
		if ok {
			h.handled(queue, got, r, ended)
		} else if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(pollWait / 4):
			}
		}
	}
}

// wantAcks records the acks the outcome of b, whose handler returned err
// at at, asks for on a queue with settings s ("w" lines), before the
// platform applies them.
func (h *faultHistory) wantAcks(queue string, b hostbridge.Batch, err error, s hostbridge.ConsumerSettings, at time.Time) {
	rec, ok := b.(*hostbridge.BatchRecord)
	if !ok {
		return
	}
	for i, m := range rec.Messages() {
		if a, _ := hostbridge.Settle(rec.Outcome(i), err, m.Attempts, s); a == hostbridge.ActionAck {
			h.record("w %s %s %d %d %s", queue, messageID(m), m.Attempts, h.us(at), h.host)
		}
	}
}

// handled records how each message of got, the batch a handler returned
// from at at, ended as r reports it: acked, retried with the delay
// applied, given up (dead-lettered or dropped), or, in none of them, its
// outcome refused.
func (h *faultHistory) handled(queue string, got []hostbridge.Message, r hostbridge.DeliveryResult, at time.Time) {
	kinds := map[string]string{}
	for _, id := range r.Acked {
		kinds[id] = "a"
	}
	delays := map[string]int{}
	for _, rm := range r.Retried {
		kinds[rm.ID], delays[rm.ID] = "r", rm.DelaySeconds
	}
	for _, dl := range r.DeadLettered {
		kinds[dl.ID] = "g"
	}
	for _, id := range r.Dropped {
		kinds[id] = "g"
	}
	for _, m := range got {
		if kind := cmp.Or(kinds[m.ID], "x"); kind != "r" {
			h.record("%s %s %s %d %d %s", kind, queue, messageID(m), m.Attempts, h.us(at), h.host)
		} else {
			h.record("r %s %s %d %d %d %s", queue, messageID(m), m.Attempts, delays[m.ID], h.us(at), h.host)
		}
	}
}

// readFaultHistory merges the history files at paths, their times counted
// from start, into one history of a queue fq with maxRetries and dlq. A
// file's facts are put in the order of their times, the files'
// together; a file's last line without its newline (a process writing
// it, or killed in the middle of the write) is left out.
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
	for _, rs := range h.outcomes {
		slices.SortStableFunc(rs, func(a, b outcomeRecord) int { return a.at.Compare(b.at) })
	}
	slices.SortStableFunc(h.kills, func(a, b hostKill) int { return a.at.Compare(b.at) })
	return h, nil
}

// done reports whether the message a send of id returned nil for reached
// its end: acked, or on the dead-letter queue, or maybe acked by a host
// killed before it could record so (ackedAtCrash).
func (h *faultHistory) done(id string) bool {
	return h.endedAs(id, 'a') > 0 || len(h.dead[id]) > 0 || h.ackedAtCrash(id)
}

// ackedAtCrash reports whether the last handling of id asked for its ack
// and has no outcome, its host killed after: the ack may have been
// committed (a later handling would show it was not). The suites check
// that the streams end empty all the same.
func (h *faultHistory) ackedAtCrash(id string) bool {
	ds := h.deliveries[id]
	if len(ds) == 0 {
		return false
	}
	last := ds[len(ds)-1]
	if _, ended := h.outcome(id, last); ended {
		return false
	}
	_, killed := h.killAfter(last.host, last.at)
	for _, w := range h.wanted[id] {
		if w.host == last.host && w.attempts == last.attempts && !w.at.Before(last.at) {
			return killed
		}
	}
	return false
}

// endedAs is how many handlings of id ended with the outcome kind.
func (h *faultHistory) endedAs(id string, kind byte) int {
	n := 0
	for _, o := range h.outcomes[id] {
		if o.kind == kind {
			n++
		}
	}
	return n
}

// findings are what the checks found in a history: one list of messages
// (and when) a broken promise; the counts at the end are what the checks
// allow, for the summary: attempts one more per host crash between
// (moreCrashes), outcomes refused, the overlaps of a lapsed lease with the
// next holder (leaseOverlaps, see findOverlaps), and the messages whose
// ack a host killed may have committed (ackedAtCrash).
type findings struct {
	lost, earlySend, earlyRetry, late, back, notOne, overlap, noOutcome, originalAgain, sameAcrossCrash, moreAcrossCrash, past, over, afterEnd, deadTwice []string

	moreCrashes, refused, leaseOverlaps, ackedAtCrash int
}

// broken is every list of f with what it breaks.
func (f findings) broken() []struct {
	what string
	ids  []string
} {
	return []struct {
		what string
		ids  []string
	}{
		{"acknowledged sends lost", f.lost},
		{"deliveries before their send delay", f.earlySend},
		{"deliveries before their retry delay", f.earlyRetry},
		{"deliveries more than 1 s (and 2 s of slack) after their delay or retry delay, no fault in the run", f.late},
		{"attempts going back", f.back},
		{"attempts not one more than the handling before's", f.notOne},
		{"handed to a handler while another held them, the holder's outcome not refused", f.overlap},
		{"handlings with no outcome recorded, their host not killed", f.noOutcome},
		{"retried originals handed over again (attempts the same as a handling before that retried the message)", f.originalAgain},
		{"attempts the same again across a host crash", f.sameAcrossCrash},
		{"attempts more than one more per host crash between", f.moreAcrossCrash},
		{"attempts past MaxRetries+1", f.past},
		{"messages handled more than MaxRetries+1 times plus the crashes of hosts that held them", f.over},
		{"messages handled again after their ack or dead-lettering", f.afterEnd},
		{"dead-letter copies stored twice", f.deadTwice},
	}
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
		switch {
		case !s.ok:
		case !h.done(id):
			f.lost = append(f.lost, id)
		case h.endedAs(id, 'a') == 0 && len(h.dead[id]) == 0:
			f.ackedAtCrash++
		}
	}
}

// lateBy is how late past its due time a delayed send or a retry may
// reach a handler in a run with no fault: the documented rounding up to a
// whole second, and 2 s for the batch to fill and a consumer to be free
// on a loaded 2-core machine.
const lateBy = time.Second + 2*time.Second

// findEarly finds the deliveries before their send's delay, and those
// after a retry, with more attempts, before the retry's delay, node fault
// or not; when late is set (a run with no fault), also the first
// deliveries later than lateBy past their due time.
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
		for _, r := range h.outcomes[id] {
			if r.kind == 'r' {
				h.findEarlyRetry(f, id, ds, r, late)
			}
		}
	}
}

// findEarlyRetry finds the handlings of id after the retry r, with more
// attempts, before its delay; with late, also a first such handling
// later than lateBy past it.
func (h *faultHistory) findEarlyRetry(f *findings, id string, ds []faultDelivery, r outcomeRecord, late bool) {
	due := r.at.Add(time.Duration(r.delay) * time.Second)
	var next *faultDelivery
	for i, d := range ds {
		if !d.at.After(r.at) || d.attempts <= r.attempts {
			continue
		}
		if d.at.Before(due) {
			f.earlyRetry = append(f.earlyRetry, fmt.Sprintf("%s attempts %d at %d µs (host %s), due %d (retried on %s)", id, d.attempts, h.us(d.at), d.host, h.us(due), r.host))
		}
		if next == nil {
			next = &ds[i]
		}
	}
	if late && next != nil && next.at.After(due.Add(lateBy)) {
		f.late = append(f.late, fmt.Sprintf("%s retried with %d s handled at %d µs, due %d", id, r.delay, h.us(next.at), h.us(due)))
	}
}

// findAttempts checks each message's handlings in order against the
// promises of doc.go ("Attempts count deliveries", "At least once"), with
// no bound for a node fault; the one allowance is for host crashes:
//   - attempts never go back, and grow by one from a handling to the next,
//     a refused one's included, or by one more per host crash between (a
//     delivery to a host that died before its handler ran); the same
//     again is a delivery not counted or, after a handling that retried
//     the message, its retried original handed over again (findStep);
//   - attempts never pass MaxRetries+1 on fq, and a message is handled at
//     most MaxRetries+1 times, plus once per crash of a host that held it
//     (its last handling before the crash was there);
//   - no handler gets a message another holds, but a lapsed lease's next
//     holder (findOverlaps), nor one acked or dead-lettered (findAfterEnd);
//   - a dead-letter copy is stored once: delivered once with attempts 1.
func (h *faultHistory) findAttempts(f *findings) {
	for id, ds := range h.deliveries {
		prev := faultDelivery{}
		for _, d := range ds {
			h.findStep(f, id, prev, d)
			if d.queue == "fq" && d.attempts > h.maxRetries+1 {
				f.past = append(f.past, fmt.Sprintf("%s attempts %d (host %s)", id, d.attempts, d.host))
			}
			prev = d
		}
		if held := h.crashesHolding(ds); len(ds) > h.maxRetries+1+held {
			f.over = append(f.over, fmt.Sprintf("%s handled %d times, %d host crashes while held", id, len(ds), held))
		}
		f.refused += h.endedAs(id, 'x')
		h.findOverlaps(f, id, ds)
		h.findAfterEnd(f, id, ds)
	}
	for id := range h.dead {
		if firsts := h.deadCopies(id); len(firsts) > 1 {
			f.deadTwice = append(f.deadTwice, fmt.Sprintf("%s on %s %d times, at %d µs (host %s) first and at %d µs (host %s) last", id, h.dlq, len(firsts), h.us(firsts[0].at), firsts[0].host, h.us(firsts[len(firsts)-1].at), firsts[len(firsts)-1].host))
		}
	}
}

// findStep checks the attempts of d, the handling of id after prev (zero
// before the first).
func (h *faultHistory) findStep(f *findings, id string, prev, d faultDelivery) {
	crashes := h.killsBetween(prev.at, d.at)
	more := d.attempts - prev.attempts
	where := fmt.Sprintf("%s %d after %d at %d µs (host %s after %s)", id, d.attempts, prev.attempts, h.us(d.at), d.host, prev.host)
	switch {
	case more < 0:
		f.back = append(f.back, where)
	case more == 1:
	case more == 0 && h.retriedAt(id, prev):
		f.originalAgain = append(f.originalAgain, where)
	case more == 0 && crashes > 0:
		f.sameAcrossCrash = append(f.sameAcrossCrash, where)
	case more > 1 && more <= 1+crashes:
		f.moreCrashes++
	case more > 1 && crashes > 0:
		f.moreAcrossCrash = append(f.moreAcrossCrash, where)
	default:
		f.notOne = append(f.notOne, where)
	}
}

// findOverlaps finds the handlings of id (ds, in order) begun while an
// earlier one held the message: before the earlier one's outcome or, with
// none, before its host was killed (one with neither is noOutcome: the
// history lacks its end). One overlap is inherent to leases and allowed
// (leaseOverlaps): a holder that outlived its lease, no renewal committed,
// and the next holder; then the earlier holder's outcome is refused, or
// never came (its host was killed), never applied.
func (h *faultHistory) findOverlaps(f *findings, id string, ds []faultDelivery) {
	for i, held := range ds {
		o, ended := h.outcome(id, held)
		end := o.at
		if !ended {
			var killed bool
			if end, killed = h.killAfter(held.host, held.at); !killed {
				f.noOutcome = append(f.noOutcome, fmt.Sprintf("%s attempts %d at %d µs (host %s)", id, held.attempts, h.us(held.at), held.host))
				continue
			}
		}
		for _, d := range ds[i+1:] {
			switch {
			case !d.at.Before(end):
			case !ended || o.kind == 'x':
				f.leaseOverlaps++
			default:
				f.overlap = append(f.overlap, fmt.Sprintf("%s attempts %d at %d µs (host %s) while host %s held attempts %d (its outcome %c at %d µs)", id, d.attempts, h.us(d.at), d.host, held.host, held.attempts, o.kind, h.us(end)))
			}
		}
	}
}

// findAfterEnd finds the handlings of id (ds) begun after its first ack
// or dead-lettering the platform applied.
func (h *faultHistory) findAfterEnd(f *findings, id string, ds []faultDelivery) {
	for _, o := range h.outcomes[id] {
		if o.kind != 'a' && o.kind != 'g' {
			continue
		}
		for _, d := range ds {
			if d.at.After(o.at) {
				f.afterEnd = append(f.afterEnd, fmt.Sprintf("%s attempts %d at %d µs (host %s), %c at %d", id, d.attempts, h.us(d.at), d.host, o.kind, h.us(o.at)))
			}
		}
		return
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

// outcome is how the handling d of id ended (the first outcome the same
// host recorded with the same attempts at or after d), false if the
// history has none.
func (h *faultHistory) outcome(id string, d faultDelivery) (outcomeRecord, bool) {
	for _, o := range h.outcomes[id] {
		if o.host == d.host && o.attempts == d.attempts && !o.at.Before(d.at) {
			return o, true
		}
	}
	return outcomeRecord{}, false
}

// retriedAt reports whether the handling d of id ended retried: a copy
// with one attempt more was stored, so a later handling with d's attempts
// is the original handed over again.
func (h *faultHistory) retriedAt(id string, d faultDelivery) bool {
	o, ok := h.outcome(id, d)
	return ok && o.kind == 'r'
}

// killAfter is when host was first killed after at, false if it was not.
func (h *faultHistory) killAfter(host string, at time.Time) (time.Time, bool) {
	for _, k := range h.kills {
		if k.host == host && k.at.After(at) {
			return k.at, true
		}
	}
	return time.Time{}, false
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

// check fails the test on any finding of findings.broken (late ones only
// with late set: a run with no fault), or bq over its MaxPending. It
// allows nothing for a node fault but the lease overlap whose outcome was
// refused.
func (h *faultHistory) check(t *testing.T, late bool) findings {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.find(late)
	for _, c := range f.broken() {
		if len(c.ids) > 0 {
			t.Errorf("%d %s: %.500v", len(c.ids), c.what, c.ids)
		}
	}
	if h.largest > faultMaxPending {
		t.Errorf("bq's stream held %d messages, its MaxPending is %d", h.largest, faultMaxPending)
	}
	return f
}

// find runs every check on the history; h.mu is held.
func (h *faultHistory) find(late bool) findings {
	var f findings
	h.findLost(&f)
	h.findEarly(&f, late)
	h.findAttempts(&f)
	return f
}

// expected is what the history says each queue's counters are, exactly,
// copies being how many dead-letter copies the dead-letter queue's stream
// stored (its last sequence: nothing else is stored there; fq's
// dead-lettered count, those given up without a handler included). Sent
// counts every message stored: the sends that returned nil and those that
// failed but reached a handler all the same. A handling counts, as
// delivered and by its outcome, only when its outcome was applied, never
// when refused.
func (h *faultHistory) expected(copies int64) map[string]hostbridge.QueueStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	want := map[string]hostbridge.QueueStats{"fq": {Sent: int64(h.okSends["fq"]), DeadLettered: copies}}
	if n, ok := h.okSends["bq"]; ok {
		want["bq"] = hostbridge.QueueStats{Sent: int64(n)}
	}
	for id, ds := range h.deliveries {
		q := ds[0].queue
		w := want[q]
		w.Delivered += int64(len(ds) - h.endedAs(id, 'x'))
		w.Acked += int64(h.endedAs(id, 'a'))
		w.Retried += int64(h.endedAs(id, 'r'))
		if !h.sends[id].ok {
			w.Sent++
		}
		want[q] = w
	}
	dlq := hostbridge.QueueStats{Sent: copies, Delivered: -int64(h.deadRefused)}
	for id, ds := range h.dead {
		dlq.Delivered += int64(len(ds))
		dlq.Acked += int64(h.deadAcks[id])
	}
	want[h.dlq] = dlq
	return want
}

// checkCounters opens a new Platform on the cluster with the given Prefix
// ("" for the default) and checks that the counters it reads are what
// happened, exactly (no host crashed): Sent is the messages stored, Acked
// the acks applied, and so on; nothing is pending, and every message
// ended once: acked + dead-lettered + dropped is sent. It returns how many
// counters differed.
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
	want := h.expected(int64(info.State.LastSeq))
	off := 0
	for q, w := range want {
		got := p.Stats(ctxBG, q)
		if got != w {
			off++
			t.Errorf("%s: counters read from the cluster %+v, the history says %+v", q, got, w)
		}
		if got.Acked+got.DeadLettered+got.Dropped != got.Sent {
			t.Errorf("%s: acked %d + deadLettered %d + dropped %d != sent %d", q, got.Acked, got.DeadLettered, got.Dropped, got.Sent)
		}
	}
	return off
}

// summary is one line: what was sent, delivered and injected, what the
// checks found and what they allowed; handlings says how many times a
// handler gets a message with no fault.
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
	var b strings.Builder
	fmt.Fprintf(&b, "sends ok fq %d bq %d, failed %v (stored all the same %d); deliveries %d, extra deliveries %d, dead-lettered %d; nodes signalled %v, hosts killed %d;",
		h.okSends["fq"], h.okSends["bq"], h.sendErrs, strays, n, dup, len(h.dead), h.faults, len(h.kills))
	for _, c := range f.broken() {
		fmt.Fprintf(&b, " %s %d,", c.what, len(c.ids))
	}
	fmt.Fprintf(&b, " allowed: outcomes refused %d, lease overlaps (the earlier holder's outcome refused) %d, attempts more by host crashes %d, acks asked for as the host was killed %d; bq largest %d of %d",
		f.refused, f.leaseOverlaps, f.moreCrashes, f.ackedAtCrash, h.largest, faultMaxPending)
	s := b.String()
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
