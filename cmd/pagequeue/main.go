// Command pagequeue is a small host on hostbridge and its embedded in-memory
// queue: the producer and consumer of 消息队列 0.1.0 over real HTTP, read with
// the 网页入站 0.8.0 functions.
//
//	go run ./cmd/pagequeue [-addr 127.0.0.1:8787] [-fail 0.1]
//
// Routes:
//
//	POST /pages/<path>?version=v   enqueue {"kind":"page","url":"/<path>","version":"v","refresh":true}
//	POST /batch                    enqueue a JSON array, as 批量发送队列消息 takes it
//	GET  /stats                    counts: sent, delivered, acked, retried, deadLettered, pending, …
//
// A consumer loop drains the queue in batches: it reads each batch with
// ReadQueueBatch, acks what it handled and retries, with a delay, what it
// could not (-fail makes that share of messages fail), and prints one line
// per batch. After -max-retries a message goes to the dead-letter queue.
// SIGINT stops taking requests, lets the batch in flight finish, and prints
// the final counts.
//
// Spec errors map to HTTP statuses: a message or batch too large is 413,
// another violation or an invalid body 400, a platform failure 503, a
// deployment error 500; the body is {"error": <the exception text>}.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"hostbridge"
)

const (
	binding  = "PAGE_QUEUE"
	queue    = "pages"
	deadQ    = "pages-dead"
	pagesAt  = "/pages/"
	maxBatch = hostbridge.MaxBatchBytes

	// The host's own answers, beside the spec's exception texts.
	msgNotFound     = "no such route"
	msgMethod       = "method not allowed"
	msgNeedVersion  = "the version query parameter is required"
	msgNoBody       = "the request has no body"
	msgBodyUsed     = "the request body was already read"
	msgBodyNotUTF8  = "the request body is not valid UTF-8"
	msgBodyTooLarge = "the request body is larger than 1 MiB"
)

type config struct {
	fail         float64       // share of messages the consumer fails
	retryDelay   int           // seconds, for the consumer's retries
	maxRetries   int           // before the dead-letter queue
	batchSize    int           // messages per batch
	batchTimeout time.Duration // how long a batch waits to fill
	consumers    int           // consumer loops
	seed         uint64        // of the failure draws
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8787", "address to listen on")
	cfg := config{}
	flag.Float64Var(&cfg.fail, "fail", 0, "share of messages the consumer fails and retries (0 to 1)")
	flag.IntVar(&cfg.retryDelay, "retry-delay", 1, "retry delay in seconds (0: the queue's default)")
	flag.IntVar(&cfg.maxRetries, "max-retries", 3, "retries before a message is dead-lettered")
	flag.IntVar(&cfg.batchSize, "batch-size", 10, "messages per batch (1 to 100)")
	flag.DurationVar(&cfg.batchTimeout, "batch-timeout", time.Second, "how long a batch waits to fill (Cloudflare's default is 5s)")
	flag.IntVar(&cfg.consumers, "consumers", 2, "consumer loops")
	flag.Uint64Var(&cfg.seed, "seed", uint64(time.Now().UnixNano()), "seed of the failure draws")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagequeue:", err)
		os.Exit(1)
	}
	fmt.Printf("pagequeue: listening on http://%s (POST /pages/<path>?version=v, POST /batch, GET /stats)\n", ln.Addr())
	h, err := newHost(cfg, os.Stdout)
	if err == nil {
		err = h.serve(ctx, ln)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagequeue:", err)
		os.Exit(1)
	}
}

// host is the pagequeue host: an HTTP handler, a platform and its consumers.
type host struct {
	p       *hostbridge.MemoryPlatform
	cfg     config
	log     io.Writer
	logMu   sync.Mutex
	rndMu   sync.Mutex
	rnd     *rand.Rand
	batches atomic.Int64
	acked   atomic.Int64 // by the consumer, explicitly
	retried atomic.Int64 // by the consumer, explicitly
}

func newHost(cfg config, log io.Writer) (*host, error) {
	p := hostbridge.NewMemoryPlatform()
	p.Bind(binding, queue)
	if err := p.GrantJSON(`{"QUEUE":["` + binding + `"]}`); err != nil {
		return nil, err
	}
	p.SetCallLimit(0) // a long-running host keeps no record of calls
	s := hostbridge.DefaultConsumerSettings()
	s.MaxBatchSize, s.MaxBatchTimeout, s.MaxRetries, s.DeadLetterQueue = cfg.batchSize, cfg.batchTimeout, cfg.maxRetries, deadQ
	if err := p.SetConsumer(queue, s); err != nil {
		return nil, err
	}
	if cfg.consumers < 1 {
		cfg.consumers = 1
	}
	return &host{p: p, cfg: cfg, log: log, rnd: rand.New(rand.NewPCG(cfg.seed, 1))}, nil
}

// serve answers HTTP on ln and runs the consumers until ctx ends; then it
// stops taking requests, lets the batches in flight finish and prints the
// final counts. Messages still queued stay queued.
func (h *host) serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	consumeCtx, stopConsumers := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range h.cfg.consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.p.Run(consumeCtx, queue, h.consume)
		}()
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
	q := h.p.Stats(queue)
	return Stats{q.Sent, q.Delivered, q.Acked, q.Retried, q.DeadLettered, q.Dropped, q.Pending, h.batches.Load()}
}

