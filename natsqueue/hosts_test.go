package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go/jetstream"
)

// openHosts starts a single-node JetStream server of the test's own and
// opens n Platforms on it, each with its own connection and nothing in
// common but the server: n hosts of one deployment, binding Q bound to
// queue q with consumer settings edit, dlq with no batch wait. The last
// Platform is a function that opens one more.
func openHosts(t *testing.T, n int, edit func(*hostbridge.ConsumerSettings)) ([]*Platform, func() *Platform) {
	t.Helper()
	port := freePorts(t, 1)[0]
	s, err := startServer(t.TempDir(), port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	open := func() *Platform {
		o := testOptions()
		o.URLs = []string{fmt.Sprintf("nats://127.0.0.1:%d", port)}
		p := openWith(t, o)
		setConsumer(t, p, "q", edit)
		setConsumer(t, p, "dlq", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
		return p
	}
	var hosts []*Platform
	for range n {
		hosts = append(hosts, open())
	}
	return hosts, open
}

// deploymentStats closes hosts (each stores its last counts) and reads
// queue's counters as a new host reads them from the server, waiting for
// them to be want.
func deploymentStats(t *testing.T, hosts []*Platform, open func() *Platform, want map[string]hostbridge.QueueStats) {
	t.Helper()
	for _, p := range hosts {
		_ = p.Close() // Close always returns nil
	}
	p := open()
	for queue, w := range want {
		waitStats(t, p, queue, w)
	}
}

// noHandling delivers queue on p for d and fails the test if a handler
// gets a message; it returns the results.
func noHandling(t *testing.T, p *Platform, queue string, d time.Duration) []hostbridge.DeliveryResult {
	t.Helper()
	var rs []hostbridge.DeliveryResult
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		r, ok := deliverWithin(t, p, queue, time.Until(deadline), func(ev hostbridge.Event) error {
			t.Errorf("a handler on %s got %v", queue, bodies(ev))
			return nil
		})
		if ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// TestHostsRetriedOriginalNotHandedAgain: host A retries a message (delay
// 5 s) and the removal of its original is lost; the original comes back,
// after AckWait, to host B, which has never seen it: B finds its copy in
// the stream and acks it without a handler seeing it. The copy then comes
// once, to either host, with attempts 2; the stream ends empty; the
// counters, read by either host, are exactly what happened (no host
// crashed): one send, two handler deliveries, one retry, one ack.
func TestHostsRetriedOriginalNotHandedAgain(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	hosts, open := openHosts(t, 2, func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	retriedOriginalElsewhere(t, hosts, open)
}

// TestClusterHostsRetriedOriginal is TestHostsRetriedOriginalNotHandedAgain
// on a 3-node cluster, every stream with three replicas: the copy's
// look-up and the refusal of a second copy are the stream leader's.
func TestClusterHostsRetriedOriginal(t *testing.T) {
	long(t, "two hosts on a three-node cluster, about 15 s")
	c := startCluster(t)
	open := func() *Platform {
		p := openCluster(t, c)
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
		return p
	}
	retriedOriginalElsewhere(t, []*Platform{open(), open()}, open)
}

// retriedOriginalElsewhere is TestHostsRetriedOriginalNotHandedAgain on
// hosts (two), open opening one more.
func retriedOriginalElsewhere(t *testing.T, hosts []*Platform, open func() *Platform) {
	a, b := hosts[0], hosts[1]
	send(t, a, `1`, 0)
	a.loseRemovals.Store(true)
	r, _ := deliverWithin(t, a, "q", 5*time.Second, func(ev hostbridge.Event) error {
		return hostbridge.RetryQueueMessage(ev, 0, 5)
	})
	a.loseRemovals.Store(false)
	if len(r.Retried) != 1 {
		t.Fatalf("host A: %+v, want one retry", r)
	}
	if rs := noHandling(t, b, "q", b.opts.AckWait+time.Second); len(rs) == 0 {
		t.Error("the original did not come back to host B")
	}
	if n := streamMsgs(t, b, "q"); n != 1 {
		t.Errorf("after host B: the stream holds %d messages, want the copy alone", n)
	}
	var attempts []int
	for deadline := time.Now().Add(8 * time.Second); time.Now().Before(deadline); {
		for _, p := range hosts {
			deliverWithin(t, p, "q", 500*time.Millisecond, func(ev hostbridge.Event) error {
				for _, m := range ev.Batch().Messages() {
					attempts = append(attempts, m.Attempts)
				}
				return nil
			})
		}
	}
	if fmt.Sprint(attempts) != "[2]" || streamMsgs(t, a, "q") != 0 {
		t.Errorf("handlings with attempts %v, want [2]; %d messages left", attempts, streamMsgs(t, a, "q"))
	}
	deploymentStats(t, hosts, open, map[string]hostbridge.QueueStats{"q": {Sent: 1, Delivered: 2, Retried: 1, Acked: 1}})
}

// TestHostsCopyFinishedOnce: host A settles a message as a retry (due in
// 30 s) and stores its copy, then dies before it marks the original's claim
// copied or removes the original. The original comes back, after AckWait,
// to host B, which finds the claim settled and A's lease over: B takes the
// copy over, publishes it (with no message ID), is refused because a copy
// of that original is stored (read as stored before, not as an error),
// marks the claim copied and removes the original. The stream holds A's
// copy alone, and no handler saw the original again. Pins D31.
func TestHostsCopyFinishedOnce(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	hosts, _ := openHosts(t, 2, func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	a, b := hosts[0], hosts[1]
	a.patience = time.Second // A's lease on the copy: 2 s, over before AckWait (3 s)
	send(t, a, `1`, 0)
	qa, m := takeOne(t, a, "q")
	h := settled(t, a, qa, m, claim{Done: doneRetry, Delay: 30})
	hm, tries := message(m, h.c.N)
	if err := a.storeCopy(qa, m, hm, tries, h.c); err != nil {
		t.Fatal(err)
	}
	msg, _ := qa.names.natsMsg(retryOf(m, hm, tries, 30, time.Second))
	if msg.Header.Get("Nats-Msg-Id") != "" {
		t.Errorf("a retry copy carries a message ID %q", msg.Header.Get("Nats-Msg-Id"))
	}
	if rs := noHandling(t, b, "q", b.opts.AckWait+2*time.Second); len(rs) == 0 {
		t.Error("the original did not come back to host B")
	}
	c, err := b.api.getMsg(context.Background(), qa.names.stream, msgGetRequest{LastFor: "HB.q.*.r.1"})
	if n := streamMsgs(t, b, "q"); n != 1 || err != nil || c.Sequence != 2 || c.Subject != "HB.q.sched.r.1" {
		t.Errorf("the stream holds %d messages, want A's copy alone (on HB.q.sched.r.1 at 2): %+v, %v", n, c, err)
	}
	if b.reread(h, time.Now().Add(time.Second)); h.c.Done != doneCopied {
		t.Errorf("the original's claim %+v, want copied", h.c)
	}
}

// TestHostsDeadLetterStoredOnce: host A dead-letters a message past
// MaxRetries (0 here) and the removal of its original is lost. When the
// original comes back to host B first, B's dead-letter copy is refused
// (one is stored) and B removes the original without a handler or a count;
// when the dead-letter copy is delivered first (from queue dlq, by B), its
// original's claim says copied and its handler runs, the original still on
// q, to be removed when it comes back, without a handler. Either way the dead-letter queue holds one
// copy and the counters are exactly what happened: one delivery and one
// dead letter on q, one message sent to dlq.
func TestHostsDeadLetterStoredOnce(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	for _, copyFirst := range []bool{false, true} {
		hosts, open := openHosts(t, 2, func(s *hostbridge.ConsumerSettings) {
			s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = 0, 0, "dlq"
		})
		a, b := hosts[0], hosts[1]
		send(t, a, `1`, 0)
		a.loseRemovals.Store(true)
		r, _ := deliverWithin(t, a, "q", 5*time.Second, func(hostbridge.Event) error { return errors.New("fails") })
		a.loseRemovals.Store(false)
		if len(r.DeadLettered) != 1 {
			t.Fatalf("host A: %+v, want one dead letter", r)
		}
		if copyFirst {
			var originals []uint64
			deliverWithin(t, b, "dlq", 5*time.Second, func(ev hostbridge.Event) error {
				originals = append(originals, streamMsgs(t, b, "q"))
				return nil
			})
			if !slices.Equal(originals, []uint64{1}) {
				t.Errorf("the dead-letter copy's handler ran %d times; the original queue held %v then, want [1]", len(originals), originals)
			}
		}
		for _, r := range noHandling(t, b, "q", b.opts.AckWait+time.Second) {
			if len(r.DeadLettered)+len(r.Dropped) != 0 {
				t.Errorf("copy first %v: host B gave the original up again: %+v", copyFirst, r)
			}
		}
		want := uint64(1)
		if copyFirst {
			want = 0
		}
		if n, d := streamMsgs(t, b, "q"), streamMsgs(t, b, "dlq"); n != 0 || d != want {
			t.Errorf("copy first %v: q holds %d messages, dlq %d, want 0 and %d", copyFirst, n, d, want)
		}
		wantDLQ := hostbridge.QueueStats{Sent: 1, Pending: 1}
		if copyFirst {
			wantDLQ = hostbridge.QueueStats{Sent: 1, Delivered: 1, Acked: 1}
		}
		deploymentStats(t, hosts, open, map[string]hostbridge.QueueStats{"q": {Sent: 1, Delivered: 1, DeadLettered: 1}, "dlq": wantDLQ})
	}
}

// TestOlderStreamUpgraded: a queue whose stream and consumer an older
// natsqueue made (subjects ready and sched.*, the consumer filtering ready
// alone) is updated when a Platform first uses it: the stream takes
// ready.> and sched.>, the consumer filters ready and ready.>, so a retry
// copy on a subject of its own comes back, with attempts 2.
func TestOlderStreamUpgraded(t *testing.T) {
	p := openSingle(t)
	n := p.namesOf("q")
	ctx := context.Background()
	if _, err := p.js.CreateStream(ctx, jetstream.StreamConfig{Name: n.stream, Subjects: []string{n.ready, n.sched + "*"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: duplicateWindow,
		AllowMsgSchedules: true, AllowDirect: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.js.CreateConsumer(ctx, n.stream, jetstream.ConsumerConfig{Durable: n.consumer, FilterSubject: n.ready,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: p.opts.AckWait, MaxDeliver: -1, MaxAckPending: -1}); err != nil {
		t.Fatal(err)
	}
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	send(t, p, `1`, 0)
	deliverWithin(t, p, "q", 5*time.Second, func(ev hostbridge.Event) error { return hostbridge.RetryQueueMessage(ev, 0, 0) })
	if attempts := attemptsWithin(t, p, 2*time.Second); fmt.Sprint(attempts) != "[2]" {
		t.Errorf("after the retry: deliveries with attempts %v, want [2]", attempts)
	}
	q, _ := p.ensureQueue(ctx, "q")
	si, err := q.stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ci, err := q.cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(si.Config.Subjects, ci.Config.FilterSubjects, ci.Config.FilterSubject); got != "[HB.q.ready HB.q.ready.> HB.q.sched.>] [HB.q.ready HB.q.ready.>]" {
		t.Errorf("stream subjects, consumer filters: %s", got)
	}
}

// TestHostsLateOutcomeAfterSettled: host A claims a message and holds it
// past its lease (no renewal: as when the stream has no leader), so it
// reaches host B, which takes the claim over and settles it: acks it, or,
// with MaxRetries 0, gives it up to dlq, whose copy B's dlq handler then
// acks. Only then does A's handler return: a retry, or a failure. A's
// outcome is refused, its claim no longer the current one: no retry copy
// gives the message a second life, no second dead-letter copy is stored,
// nothing is reported or counted; the queues end empty and no handler gets
// it again. Pins D31.
func TestHostsLateOutcomeAfterSettled(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	for _, deadLetter := range []bool{false, true} {
		hosts, open := openHosts(t, 2, func(s *hostbridge.ConsumerSettings) {
			s.MaxBatchTimeout = 0
			if deadLetter {
				s.MaxRetries, s.DeadLetterQueue = 0, "dlq"
			}
		})
		a, b := hosts[0], hosts[1]
		send(t, a, `1`, 0)
		qa, m := takeOne(t, a, "q")
		d := a.newDelivery(qa, a.Consumer("q"), []jetstream.Msg{m}) // claimed, never renewed
		if len(d.taken) != 1 {
			t.Fatalf("dead letter %v: host A holds %d messages", deadLetter, len(d.taken))
		}
		var seen []string
		settledB := 0
		for deadline := time.Now().Add(b.opts.AckWait + 5*time.Second); settledB == 0 && time.Now().Before(deadline); {
			r, _ := deliverWithin(t, b, "q", time.Until(deadline), func(ev hostbridge.Event) error {
				seen = append(seen, bodies(ev)...)
				return nil
			})
			settledB += len(r.Acked) + len(r.DeadLettered)
		}
		if deadLetter { // A's hand-out counts: past MaxRetries+1, B gives it up without a handler
			deliverWithin(t, b, "dlq", 5*time.Second, func(hostbridge.Event) error { return nil })
		}
		if settledB != 1 || len(seen) != map[bool]int{false: 1, true: 0}[deadLetter] || streamMsgs(t, b, "q") != 0 {
			t.Fatalf("dead letter %v: host B settled %d (its handler saw %v), want the message settled", deadLetter, settledB, seen)
		}
		if deadLetter {
			d.err = errors.New("fails")
		} else {
			d.b.Retry(0, 0)
		}
		d.b.Close()
		late := a.finish(d)
		if len(late.IDs) != 1 || len(late.Acked)+len(late.Retried)+len(late.DeadLettered)+len(late.Dropped) != 0 {
			t.Errorf("dead letter %v: host A's late outcome reported %+v, want refused", deadLetter, late)
		}
		noHandling(t, b, "q", 2*time.Second)
		noHandling(t, b, "dlq", time.Second)
		if n, dl := streamMsgs(t, a, "q"), streamMsgs(t, a, "dlq"); n != 0 || dl != 0 {
			t.Errorf("dead letter %v: after host A's late outcome q holds %d messages, dlq %d, want 0 and 0", deadLetter, n, dl)
		}
		want := map[string]hostbridge.QueueStats{"q": {Sent: 1, Delivered: 1, Acked: 1}}
		if deadLetter {
			want = map[string]hostbridge.QueueStats{"q": {Sent: 1, DeadLettered: 1}, "dlq": {Sent: 1, Delivered: 1, Acked: 1}}
		}
		deploymentStats(t, hosts, open, want)
	}
}
