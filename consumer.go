package hostbridge

import "time"

// Event is the current host invocation.
type Event interface {
	// Kind is the event kind text (fetch, queue, scheduled, …); it must not
	// change during one invocation.
	Kind() string
	// Request is the current HTTP request, or nil when the event carries none.
	// The package ignores it unless Kind is fetch, service-fetch or durable-fetch.
	Request() Request
	// Batch is the current queue batch, or nil unless Kind is queue.
	Batch() Batch
}

// Batch is the message batch of a queue event (Cloudflare's MessageBatch).
type Batch interface {
	// Queue is the name of the queue the batch came from.
	Queue() string
	// Messages must return the same messages in the same order on every call
	// during the event: their index is what AckQueueMessage and
	// RetryQueueMessage name.
	Messages() []Message
	// Ack marks message i as done (message.ack()). The package calls it only
	// with 0 <= i < len(Messages()). What a repeated or conflicting call does
	// is the platform's business.
	Ack(i int)
	// Retry asks for message i to be delivered again (message.retry()), after
	// delaySeconds, or the platform's default delay when it is 0. The package
	// calls it only with a valid i and 0 <= delaySeconds <= MaxDelaySeconds.
	Retry(i, delaySeconds int)
}

// Message is one message of a batch.
type Message struct {
	ID        string
	Timestamp time.Time
	Attempts  int
	// Body is a json.RawMessage holding the JSON value; any other Go value
	// (time.Time, []byte, a map, NaN, …) is not a JSON value.
	Body any
}

// KindQueue is the event kind of a queue batch.
const KindQueue = "queue"
