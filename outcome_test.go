package hostbridge_test

import (
	"testing"
	"time"

	"hostbridge"
	"hostbridge/internal/queueoutcomes"
)

const outcomesFile = "testdata/platform/queue-outcomes.json"

// TestSettle checks, row by row of queue-outcomes.json, what Settle says a
// platform does with a message: ack, retry after a delay, dead-letter or
// drop, from the handler's calls, its error, the deliveries and the
// consumer settings.
// Pins Q63, Q68, Q69, Q70, Q71, D25, D26, D27, D29.
func TestSettle(t *testing.T) {
	for _, r := range queueoutcomes.Load(t, outcomesFile) {
		b := hostbridge.NewBatchRecord(queueoutcomes.Queue, []hostbridge.Message{{ID: "m", Attempts: r.Delivery}})
		err := b.Handle(r.Handle)
		a, delay := hostbridge.Settle(b.Outcome(0), err, r.Delivery, r.Consumer())
		if a.String() != r.Expect.Action || delay != r.Expect.DelaySeconds {
			t.Errorf("%s: Settle = %v, %d, want %s, %d", r.Situation, a, delay, r.Expect.Action, r.Expect.DelaySeconds)
		}
	}
	if s := hostbridge.Action(0).String(); s != "Action(0)" {
		t.Errorf("Action(0).String() = %q", s)
	}
}

// TestSettleOnMemoryPlatform replays every row of queue-outcomes.json on
// MemoryPlatform: it reports the message under the row's action and
// delivers it again as that action says — from the queue no sooner than
// its delay with attempts + 1, from the dead-letter queue with attempts 1,
// or never. natsqueue runs the same rows on its embedded server.
// Pins Q55, Q69, Q70, Q71, D29.
func TestSettleOnMemoryPlatform(t *testing.T) {
	queueoutcomes.Run(t, outcomesFile, func(t *testing.T, _ int) queueoutcomes.Target {
		p := hostbridge.NewMemoryPlatform()
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		p.VirtualClock(start)
		return memTarget{p, start}
	})
}

// memTarget runs rows on a MemoryPlatform with a virtual clock.
type memTarget struct {
	p     *hostbridge.MemoryPlatform
	start time.Time
}

func (m memTarget) SetConsumer(queue string, s hostbridge.ConsumerSettings) error {
	return m.p.SetConsumer(queue, s)
}

func (m memTarget) Enqueue(queue string, msg hostbridge.Message) error {
	m.p.Enqueue(queue, msg, 0)
	return nil
}

// Deliver moves the clock a second at a time until a batch is ready, for
// at most a minute.
func (m memTarget) Deliver(queue string, handler func(hostbridge.Event) error) (hostbridge.DeliveryResult, bool) {
	for range 60 {
		if r, ok := m.p.Deliver(queue, handler); ok {
			return r, true
		}
		m.p.Advance(time.Second)
	}
	return m.p.Deliver(queue, handler)
}

func (m memTarget) Quiet(queue string, seconds int) bool {
	m.p.Advance(time.Duration(seconds) * time.Second)
	_, ok := m.p.Deliver(queue, func(hostbridge.Event) error { return nil })
	return !ok
}

func (m memTarget) Now() float64 { return m.p.Now().Sub(m.start).Seconds() }
