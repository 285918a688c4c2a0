package hostbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMemoryBatchSizeAndTimeout: full batches go at once; a partial one when
// its oldest message has waited MaxBatchTimeout.
// Pins D28.
func TestMemoryBatchSizeAndTimeout(t *testing.T) {
	// Pins Q4.
	p := newVirtual(t)
	sendN(t, p, 25, 0)
	for _, want := range []int{10, 10} {
		if r := deliver(t, p, "q", ok); len(r.IDs) != want {
			t.Fatalf("batch of %d, want %d", len(r.IDs), want)
		}
	}
	noBatch(t, p, "q")
	p.Advance(5*time.Second - time.Nanosecond)
	noBatch(t, p, "q")
	p.Advance(time.Nanosecond)
	var bodies []string
	r := deliver(t, p, "q", func(ev Event) error {
		for _, m := range ev.Batch().Messages() {
			bodies = append(bodies, string(m.Body.(json.RawMessage)))
		}
		return nil
	})
	if len(r.IDs) != 5 || fmt.Sprint(bodies) != "[20 21 22 23 24]" {
		t.Fatalf("last batch %v", bodies)
	}
	// The timeout counts from when a delayed message became ready.
	sendN(t, p, 1, 10)
	p.Advance(14 * time.Second)
	noBatch(t, p, "q")
	p.Advance(time.Second)
	deliver(t, p, "q", ok)
	// MaxBatchSize 1 and 100 (the limits) cut batches so.
	for _, size := range []int{1, maxConsumerBatchSize} {
		setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchSize = size })
		sendN(t, p, size+1, 0)
		if r := deliver(t, p, "q", ok); len(r.IDs) != size {
			t.Fatalf("MaxBatchSize %d: batch of %d", size, len(r.IDs))
		}
		p.Advance(5 * time.Second)
		if r := deliver(t, p, "q", ok); len(r.IDs) != 1 {
			t.Fatalf("MaxBatchSize %d: rest of %d", size, len(r.IDs))
		}
	}
}

// TestMemoryMaxRetriesDeadLetter: attempts count 1…MaxRetries+1; then the
// message goes to the dead-letter queue, where it starts again at attempts 1
// (on the virtual clock: the dead letter keeps its send time).
// Pins D29.
func TestMemoryMaxRetriesDeadLetter(t *testing.T) {
	// Pins Q55, Q70.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0; s.DeadLetterQueue = "dlq" })
	setConsumer(t, p, "dlq", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0; s.MaxRetries = 0 })
	sendN(t, p, 2, 0)
	var seen, seenIDs []string
	for i := 1; i <= 4; i++ {
		p.Advance(time.Minute) // the dead letters are moved later than they were sent
		r := deliver(t, p, "q", func(ev Event) error {
			seen = append(seen, fmt.Sprint(attemptsOf(ev)))
			return fail(ev)
		})
		if r.Outcome != OutcomeException || r.Err == nil || r.Err.Error() != "boom" {
			t.Fatalf("result %+v", r)
		}
		if i < 4 && (len(r.Retried) != 2 || len(r.DeadLettered) != 0) {
			t.Fatalf("delivery %d: %+v", i, r)
		}
		if i == 4 && !reflect.DeepEqual(r.DeadLettered, []DeadLetter{{r.IDs[0], "dlq", 4}, {r.IDs[1], "dlq", 4}}) {
			t.Fatalf("delivery 4 dead letters %+v", r.DeadLettered)
		}
		seenIDs = r.IDs
	}
	if fmt.Sprint(seen) != "[[1 1] [2 2] [3 3] [4 4]]" {
		t.Fatalf("attempts %v", seen)
	}
	noBatch(t, p, "q")
	checkStats(t, p, "q", QueueStats{Sent: 2, Delivered: 8, Retried: 6, DeadLettered: 2})
	// The dead letters keep their ID, timestamp and body; attempts start
	// again at 1 (D29, as Miniflare does).
	dl := p.Queued("dlq")
	if len(dl) != 2 || dl[0].Attempts != 1 || dl[1].Attempts != 1 || !dl[0].Timestamp.Equal(epoch) ||
		dl[0].ID != seenIDs[0] || dl[1].ID != seenIDs[1] || string(dl[1].Body.(json.RawMessage)) != "1" {
		t.Fatalf("dead letters %+v", dl)
	}
	// The dead-letter queue has its own MaxRetries (0): one failure drops.
	var dlqAttempts []string
	r := deliver(t, p, "dlq", func(ev Event) error {
		dlqAttempts = append(dlqAttempts, fmt.Sprint(attemptsOf(ev)))
		return fail(ev)
	})
	if fmt.Sprint(dlqAttempts) != "[[1 1]]" {
		t.Fatalf("dead-letter delivery attempts %v", dlqAttempts)
	}
	if len(r.Dropped) != 2 || len(r.Retried) != 0 {
		t.Fatalf("dlq result %+v", r)
	}
	checkStats(t, p, "dlq", QueueStats{Sent: 2, Delivered: 2, Dropped: 2})
}

