package hostbridge

import (
	"encoding/json"
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
