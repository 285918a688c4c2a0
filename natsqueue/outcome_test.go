package natsqueue

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hostbridge"
	"hostbridge/internal/queueoutcomes"
)

// TestSettleOnNATS replays every row of queue-outcomes.json on an embedded
// single node, as hostbridge's TestSettleOnMemoryPlatform replays them on
// MemoryPlatform: the platform reports the message under the row's action
// (hostbridge.Settle's) and delivers it again as that action says — from
// the queue no sooner than its delay with attempts + 1, from the
// dead-letter queue with attempts 1, or never. A second is
// retryUnitForRows.
// Pins D29.
func TestSettleOnNATS(t *testing.T) {
	p := openSingle(t)
	queueoutcomes.Run(t, "../testdata/platform/queue-outcomes.json", func(t *testing.T, row int) queueoutcomes.Target {
		// Each row has a namespace of its own: they share queue names and IDs.
		return natsTarget{t: t, p: p.sharing(fmt.Sprintf("OUT%d", row)), start: time.Now()}
	})
}

// natsTarget runs rows on a Platform whose retry second is
// retryUnitForRows.
type natsTarget struct {
	t     *testing.T
	p     *Platform
	start time.Time
}

func (n natsTarget) SetConsumer(queue string, s hostbridge.ConsumerSettings) error {
	return n.p.SetConsumer(queue, s)
}

func (n natsTarget) Enqueue(queue string, m hostbridge.Message) error {
	_, err := n.p.Enqueue(context.Background(), queue, m, 0)
	return err
}

func (n natsTarget) Deliver(queue string, handler func(hostbridge.Event) error) (hostbridge.DeliveryResult, bool) {
	return deliverWithin(n.t, n.p, queue, 30*time.Second, handler)
}

// Quiet waits the seconds, 300 ms at least.
func (n natsTarget) Quiet(queue string, seconds int) bool {
	_, ok := deliverWithin(n.t, n.p, queue, max(time.Duration(seconds)*retryUnitForRows, 300*time.Millisecond), nil)
	return !ok
}

func (n natsTarget) Now() float64 {
	return float64(time.Since(n.start)) / float64(retryUnitForRows)
}
