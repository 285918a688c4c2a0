package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"hostbridge"
)

// TestMaxPendingConcurrent: 8 producers sending at once, one message a
// call and then ten a call, never take a queue past its MaxPending of
// 1000; every message refused is refused with ErrQueueFull, and Sent
// counts exactly what was stored.
func TestMaxPendingConcurrent(t *testing.T) {
	for _, per := range []int{1, 10} {
		t.Run(fmt.Sprint(per, " a call"), func(t *testing.T) {
			p := openSingle(t)
			if err := p.SetLimits("q", 1000, 0); err != nil {
				t.Fatal(err)
			}
			var stored, other atomic.Int64
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					msgs := make([]hostbridge.BatchMessage, per)
					for i := range msgs {
						msgs[i] = hostbridge.BatchMessage{Body: []byte(`1`)}
					}
					for range 1600 / 8 / per {
						err := p.SendBatch(context.Background(), "Q", msgs)
						switch {
						case err == nil:
							stored.Add(int64(per))
						case !errors.Is(err, ErrQueueFull):
							other.Add(1)
							t.Error(err)
						}
					}
				}()
			}
			wg.Wait()
			n := streamMsgs(t, p, "q")
			if n > 1000 || int64(n) != stored.Load() {
				t.Errorf("stream holds %d messages, sends stored %d; the bound is 1000", n, stored.Load())
			}
			if s := p.Stats("q"); s.Sent != int64(n) {
				t.Errorf("sent %d, stream %d", s.Sent, n)
			}
			t.Logf("%d stored", n)
		})
	}
}
