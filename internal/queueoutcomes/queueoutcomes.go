// Package queueoutcomes replays the rows of
// testdata/platform/queue-outcomes.json (their format is in
// testdata/README.md) on a platform: what it does with one message of a
// finished batch (hostbridge.Settle). hostbridge's tests run them on
// MemoryPlatform, natsqueue's on its embedded server, through Run and a
// Target each. It imports hostbridge, so only hostbridge's external tests
// (package hostbridge_test) can use it.
package queueoutcomes

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"

	"hostbridge"
)

// Row is one row of queue-outcomes.json.
type Row struct {
	Situation string   `json:"situation"`
	Clauses   []string `json:"clauses"`
	Settings  Settings `json:"settings"`
	Delivery  int      `json:"delivery"` // the delivery from the queue the calls are made in; the ones before fail
	Calls     []Call   `json:"calls"`
	Throws    bool     `json:"throws"`
	Expect    Expect   `json:"expect"`
}

// Settings are the row's consumer settings of the queue.
type Settings struct {
	MaxRetries     int  `json:"maxRetries"`
	RetryDelay     int  `json:"retryDelay"`
	DeadLetter     bool `json:"deadLetter"` // the queue's dead-letter queue is DLQ
	RedeliverAcked bool `json:"redeliverAcked"`
}

// Call is one call the handler makes on the message: ack, or retry with a
// delay.
type Call struct {
	Call         string `json:"call"`
	DelaySeconds int    `json:"delaySeconds"`
}

// Expect is what the platform must do with the message.
type Expect struct {
	Action       string `json:"action"`       // ack, retry, dead-letter or drop (hostbridge.Action's String)
	DelaySeconds int    `json:"delaySeconds"` // retry: seconds before the next delivery
	Attempts     int    `json:"attempts"`     // retry, dead-letter: the message's attempts on its next delivery
}

// The queues of a row: the message is on Queue; DLQ is its dead-letter
// queue when the row has one.
const (
	Queue = "q"
	DLQ   = "dlq"
)

// ErrThrown is what a handler returns when it throws (a row's throws, and
// every delivery before the row's).
var ErrThrown = errors.New("uncaught exception")

// Load reads the rows of the file at path.
func Load(t testing.TB, path string) []Row {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Rows []Row }
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Rows) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	return f.Rows
}

// Consumer is the row's consumer settings of Queue: batches ready at once
// (MaxBatchTimeout 0), the rest Cloudflare's defaults.
func (r Row) Consumer() hostbridge.ConsumerSettings {
	s := hostbridge.DefaultConsumerSettings()
	s.MaxBatchTimeout = 0
	s.MaxRetries, s.RetryDelay, s.RedeliverAcked = r.Settings.MaxRetries, r.Settings.RetryDelay, r.Settings.RedeliverAcked
	if r.Settings.DeadLetter {
		s.DeadLetterQueue = DLQ
	}
	return s
}

