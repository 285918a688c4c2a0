package natsqueue

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"hostbridge"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// benchBody is a realistic page-queue message.
var benchBody = []byte(`{"kind":"page","url":"/release/x","version":"v8","refresh":true}`)

// The batch policy both loops use: up to 10 messages, waiting at most
// 100 ms for a batch to fill.
const (
	benchBatch = 10
	benchWait  = 100 * time.Millisecond
)

// syncPolicies are the embedded server's two durability policies, which the
// benchmarks measure side by side: the default (a publish answered after a
// shared sync of the store) and nats-server's periodic sync.
var syncPolicies = []struct {
	name  string
	every time.Duration // Options.SyncInterval
}{{"sync=before-answer", 0}, {"sync=every-2m", 2 * time.Minute}}

// openPolicy opens a Platform on an embedded server in a fresh directory
// with the SyncInterval every.
func openPolicy(b *testing.B, every time.Duration) *Platform {
	o := storeOptions(b)
	o.SyncInterval = every
	return openWith(b, o)
}

// BenchmarkSendDeliverAck measures messages/s from send to ack through
// natsqueue beside a plain nats.go loop on the same server in the same run,
// and reports natsqueue's rate over the plain loop's ("ratio"): on an
// embedded R1 file-store server under both sync policies (syncPolicies) and
// on a 3-node R3 cluster. Each loop has one producer sending one message
// at a time and one consumer taking batches of up to benchBatch; the loops
// take turns, benchRound messages each, so that both see the machine's load
// of the moment. ns/op is the time of both loops over b.N.
func BenchmarkSendDeliverAck(b *testing.B) {
	for _, policy := range syncPolicies {
		b.Run("R1/"+policy.name, func(b *testing.B) {
			p := openPolicy(b, policy.every)
			b.Run("beside-plain", func(b *testing.B) { benchBesidePlain(b, p) })
		})
	}
	b.Run("R3", func(b *testing.B) {
		p := openCluster(b, startCluster(b))
		b.Run("beside-plain", func(b *testing.B) { benchBesidePlain(b, p) })
	})
}

// benchRound is how many messages a loop sends in its turn: a multiple of
// benchBatch, so that a turn ends on a full batch rather than waiting out
// benchWait.
const benchRound = 500

// benchBesidePlain runs natsqueue's loop and the plain loop on p in turns
// until each has had b.N messages acked, and reports both rates and their
// ratio.
func benchBesidePlain(b *testing.B, p *Platform) {
	ctx, cancel := context.WithCancel(context.Background())
	var consumers sync.WaitGroup
	defer func() { cancel(); consumers.Wait() }() // the next run's messages are its own
	nq, plain := natsqueueLoop(ctx, b, p, &consumers), plainLoop(ctx, b, p, &consumers)
	b.ResetTimer()
	for sent := 0; sent < b.N; sent += benchRound {
		nq.turn(b, min(benchRound, b.N-sent))
		plain.turn(b, min(benchRound, b.N-sent))
	}
	b.StopTimer()
	b.ReportMetric(nq.rate(), "natsqueue-msgs/s")
	b.ReportMetric(plain.rate(), "plain-msgs/s")
	b.ReportMetric(nq.rate()/plain.rate(), "ratio")
}

// benchLoop is one way from send to ack: send sends one message, and the
// loop's consumer puts on acked how many of each batch it acked.
// acked has room for a whole turn's reports (each of one message at
// least), so that the consumer never waits for the producer to read them
// and the two run side by side: with room for one report, the consumer
// stalled from its second batch until the producer had sent the whole
// turn, so the loops measured sending and then draining, one after the
// other.
type benchLoop struct {
	send  func() error
	acked chan int
	msgs  int           // sent and acked in the loop's turns
	spent time.Duration // in the loop's turns
}

// turn sends n messages one at a time and waits until the consumer has
// acked them.
func (l *benchLoop) turn(b *testing.B, n int) {
	t0 := time.Now()
	for range n {
		if err := l.send(); err != nil {
			b.Fatal(err)
		}
	}
	for got := 0; got < n; {
		select {
		case k := <-l.acked:
			got += k
		case <-time.After(time.Minute):
			b.Fatalf("%d of %d messages acked after a minute", got, n)
		}
	}
	l.msgs, l.spent = l.msgs+n, l.spent+time.Since(t0)
}

func (l *benchLoop) rate() float64 { return float64(l.msgs) / l.spent.Seconds() }

// report puts n on l.acked, unless ctx ends first.
func (l *benchLoop) report(ctx context.Context, n int) {
	select {
	case l.acked <- n:
	case <-ctx.Done():
	}
}

