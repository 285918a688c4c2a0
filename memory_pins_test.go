package hostbridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestMemoryPinsPendingInFlight pins the memory platform's counters while a
// handler holds a batch: Pending counts the messages in flight as well as
// the waiting ones (QueueStats: Sent = Acked + DeadLettered + Dropped +
// Pending at any time), InFlight those in the batch, Ready the others.
// Pins D30.
func TestMemoryPinsPendingInFlight(t *testing.T) {
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0; s.MaxBatchSize = 2 })
	sendN(t, p, 3, 0)
	sendN(t, p, 1, 60)
	var during QueueStats
	deliver(t, p, "q", func(Event) error {
		during = p.Stats("q")
		return nil
	})
	want := QueueStats{Sent: 4, Delivered: 2, Pending: 4, InFlight: 2, Ready: 1}
	if during != want {
		t.Errorf("stats during the handler\n got %+v\nwant %+v", during, want)
	}
	checkStats(t, p, "q", QueueStats{Sent: 4, Delivered: 2, Acked: 2, Pending: 2, Ready: 1})
}

// TestMemoryPinsDeadLetterAttempts pins DeliveryResult.DeadLettered's
// Attempts: the deliveries the message had when it failed the last time,
// counted as a consumer saw them ("attempts 从 1 起，每次重新投递加 1", 读取队列批次)
// — for a message that arrived with attempts already above 1 (Enqueue, as
// another producer's redelivered message), not the deliveries from this
// queue alone.
// Pins D29.
func TestMemoryPinsDeadLetterAttempts(t *testing.T) {
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

// TestMemoryPinsEnqueueDelayClamp pins Enqueue's delay: clamped to 0 …
// 43200 seconds, the range a send's delay must be in ("延迟秒数须在 0 至 43200
// （12 小时）之间", 发送队列消息) — Enqueue stands for another producer, so it
// clamps rather than fails: below 0 is ready at once, above 43200 is ready
// after exactly 43200 seconds.
// Pins D17.
func TestMemoryPinsEnqueueDelayClamp(t *testing.T) {
	// Pins Q23.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	early := p.Enqueue("q", Message{Body: json.RawMessage(`1`)}, -5)
	if r := deliver(t, p, "q", ok); len(r.IDs) != 1 || r.IDs[0] != early {
		t.Fatalf("a delay below 0: %+v", r)
	}
	late := p.Enqueue("q", Message{Body: json.RawMessage(`2`)}, 43200*3)
	at := p.Enqueue("q", Message{Body: json.RawMessage(`3`)}, 43200)
	p.Advance(43199 * time.Second)
	noBatch(t, p, "q")
	p.Advance(time.Second)
	if r := deliver(t, p, "q", ok); len(r.IDs) != 2 || r.IDs[0] != late || r.IDs[1] != at {
		t.Fatalf("a delay above 43200: %+v", r)
	}
	checkStats(t, p, "q", QueueStats{Sent: 3, Delivered: 3, Acked: 3})
}

// TestMemoryPinsOwnCopies pins that the memory platform keeps its own copy
// of what it is sent (a Queue binding's send serialises the body at the
// call): a caller reusing its buffers afterwards changes neither the
// queued messages nor the record of calls.
func TestMemoryPinsOwnCopies(t *testing.T) {
	p := newVirtual(t)
	body := []byte(`"ab"`)
	batch := []BatchMessage{{Body: body, ContentType: contentTypeJSON}}
	if err := p.SendBatch(context.Background(), "B", batch); err != nil {
		t.Fatal(err)
	}
	copy(body, `"zz"`)
	batch[0].Body = []byte(`"yy"`)
	if q := p.Queued("q"); len(q) != 1 || string(q[0].Body.(json.RawMessage)) != `"ab"` {
		t.Errorf("queued %+v", q)
	}
	if c := p.Calls(); len(c) != 1 || string(c[0].Messages[0].Body) != `"ab"` {
		t.Errorf("calls %+v", c)
	}
}

// TestMemoryPinsUnboundBindingText pins the reason the memory platform
// reports for a binding it has no queue for, which 发送队列消息 would pass on
// after its prefix ("平台拒绝时抛出的异常消息是 `队列发送失败：` … 加上平台报告的原文"),
// and its record of the failed call.
func TestMemoryPinsUnboundBindingText(t *testing.T) {
	// Pins Q47.
	p := newVirtual(t)
	err := p.Send(context.Background(), "nope", []byte("1"), SendOptions{ContentType: contentTypeJSON})
	if err == nil || err.Error() != "binding nope is not configured" {
		t.Errorf("error %v", err)
	}
	if c := p.Calls(); len(c) != 1 || c[0].Err != "binding nope is not configured" || c[0].Binding != "nope" || c[0].Method != "send" {
		t.Errorf("calls %+v", c)
	}
}

// TestMemoryPinsEnqueueDefaults pins Enqueue's defaults for what a message
// left out: a new unique ID, the platform clock's time, attempts 1 (读取队列批次:
// "attempts 从 1 起"); what it gave is kept.
func TestMemoryPinsEnqueueDefaults(t *testing.T) {
	p := newVirtual(t)
	p.Advance(time.Minute)
	a := p.Enqueue("q", Message{Body: json.RawMessage(`1`)}, 0)
	b := p.Enqueue("q", Message{Body: json.RawMessage(`2`)}, 0)
	given := Message{ID: "given", Timestamp: epoch.Add(-time.Hour), Attempts: 3, Body: json.RawMessage(`3`)}
	if id := p.Enqueue("q", given, 0); id != "given" {
		t.Errorf("Enqueue kept ID %q", id)
	}
	q := p.Queued("q")
	if a == "" || b == "" || a == b || len(q) != 3 || q[0].ID != a || q[1].ID != b {
		t.Fatalf("IDs %q %q, queued %+v", a, b, q)
	}
	for _, m := range q[:2] {
		if !m.Timestamp.Equal(epoch.Add(time.Minute)) || m.Attempts != 1 {
			t.Errorf("defaults %+v", m)
		}
	}
	if m := q[2]; !m.Timestamp.Equal(given.Timestamp) || m.Attempts != 3 {
		t.Errorf("given %+v", m)
	}
}

// TestMemoryPinsSettingsErrors pins the errors CheckConsumerSettings gives
// for each setting out of range: each names the setting and the value it
// was given, and the range.
func TestMemoryPinsSettingsErrors(t *testing.T) {
	for _, c := range []struct {
		set  func(*ConsumerSettings)
		want string
	}{
		{func(s *ConsumerSettings) { s.MaxBatchSize = 101 }, "hostbridge: MaxBatchSize 101 is not in 1…100"},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = 61 * time.Second }, "hostbridge: MaxBatchTimeout 1m1s is not in 0…1m0s"},
		{func(s *ConsumerSettings) { s.MaxRetries = 101 }, "hostbridge: MaxRetries 101 is not in 0…100"},
		{func(s *ConsumerSettings) { s.RetryDelay = 43201 }, "hostbridge: RetryDelay 43201 is not in 0…43200"},
		{func(s *ConsumerSettings) { s.DeadLetterQueue = "q" }, `hostbridge: queue "q" cannot be its own dead-letter queue`},
	} {
		s := ConsumerSettings{MaxBatchSize: 7, MaxBatchTimeout: 8 * time.Second, MaxRetries: 9, RetryDelay: 10}
		c.set(&s)
		if err := CheckConsumerSettings("q", s); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestMemoryPinsWaitWakes pins Wait's promise: it evaluates cond again
// after every change of the platform — here a send, Advance, VirtualClock
// and SetConsumer, each made while Wait is blocked.
func TestMemoryPinsWaitWakes(t *testing.T) {
	p := newVirtual(t)
	for _, c := range []struct {
		name   string
		change func()
		cond   func() bool
	}{
		{"send", func() { sendN(t, p, 1, 0) }, func() bool { return p.Stats("q").Sent == 1 }},
		{"Advance", func() { p.Advance(time.Minute) }, func() bool { return p.Now().Equal(epoch.Add(time.Minute)) }},
		{"VirtualClock", func() { p.VirtualClock(epoch) }, func() bool { return p.Now().Equal(epoch) }},
		{"SetConsumer", func() { setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchSize = 5 }) },
			func() bool { return p.Consumer("q").MaxBatchSize == 5 }},
	} {
		waiting, done := make(chan struct{}), make(chan error)
		first := true
		go func() {
			done <- p.Wait(context.Background(), func() bool {
				if first {
					first = false
					close(waiting)
					return false
				}
				return c.cond()
			})
		}()
		<-waiting
		c.change()
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
}

