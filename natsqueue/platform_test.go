package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"hostbridge"
)

func setConsumer(t testing.TB, p *Platform, queue string, edit func(*hostbridge.ConsumerSettings)) {
	t.Helper()
	s := hostbridge.DefaultConsumerSettings()
	edit(&s)
	if err := p.SetConsumer(queue, s); err != nil {
		t.Fatal(err)
	}
}

// deliverWithin is one Deliver step that gives up after d.
func deliverWithin(t testing.TB, p *Platform, queue string, d time.Duration, h func(hostbridge.Event) error) (hostbridge.DeliveryResult, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	r, ok, err := p.Deliver(ctx, queue, h)
	if err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	return r, ok
}

func send(t testing.TB, p *Platform, body string, delay int) {
	t.Helper()
	if err := hostbridge.SendQueueMessage(context.Background(), p, "Q", body, delay); err != nil {
		t.Fatal(err)
	}
}

func bodies(ev hostbridge.Event) []string {
	var out []string
	for _, m := range ev.Batch().Messages() {
		out = append(out, string(m.Body.(json.RawMessage)))
	}
	return out
}

// streamMsgs is how many messages queue's stream holds (schedules
// included).
func streamMsgs(t testing.TB, p *Platform, queue string) uint64 {
	t.Helper()
	ctx, cancel := p.ctx()
	defer cancel()
	s, err := p.js.Stream(ctx, p.namesOf(queue).stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// TestSendDeliverAck: a full batch comes at once, in order, with IDs, send
// times, attempts 1 and the canonical bodies; acked messages are gone.
func TestSendDeliverAck(t *testing.T) {
	p := openSingle(t)
	// A full batch must not wait for MaxBatchTimeout (30 s here); the
	// bound below leaves a loaded machine plenty of slack.
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = 3, 30*time.Second })
	before := time.Now()
	send(t, p, `{"a": 1}`, 0)
	if err := hostbridge.SendQueueBatch(context.Background(), p, "Q", `[{"body":2},{"body":[3.0]}]`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, ok := deliverWithin(t, p, "q", 60*time.Second, func(ev hostbridge.Event) error {
		if got := fmt.Sprint(bodies(ev)); got != `[{"a":1} 2 [3]]` {
			t.Errorf("bodies %s", got)
		}
		for i, m := range ev.Batch().Messages() {
			if len(m.ID) != 32 || m.Attempts != 1 || m.Timestamp.Before(before) || m.Timestamp.After(time.Now()) {
				t.Errorf("message %d: %+v", i, m)
			}
		}
		return hostbridge.AckQueueMessage(ev, 0)
	})
	if !ok || len(r.Acked) != 3 || len(r.ExplicitAcks) != 1 || r.Outcome != hostbridge.OutcomeOK {
		t.Fatalf("result %+v", r)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("a full batch took %v", d)
	}
	waitDrained(t, p, "q") // acks and terms reach the server a moment later
	if r, ok := deliverWithin(t, p, "q", 300*time.Millisecond, nil); ok {
		t.Errorf("delivered again: %+v", r)
	}
}

// TestCheckQueuePlatform runs the package's own platform check.
func TestCheckQueuePlatform(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 100 * time.Millisecond })
	checkPlatform(t, p)
}

