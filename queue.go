package hostbridge

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// Platform is the deployment's queues, as the host sees them. Production maps
// it to Cloudflare Queue bindings (send, sendBatch); MemoryPlatform is the
// in-memory one. The producer functions ask Bound first, as their first
// check (the binding's), and call Send or SendBatch only after every check
// passed, so a refused message or batch never reaches them.
type Platform interface {
	// Bound reports whether binding is granted to the app (as in
	// {"QUEUE":["PAGE_QUEUE"]}) and configured in this deployment. It must not
	// block and must not fail: an unknown name is simply false.
	Bound(binding string) bool
	// Send must enqueue one message whose body is the JSON value body (the
	// canonical JSON text, which the platform must not alter) with the
	// options given, or return an error whose text is the platform's reason.
	// ctx is the caller's: when it ends before the platform has the message,
	// Send should give up and return an error that wraps ctx.Err().
	Send(ctx context.Context, binding string, body []byte, opts SendOptions) error
	// SendBatch must enqueue msgs, in order, as one batch, or return an error
	// whose text is the platform's reason. Whether some were enqueued when it
	// fails is the platform's business (the spec leaves it there). ctx is
	// honoured as by Send.
	SendBatch(ctx context.Context, binding string, msgs []BatchMessage) error
}

// SendOptions are the options of one send. ContentType is always "json";
// DelaySeconds 0 means the option is omitted (no delay).
type SendOptions struct {
	ContentType  string
	DelaySeconds int // Q24
}

// BatchMessage is one message of a batch: Body is canonical JSON.
type BatchMessage struct {
	Body         []byte
	ContentType  string
	DelaySeconds int
}

// contentTypeJSON is the only content type the package sends: "消息按 JSON 内容类型存入队列".
const contentTypeJSON = "json"

// SendQueueMessage sends the JSON value body, as canonical JSON, to the queue
// bound as binding, after delaySeconds (0: none), and returns nil once the
// platform has it, or the first problem it found, before sending anything.
//
// It is 发送队列消息 of 消息队列 0.1.0 (生产者). The checks, in order, each
// stopping at its first problem:
//
//  1. binding (Q8, Q9): empty is a Violation (MsgEmptyBinding);
//     p.Bound(binding) false (or p nil) is an Abort (MsgBindingNotGranted).
//  2. body: the input's size first (Q13, MsgBodyTooLarge); then valid UTF-8
//     and strict JSON (MsgBodyNotJSON); then, on the parsed value, whichever
//     comes first in the text of: nesting over MaxMessageDepth
//     (MsgBodyTooDeep), a host marker key (MsgBodyMarker), a number that
//     becomes ±Infinity (MsgBodyNotFinite); then the canonical text's size
//     (Q14).
//  3. delaySeconds, 0…MaxDelaySeconds (Q23, MsgDelayRange).
//
// That order, every check before the platform is called, is Q41's.
//
// Only then is p.Send called, with ctx, the canonical JSON text and
// SendOptions{ContentType: "json"}, plus DelaySeconds when it is not 0. A
// platform error is a Failure: MsgSendFailed followed by its text; a ctx
// that ended (canceled, past its deadline) is the platform's to report, so
// it is a Failure too, and errors.Is(err, context.Canceled) holds.
func SendQueueMessage(ctx context.Context, p Platform, binding, body string, delaySeconds int) error {
	if err := checkBinding(p, binding); err != nil {
		return err
	}
	canon, msg := canonicalBody([]byte(body)) // Q41
	if msg != "" {
		return violation(msg)
	}
	if !delayInRange(delaySeconds) {
		return violation(MsgDelayRange) // Q25 Q45
	}
	opts := SendOptions{ContentType: contentTypeJSON, DelaySeconds: delaySeconds} // Q26 Q90
	if err := p.Send(ctx, binding, canon, opts); err != nil {                     // Q6 Q76
		return failure(MsgSendFailed+err.Error(), err) // Q17 Q40 Q47 Q83
	}
	return nil
}

// checkBinding is the binding check both producer functions make first (Q8,
// Q9).
func checkBinding(p Platform, binding string) error {
	if binding == "" { // Q9
		return violation(MsgEmptyBinding)
	}
	if p == nil || !p.Bound(binding) { // Q8
		return abort(MsgBindingNotGranted + binding)
	}
	return nil
}

