//go:build unix

package natsqueue

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"hostbridge"
)

// TestFaultHistoryChecks: the fault suites' checker finds every anomaly
// that breaks a promise of doc.go whether or not a node fault is near, and
// allows only the lease overlap whose earlier holder's outcome was refused
// (or never came: its host was killed), on histories written by hand
// (MaxRetries 3, times in µs); each runs alone and again amid node faults,
// with the same findings. Pins D31.
func TestFaultHistoryChecks(t *testing.T) {
	const send = "s fq m 0 0 10 ok\n"
	for _, c := range []struct {
		name, lines string
		found       func(f findings) []string // nil: nothing broken
		overlaps    int                       // lease overlaps allowed, when nothing is broken
	}{
		{"acked once", "d fq m 1 100 h0\na fq m 1 200 h0\n", nil, 0},
		{"refused, then handled again", "d fq m 1 100 h0\nx fq m 1 200 h0\nd fq m 2 6000000 h1\na fq m 2 6000100 h1\n", nil, 0},
		{"lease overlap, the earlier holder's outcome refused", "d fq m 1 100 h0\nd fq m 2 6000000 h1\na fq m 2 6000100 h1\nx fq m 1 7000000 h0\n", nil, 1},
		{"lease overlap, the earlier holder's host killed first", "d fq m 1 100 h0\nd fq m 2 6000000 h1\nk h0 6500000\na fq m 2 6600000 h1\n", nil, 1},
		{"acked as its host was killed", "d fq m 1 100 h0\nw fq m 1 200 h0\nk h0 300\n", nil, 0},
		{"lost", "", func(f findings) []string { return f.lost }, 0},
		{"lost, its host killed without an ack asked for", "d fq m 1 100 h0\nk h0 300\n", func(f findings) []string { return f.lost }, 0},
		{"lost, an ack asked for, its host not killed", "d fq m 1 100 h0\nw fq m 1 200 h0\n", func(f findings) []string { return f.lost }, 0},
		{"lost, an ack asked for, then handled again", "d fq m 1 100 h0\nw fq m 1 200 h0\nk h0 300\nd fq m 2 6000000 h1\nk h1 6000100\n",
			func(f findings) []string { return f.lost }, 0},
		{"early retry", "d fq m 1 100 h0\nr fq m 1 2 200 h0\nd fq m 2 1200000 h1\na fq m 2 1300000 h1\n",
			func(f findings) []string { return f.earlyRetry }, 0},
		{"attempts back", "d fq m 1 100 h0\nr fq m 1 0 200 h0\nd fq m 2 300 h1\nr fq m 2 0 400 h1\nd fq m 1 3000000 h2\na fq m 1 3000100 h2\n",
			func(f findings) []string { return f.back }, 0},
		{"retried original again", "d fq m 1 100 h0\nr fq m 1 0 200 h0\nd fq m 1 300 h1\na fq m 1 400 h1\n",
			func(f findings) []string { return f.originalAgain }, 0},
		{"the same attempts again", "d fq m 1 100 h0\nx fq m 1 200 h0\nd fq m 1 3000000 h1\na fq m 1 3000100 h1\n",
			func(f findings) []string { return f.notOne }, 0},
		{"attempts two more", "d fq m 1 100 h0\nx fq m 1 200 h0\nd fq m 3 3000000 h1\na fq m 3 3000100 h1\n",
			func(f findings) []string { return f.notOne }, 0},
		{"handled five times", handledTimes(5, false),
			func(f findings) []string { return f.over }, 0},
		{"attempts past MaxRetries+1", handledTimes(4, false) + "d fq m 5 9000 h0\na fq m 5 9010 h0\n",
			func(f findings) []string { return f.past }, 0},
		{"dead-letter copy twice", handledTimes(4, true) + "d dlq m 1 5000 h0\na dlq m 1 5100 h0\nd dlq m 1 6000 h1\na dlq m 1 6100 h1\n",
			func(f findings) []string { return f.deadTwice }, 0},
		{"handled after its ack", "d fq m 1 100 h0\na fq m 1 200 h0\nd fq m 2 6000000 h1\na fq m 2 6000100 h1\n",
			func(f findings) []string { return f.afterEnd }, 0},
		{"handled after its dead-lettering", handledTimes(4, true) + "d fq m 5 6000000 h1\nx fq m 5 6000100 h1\n",
			func(f findings) []string { return f.afterEnd }, 0},
		{"overlap, both outcomes applied", "d fq m 1 100 h0\nd fq m 2 200000 h1\na fq m 2 200100 h1\na fq m 1 300000 h0\n",
			func(f findings) []string { return f.overlap }, 0},
		{"overlap, the later holder's outcome refused, the earlier's applied", "d fq m 1 100 h0\nd fq m 2 200000 h1\nx fq m 2 200100 h1\na fq m 1 300000 h0\n",
			func(f findings) []string { return f.overlap }, 0},
		{"a handling with no outcome, its host not killed", "d fq m 1 100 h0\nd fq m 2 6000000 h1\na fq m 2 6000100 h1\n",
			func(f findings) []string { return f.noOutcome }, 0},
	} {
		for _, faults := range []string{"", "f SIGSTOP [1] 50\nf back [1] 6500000\nf SIGKILL [0 2] 6600000\nf back [0 2] 9000000\n"} {
			f := checkLines(send + c.lines + faults)
			var broken []string
			for _, b := range f.broken() {
				if len(b.ids) > 0 {
					broken = append(broken, b.what)
				}
			}
			switch {
			case c.found == nil && (len(broken) > 0 || f.leaseOverlaps != c.overlaps):
				t.Errorf("%s (faults %q): broken %q, lease overlaps %d, want none and %d", c.name, faults, broken, f.leaseOverlaps, c.overlaps)
			case c.found != nil && len(c.found(f)) != 1:
				t.Errorf("%s (faults %q): found %q, broken %q", c.name, faults, c.found(f), broken)
			}
		}
	}
}

