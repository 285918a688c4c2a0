package hostbridge

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf16"
)

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

// BodyValue returns the Body a consumer gets for a message sent with body
// and contentType: a json.RawMessage for "json" (and for "", Cloudflare's
// default), a string for "text", body itself for any other type. A
// delivering Platform calls it for every message it delivers.
func BodyValue(contentType string, body []byte) any {
	switch contentType {
	case "", contentTypeJSON:
		return json.RawMessage(body)
	case "text":
		return string(body)
	}
	return body
}

// EventQueue is the event kind of a queue batch (事件种类 queue).
const EventQueue = "queue"

// ConsumerSettings configure the consumer of one queue, as a Cloudflare
// queue consumer's settings do. DefaultConsumerSettings gives Cloudflare's
// defaults.
type ConsumerSettings struct {
	// MaxBatchSize is the most messages in one batch: 1 to 100 (default 10).
	MaxBatchSize int
	// MaxBatchTimeout is how long the oldest ready message waits for a batch
	// to fill: 0 to 60 s (default 5 s).
	MaxBatchTimeout time.Duration
	// MaxRetries is how many times a failing message is redelivered before it
	// is dead-lettered or dropped: 0 to 100 (default 3).
	MaxRetries int
	// RetryDelay is the delay in seconds of retry(0) and of a failed batch:
	// 0 to MaxDelaySeconds (default 0).
	RetryDelay int
	// DeadLetterQueue is where messages go after MaxRetries; "" drops them.
	// It must not be the queue itself.
	DeadLetterQueue string
	// RedeliverAcked redelivers explicitly acked messages when the batch
	// fails, as Miniflare does; false leaves them done, as Cloudflare's
	// production queues do.
	RedeliverAcked bool
}

// DefaultConsumerSettings returns Cloudflare's defaults: batches of 10, a 5 s
// batch timeout, 3 retries, no retry delay, no dead-letter queue, acked
// messages not redelivered.
func DefaultConsumerSettings() ConsumerSettings {
	return ConsumerSettings{MaxBatchSize: 10, MaxBatchTimeout: 5 * time.Second, MaxRetries: 3}
}

// CheckConsumerSettings returns an error when a setting of s is out of
// range for queue (or names queue as its own dead-letter queue), else nil.
// Every Platform's SetConsumer calls it.
func CheckConsumerSettings(queue string, s ConsumerSettings) error {
	switch {
	case s.MaxBatchSize < 1 || s.MaxBatchSize > maxConsumerBatchSize:
		return fmt.Errorf(msgMaxBatchSizeRange, s.MaxBatchSize, maxConsumerBatchSize)
	case s.MaxBatchTimeout < 0 || s.MaxBatchTimeout > maxConsumerBatchTimeout:
		return fmt.Errorf(msgMaxBatchTimeoutRange, s.MaxBatchTimeout, maxConsumerBatchTimeout)
	case s.MaxRetries < 0 || s.MaxRetries > maxConsumerRetries:
		return fmt.Errorf(msgMaxRetriesRange, s.MaxRetries, maxConsumerRetries)
	case !delayInRange(s.RetryDelay):
		return fmt.Errorf(msgRetryDelayRange, s.RetryDelay, MaxDelaySeconds)
	case s.DeadLetterQueue != "" && s.DeadLetterQueue == queue:
		return fmt.Errorf(msgOwnDeadLetterQueue, queue)
	}
	return nil
}