// delayInRange is the one home of the delay range, 0…MaxDelaySeconds (Q23,
// Q64): of a send, a batch item and a retry alike, and of what the in-memory
// platform accepts (a send's delay, a retry, the consumer's RetryDelay).
func delayInRange(d int) bool { return d >= 0 && d <= MaxDelaySeconds } // Q23 Q64 Q77

// bodyTooLarge is the one home of the body size limit (Q13, Q14, Q33): n
// bytes of a body's input or canonical text over MaxMessageBytes.
func bodyTooLarge(n int) bool { return n > MaxMessageBytes }

// bodyOptions are the queue's checks of a message body.
var bodyOptions = canonOptions{problemDepthLimit: MaxMessageDepth, markers: true}

// canonicalBody returns the canonical text of a message body, or the
// message of its first problem.
func canonicalBody(body []byte) ([]byte, string) {
	if bodyTooLarge(len(body)) { // Q13 Q79
		return nil, MsgBodyTooLarge // Q44
	}
	canon, info, err := canonical(nil, body, &bodyOptions)
	if err != nil { // Q18 Q78
		return nil, MsgBodyNotJSON // Q43
	}
	return canon, bodyProblem(canon, info)
}

// bodyProblem is the message for what canonical found in a syntactically
// valid body, "" when it may be sent.
func bodyProblem(canon []byte, info valueReport) string {
	switch info.problem.kind {
	case problemDeep: // Q16
		return MsgBodyTooDeep
	case problemMarker: // Q78
		return MsgBodyMarker
	case problemInf: // Q78
		return MsgBodyNotFinite
	}
	if bodyTooLarge(len(canon)) { // Q14
		return MsgBodyTooLarge // Q44
	}
	return ""
}

// Bindings is a deployment's queue bindings and the app's grants: what a
// Platform's Bound answers. Its zero value has none; it is safe for
// concurrent use. MemoryPlatform and natsqueue's Platform embed it, so the
// one reading of a permission text lives here.
type Bindings struct {
	mu      sync.Mutex
	queues  map[string]string // binding → queue name
	granted map[string]bool
}

// Bind configures binding to send to queue.
func (b *Bindings) Bind(binding, queue string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.queues == nil {
		b.queues = map[string]string{}
	}
	b.queues[binding] = queue
}

// Grant grants the bindings to the app.
func (b *Bindings) Grant(bindings ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.granted == nil {
		b.granted = map[string]bool{}
	}
	for _, name := range bindings {
		b.granted[name] = true
	}
}

// GrantJSON grants the bindings a host permission text such as
// {"QUEUE":["PAGE_QUEUE"]} lists under the key "QUEUE", spelled exactly so:
// a key in another case ("queue", "Queue") is another permission and grants
// nothing. The text must be a JSON object and its "QUEUE", when present, an
// array of strings; otherwise GrantJSON grants nothing and returns an error
// for the host (not an app's exception). A key repeated in the object counts
// with its last value, as JSON.parse reads an object.
func (b *Bindings) GrantJSON(permissions string) error {
	var perm map[string]json.RawMessage
	err := json.Unmarshal([]byte(permissions), &perm)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return hostError(msgPermissionsNotObject, err)
	}
	if err != nil || perm == nil {
		return hostError(msgPermissionsNotObject, nil)
	}
	q, present := perm["QUEUE"] // Q7
	if !present {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(q, &items); err != nil || items == nil {
		return hostError(msgPermissionsQueue, nil)
	}
	names := make([]string, len(items))
	for i, item := range items {
		if item[0] != '"' || json.Unmarshal(item, &names[i]) != nil {
			return hostError(msgPermissionsQueue, nil)
		}
	}
	b.Grant(names...)
	return nil
}

// Bound reports whether binding is granted to the app and configured: it
// implements Platform's Bound.
func (b *Bindings) Bound(binding string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.queues[binding]
	return ok && b.granted[binding]
}

// Queue returns the queue binding is configured to send to, granted or
// not.
func (b *Bindings) Queue(binding string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q, ok := b.queues[binding]
	return q, ok
}