// Handle makes the row's calls on message 0 of ev's batch and returns what
// the row's handler returns.
func (r Row) Handle(ev hostbridge.Event) error {
	var errs []error
	for _, c := range r.Calls {
		switch c.Call {
		case "ack":
			errs = append(errs, hostbridge.AckQueueMessage(ev, 0))
		case "retry":
			errs = append(errs, hostbridge.RetryQueueMessage(ev, 0, c.DelaySeconds))
		default:
			errs = append(errs, fmt.Errorf("unknown call %q", c.Call))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if r.Throws {
		return ErrThrown
	}
	return nil
}

// Target is a platform a row runs on, as its test drives it.
type Target interface {
	SetConsumer(queue string, s hostbridge.ConsumerSettings) error
	Enqueue(queue string, m hostbridge.Message) error
	// Deliver waits for the next batch of queue, as long as a row's retry
	// may take, hands it to handler and reports what the platform did;
	// false when none came.
	Deliver(queue string, handler func(hostbridge.Event) error) (hostbridge.DeliveryResult, bool)
	// Quiet reports whether no batch of queue comes within seconds of the
	// platform's time.
	Quiet(queue string, seconds int) bool
	// Now is the platform's time, in seconds.
	Now() float64
}

// Run runs every row of the file at path, all at once, each on a new
// Target: newTarget gets the row's index, which it may use to keep the
// rows apart.
func Run(t *testing.T, path string, newTarget func(t *testing.T, row int) Target) {
	rows := Load(t, path)
	quiet := 1
	for _, r := range rows {
		quiet = max(quiet, r.Expect.DelaySeconds+1, r.Settings.RetryDelay+1)
	}
	for i, r := range rows {
		t.Run(r.Situation, func(t *testing.T) {
			t.Parallel()
			r.replay(t, newTarget(t, i), quiet)
		})
	}
}

// replay delivers the row's message until its delivery, checks what the
// platform reports and then where the message goes.
func (r Row) replay(t *testing.T, p Target, quiet int) {
	for q, s := range map[string]hostbridge.ConsumerSettings{Queue: r.Consumer(), DLQ: r.Consumer()} {
		if q == DLQ {
			s.DeadLetterQueue = ""
		}
		if err := p.SetConsumer(q, s); err != nil {
			t.Fatal(err)
		}
	}
	const id = "m"
	if err := p.Enqueue(Queue, hostbridge.Message{ID: id, Attempts: 1, Body: json.RawMessage(`{"row":1}`)}); err != nil {
		t.Fatal(err)
	}
	var done float64 // when the last handler returned
	handler := func(attempts int, h func(hostbridge.Event) error) func(hostbridge.Event) error {
		return func(ev hostbridge.Event) error {
			defer func() { done = p.Now() }()
			if ms := ev.Batch().Messages(); len(ms) != 1 || ms[0].ID != id || ms[0].Attempts != attempts {
				t.Errorf("delivered %+v, want message %s with attempts %d", ms, id, attempts)
			}
			return h(ev)
		}
	}
	for k := 1; k < r.Delivery; k++ {
		got, ok := p.Deliver(Queue, handler(k, func(hostbridge.Event) error { return ErrThrown }))
		if !ok || len(got.Retried) != 1 {
			t.Fatalf("delivery %d, failed: %+v (delivered %v), want it retried", k, got, ok)
		}
	}
	got, ok := p.Deliver(Queue, handler(r.Delivery, r.Handle))
	if !ok {
		t.Fatalf("delivery %d: nothing delivered", r.Delivery)
	}
	r.checkResult(t, got, id)
	r.checkNext(t, p, id, quiet, &done, handler)
}

// checkResult checks that the platform reports the message under the
// expected action, and nowhere else.
func (r Row) checkResult(t *testing.T, got hostbridge.DeliveryResult, id string) {
	outcome := hostbridge.OutcomeOK
	if r.Throws {
		outcome = hostbridge.OutcomeException
	}
	if got.Outcome != outcome {
		t.Errorf("outcome %q, want %q", got.Outcome, outcome)
	}
	var want hostbridge.DeliveryResult
	switch r.Expect.Action {
	case "ack":
		want.Acked = []string{id}
	case "retry":
		want.Retried = []hostbridge.RetryMessage{{ID: id, DelaySeconds: r.Expect.DelaySeconds}}
	case "dead-letter":
		want.DeadLettered = []hostbridge.DeadLetter{{ID: id, Queue: DLQ, Attempts: r.Delivery}}
	case "drop":
		want.Dropped = []string{id}
	default:
		t.Fatalf("unknown action %q", r.Expect.Action)
	}
	if !sameIDs(got.Acked, want.Acked) || !reflect.DeepEqual(got.Retried, want.Retried) ||
		!reflect.DeepEqual(got.DeadLettered, want.DeadLettered) || !sameIDs(got.Dropped, want.Dropped) {
		t.Errorf("platform did acked %v retried %+v dead-lettered %+v dropped %v, want %s %+v",
			got.Acked, got.Retried, got.DeadLettered, got.Dropped, r.Expect.Action, want)
	}
}

func sameIDs(a, b []string) bool { return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b)) }

// checkNext checks where the message goes next: back on Queue no sooner
// than its delay, to DLQ, or nowhere.
func (r Row) checkNext(t *testing.T, p Target, id string, quiet int, done *float64, handler func(int, func(hostbridge.Event) error) func(hostbridge.Event) error) {
	ok := func(hostbridge.Event) error { return nil }
	switch r.Expect.Action {
	case "retry":
		last := *done
		var waited float64
		_, came := p.Deliver(Queue, handler(r.Expect.Attempts, func(hostbridge.Event) error {
			waited = p.Now() - last
			return nil
		}))
		if !came {
			t.Errorf("retried message never came back")
		} else if waited < float64(r.Expect.DelaySeconds) {
			t.Errorf("retried message came back after %.2f s, before its %d s delay", waited, r.Expect.DelaySeconds)
		}
	case "dead-letter":
		if _, came := p.Deliver(DLQ, handler(r.Expect.Attempts, ok)); !came {
			t.Errorf("dead letter never delivered from %s", DLQ)
		}
	}
	if !p.Quiet(Queue, quiet) {
		t.Errorf("%s delivered the message again", Queue)
	}
	if r.Expect.Action != "dead-letter" && !p.Quiet(DLQ, 0) {
		t.Errorf("%s delivered a message", DLQ)
	}
}