// ReadQueueBatch returns the current queue batch as JSON text,
// {"queue":…,"messages":[{"id":…,"attempts":…,"timestamp":…,"body":…},…]},
// keys in that order, without whitespace. It acks and retries nothing.
//
// It is 读取队列批次 of 消息队列 0.1.0 (消费者). Rules, in order of checking:
//
//  1. A queue event, else Violation MsgNotQueueEvent (Q50, Q51).
//  2. For each message in order, its body is a JSON value (Q57, Q58): a Body
//     that is not a json.RawMessage, is not valid JSON or holds a number that
//     parses to ±Infinity is Violation MsgMessageNotJSON + n.
//  3. Q59: a body nested deeper than MaxReadDepth is Abort
//     MsgMessageTooDeep + n.
//
// Q53–Q56: messages keep the platform's order, attempts are written as the
// platform gives them, the timestamp as Unix milliseconds. Bodies are written
// canonically (JSON.stringify(JSON.parse(body))); reserved `$` keys pass,
// since only the producer rejects them.
func ReadQueueBatch(ev Event) (string, error) {
	b, err := queueBatch(ev)
	if err != nil {
		return "", err
	}
	msgs := b.Messages() // Q54
	size := 32 + len(b.Queue())
	for _, m := range msgs {
		size += 64 + len(m.ID)
		if raw, ok := m.Body.(json.RawMessage); ok {
			size += len(raw)
		}
	}
	dst := make([]byte, 0, size)
	dst = append(dst, `{"queue":`...) // Q53
	dst = appendQuoted(dst, b.Queue())
	dst = append(dst, `,"messages":[`...)
	for n, m := range msgs {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = appendQuoted(dst, m.ID)
		dst = append(dst, `,"attempts":`...)
		dst = strconv.AppendInt(dst, int64(m.Attempts), 10) // Q84
		dst = append(dst, `,"timestamp":`...)
		dst = strconv.AppendInt(dst, m.Timestamp.UnixMilli(), 10) // Q56 Q84
		dst = append(dst, `,"body":`...)
		raw, ok := m.Body.(json.RawMessage)
		if !ok {
			return "", violation(MsgMessageNotJSON + strconv.Itoa(n)) // Q58
		}
		var info valueReport
		dst, info, err = canonical(dst, raw, &canonOptions{}) // Q27
		if err != nil || info.problem.kind == problemInf {    // Q57
			return "", &Error{Kind: Violation, Msg: MsgMessageNotJSON + strconv.Itoa(n), Err: err} // Q58
		}
		if info.depth > MaxReadDepth { // Q59
			return "", abort(MsgMessageTooDeep + strconv.Itoa(n))
		}
		dst = append(dst, '}')
	}
	dst = append(dst, "]}"...)
	return string(dst), nil
}

// appendQuoted appends the Go string s (a queue name, a message ID) as
// JSON.stringify writes the String a host makes of it: s decoded as
// TextDecoder decodes UTF-8 (each maximal subpart of an ill-formed sequence
// one U+FFFD, as the query readers decode), then quoteJSONString.
func appendQuoted(dst []byte, s string) []byte {
	return quoteJSONString(dst, utf16.Encode([]rune(utf8DecodeWithoutBOM(s))))
}

// AckQueueMessage marks message n of the current queue batch as done
// (message.ack()) by calling the batch's Ack, and returns nil, or the first
// problem it found.
//
// It is 确认队列消息 of 消息队列 0.1.0 (消费者, Q60). Rules, in order of
// checking:
//
//  1. A queue event, else Violation MsgNotQueueEvent (Q50, Q51).
//  2. The index, 0 <= n < the batch's message count, else Violation
//     MsgMessageIndex (Q65).
//
// Then the call goes to Batch.Ack. The package keeps no state of its own:
// "对同一条消息重复确认、重试或先确认后重试，效果以平台为准".
func AckQueueMessage(ev Event, n int) error {
	b, err := queueBatch(ev)
	if err != nil {
		return err
	}
	if err := messageIndex(b, n); err != nil {
		return err
	}
	b.Ack(n) // Q60
	return nil
}

// RetryQueueMessage asks for message n of the current queue batch to be
// delivered again after delaySeconds (message.retry({delaySeconds})), or
// after the platform's default delay when delaySeconds is 0, by calling the
// batch's Retry; it returns nil, or the first problem it found.
//
// It is 重试队列消息 of 消息队列 0.1.0 (消费者, Q62). Rules, in order of
// checking:
//
//  1. A queue event, else Violation MsgNotQueueEvent (Q50, Q51).
//  2. The index, 0 <= n < the batch's message count, else Violation
//     MsgMessageIndex (Q65).
//  3. The delay (Q63, Q64, Q66): outside 0…MaxDelaySeconds is Violation
//     MsgDelayRange; 0 is the platform's default delay.
//
// Then the call goes to Batch.Retry; the package keeps no state of its own.
func RetryQueueMessage(ev Event, n, delaySeconds int) error {
	b, err := queueBatch(ev)
	if err != nil {
		return err
	}
	if err := messageIndex(b, n); err != nil {
		return err
	}
	if !delayInRange(delaySeconds) {
		return violation(MsgDelayRange) // Q66
	}
	b.Retry(n, delaySeconds) // Q62 Q85
	return nil
}

// queueBatch is the check every consumer function makes first (Q50, Q51):
// a queue event with a batch, else Violation MsgNotQueueEvent.
func queueBatch(ev Event) (Batch, error) {
	if ev != nil && ev.Kind() == EventQueue { // Q50 Q88
		if b := ev.Batch(); b != nil {
			return b, nil
		}
	}
	return nil, violation(MsgNotQueueEvent) // Q51
}

// messageIndex is the index check of AckQueueMessage and RetryQueueMessage
// (Q65): 0 <= n < the batch's message count, else Violation MsgMessageIndex.
func messageIndex(b Batch, n int) error {
	if n < 0 || n >= len(b.Messages()) { // Q86
		return violation(MsgMessageIndex) // Q65
	}
	return nil
}
