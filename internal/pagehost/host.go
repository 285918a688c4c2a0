// Package pagehost is the pagequeue host: the routes, the status mapping, the
// consumer loop, the flags, /stats and shutdown, on any Store. Both pagequeue
// commands are thin mains around it: cmd/pagequeue on MemoryStore, and
// natsqueue/cmd/pagequeue on a durable store, whose main reads
//
//	var dir string
//	pagehost.Main(pagehost.Program{
//		Name:  "pagequeue",
//		Keeps: "…what the durable store keeps…",
//		Flags: func(fs *flag.FlagSet) { fs.StringVar(&dir, "store", "data", "…") },
//		Open:  func() (pagehost.Store, error) { return open(dir) },
//	})
//
// Routes:
//
//	POST /pages/<path>?version=v   enqueue {"kind":"page","url":"/<path>","version":"v","refresh":true}
//	POST /batch                    enqueue a JSON array, as 批量发送队列消息 takes it
//	GET  /stats                    counts: sent, delivered, acked, retried, deadLettered, pending, …
//	GET  /metrics                  the same counts and the host's request metrics, in Prometheus' text format 0.0.4
//
// What is open: by default every route, to whoever reaches -addr, which is
// 127.0.0.1:8787, so only local processes. -token-file makes every route
// (404s included) answer 401 with WWW-Authenticate: Bearer, before reading
// the body or changing anything, to a request without "Authorization:
// Bearer <token>"; only the request metrics count it. The token is
// compared by its SHA-256, in constant time. -tls-cert and -tls-key serve
// HTTPS, and HTTP/2 with it; plain HTTP on an address that is not loopback
// is refused unless -insecure-addr says it is meant, since a token would
// cross the network in clear. Every flag whose value is not in its form
// or out of its range, a port above 65535 and a stray argument are refused
// before anything listens, with exit 2, one line naming the flag and what
// it wants, and one pointing to -h.
//
// /stats' connections is the connections open now, the one the request
// came on included: a lone curl sees 1. A connection counts from the
// host's accept to its close.
//
// Consumer loops drain the queue in batches: each reads a batch with
// ReadQueueBatch, acks what it handled and retries, with a delay, what it
// could not (-fail makes that share of messages fail), and logs one line per
// batch. After -max-retries a message goes to the dead-letter queue.
//
// Spec errors map to HTTP statuses: a message or batch too large is 413,
// another violation 400, a platform failure 503 (a full queue with
// Retry-After), a deployment error 500; the body is {"error": <the
// exception text>}. A body the host cannot read is 400 (not UTF-8, or cut
// short) or 408 (slower than -read-timeout); reasons meant for diagnosis go
// to the log, not to the client.
//
// The host holds out against hostile clients with timeouts, a cap on open
// connections and on header size, and bounds on the queue and its
// dead-letter queue; it logs through a writer that drops rather than
// blocks. cmd/pagequeue/README.md gives each flag and its default.
package pagehost

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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
	TLSCert      string        // file: with TLSKey, the host serves HTTPS (Certificate)
	TLSKey       string        // file
	InsecureAddr bool          // plain HTTP on an Addr that is not loopback is meant
	TokenFile    string        // file holding the bearer token (Token)
	Fail         float64       // share of messages the consumer fails
	RetryDelay   int           // seconds, for the consumer's retries
	MaxRetries   int           // before the dead-letter queue
	BatchSize    int           // messages per batch
	BatchTimeout time.Duration // how long a batch waits to fill
	Consumers    int           // consumer loops
	Seed         uint64        // of the failure draws; 0: a random one
	Limits                     // of the queue and its dead-letter queue

	ReadHeaderTimeout time.Duration // to read a request's headers
	ReadTimeout       time.Duration // to read a whole request, body included
	IdleTimeout       time.Duration // a keep-alive connection may wait for its next request
	ShutdownTimeout   time.Duration // requests in flight may take to finish at shutdown
	MaxHeaderBytes    int           // of a request's headers
	MaxConns          int           // connections open at once; 0: from the open-file limit (defaultMaxConns)

	// Read by Run from the files above (tests set them directly).
	Certificate *tls.Certificate // nil: plain HTTP
	Token       []byte           // empty: every request is served without one
}

// host is the pagequeue host: an HTTP handler, a store and its consumers.
type host struct {
	store   Store
	cfg     Config
	keeps   string // what the store keeps when the process ends
	log     *slog.Logger
	token   *[sha256.Size]byte // of cfg.Token; nil: no token needed
	metrics *metrics
	logw    *logWriter                    // nil when the log is not asynchronous (tests)
	conns   atomic.Pointer[limitListener] // set by serve
	rndMu   sync.Mutex
	rnd     *rand.Rand
	batches atomic.Int64
	acked   atomic.Int64 // by the consumer, explicitly
	retried atomic.Int64 // by the consumer, explicitly
	full    atomic.Int64 // sends refused: the queue was full
}

// newHost configures store's consumer and limits from cfg.
func newHost(cfg Config, store Store, log *slog.Logger) (*host, error) {
	s := hostbridge.DefaultConsumerSettings()
	s.MaxBatchSize, s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = cfg.BatchSize, cfg.BatchTimeout, cfg.MaxRetries, DeadQueue
	if err := store.SetConsumer(Queue, s); err != nil {
		return nil, err
	}
	if err := store.SetLimits(Queue, cfg.Limits); err != nil {
		return nil, err
	}
	cfg.Consumers = max(cfg.Consumers, 1)
	if cfg.MaxConns == 0 {
		cfg.MaxConns = defaultMaxConns(fileLimit())
	}
	for cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()
	}
	return &host{store: store, cfg: cfg, log: log, token: tokenSum(cfg.Token), metrics: newMetrics(),
		rnd: rand.New(rand.NewPCG(cfg.Seed, 1))}, nil
}