// TestFaultHistoryCounts: the counters a fault suite expects count only
// the handlings whose outcome was applied: a refused one counts for
// nothing, not even as delivered; a message stored although its send
// failed counts as sent. Pins D31.
func TestFaultHistoryCounts(t *testing.T) {
	h := historyOf("s fq m 0 0 10 ok\ns fq n 0 0 10 err timeout\ns fq o 0 0 10 ok\n" +
		"d fq m 1 100 h0\nd fq m 2 6000000 h1\na fq m 2 6000100 h1\nx fq m 1 7000000 h0\n" +
		"d fq n 1 200 h0\nr fq n 1 3 300 h0\nd fq n 2 3500000 h1\na fq n 2 3500100 h1\n" +
		"d fq o 1 400 h0\nr fq o 1 0 500 h0\nd fq o 2 600 h0\nr fq o 2 0 700 h0\nd fq o 3 800 h0\nr fq o 3 0 900 h0\nd fq o 4 1000 h0\ng fq o 4 1100 h0\n" +
		"d dlq o 1 2000 h2\nx dlq o 1 2100 h2\nd dlq o 2 8000000 h0\na dlq o 2 8000100 h0\n")
	want := h.expected(1)
	wantFQ := hostbridge.QueueStats{Sent: 3, Delivered: 7, Acked: 2, Retried: 4, DeadLettered: 1}
	if want["fq"] != wantFQ || want["dlq"] != (hostbridge.QueueStats{Sent: 1, Delivered: 1, Acked: 1}) {
		t.Errorf("expected counters %+v", want)
	}
}

// TestFaultHistoryRecordsResult: a handling's end is recorded from what
// Deliver's result reports the platform applied, and a message of the
// batch in none of Acked, Retried, DeadLettered and Dropped is recorded
// refused; the acks a handler's outcome asks for are recorded before they
// are applied. Pins D31.
func TestFaultHistoryRecordsResult(t *testing.T) {
	var got []hostbridge.Message
	for i, id := range []string{"m0", "m1", "m2", "m3", "m4"} {
		got = append(got, hostbridge.Message{ID: fmt.Sprint("i", i), Body: json.RawMessage(strconv.Quote(id)), Attempts: i + 1})
	}
	r := hostbridge.DeliveryResult{IDs: []string{"i0", "i1", "i2", "i3", "i4"}, Acked: []string{"i0"},
		Retried:      []hostbridge.RetryMessage{{ID: "i1", DelaySeconds: 3}},
		DeadLettered: []hostbridge.DeadLetter{{ID: "i2", Queue: "dlq", Attempts: 3}}, Dropped: []string{"i3"}}
	h := emptyFaultHistory(time.Unix(0, 0), "h0", 3, "dlq")
	h.handled("fq", got, r, time.Unix(1, 0))
	want := map[string]outcomeRecord{"m0": {kind: 'a', attempts: 1}, "m1": {kind: 'r', attempts: 2, delay: 3},
		"m2": {kind: 'g', attempts: 3}, "m3": {kind: 'g', attempts: 4}, "m4": {kind: 'x', attempts: 5}}
	for id, w := range want {
		w.at, w.host = time.Unix(1, 0), "h0"
		if rs := h.outcomes[id]; len(rs) != 1 || rs[0] != w {
			t.Errorf("%s: recorded %+v, want %+v", id, rs, w)
		}
	}
	b := hostbridge.NewBatchRecord("fq", got[:3])
	b.Ack(0)
	b.Retry(1, 2)
	h.wantAcks("fq", b, nil, hostbridge.DefaultConsumerSettings(), time.Unix(2, 0))
	if len(h.wanted["m0"]) != 1 || len(h.wanted["m1"]) != 0 || len(h.wanted["m2"]) != 1 {
		t.Errorf("acks asked for %+v, want m0's (acked) and m2's (no call, the handler returned nil)", h.wanted)
	}
	h.wantAcks("fq", hostbridge.NewBatchRecord("fq", got[:1]), errors.New("failed"), hostbridge.DefaultConsumerSettings(), time.Unix(3, 0))
	if len(h.wanted["m0"]) != 1 {
		t.Errorf("a failed batch asked for an ack: %+v", h.wanted["m0"])
	}
}

// checkLines is what the checks find in the history of lines (no late
// check).
func checkLines(lines string) findings {
	return historyOf(lines).find(false)
}

// historyOf is the history of lines, recorded by hand, MaxRetries 3.
func historyOf(lines string) *faultHistory {
	h := emptyFaultHistory(time.Unix(0, 0), "", 3, "dlq")
	for line := range strings.Lines(lines) {
		h.apply(line)
	}
	return h
}

// handledTimes is n handlings of message m, attempts 1 to n, 1 ms apart on
// host h0, each retried with delay 0 but the last, which is acked, or,
// when given up, dead-lettered.
func handledTimes(n int, givenUp bool) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		at := i * 1000
		fmt.Fprintf(&b, "d fq m %d %d h0\n", i, at)
		switch {
		case i < n:
			fmt.Fprintf(&b, "r fq m %d 0 %d h0\n", i, at+10)
		case givenUp:
			fmt.Fprintf(&b, "g fq m %d %d h0\n", i, at+10)
		default:
			fmt.Fprintf(&b, "a fq m %d %d h0\n", i, at+10)
		}
	}
	return b.String()
}
