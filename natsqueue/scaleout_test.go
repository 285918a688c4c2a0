//go:build unix

package natsqueue

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostbridge"
)

// The load of BenchmarkScaleOut: a round is scaleOutRound messages, split
// evenly between the hosts; each host sends its share from
// scaleOutProducers goroutines (one message at a time, each answered once
// two of the three servers have it) and consumes with scaleOutLoops Run
// loops, batches of up to benchBatch waiting at most benchWait.
const (
	scaleOutRound     = 3000
	scaleOutProducers = 4
	scaleOutLoops     = 3
)

// BenchmarkScaleOut measures messages/s from send to ack on one 3-node R3
// cluster of nats-server processes, with one host and with three hosts
// that send to and consume the same queue: an op is a
// round of scaleOutRound messages, sent and counted until every one is
// acked. The hosts are Platforms in the benchmark's process, each with its
// own connection, producers and consumer loops: what is measured is how
// the hosts share one stream and one consumer, and a benchmark times a
// round exactly only in one process; host processes would add their own
// Go runtimes competing for the same cores, nothing of JetStream's.
func BenchmarkScaleOut(b *testing.B) {
	c := startProcCluster(b)
	for i, hosts := range []int{1, 3} {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			benchScaleOut(b, c, fmt.Sprintf("SO%d", i), hosts)
		})
	}
}

func benchScaleOut(b *testing.B, c *procCluster, prefix string, hosts int) {
	var acked atomic.Int64
	var goal atomic.Int64 // the acks that end the round
	done := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	var loops sync.WaitGroup
	defer func() { cancel(); loops.Wait() }()
	var ps []*Platform
	for range hosts {
		p := openWith(b, Options{URLs: c.urls, Replicas: 3, Prefix: prefix, Timeout: 5 * time.Second})
		p.Bind("Q", "q")
		p.Grant("Q")
		setConsumer(b, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = benchBatch, benchWait })
		if _, err := p.ensureQueue(ctx, "q"); err != nil {
			b.Fatal(err)
		}
		for range scaleOutLoops {
			loops.Go(func() {
				_ = p.Run(ctx, "q", func(ev hostbridge.Event) error { // Run ends with ctx
					n := int64(len(ev.Batch().Messages()))
					if a := acked.Add(n); a >= goal.Load() && a-n < goal.Load() {
						done <- struct{}{}
					}
					return nil
				})
			})
		}
		ps = append(ps, p)
	}
	c.waitHealthy(ps[0].namesOf("q").stream)
	opts := hostbridge.SendOptions{ContentType: "json"}
	b.ResetTimer()
	for range b.N {
		goal.Add(scaleOutRound)
		var sends sync.WaitGroup
		for _, p := range ps {
			for g := range scaleOutProducers {
				share := scaleOutRound / hosts / scaleOutProducers
				if g < scaleOutRound/hosts%scaleOutProducers {
					share++
				}
				sends.Go(func() {
					for range share {
						if err := p.Send(context.Background(), "Q", benchBody, opts); err != nil {
							b.Error(err)
						}
					}
				})
			}
		}
		sends.Wait()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			b.Fatalf("%d of %d acked after 2 min", acked.Load(), goal.Load())
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*scaleOutRound)/b.Elapsed().Seconds(), "msgs/s")
}
