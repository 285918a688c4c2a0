//go:build unix

package natsqueue

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFaultHistoryBounds: the fault suites' checker finds what breaks a
// promise of doc.go and counts apart only what a bound there explains,
// on histories written by hand (MaxRetries 3, times in µs). A node fault
// is a change of the consumer's leader for the bounds: the same attempts
// again, a retried original again, one more dead-letter copy, one more
// handling, each once per fault in the message's life; attempts go back
// only just after a paused node's return. Pins D31.
func TestFaultHistoryBounds(t *testing.T) {
	const fault = "f SIGSTOP [1] 1500000\nf back [1] 2500000\n"
	for _, c := range []struct {
		name, lines string
		want        func(f findings) bool
	}{
		{"acked once", "s fq m 0 0 10 ok\nd fq m 1 100 h0\na fq m 1 200 h0\n",
			clean},
		{"lost", "s fq m 0 0 10 ok\n",
			func(f findings) bool { return len(f.lost) == 1 }},
		{"early retry", "s fq m 0 0 10 ok\nd fq m 1 100 h0\nr m 1 2 200 h0\nd fq m 2 1200000 h1\na fq m 2 1300000 h1\n",
			func(f findings) bool { return len(f.earlyRetry) == 1 }},
		{"attempts back", "s fq m 0 0 10 ok\nd fq m 1 100 h0\nr m 1 0 200 h0\nd fq m 2 300 h1\nr m 2 0 400 h1\nd fq m 1 3000000 h2\na fq m 1 3000100 h2\nf SIGKILL [1] 1500000\nf back [1] 2500000\n",
			func(f findings) bool { return len(f.back) == 1 }},
		{"attempts back long after a pause", "s fq m 0 0 10 ok\nd fq m 1 100 h0\nr m 1 0 200 h0\nd fq m 2 300 h1\nr m 2 0 400 h1\nd fq m 1 8000000 h2\na fq m 1 8000100 h2\n" + fault,
			func(f findings) bool { return len(f.back) == 1 }},
		{"attempts back just after a pause", "s fq m 0 0 10 ok\nd fq m 1 100 h0\nr m 1 0 200 h0\nd fq m 2 300 h1\nr m 2 0 400 h1\nd fq m 1 3000000 h2\na fq m 1 3000100 h2\n" + fault,
			func(f findings) bool { return len(f.back) == 0 && f.backAfterPause == 1 }},
		{"retried original again", "s fq m 0 0 10 ok\nd fq m 1 100 h0\nr m 1 0 200 h0\nd fq m 1 300 h1\na fq m 1 400 h1\n",
			func(f findings) bool { return len(f.originalAgain) == 1 }},
		{"retried original again across a node fault", "s fq m 0 0 10 ok\nd fq m 1 100 h0\nr m 1 0 200 h0\nd fq m 1 3000000 h1\na fq m 1 3000100 h1\n" + fault,
			func(f findings) bool { return len(f.originalAgain) == 0 && f.repeatAcrossNode == 1 }},
		{"handled five times", "s fq m 0 0 10 ok\n" + handledTimes(5, false),
			func(f findings) bool { return len(f.over) == 1 }},
		{"handled five times across a node fault", "s fq m 0 0 10 ok\n" + handledTimes(5, false) + "f SIGKILL [0] 150\nf back [0] 160\n",
			func(f findings) bool { return len(f.over) == 0 && f.moreAcrossNode == 0 }},
		{"dead-letter copy twice", "s fq m 0 0 10 ok\n" + handledTimes(4, true) + "d dlq m 1 5000 h0\na dlq m 1 5100 h0\nd dlq m 1 6000 h1\na dlq m 1 6100 h1\n",
			func(f findings) bool { return len(f.deadTwice) == 1 }},
		{"dead-letter copy twice across a node fault", "s fq m 0 0 10 ok\n" + handledTimes(4, true) + "d dlq m 1 5000 h0\na dlq m 1 5100 h0\nd dlq m 1 6000 h1\na dlq m 1 6100 h1\nf SIGKILL [2] 300\nf back [2] 400\n",
			func(f findings) bool { return len(f.deadTwice) == 0 && f.deadTwiceNode == 1 }},
		{"handled after its ack", "s fq m 0 0 10 ok\nd fq m 1 100 h0\na fq m 1 200 h0\nd fq m 2 6000000 h1\na fq m 2 6000100 h1\n",
			func(f findings) bool { return len(f.afterAck) == 1 }},
	} {
		h := emptyFaultHistory(time.Unix(0, 0), "", 3, "dlq")
		for line := range strings.Lines(c.lines) {
			h.apply(line)
		}
		var f findings
		h.findLost(&f)
		h.findEarly(&f, false)
		h.findAttempts(&f)
		if !c.want(f) {
			t.Errorf("%s: findings %+v", c.name, f)
		}
	}
}

// handledTimes is n handlings of message m, attempts 1 to n, 1 ms apart on
// host h0, each retried with delay 0 but the last, which is acked, or,
// when given up, retried too (the platform dead-letters it).
func handledTimes(n int, givenUp bool) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		at := i * 1000
		fmt.Fprintf(&b, "d fq m %d %d h0\n", i, at)
		if i < n || givenUp {
			fmt.Fprintf(&b, "r m %d 0 %d h0\n", i, at+10)
		} else {
			fmt.Fprintf(&b, "a fq m %d %d h0\n", i, at+10)
		}
	}
	return b.String()
}

// clean reports whether f found nothing and explained nothing.
func clean(f findings) bool {
	for _, l := range [][]string{f.lost, f.earlySend, f.earlyRetry, f.late, f.back, f.notOne, f.twice, f.originalAgain, f.sameAcrossCrash, f.moreAcrossCrash, f.past, f.over, f.afterAck, f.deadTwice} {
		if len(l) > 0 {
			return false
		}
	}
	return f.sameAcrossNode+f.repeatAcrossNode+f.earlyAcrossNode+f.moreAcrossNode+f.moreCrashes+f.deadTwiceNode+f.backAfterPause == 0
}