// TestMemoryDeadLetterQueueRetries: a dead letter is ready on the
// dead-letter queue at once, whatever the retry delay of the queue it left,
// and that queue's MaxRetries and RetryDelay apply to it from its first
// delivery there: attempts 1, 2, 3 (MaxRetries 2), 30 s apart, then dropped.
// Pins D29.
func TestMemoryDeadLetterQueueRetries(t *testing.T) {
	p := NewMemoryPlatform()
	p.VirtualClock(epoch)
	setConsumer(t, p, "q", func(s *ConsumerSettings) {
		s.MaxBatchTimeout, s.MaxRetries, s.RetryDelay, s.DeadLetterQueue = 0, 1, 60, "dlq"
	})
	setConsumer(t, p, "dlq", func(s *ConsumerSettings) { s.MaxBatchTimeout, s.MaxRetries, s.RetryDelay = 0, 2, 30 })
	id := p.Enqueue("q", Message{Body: json.RawMessage(`1`)}, 0)
	if r := deliver(t, p, "q", fail); !reflect.DeepEqual(r.Retried, []RetryMessage{{id, 60}}) {
		t.Fatalf("first delivery %+v", r)
	}
	noBatch(t, p, "q")
	p.Advance(60 * time.Second)
	if r := deliver(t, p, "q", fail); !reflect.DeepEqual(r.DeadLettered, []DeadLetter{{id, "dlq", 2}}) {
		t.Fatalf("second delivery %+v", r)
	}
	var attempts []string
	failDLQ := func(ev Event) error {
		attempts = append(attempts, fmt.Sprint(attemptsOf(ev)))
		return fail(ev)
	}
	for i := 1; i <= 2; i++ {
		if r := deliver(t, p, "dlq", failDLQ); !reflect.DeepEqual(r.Retried, []RetryMessage{{id, 30}}) || r.Dropped != nil {
			t.Fatalf("dead-letter delivery %d: %+v", i, r)
		}
		noBatch(t, p, "dlq")
		p.Advance(30 * time.Second)
	}
	if r := deliver(t, p, "dlq", failDLQ); !reflect.DeepEqual(r.Dropped, []string{id}) {
		t.Fatalf("dead-letter delivery 3: %+v", r)
	}
	if fmt.Sprint(attempts) != "[[1] [2] [3]]" {
		t.Errorf("dead-letter attempts %v", attempts)
	}
	checkStats(t, p, "q", QueueStats{Sent: 1, Delivered: 2, Retried: 1, DeadLettered: 1})
	checkStats(t, p, "dlq", QueueStats{Sent: 1, Delivered: 3, Retried: 2, Dropped: 1})
}

// TestMemoryDelayedArrivalOrder: delayed messages due at the same time are
// delivered in the order they were sent.
func TestMemoryDelayedArrivalOrder(t *testing.T) {
	p := NewMemoryPlatform()
	p.VirtualClock(epoch)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout, s.MaxBatchSize = 0, 100 })
	var want []string
	for i := range 40 {
		want = append(want, p.Enqueue("q", Message{Body: json.RawMessage(strconv.Itoa(i))}, 30))
	}
	p.Advance(30 * time.Second)
	if r := deliver(t, p, "q", ok); !reflect.DeepEqual(r.IDs, want) {
		t.Errorf("delivered %v, want %v", r.IDs, want)
	}
}

// TestMemoryBatchClosedAfterHandler: MemoryPlatform closes the batch's
// record when the handler returns: a call made after that (by a goroutine
// the handler left behind) is ignored.
// Pins D26.
func TestMemoryBatchClosedAfterHandler(t *testing.T) {
	// Pins Q52.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	p.Enqueue("q", Message{Body: json.RawMessage(`1`)}, 0)
	var rec *BatchRecord
	deliver(t, p, "q", func(ev Event) error { rec = ev.Batch().(*BatchRecord); return nil })
	rec.Ack(0)
	rec.Retry(0, 5)
	if o := rec.Outcome(0); o != (MessageOutcome{}) {
		t.Errorf("calls after the handler returned took effect: %+v", o)
	}
}

