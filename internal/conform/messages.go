package conform

import (
	"encoding/json"
	"errors"
	"slices"
)

// Protocol is the protocol version this package speaks.
const Protocol = 1

// The message types.
const (
	TypeHello         = "hello"
	TypeCase          = "case"
	TypeResult        = "result"
	TypeProtocolError = "protocol_error"
)

// CanonicalJSON is the name of the protocol's own function.
const CanonicalJSON = "canonicalJSON"

// Hello is the handshake, both ways (the runner sends only Type and
// Protocol).
type Hello struct {
	Type       string   `json:"type"`
	Protocol   int      `json:"protocol"`
	Adapter    string   `json:"adapter,omitempty"`
	Specs      []string `json:"specs,omitempty"`
	Functions  []string `json:"functions,omitempty"`
	Events     []string `json:"events,omitempty"`
	Targets    bool     `json:"targets,omitempty"`
	Redelivery bool     `json:"redelivery,omitempty"`
	// BodyObservations are the parts of a request body's state the adapter
	// can see ("pulls", "canceled", "used"); nil: all three.
	BodyObservations []string `json:"bodyObservations,omitempty"`
}

// Observes reports whether the adapter reports the body observation what.
func (h *Hello) Observes(what string) bool {
	return h.BodyObservations == nil || slices.Contains(h.BodyObservations, what)
}

// Case is one case: an event, a platform, the calls, how a queue event's
// handler ends.
type Case struct {
	Type     string    `json:"type"`
	ID       int       `json:"id"`
	Row      string    `json:"row"`
	Event    *Event    `json:"event"`
	Platform *Platform `json:"platform"`
	Calls    []Call    `json:"calls"`
	End      *End      `json:"end,omitempty"`
}

// Event is the current event of a case.
type Event struct {
	Kind    string   `json:"kind"`
	Request *Request `json:"request"`
	Batch   *Batch   `json:"batch"`
}

// Request is an event's request: a URL, or a raw target with TLS.
type Request struct {
	Method  Bytes      `json:"method"`
	URL     *Bytes     `json:"url,omitempty"`
	Target  *Bytes     `json:"target,omitempty"`
	TLS     bool       `json:"tls,omitempty"`
	Headers [][2]Bytes `json:"headers"`
	Body    *Body      `json:"body"`
}

// Body is a request's body stream: one chunk per pull. The chunks are
// Chunks, or Bytes cut into chunks of ChunkSize bytes (the last one
// shorter) when Bytes is set.
type Body struct {
	Chunks    []Bytes `json:"chunks"`
	Bytes     *Bytes  `json:"bytes,omitempty"`
	ChunkSize int     `json:"chunkSize,omitempty"`
	Used      bool    `json:"used"`
	Fail      *Bytes  `json:"fail"`
}

// AllChunks are the body's chunks; an error for Bytes without a ChunkSize.
func (b *Body) AllChunks() ([][]byte, error) {
	out := [][]byte{}
	for _, c := range b.Chunks {
		out = append(out, c.Bytes())
	}
	if b.Bytes == nil {
		return out, nil
	}
	if b.ChunkSize < 1 || len(b.Chunks) > 0 {
		return nil, errors.New("body: bytes needs a chunkSize of 1 or more, and no chunks")
	}
	whole := b.Bytes.Bytes()
	for i := 0; i < len(whole); i += b.ChunkSize {
		out = append(out, whole[i:min(i+b.ChunkSize, len(whole))])
	}
	return out, nil
}

// Batch is the batch a queue event carries, as the platform holds it.
type Batch struct {
	Queue    string    `json:"queue"`
	Messages []Message `json:"messages"`
}

// Message is one message of a batch.
type Message struct {
	ID        string `json:"id"`
	Attempts  int    `json:"attempts"`
	Timestamp int64  `json:"timestamp"` // Unix milliseconds
	Body      Bytes  `json:"body"`
}

// Platform is the queue producer's platform.
type Platform struct {
	Permissions json.RawMessage   `json:"permissions"`
	Bindings    map[string]string `json:"bindings"`
	FailNext    *string           `json:"failNext"`
}

// Call is one call: a function by its name, and its arguments in order.
type Call struct {
	Function string            `json:"function"`
	Args     []json.RawMessage `json:"args"`
}

// End is how a queue event's handler ends.
type End struct {
	Throws bool `json:"throws"`
}

// Result is the answer to a case, or a protocol error (Type
// TypeProtocolError, with Message).
type Result struct {
	Type        string       `json:"type"`
	ID          *int         `json:"id"`
	Calls       []Answer     `json:"calls,omitempty"`
	Outcome     *string      `json:"outcome,omitempty"`
	Redelivered []Redelivery `json:"redelivered,omitempty"`
	Message     string       `json:"message,omitempty"`
}

// Answer is what one call did: Value (with Status for a bounded body
// reader) or Error, and what the platform saw.
type Answer struct {
	Value    json.RawMessage `json:"value,omitempty"`
	Status   *int            `json:"status,omitempty"`
	Error    *Exception      `json:"error,omitempty"`
	Platform []PlatformCall  `json:"platform"`
	Body     *BodyState      `json:"body,omitempty"`
}

// Exception is a spec exception: its kind and exact text.
type Exception struct {
	Kind    string `json:"kind"` // violation, failure or abort
	Message string `json:"message"`
}

// PlatformCall is one call the host made to the platform: send or
// sendBatch of a binding, or ack or retry of a batch's message.
type PlatformCall struct {
	Method   string        `json:"method"`
	Binding  string        `json:"binding,omitempty"`
	Messages []SentMessage `json:"messages,omitempty"`
	Error    *string       `json:"error,omitempty"`
	N        *int          `json:"n,omitempty"`
	Options  *Options      `json:"options,omitempty"`
}

// SentMessage is one message of a send or sendBatch.
type SentMessage struct {
	Body    Bytes   `json:"body"`
	Options Options `json:"options"`
}

// Options are a send's or a retry's options, each present only when
// passed.
type Options struct {
	ContentType  *string `json:"contentType,omitempty"`
	DelaySeconds *int    `json:"delaySeconds,omitempty"`
}

// BodyState is a request body after a call.
type BodyState struct {
	Pulls    int  `json:"pulls"`
	Canceled bool `json:"canceled"`
	Used     bool `json:"used"`
}

// Redelivery is a message the platform delivers again.
type Redelivery struct {
	ID           string `json:"id"`
	Attempts     int    `json:"attempts"`
	DelaySeconds int    `json:"delaySeconds"`
}

// CanonOptions are canonicalJSON's options.
type CanonOptions struct {
	MaxDepth  int  `json:"maxDepth"`
	DeepOver  int  `json:"deepOver"`
	Markers   bool `json:"markers"`
	InfToNull bool `json:"infToNull"`
}

// CanonResult is canonicalJSON's value: the canonical text, depth and first
// problem of valid JSON, or its syntax error.
type CanonResult struct {
	Canonical   *Bytes       `json:"canonical,omitempty"`
	Depth       *int         `json:"depth,omitempty"`
	Problem     string       `json:"problem,omitempty"` // none, deep, marker or inf
	Off         *int         `json:"off,omitempty"`
	SyntaxError *SyntaxError `json:"syntaxError,omitempty"`
}

// SyntaxError is the reason and byte offset of invalid JSON.
type SyntaxError struct {
	Reason string `json:"reason"`
	Off    int    `json:"off"`
}