// natsqueueLoop sends with Send to queue q and consumes it with Deliver,
// as Run does, counting the messages each outcome acked (Deliver returns
// once the server has answered their acks).
func natsqueueLoop(ctx context.Context, b *testing.B, p *Platform, consumers *sync.WaitGroup) *benchLoop {
	setConsumer(b, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = benchBatch, benchWait })
	if _, err := p.ensureQueue(ctx, "q"); err != nil {
		b.Fatal(err)
	}
	opts := hostbridge.SendOptions{ContentType: "json"}
	l := &benchLoop{acked: make(chan int, benchRound), send: func() error { return p.Send(ctx, "Q", benchBody, opts) }}
	consumers.Go(func() {
		for ctx.Err() == nil {
			r, _, err := p.Deliver(ctx, "q", func(hostbridge.Event) error { return nil })
			if err != nil && ctx.Err() == nil {
				b.Logf("Deliver (tried again): %v", err)
			}
			if len(r.Acked) > 0 {
				l.report(ctx, len(r.Acked))
			}
		}
	})
	return l
}

// plainLoop is the loop natsqueue is measured against, on p's JetStream
// (whose publishes wait for the store's sync under the embedded server's
// default policy, as natsqueue's do): a work-queue stream of p's replicas
// on file storage, and a durable pull consumer; JetStream publish; fetch
// with natsqueue's batch policy; ack. The plain ack does not wait for the
// server's answer, as natsqueue's does.
func plainLoop(ctx context.Context, b *testing.B, p *Platform, consumers *sync.WaitGroup) *benchLoop {
	s, err := p.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "PLAIN", Subjects: []string{"plain"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: p.opts.Replicas})
	if err != nil {
		b.Fatal(err)
	}
	cons, err := s.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "plain", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		b.Fatal(err)
	}
	l := &benchLoop{acked: make(chan int, benchRound), send: func() error {
		_, err := p.js.PublishMsg(ctx, &nats.Msg{Subject: "plain", Data: benchBody})
		return err
	}}
	consumers.Go(func() {
		for ctx.Err() == nil {
			mb, err := cons.Fetch(benchBatch, jetstream.FetchMaxWait(benchWait))
			if err != nil {
				continue
			}
			n := 0
			for m := range mb.Messages() {
				_ = m.Ack() // plain: the ack is not waited for, nor its error looked at
				n++
			}
			if n > 0 {
				l.report(ctx, n)
			}
		}
	})
	return l
}

// BenchmarkSendDurability measures sends/s of 128 concurrent senders (one
// message a call, as the host's clients) on the embedded server under both
// sync policies, side by side: the default (answered after a shared sync of
// the store) and nats-server's periodic sync (SyncInterval 2 min). It also
// reports the syncs per send the default did.
func BenchmarkSendDurability(b *testing.B) {
	for _, policy := range syncPolicies {
		b.Run(policy.name, func(b *testing.B) {
			p := openPolicy(b, policy.every)
			if _, err := p.ensureQueue(context.Background(), "q"); err != nil {
				b.Fatal(err)
			}
			var syncs0 int64
			if js, ok := p.js.(syncedJS); ok {
				syncs0 = js.g.syncs.Load()
			}
			opts := hostbridge.SendOptions{ContentType: "json"}
			b.SetParallelism(128 / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := p.Send(context.Background(), "Q", benchBody, opts); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sends/s")
			if js, ok := p.js.(syncedJS); ok {
				b.ReportMetric(float64(js.g.syncs.Load()-syncs0)/float64(b.N), "syncs/send")
			}
		})
	}
}

// BenchmarkSyncedSend measures a bare fsync loop on the store's file
// system beside natsqueue's synced send for a single producer, interleaved
// in one loop so that both share the machine's load: each iteration
// appends one record of benchBody's size to a file next to the store and
// fsyncs it, then sends one message (answered after the store's sync). It
// reports each half's ns/op and ops/s, and the send's rate over the
// loop's, which should be at least 0.5. It runs on a store of one queue
// and on one of 64 (the others idle), whose files a sync need not touch.
func BenchmarkSyncedSend(b *testing.B) {
	for _, queues := range []int{1, 64} {
		b.Run(fmt.Sprint("queues=", queues), func(b *testing.B) { benchSyncedSend(b, queues) })
	}
}

// benchSyncedSend is BenchmarkSyncedSend on a store of q and queues-1
// idle queues.
func benchSyncedSend(b *testing.B, queues int) {
	p := openPolicy(b, 0)
	for i := range queues {
		name := "q"
		if i > 0 {
			name = fmt.Sprint("idle-", i)
		}
		if _, err := p.ensureQueue(context.Background(), name); err != nil {
			b.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(b.TempDir(), "loop"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	opts := hostbridge.SendOptions{ContentType: "json"}
	var fsyncs, sends time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := f.Write(benchBody); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := p.Send(context.Background(), "Q", benchBody, opts); err != nil {
			b.Fatal(err)
		}
		fsyncs, sends = fsyncs+t1.Sub(t0), sends+time.Since(t1)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(fsyncs.Nanoseconds())/n, "fsync-ns/op")
	b.ReportMetric(n/fsyncs.Seconds(), "fsyncs/s")
	b.ReportMetric(float64(sends.Nanoseconds())/n, "send-ns/op")
	b.ReportMetric(n/sends.Seconds(), "sends/s")
	b.ReportMetric(fsyncs.Seconds()/sends.Seconds(), "send/fsync")
}