// httpHeaderSlack is what net/http reads of a request's line and headers
// beyond Server.MaxHeaderBytes before it answers 431 (its bufio slack):
// serve takes it off, so that MaxHeaderBytes is the exact limit.
const httpHeaderSlack = 4096

// serve answers HTTP on ln (HTTPS and HTTP/2 with a Certificate), holding at most MaxConns connections, and runs
// the consumers until ctx ends; then it shuts down (see shutdown) and logs
// the final counts and what the store keeps of the messages still pending.
func (h *host) serve(ctx context.Context, ln net.Listener) error {
	conns := newLimitListener(ln, h.cfg.MaxConns)
	h.conns.Store(conns)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: h.cfg.ReadHeaderTimeout,
		ReadTimeout:       h.cfg.ReadTimeout,
		IdleTimeout:       h.cfg.IdleTimeout,
		MaxHeaderBytes:    h.cfg.MaxHeaderBytes - httpHeaderSlack,
		ErrorLog:          slog.NewLogLogger(h.log.Handler(), slog.LevelInfo),
	}
	consumeCtx, stopConsumers := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range h.cfg.Consumers {
		wg.Go(func() { h.store.Run(consumeCtx, Queue, h.consume) })
	}
	served := make(chan error, 1)
	if c := h.cfg.Certificate; c != nil {
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*c}, MinVersion: tls.VersionTLS12}
		go func() { served <- srv.ServeTLS(conns, "", "") }() // HTTP/2 too: ServeTLS offers h2
	} else {
		go func() { served <- srv.Serve(conns) }()
	}
	var err error
	select {
	case <-ctx.Done():
		h.log.Info("shutting down", "timeout", h.cfg.ShutdownTimeout)
	case err = <-served:
	}
	h.shutdown(srv)
	stopConsumers()
	wg.Wait()
	s := h.stats()
	h.log.Info(fmt.Sprintf("stopped: %d messages still pending or waiting for a retry", s.Pending),
		"sent", s.Sent, "acked", s.Acked, "retried", s.Retried, "deadLettered", s.DeadLettered,
		"pending", s.Pending, "store", h.keeps)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// shutdown stops taking connections and waits up to ShutdownTimeout for the
// requests in flight; then it closes the connections still open (a client
// still uploading gets no answer). Either way the host ends cleanly.
func (h *host) shutdown(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.ShutdownTimeout)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		h.log.Info("closing connections still busy after the shutdown timeout",
			"timeout", h.cfg.ShutdownTimeout, "open", h.conns.Load().open())
		srv.Close()
	}
}

// Stats is what GET /stats answers: the queue's counters, then the host's.
// Every field but Connections and LogDropped survives a restart when the
// store keeps its counters, as the durable store does (KeptCounts gives
// Batches and RefusedFull); Connections and LogDropped are this process's.
type Stats struct {
	Sent         int64 `json:"sent"`
	Delivered    int64 `json:"delivered"`
	Acked        int64 `json:"acked"`
	Retried      int64 `json:"retried"`
	DeadLettered int64 `json:"deadLettered"`
	Dropped      int64 `json:"dropped"`
	Pending      int64 `json:"pending"`
	Batches      int64 `json:"batches"` // handed to the consumer loops
	// DeadLetterQueue is the size of the dead-letter queue now (at most
	// -max-dead-letters); DeadLetterDiscarded the oldest ones discarded to
	// keep it so.
	DeadLetterQueue     int64 `json:"deadLetterQueue"`
	DeadLetterDiscarded int64 `json:"deadLetterDiscarded"`
	RefusedFull         int64 `json:"refusedFull"` // sends refused with 503: the queue held -max-pending
	// Connections is the connections open now, the one the /stats request
	// came on included: a lone client sees 1. A connection counts from the
	// host's accept to its close (TLS handshakes included); with HTTP/2 one
	// connection carries many requests.
	Connections int   `json:"connections"`
	LogDropped  int64 `json:"logDropped"` // log records dropped: the log reader was slow or gone
}

func (h *host) stats() Stats {
	q, d := h.store.Stats(Queue), h.store.Stats(DeadQueue)
	s := Stats{
		Sent: q.Sent, Delivered: q.Delivered, Acked: q.Acked, Retried: q.Retried,
		DeadLettered: q.DeadLettered, Dropped: q.Dropped, Pending: q.Pending, Batches: h.batches.Load(),
		DeadLetterQueue: d.Pending, DeadLetterDiscarded: d.Dropped, RefusedFull: h.full.Load(),
	}
	if k, ok := h.store.(KeptCounts); ok {
		s.Batches, s.RefusedFull = k.KeptCounts(Queue)
	}
	if l := h.conns.Load(); l != nil {
		s.Connections = l.open()
	}
	if h.logw != nil {
		s.LogDropped = h.logw.dropped.Load()
	}
	return s
}

// consume handles one queue event: it reads the batch, then acks each
// message it handled and retries those it failed.
func (h *host) consume(ev hostbridge.Event) error {
	n := h.batches.Add(1)
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
	ta, tr := h.acked.Add(int64(acked)), h.retried.Add(int64(retried))
	q := h.store.Stats(Queue)
	h.log.Info("batch", "n", n, "messages", len(batch.Messages), "acked", acked, "retried", retried,
		"totalAcked", ta, "totalRetried", tr, "deadLettered", q.DeadLettered, "sent", q.Sent)
	return nil
}

func (h *host) draw() float64 {
	h.rndMu.Lock()
	defer h.rndMu.Unlock()
	return h.rnd.Float64()
}