// TestMemoryPinsResultNamesQueue pins DeliveryResult.Queue and the queue
// name 读取队列批次 gives ("{"queue":"队列名",…}"): the queue delivered from,
// for a queue the platform made on first use.
func TestMemoryPinsResultNamesQueue(t *testing.T) {
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

// TestMemoryPinsDelayOneSecond pins the smallest delay: a send delayed 1
// second, and a retry delayed 1 second, wait that second — neither is
// delivered at once nor a millisecond early ("延迟秒数须在 0 至 43200 之间",
// 0 alone meaning none).
// Pins D30.
func TestMemoryPinsDelayOneSecond(t *testing.T) {
	// Pins Q23, Q24, Q63.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0; s.RetryDelay = 30 })
	if err := SendQueueMessage(context.Background(), p, "B", `1`, 1); err != nil {
		t.Fatal(err)
	}
	noBatch(t, p, "q")
	p.Advance(999 * time.Millisecond)
	noBatch(t, p, "q")
	p.Advance(time.Millisecond)
	r := deliver(t, p, "q", func(ev Event) error { return RetryQueueMessage(ev, 0, 1) })
	if len(r.Retried) != 1 || r.Retried[0].DelaySeconds != 1 {
		t.Fatalf("retry %+v", r.Retried)
	}
	noBatch(t, p, "q")
	p.Advance(999 * time.Millisecond)
	noBatch(t, p, "q")
	p.Advance(time.Millisecond)
	deliver(t, p, "q", ok)
	checkStats(t, p, "q", QueueStats{Sent: 1, Delivered: 2, Retried: 1, Acked: 1})
}

// TestMemoryPinsResultEmptyLists pins DeliveryResult's lists that hold
// nothing: nil, not empty, each of Acked, Retried, DeadLettered and
// Dropped (as ExplicitAcks and RetryMessages are with no call made), so a
// result compares equal to one written with only the lists that hold
// something.
func TestMemoryPinsResultEmptyLists(t *testing.T) {
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
