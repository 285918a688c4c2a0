// Package pagehost is the pagequeue host: the routes, the status mapping, the
// consumer loop, the flags, /stats and shutdown, on any Store. Both pagequeue
// commands are thin mains around it: cmd/pagequeue on MemoryStore, and
// natsqueue/cmd/pagequeue on a durable store.
//
// Routes:
//
//	POST /pages/<path>?version=v   enqueue {"kind":"page","url":"/<path>","version":"v","refresh":true}
//	POST /batch                    enqueue a JSON array, as 批量发送队列消息 takes it
//	GET  /stats                    counts: sent, delivered, acked, retried, deadLettered, pending, …
//
// Consumer loops drain the queue in batches: each reads a batch with
// ReadQueueBatch, acks what it handled and retries, with a delay, what it
// could not (-fail makes that share of messages fail), and logs one line per
// batch. After -max-retries a message goes to the dead-letter queue.
//
// Spec errors map to HTTP statuses: a message or batch too large is 413,
// another violation or an invalid body 400, a platform failure 503, a
// deployment error 500; the body is {"error": <the exception text>}.
package pagehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"hostbridge"
)

// Config is what the flags set.
type Config struct {
	Addr         string
	Fail         float64       // share of messages the consumer fails
	RetryDelay   int           // seconds, for the consumer's retries
	MaxRetries   int           // before the dead-letter queue
	BatchSize    int           // messages per batch
	BatchTimeout time.Duration // how long a batch waits to fill
	Consumers    int           // consumer loops
	Seed         uint64        // of the failure draws
}

// host is the pagequeue host: an HTTP handler, a store and its consumers.
type host struct {
	store   Store
	cfg     Config
	log     io.Writer
	logMu   sync.Mutex
	rndMu   sync.Mutex
	rnd     *rand.Rand
	batches atomic.Int64
	acked   atomic.Int64 // by the consumer, explicitly
	retried atomic.Int64 // by the consumer, explicitly
}

func newHost(cfg Config, store Store, log io.Writer) (*host, error) {
	s := hostbridge.DefaultConsumerSettings()
	s.MaxBatchSize, s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = cfg.BatchSize, cfg.BatchTimeout, cfg.MaxRetries, DeadQueue
	if err := store.SetConsumer(Queue, s); err != nil {
		return nil, err
	}
	if cfg.Consumers < 1 {
		cfg.Consumers = 1
	}
	return &host{store: store, cfg: cfg, log: log, rnd: rand.New(rand.NewPCG(cfg.Seed, 1))}, nil
}

// serve answers HTTP on ln and runs the consumers until ctx ends; then it
// stops taking requests, lets the batches in flight finish and prints the
// final counts. Messages still queued stay queued.
func (h *host) serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	consumeCtx, stopConsumers := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range h.cfg.Consumers {
		wg.Go(func() { h.store.Run(consumeCtx, Queue, h.consume) })
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if e := srv.Shutdown(shutCtx); err == nil {
		err = e
	}
	stopConsumers()
	wg.Wait()
	h.printf("pagequeue: stopped; %s\n", h.counts())
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (h *host) printf(format string, args ...any) {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	fmt.Fprintf(h.log, format, args...)
}

// Stats is what GET /stats answers.
type Stats struct {
	Sent         int64 `json:"sent"`
	Delivered    int64 `json:"delivered"`
	Acked        int64 `json:"acked"`
	Retried      int64 `json:"retried"`
	DeadLettered int64 `json:"deadLettered"`
	Dropped      int64 `json:"dropped"`
	Pending      int64 `json:"pending"`
	Batches      int64 `json:"batches"`
}

func (h *host) stats() Stats {
	q := h.store.Stats(Queue)
	return Stats{q.Sent, q.Delivered, q.Acked, q.Retried, q.DeadLettered, q.Dropped, q.Pending, h.batches.Load()}
}

func (h *host) counts() string {
	s := h.stats()
	return fmt.Sprintf("sent %d, acked %d, retried %d, dead-lettered %d, pending %d",
		s.Sent, s.Acked, s.Retried, s.DeadLettered, s.Pending)
}

// consume handles one queue event: it reads the batch, then acks each
// message it handled and retries those it failed.
func (h *host) consume(ev hostbridge.Event) error {
	text, err := hostbridge.ReadQueueBatch(ev)
	if err != nil {
		return err // the batch fails: the platform redelivers it
	}
	var batch struct {
		Messages []struct {
			Attempts int `json:"attempts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(text), &batch); err != nil {
		return err
	}
	acked, retried := 0, 0
	for i := range batch.Messages {
		if h.draw() < h.cfg.Fail {
			if err := hostbridge.RetryQueueMessage(ev, i, h.cfg.RetryDelay); err != nil {
				return err
			}
			retried++
			continue
		}
		if err := hostbridge.AckQueueMessage(ev, i); err != nil {
			return err
		}
		acked++
	}
	n := h.batches.Add(1)
	ta, tr := h.acked.Add(int64(acked)), h.retried.Add(int64(retried))
	q := h.store.Stats(Queue)
	h.printf("batch %d: %d messages, %d acked, %d retried | so far %d acked, %d retried, %d dead-lettered of %d sent\n",
		n, len(batch.Messages), acked, retried, ta, tr, q.DeadLettered, q.Sent)
	return nil
}

func (h *host) draw() float64 {
	h.rndMu.Lock()
	defer h.rndMu.Unlock()
	return h.rnd.Float64()
}