// TestMemoryFailedBatchModes: after ack 0, retry 1, nothing for 2, a failed
// batch comes back whole, except the acked message in production mode.
// Pins D27.
func TestMemoryFailedBatchModes(t *testing.T) {
	// Pins Q71.
	for _, miniflare := range []bool{false, true} {
		t.Run(fmt.Sprintf("RedeliverAcked=%v", miniflare), func(t *testing.T) {
			p := newVirtual(t)
			setConsumer(t, p, "q", func(s *ConsumerSettings) {
				s.MaxBatchSize = 3
				s.RetryDelay = 2
				s.RedeliverAcked = miniflare
			})
			sendN(t, p, 3, 0)
			r := deliver(t, p, "q", func(ev Event) error {
				if err := AckQueueMessage(ev, 0); err != nil {
					return err
				}
				if err := RetryQueueMessage(ev, 1, 9); err != nil {
					return err
				}
				panic("handler bug")
			})
			var hp *HandlerPanic
			if r.Outcome != OutcomeException || !errors.As(r.Err, &hp) || hp.Value != "handler bug" || len(hp.Stack) == 0 {
				t.Fatalf("result %+v", r)
			}
			want := []RetryMessage{{r.IDs[1], 9}, {r.IDs[2], 2}}
			acked := []string{r.IDs[0]}
			if miniflare {
				want = append([]RetryMessage{{r.IDs[0], 2}}, want...)
				acked = nil
			}
			if !reflect.DeepEqual(r.Retried, want) || !reflect.DeepEqual(r.Acked, acked) {
				t.Fatalf("retried %v acked %v; want %v %v", r.Retried, r.Acked, want, acked)
			}
			if !reflect.DeepEqual(r.ExplicitAcks, []string{r.IDs[0]}) || !reflect.DeepEqual(r.RetryMessages, []RetryMessage{{r.IDs[1], 9}}) {
				t.Fatalf("explicit %v %v", r.ExplicitAcks, r.RetryMessages)
			}
			p.Advance(2 * time.Second)
			p.Advance(5 * time.Second) // the batch timeout
			r2 := deliver(t, p, "q", func(ev Event) error {
				if a := fmt.Sprint(attemptsOf(ev)); (miniflare && a != "[2 2]") || (!miniflare && a != "[2]") {
					t.Errorf("attempts %s", a)
				}
				return nil
			})
			if miniflare != (r2.IDs[0] == r.IDs[0]) {
				t.Errorf("redelivered %v", r2.IDs)
			}
			p.Advance(7 * time.Second) // 9 s after the failure, and the batch timeout
			r3 := deliver(t, p, "q", ok)
			if !reflect.DeepEqual(r3.IDs, []string{r.IDs[1]}) {
				t.Errorf("after 9 s: %v", r3.IDs)
			}
		})
	}
}

// TestMemoryAckRetryFirstCallWins: between ack and retry the first call
// wins; a second retry replaces the delay; retry(0) is the queue's
// RetryDelay; calls after the event are ignored.
// Pins D25, D26.
func TestMemoryAckRetryFirstCallWins(t *testing.T) {
	// Pins Q61, Q63, Q67.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchSize = 5; s.RetryDelay = 7; s.MaxBatchTimeout = 0 })
	sendN(t, p, 5, 0)
	var late Event
	r := deliver(t, p, "q", func(ev Event) error {
		late = ev
		b := ev.Batch()
		b.Ack(0)
		b.Retry(0, 30) // ignored: acked first
		b.Retry(1, 30)
		b.Ack(1) // ignored: retried first
		b.Retry(2, 30)
		b.Retry(2, 4) // replaces 30
		b.Retry(3, 0) // the queue's RetryDelay
		b.Ack(4)
		b.Ack(4)       // twice is once
		b.Ack(-1)      // out of range: ignored
		b.Retry(5, 1)  // out of range: ignored
		b.Retry(4, -1) // bad delay: ignored
		return nil
	})
	ids := r.IDs
	if !reflect.DeepEqual(r.ExplicitAcks, []string{ids[0], ids[4]}) ||
		!reflect.DeepEqual(r.RetryMessages, []RetryMessage{{ids[1], 30}, {ids[2], 4}, {ids[3], 0}}) ||
		!reflect.DeepEqual(r.Retried, []RetryMessage{{ids[1], 30}, {ids[2], 4}, {ids[3], 7}}) ||
		!reflect.DeepEqual(r.Acked, []string{ids[0], ids[4]}) {
		t.Fatalf("result %+v", r)
	}
	late.Batch().Retry(0, 1) // after the event: ignored
	late.Batch().Ack(1)
	if q := p.Queued("q"); len(q) != 3 || q[0].ID != ids[2] || q[1].ID != ids[3] || q[2].ID != ids[1] || q[0].Attempts != 2 {
		t.Fatalf("queued %+v", q)
	}
	for _, step := range []struct {
		advance time.Duration
		want    []string
	}{{4*time.Second - 1, nil}, {1, []string{ids[2]}}, {2 * time.Second, nil}, {time.Second, []string{ids[3]}}, {22 * time.Second, nil}, {time.Second, []string{ids[1]}}} {
		p.Advance(step.advance)
		r, got := p.Deliver("q", ok)
		if got != (step.want != nil) || (got && !reflect.DeepEqual(r.IDs, step.want)) {
			t.Fatalf("after +%v: %v %v, want %v", step.advance, got, r.IDs, step.want)
		}
	}
}

