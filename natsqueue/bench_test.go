package natsqueue

import (
	"context"
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

// BenchmarkSendDeliverAck measures messages/s from send to ack through
// natsqueue, and through a plain nats.go loop (publish → fetch → ack) on the
// same server in the same run: one producer sending one message at a time,
// one consumer, on an embedded R1 file-store server and on a 3-node R3
// cluster.
func BenchmarkSendDeliverAck(b *testing.B) {
	b.Run("R1", func(b *testing.B) {
		p := openSingle(b)
		b.Run("natsqueue", func(b *testing.B) { benchNatsqueue(b, p) })
		b.Run("plain", func(b *testing.B) { benchPlain(b, p, 1) })
	})
	b.Run("R3", func(b *testing.B) {
		p := openCluster(b, startCluster(b))
		b.Run("natsqueue", func(b *testing.B) { benchNatsqueue(b, p) })
		b.Run("plain", func(b *testing.B) { benchPlain(b, p, 3) })
	})
}

func benchNatsqueue(b *testing.B, p *Platform) {
	setConsumer(b, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = benchBatch, benchWait })
	if _, err := p.ensureQueue("q"); err != nil {
		b.Fatal(err)
	}
	var acked atomic.Int64
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	defer func() { cancel(); <-stopped }() // the next run's messages are its own
	go func() {
		defer close(stopped)
		_ = p.Run(ctx, "q", func(ev hostbridge.Event) error {
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
				_ = m.Ack()
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
