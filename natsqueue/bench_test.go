package natsqueue

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
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
// natsqueue, and through a plain nats.go loop (publish → fetch → ack) on the
// same server in the same run: one producer sending one message at a time,
// one consumer, on an embedded R1 file-store server under both sync
// policies (syncPolicies; under the default the plain loop's publishes
// wait for the store's sync too) and on a 3-node R3 cluster.
func BenchmarkSendDeliverAck(b *testing.B) {
	for _, policy := range syncPolicies {
		b.Run("R1/"+policy.name, func(b *testing.B) {
			p := openPolicy(b, policy.every)
			b.Run("natsqueue", func(b *testing.B) { benchNatsqueue(b, p) })
			b.Run("plain", func(b *testing.B) { benchPlain(b, p, 1) })
		})
	}
	b.Run("R3", func(b *testing.B) {
		p := openCluster(b, startCluster(b))
		b.Run("natsqueue", func(b *testing.B) { benchNatsqueue(b, p) })
		b.Run("plain", func(b *testing.B) { benchPlain(b, p, 3) })
	})
}

func benchNatsqueue(b *testing.B, p *Platform) {
	setConsumer(b, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = benchBatch, benchWait })
	if _, err := p.ensureQueue(context.Background(), "q"); err != nil {
		b.Fatal(err)
	}
	var acked atomic.Int64
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	defer func() { cancel(); <-stopped }() // the next run's messages are its own
	go func() {
		defer close(stopped)
		_ = p.Run(ctx, "q", func(ev hostbridge.Event) error { // Run ends with ctx
			n := int64(len(ev.Batch().Messages()))
			if a := acked.Add(n); a >= int64(b.N) && a-n < int64(b.N) {
				close(done)
			}
			return nil
		})
	}()
	b.SetBytes(int64(len(benchBody)))
	b.ResetTimer()
	opts := hostbridge.SendOptions{ContentType: "json"}
	for range b.N {
		if err := p.Send(context.Background(), "Q", benchBody, opts); err != nil {
			b.Fatal(err)
		}
	}
	<-done
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// benchPlain is the loop natsqueue is measured against: a stream and a
// durable pull consumer of its own, JetStream publish, fetch and ack.
func benchPlain(b *testing.B, p *Platform, replicas int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	js := p.js
	s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "PLAIN", Subjects: []string{"plain"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: replicas})
	if err != nil {
		b.Fatal(err)
	}
	cons, err := s.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "plain", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 0; n < b.N; {
			mb, err := cons.Fetch(benchBatch, jetstream.FetchMaxWait(benchWait))
			if err != nil {
				continue
			}
			for m := range mb.Messages() {
				_ = m.Ack() // the benchmark counts acks sent, not answered
				n++
			}
		}
	}()
	b.SetBytes(int64(len(benchBody)))
	b.ResetTimer()
	for range b.N {
		if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: "plain", Data: benchBody}); err != nil {
			b.Fatal(err)
		}
	}
	<-done
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
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
