package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hostbridge"
	"hostbridge/internal/conform"
)

// runCase makes a case's calls on its event and platform; an error is a
// case this adapter cannot read (a protocol error).
func runCase(c *conform.Case, f fault) (*conform.Result, error) {
	mp, err := platform(c.Platform)
	if err != nil {
		return nil, err
	}
	res := &conform.Result{Type: conform.TypeResult, ID: &c.ID}
	if c.Event == nil {
		res.Calls, err = makeCalls(c.Calls, callCtx{p: mp, rec: &producerCalls{p: mp}, f: f})
		return res, err
	}
	req, fb, err := request(c.Event.Kind, c.Event.Request)
	if err != nil {
		return nil, err
	}
	if c.Event.Batch != nil {
		return runQueueCase(c, req, f)
	}
	ctx := callCtx{ev: event{kind: c.Event.Kind, req: req}, p: mp, rec: &producerCalls{p: mp}, body: fb, f: f}
	res.Calls, err = makeCalls(c.Calls, ctx)
	return res, err
}

// runQueueCase delivers the case's batch from an in-memory platform with
// Cloudflare's default consumer settings, makes the calls in the handler,
// and reports the outcome and what the platform schedules again.
func runQueueCase(c *conform.Case, req hostbridge.Request, f fault) (*conform.Result, error) {
	b := c.Event.Batch
	if len(b.Messages) == 0 {
		return nil, errors.New("event.batch: an empty batch is not supported by this adapter")
	}
	p := hostbridge.NewMemoryPlatform()
	p.VirtualClock(time.Unix(1800000000, 0))
	s := hostbridge.DefaultConsumerSettings()
	s.MaxBatchSize = len(b.Messages)
	if err := p.SetConsumer(b.Queue, s); err != nil {
		return nil, fmt.Errorf("event.batch: %v", err)
	}
	for _, m := range b.Messages {
		p.Enqueue(b.Queue, hostbridge.Message{ID: m.ID, Attempts: m.Attempts,
			Timestamp: time.UnixMilli(m.Timestamp), Body: json.RawMessage(m.Body.Bytes())}, 0)
	}
	res := &conform.Result{Type: conform.TypeResult, ID: &c.ID}
	var err error
	r, ok := p.Deliver(b.Queue, func(qe hostbridge.Event) error {
		rec := &batchCalls{Batch: qe.Batch()}
		ctx := callCtx{ev: event{kind: c.Event.Kind, req: req, batch: rec}, rec: rec, f: f}
		res.Calls, err = makeCalls(c.Calls, ctx)
		if c.End != nil && c.End.Throws {
			return errors.New("uncaught exception")
		}
		return nil
	})
	if !ok {
		return nil, errors.New("event.batch: the platform delivered no batch")
	}
	res.Outcome = &r.Outcome
	res.Redelivered = redelivered(p, b.Queue, r)
	return res, err
}

// redelivered lists the messages the platform scheduled again, with the
// attempts of their next delivery.
func redelivered(p *hostbridge.MemoryPlatform, queue string, r hostbridge.DeliveryResult) []conform.Redelivery {
	attempts := map[string]int{}
	for _, m := range p.Queued(queue) {
		attempts[m.ID] = m.Attempts
	}
	out := []conform.Redelivery{}
	for _, rm := range r.Retried {
		out = append(out, conform.Redelivery{ID: rm.ID, Attempts: attempts[rm.ID], DelaySeconds: rm.DelaySeconds})
	}
	return out
}

// recorder gives the platform calls made since it was last asked.
type recorder interface{ take() []conform.PlatformCall }

// producerCalls records the sends an in-memory platform received.
type producerCalls struct {
	p    *hostbridge.MemoryPlatform
	seen int
}

func (r *producerCalls) take() []conform.PlatformCall {
	all := r.p.Calls()
	out := []conform.PlatformCall{}
	for _, c := range all[r.seen:] {
		pc := conform.PlatformCall{Method: c.Method, Binding: c.Binding}
		for _, m := range c.Messages {
			pc.Messages = append(pc.Messages, conform.SentMessage{Body: conform.Of(m.Body), Options: sendOptions(m)})
		}
		if c.Err != "" {
			pc.Error = &c.Err
		}
		out = append(out, pc)
	}
	r.seen = len(all)
	return out
}

// sendOptions are the options the package passed: contentType always,
// delaySeconds only when not 0 (SendOptions cannot say it was passed as 0).
func sendOptions(m hostbridge.BatchMessage) conform.Options {
	o := conform.Options{ContentType: &m.ContentType}
	if m.DelaySeconds != 0 {
		o.DelaySeconds = &m.DelaySeconds
	}
	return o
}

// batchCalls is a Batch that records the ack and retry calls it passes on.
type batchCalls struct {
	hostbridge.Batch
	calls []conform.PlatformCall
}

func (b *batchCalls) Ack(i int) {
	b.calls = append(b.calls, conform.PlatformCall{Method: "ack", N: &i})
	b.Batch.Ack(i)
}

func (b *batchCalls) Retry(i, delaySeconds int) {
	pc := conform.PlatformCall{Method: "retry", N: &i}
	if delaySeconds != 0 {
		pc.Options = &conform.Options{DelaySeconds: &delaySeconds}
	}
	b.calls = append(b.calls, pc)
	b.Batch.Retry(i, delaySeconds)
}

func (b *batchCalls) take() []conform.PlatformCall {
	out := append([]conform.PlatformCall{}, b.calls...)
	b.calls = nil
	return out
}