func checkPlatform(t *testing.T, p *Platform) {
	err := hostbridge.CheckQueuePlatform(context.Background(), p, "Q", func(h func(hostbridge.Event) error) bool {
		_, ok := deliverWithin(t, p, "q", 2*time.Second, h)
		return ok
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestHandlerErrorAndPanic: a failed batch comes back whole after the retry
// delay, except what was acked; a panic fails the batch the same way.
func TestHandlerErrorAndPanic(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) {
		s.MaxBatchSize, s.RetryDelay, s.MaxBatchTimeout = 3, 1, 200*time.Millisecond
	})
	for i := range 3 {
		send(t, p, fmt.Sprint(i), 0)
	}
	var failed time.Time // before the platform schedules the retry
	r, _ := deliverWithin(t, p, "q", 30*time.Second, func(ev hostbridge.Event) error {
		_ = hostbridge.AckQueueMessage(ev, 1) // the index is the batch's own: no error
		failed = time.Now()
		return errors.New("boom")
	})
	if r.Outcome != hostbridge.OutcomeException || fmt.Sprint(r.Retried) != fmt.Sprintf("[{%s 1} {%s 1}]", r.IDs[0], r.IDs[2]) {
		t.Fatalf("result %+v", r)
	}
	r, _ = deliverWithin(t, p, "q", 30*time.Second, func(ev hostbridge.Event) error {
		if time.Since(failed) < 900*time.Millisecond {
			t.Errorf("redelivered after %v, before the 1 s retry delay", time.Since(failed))
		}
		// Two messages retried with the same delay come back in any order.
		got := bodies(ev)
		sort.Strings(got)
		if got := fmt.Sprint(got, attempts(ev)); got != "[0 2] [2 2]" {
			t.Errorf("redelivered %s", got)
		}
		panic("handler panics")
	})
	var hp *hostbridge.HandlerPanic
	if !errors.As(r.Err, &hp) || len(r.Retried) != 2 {
		t.Fatalf("result %+v", r)
	}
}

func attempts(ev hostbridge.Event) []int {
	var out []int
	for _, m := range ev.Batch().Messages() {
		out = append(out, m.Attempts)
	}
	return out
}

// TestDelayedSend: a delayed message is not delivered before its delay
// (rounded up to the schedule's whole second), keeps its ID and send time,
// and the schedule is gone from the stream once delivered.
func TestDelayedSend(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = 1, 0 })
	sent := time.Now()
	if err := hostbridge.SendQueueBatch(context.Background(), p, "Q", `[{"body":"late","delaySeconds":2},{"body":"soon","delaySeconds":1}]`); err != nil {
		t.Fatal(err)
	}
	sentBy := time.Now()
	for _, want := range []struct {
		body  string
		delay time.Duration
	}{{`"soon"`, time.Second}, {`"late"`, 2 * time.Second}} {
		r, ok := deliverWithin(t, p, "q", 30*time.Second, func(ev hostbridge.Event) error {
			m := ev.Batch().Messages()[0]
			if got := time.Since(sent); got < want.delay {
				t.Errorf("%s delivered after %v, before its delay %v", want.body, got, want.delay)
			}
			if string(m.Body.(json.RawMessage)) != want.body || m.Attempts != 1 || m.Timestamp.Before(sent) || m.Timestamp.After(sentBy) {
				t.Errorf("message %+v", m)
			}
			return nil
		})
		if !ok || len(r.Acked) != 1 {
			t.Fatalf("%s: %+v", want.body, r)
		}
	}
	waitDrained(t, p, "q") // acks and terms reach the server a moment later
}

// TestDueTime: schedules have whole seconds; a due time is rounded up.
func TestDueTime(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		now  time.Duration
		secs int
		want time.Duration
	}{{0, 1, time.Second}, {1, 1, 2 * time.Second}, {999 * time.Millisecond, 43200, 43201 * time.Second}} {
		if got := dueTime(base.Add(tc.now), seconds(tc.secs)).Sub(base); got != tc.want {
			t.Errorf("dueTime(+%v, %d) = +%v, want +%v", tc.now, tc.secs, got, tc.want)
		}
	}
}

// TestMaxRetriesDeadLetter: MaxRetries+1 deliveries, then the dead-letter
// queue, where the message keeps its ID, send time and body and starts
// again at attempts 1; a dead-letter queue without one drops.
func TestMaxRetriesDeadLetter(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = 0, 1, "dlq" })
	setConsumer(t, p, "dlq", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout, s.MaxRetries = 0, 0 })
	send(t, p, `"poison"`, 0)
	var first hostbridge.Message
	fail := func(ev hostbridge.Event) error {
		if first.ID == "" {
			first = ev.Batch().Messages()[0]
		}
		return errors.New("boom")
	}
	r1, _ := deliverWithin(t, p, "q", 30*time.Second, fail)
	r2, _ := deliverWithin(t, p, "q", 30*time.Second, fail)
	if len(r1.Retried) != 1 || fmt.Sprint(r2.DeadLettered) != fmt.Sprintf("[{%s dlq 2}]", first.ID) {
		t.Fatalf("results %+v\n%+v", r1, r2)
	}
	waitDrained(t, p, "q") // acks and terms reach the server a moment later
	r, _ := deliverWithin(t, p, "dlq", 30*time.Second, func(ev hostbridge.Event) error {
		m := ev.Batch().Messages()[0]
		if m.ID != first.ID || !m.Timestamp.Equal(first.Timestamp) || m.Attempts != 1 || string(m.Body.(json.RawMessage)) != `"poison"` {
			t.Errorf("dead letter %+v, first delivery %+v", m, first)
		}
		return errors.New("boom")
	})
	if fmt.Sprint(r.Dropped) != fmt.Sprintf("[%s]", first.ID) {
		t.Fatalf("dlq result %+v", r)
	}
	waitDrained(t, p, "dlq") // acks and terms reach the server a moment later
}