// TestMemoryUncaughtException is the spec row 队列事件里程序抛出未捕获异常
// end to end: the failure goes back to the platform, which redelivers the
// whole batch with attempts+1.
// Pins D29.
func TestMemoryUncaughtException(t *testing.T) {
	// Pins Q55, Q69, Q70, Q87.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchSize = 3 })
	sendN(t, p, 3, 0)
	first := deliver(t, p, "q", func(ev Event) error {
		if _, err := ReadQueueBatch(ev); err != nil {
			return err
		}
		return errors.New("uncaught")
	})
	p.Advance(5 * time.Second)
	second := deliver(t, p, "q", func(ev Event) error {
		if a := fmt.Sprint(attemptsOf(ev)); a != "[2 2 2]" {
			t.Errorf("attempts %s", a)
		}
		return nil
	})
	if first.Outcome != OutcomeException || !reflect.DeepEqual(first.IDs, second.IDs) || len(second.Acked) != 3 {
		t.Fatalf("first %+v second %+v", first, second)
	}
	checkStats(t, p, "q", QueueStats{Sent: 3, Delivered: 6, Acked: 3, Retried: 3})
}

// TestMemoryRunVirtual: Run waits for Advance on a virtual clock; when its
// context ends it lets the batch in flight finish and takes no other.
func TestMemoryRunVirtual(t *testing.T) {
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchSize = 2 })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	entered := make(chan []string, 10)
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- p.Run(ctx, "q", func(ev Event) error {
			var ids []string
			for _, m := range ev.Batch().Messages() {
				ids = append(ids, m.ID)
			}
			entered <- ids
			<-release
			return nil
		})
	}()
	sendN(t, p, 1, 0)
	// One message waits for the batch timeout: nothing until Advance.
	waitCtx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	p.Advance(5 * time.Second)
	var first []string
	select {
	case first = <-entered:
	case <-waitCtx.Done():
		t.Fatal("Run did not deliver after Advance")
	}
	sendN(t, p, 4, 0) // two full batches are ready now
	cancel()          // while the first batch is in flight
	close(release)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	if len(first) != 1 || len(entered) != 0 {
		t.Fatalf("first %v, then %d more batches", first, len(entered))
	}
	checkStats(t, p, "q", QueueStats{Sent: 5, Delivered: 1, Acked: 1, Pending: 4, Ready: 4})
}

// TestMemoryRunRealClock: on the real clock Run waits on a timer for the
// batch timeout, again for each batch (one sent after the first was acked
// needs the timer set anew). The deadline only guards against a hang.
func TestMemoryRunRealClock(t *testing.T) {
	p := NewMemoryPlatform()
	p.Bind("B", "q")
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 20 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx, "q", ok) }()
	sendN(t, p, 3, 0)
	err := p.Wait(ctx, func() bool { return p.Stats("q").Acked == 3 })
	if err == nil {
		p.Enqueue("q", Message{Body: json.RawMessage(`4`)}, 0)
		err = p.Wait(ctx, func() bool { return p.Stats("q").Acked == 4 })
	}
	stop()
	<-done
	if err != nil {
		t.Fatalf("not delivered: %v, %+v", err, p.Stats("q"))
	}
}

// TestMemoryRunRealClockDelayed: on the real clock Run wakes by itself
// when a delayed message comes due, with nothing else ready: a message
// delayed 1 s is delivered about 1 s later. The deadline only guards
// against a hang.
func TestMemoryRunRealClockDelayed(t *testing.T) {
	p := NewMemoryPlatform()
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx, "q", ok) }()
	p.Enqueue("q", Message{Body: json.RawMessage(`1`)}, 1)
	err := p.Wait(ctx, func() bool { return p.Stats("q").Acked == 1 })
	stop()
	<-done
	if err != nil {
		t.Fatalf("not delivered: %v, %+v", err, p.Stats("q"))
	}
}

