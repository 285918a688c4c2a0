package hostbridge

import (
	"encoding/json"
	"errors"
	"sync"
)

// MemoryPlatform is an in-memory Platform: the embedded default of a Go host
// and the fake of tests. It is safe for concurrent use.
//
// A binding is Bound only when it is both granted to the app (Grant, as the
// host's permission {"QUEUE":["PAGE_QUEUE"]} does) and configured (Bind, as a
// deployment's queue binding is).
type MemoryPlatform struct {
	mu       sync.Mutex
	bindings map[string]string // binding → queue name
	granted  map[string]bool
	calls    []Call
	failNext []string
}

// Call records one Send or SendBatch the platform received, accepted or not.
type Call struct {
	Method   string // "send" or "sendBatch"
	Binding  string
	Messages []BatchMessage // one for send
	Err      string         // the reason it failed with, "" when accepted
}

var _ Platform = (*MemoryPlatform)(nil)

// NewMemoryPlatform returns an empty platform: no queues, no bindings, no grants.
func NewMemoryPlatform() *MemoryPlatform {
	return &MemoryPlatform{bindings: map[string]string{}, granted: map[string]bool{}}
}

// Bind configures binding to send to queue.
func (p *MemoryPlatform) Bind(binding, queue string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bindings[binding] = queue
}

// Grant grants the bindings to the app.
func (p *MemoryPlatform) Grant(bindings ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range bindings {
		p.granted[b] = true
	}
}

// GrantJSON grants what a host permission text such as
// {"QUEUE":["PAGE_QUEUE"]} names under "QUEUE".
func (p *MemoryPlatform) GrantJSON(permissions string) error {
	var perm struct{ QUEUE []string }
	if err := json.Unmarshal([]byte(permissions), &perm); err != nil {
		return err
	}
	p.Grant(perm.QUEUE...)
	return nil
}

// FailNext makes the next Send or SendBatch fail with reason (e.g. "Queue is
// full"), enqueueing nothing. Several calls queue up, one per call.
func (p *MemoryPlatform) FailNext(reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failNext = append(p.failNext, reason)
}

// Calls returns a copy of every Send and SendBatch call so far, in order.
func (p *MemoryPlatform) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.calls...)
}

// Bound implements Platform.
func (p *MemoryPlatform) Bound(binding string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.bindings[binding]
	return ok && p.granted[binding]
}

// Send implements Platform.
func (p *MemoryPlatform) Send(binding string, body []byte, opts SendOptions) error {
	m := BatchMessage{Body: append([]byte(nil), body...), ContentType: opts.ContentType, DelaySeconds: opts.DelaySeconds}
	return p.record("send", binding, []BatchMessage{m})
}

// SendBatch implements Platform.
func (p *MemoryPlatform) SendBatch(binding string, msgs []BatchMessage) error {
	own := make([]BatchMessage, len(msgs))
	for i, m := range msgs {
		own[i] = m
		own[i].Body = append([]byte(nil), m.Body...)
	}
	return p.record("sendBatch", binding, own)
}

func (p *MemoryPlatform) record(method, binding string, msgs []BatchMessage) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := Call{Method: method, Binding: binding, Messages: msgs}
	if _, ok := p.bindings[binding]; !ok {
		c.Err = "binding " + binding + " is not configured"
	} else if len(p.failNext) > 0 {
		c.Err, p.failNext = p.failNext[0], p.failNext[1:]
	}
	p.calls = append(p.calls, c)
	if c.Err != "" {
		return errors.New(c.Err)
	}
	// Delivery (queues, delays, consumers) is added by the consumer side.
	return nil
}