// TestExhaustedSkipsHandler: a message already handed out more than
// MaxRetries+1 times (two hosts claimed it and died holding it) is dropped
// without reaching the handler. Pins D31.
func TestExhaustedSkipsHandler(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout, s.MaxRetries = 0, 0 })
	send(t, p, `1`, 0)
	q, _ := p.ensureQueue(context.Background(), "q")
	h := &holding{subj: p.claimSubject(q.names.token, 1)}
	if ok, err := p.write(h, claim{N: 2, Holder: "a host that died", Until: 1}, 0, time.Now().Add(5*time.Second)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	r, ok := deliverWithin(t, p, "q", 30*time.Second, func(hostbridge.Event) error {
		t.Error("handler called")
		return nil
	})
	if !ok || len(r.Dropped) != 1 {
		t.Fatalf("result %+v", r)
	}
}

// TestInProgress: a handler running past AckWait keeps its batch: no other
// consumer gets it meanwhile, and it is acked once.
func TestInProgress(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	o := storeOptions(t)
	o.AckWait = time.Second
	p := openWith(t, o)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	send(t, p, `1`, 0)
	done := make(chan hostbridge.DeliveryResult)
	running := make(chan struct{})
	go func() {
		r, _ := deliverWithin(t, p, "q", 60*time.Second, func(hostbridge.Event) error {
			close(running)
			time.Sleep(2500 * time.Millisecond) // 2.5 × AckWait
			return nil
		})
		done <- r
	}()
	select { // the first consumer holds the batch before the second asks
	case <-running:
	case <-time.After(60 * time.Second):
		t.Fatal("the first consumer got nothing")
	}
	if r, ok := deliverWithin(t, p, "q", 3*time.Second, nil); ok {
		t.Errorf("a second consumer got %+v", r)
	}
	if r := <-done; len(r.Acked) != 1 {
		t.Errorf("result %+v", r)
	}
}

// TestSendRefused: the platform's reasons for what it refuses.
func TestSendRefused(t *testing.T) {
	p := openSingle(t)
	for _, tc := range []struct {
		binding string
		delay   int
		want    string
	}{{"NOPE", 0, "binding NOPE is not configured"}, {"Q", -1, "delaySeconds -1 is out of range"}, {"Q", 43201, "delaySeconds 43201 is out of range"}} {
		err := p.Send(context.Background(), tc.binding, []byte(`1`), hostbridge.SendOptions{ContentType: "json", DelaySeconds: tc.delay})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %d: %v, want %s", tc.binding, tc.delay, err, tc.want)
		}
	}
	if p.Bound("NOPE") || !p.Bound("Q") {
		t.Error("Bound")
	}
	p.Bind("UNGRANTED", "q")
	if err := p.GrantJSON(`{"QUEUE":["OTHER"]}`); err != nil || p.Bound("UNGRANTED") {
		t.Errorf("an ungranted binding is Bound (%v)", err)
	}
}

// TestReopenKeepsDelayed: a Platform closed with a delayed message pending
// and opened again on the same directory delivers it, not before it is
// due, with its ID and send time.
// Pins D31.
func TestReopenKeepsDelayed(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	o := storeOptions(t)
	p := openBound(t, o) // closed by the test
	sent := time.Now()
	send(t, p, `"later"`, 2)
	_ = p.Close() // Close always returns nil
	p = openWith(t, o)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 0 })
	r, ok := deliverWithin(t, p, "q", 30*time.Second, func(ev hostbridge.Event) error {
		m := ev.Batch().Messages()[0]
		if time.Since(sent) < 2*time.Second || m.Timestamp.Before(sent) || len(m.ID) != 32 || m.Attempts != 1 {
			t.Errorf("after %v: %+v", time.Since(sent), m)
		}
		return nil
	})
	if !ok || len(r.Acked) != 1 {
		t.Fatalf("result %+v", r)
	}
}

// TestQueueCreatedOnce: senders and consumers that meet a new queue at
// the same moment create its stream and consumer once, not once each (a
// stream updated while another request adds its consumer is a data race
// in nats-server v2.15, found by TestCountersExactUnderServerRestarts).
func TestQueueCreatedOnce(t *testing.T) {
	p := openSingle(t)
	stream := p.namesOf("q").stream
	var creates atomic.Int64
	sub, err := p.nc.Subscribe("$JS.API.CONSUMER.CREATE."+stream+".>", func(*nats.Msg) { creates.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := p.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			<-start
			if _, err := p.ensureQueue(context.Background(), "q"); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if err := p.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := creates.Load(); n != 1 {
		t.Errorf("%d requests created the consumer, want 1", n)
	}
}