func (h *host) counts() string {
	s := h.stats()
	return fmt.Sprintf("sent %d, acked %d, retried %d, dead-lettered %d, pending %d",
		s.Sent, s.Acked, s.Retried, s.DeadLettered, s.Pending)
}

func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ev := hostbridge.HTTPEvent(r)
	method, _ := hostbridge.InboundMethod(ev)
	path, err := hostbridge.InboundRawPath(ev)
	if err != nil {
		reply(w, http.StatusInternalServerError, err.Error())
		return
	}
	switch {
	case path == "/stats":
		if method != http.MethodGet {
			reply(w, http.StatusMethodNotAllowed, msgMethod)
			return
		}
		writeJSON(w, http.StatusOK, h.stats())
	case path == "/batch":
		if method != http.MethodPost {
			reply(w, http.StatusMethodNotAllowed, msgMethod)
			return
		}
		h.postBatch(w, ev)
	case strings.HasPrefix(path, pagesAt) && len(path) > len(pagesAt):
		if method != http.MethodPost {
			reply(w, http.StatusMethodNotAllowed, msgMethod)
			return
		}
		h.postPage(w, ev, path[len(pagesAt)-1:])
	default:
		reply(w, http.StatusNotFound, msgNotFound)
	}
}

// postPage enqueues the spec's example message for url.
func (h *host) postPage(w http.ResponseWriter, ev hostbridge.Event, url string) {
	if ok, _ := hostbridge.InboundQueryParamExists(ev, "version"); !ok {
		reply(w, http.StatusBadRequest, msgNeedVersion)
		return
	}
	version, _ := hostbridge.InboundQueryParam(ev, "version")
	body, err := json.Marshal(struct {
		Kind    string `json:"kind"`
		URL     string `json:"url"`
		Version string `json:"version"`
		Refresh bool   `json:"refresh"`
	}{"page", url, version, true})
	if err == nil {
		err = hostbridge.SendQueueMessage(h.p, binding, string(body), 0)
	}
	if err != nil {
		replyError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"queued": 1})
}

// postBatch reads the body as bounded JSON and sends it as a batch.
func (h *host) postBatch(w http.ResponseWriter, ev hostbridge.Event) {
	status, text, err := hostbridge.ReadInboundBoundedJSON(ev, maxBatch)
	if err != nil {
		replyError(w, err)
		return
	}
	if status != hostbridge.BodyOK {
		code, msg := http.StatusBadRequest, statusText[status]
		switch status {
		case hostbridge.BodyTooLarge:
			code = http.StatusRequestEntityTooLarge
		case hostbridge.BodyInvalidJSON:
			msg = text // the parser's reason
		}
		reply(w, code, msg)
		return
	}
	if err := hostbridge.SendQueueBatch(h.p, binding, text); err != nil {
		replyError(w, err)
		return
	}
	var n []json.RawMessage
	json.Unmarshal([]byte(text), &n)
	writeJSON(w, http.StatusAccepted, map[string]any{"queued": len(n)})
}

// statusText is the host's answer to a body that is not JSON it can use.
var statusText = map[hostbridge.BodyStatus]string{
	hostbridge.BodyTooLarge:    msgBodyTooLarge,
	hostbridge.BodyNone:        msgNoBody,
	hostbridge.BodyUsed:        msgBodyUsed,
	hostbridge.BodyInvalidUTF8: msgBodyNotUTF8,
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
		if h.draw() < h.cfg.fail {
			if err := hostbridge.RetryQueueMessage(ev, i, h.cfg.retryDelay); err != nil {
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
	q := h.p.Stats(queue)
	h.printf("batch %d: %d messages, %d acked, %d retried | so far %d acked, %d retried, %d dead-lettered of %d sent\n",
		n, len(batch.Messages), acked, retried, ta, tr, q.DeadLettered, q.Sent)
	return nil
}

func (h *host) draw() float64 {
	h.rndMu.Lock()
	defer h.rndMu.Unlock()
	return h.rnd.Float64()
}

// replyError answers a hostbridge error with its HTTP status.
func replyError(w http.ResponseWriter, err error) {
	var e *hostbridge.Error
	if !errors.As(err, &e) {
		reply(w, http.StatusInternalServerError, err.Error())
		return
	}
	reply(w, httpStatus(e), e.Msg)
}

// httpStatus maps a spec error to an HTTP status.
func httpStatus(e *hostbridge.Error) int {
	switch e.Kind {
	case hostbridge.Failure:
		return http.StatusServiceUnavailable
	case hostbridge.Abort:
		return http.StatusInternalServerError
	}
	for _, big := range []string{hostbridge.MsgBodyTooLarge, hostbridge.MsgBatchTooLarge, hostbridge.MsgBatchBodiesTotal, hostbridge.MsgBatchTooMany} {
		if strings.HasPrefix(e.Msg, big) {
			return http.StatusRequestEntityTooLarge
		}
	}
	return http.StatusBadRequest
}

func reply(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