// TestQueueEventKindIsQueue: a batch MemoryPlatform delivers is an event
// whose 读取入站事件种类 is "queue", and it carries no HTTP request.
func TestQueueEventKindIsQueue(t *testing.T) {
	// Pins Q3.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	if err := SendQueueMessage(context.Background(), p, "B", `1`, 0); err != nil {
		t.Fatal(err)
	}
	var kind string
	var reqErr error
	if _, ok := p.Deliver("q", func(ev Event) error {
		kind = InboundEventKind(ev)
		_, reqErr = InboundMethod(ev)
		return nil
	}); !ok {
		t.Fatal("no batch delivered")
	}
	if kind != "queue" || !hasMsg(reqErr, MsgNoRequest) {
		t.Errorf("kind %q, InboundMethod error %v; want queue and %s", kind, reqErr, MsgNoRequest)
	}
}

// hasMsg reports whether err is an *Error whose text is msg.
func hasMsg(err error, msg string) bool {
	e, ok := err.(*Error)
	return ok && e.Msg == msg
}

// TestMemoryDeadLetterAttempts pins DeliveryResult.DeadLettered's
// Attempts: the deliveries the message had when it failed the last time,
// counted as a consumer saw them ("attempts 从 1 起，每次重新投递加 1", 读取队列批次)
// — for a message that arrived with attempts already above 1 (Enqueue, as
// another producer's redelivered message), not the deliveries from this
// queue alone.
// Pins D29.
func TestMemoryDeadLetterAttempts(t *testing.T) {
	// Pins Q55.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0; s.MaxRetries = 1; s.DeadLetterQueue = "dlq" })
	id := p.Enqueue("q", Message{Attempts: 5, Body: json.RawMessage(`1`)}, 0)
	var seen []int
	for range 2 {
		p.Advance(time.Minute)
		r := deliver(t, p, "q", func(ev Event) error {
			seen = append(seen, attemptsOf(ev)...)
			return fail(ev)
		})
		if len(r.DeadLettered) == 1 {
			if got := r.DeadLettered[0]; got != (DeadLetter{ID: id, Queue: "dlq", Attempts: 6}) {
				t.Errorf("dead letter %+v, want attempts 6", got)
			}
		}
	}
	if len(seen) != 2 || seen[0] != 5 || seen[1] != 6 {
		t.Errorf("attempts seen %v, want [5 6]", seen)
	}
	if dl := p.Queued("dlq"); len(dl) != 1 || dl[0].ID != id || dl[0].Attempts != 1 {
		t.Errorf("dead-letter queue %+v", dl)
	}
}

// TestMemoryResultNamesQueue pins DeliveryResult.Queue and the queue
// name 读取队列批次 gives ("{"queue":"队列名",…}"): the queue delivered from,
// for a queue the platform made on first use.
func TestMemoryResultNamesQueue(t *testing.T) {
	p := newVirtual(t)
	setConsumer(t, p, "other", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	p.Enqueue("fresh", Message{Body: json.RawMessage(`1`)}, 0)
	p.Advance(time.Minute)
	var text string
	r := deliver(t, p, "fresh", func(ev Event) error {
		var err error
		text, err = ReadQueueBatch(ev)
		return err
	})
	if r.Queue != "fresh" || !strings.HasPrefix(text, `{"queue":"fresh",`) {
		t.Errorf("result queue %q, batch %s", r.Queue, text)
	}
}

// TestMemoryResultEmptyLists pins DeliveryResult's lists that hold
// nothing: nil, not empty, each of Acked, Retried, DeadLettered and
// Dropped (as ExplicitAcks and RetryMessages are with no call made), so a
// result compares equal to one written with only the lists that hold
// something.
func TestMemoryResultEmptyLists(t *testing.T) {
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0; s.MaxRetries = 0 })
	p.Enqueue("q", Message{Body: json.RawMessage(`1`)}, 0)
	r := deliver(t, p, "q", ok)
	if r.Acked == nil || r.Retried != nil || r.DeadLettered != nil || r.Dropped != nil {
		t.Errorf("all acked: %#v", r)
	}
	p.Enqueue("q", Message{ID: "x", Body: json.RawMessage(`2`)}, 0)
	r = deliver(t, p, "q", fail)
	if r.Acked != nil || r.Retried != nil || r.DeadLettered != nil || len(r.Dropped) != 1 || r.Dropped[0] != "x" {
		t.Errorf("all dropped: %#v", r)
	}
}
