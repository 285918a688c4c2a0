// Package queuevectors reads the rows of testdata/queue-consumer.json (their
// format is in testdata/README.md) for the consumer tests of hostbridge and
// of natsqueue, which replay the same rows on their own platforms. It must
// not import hostbridge: hostbridge's own tests import it.
package queuevectors

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// Row is one row of queue-consumer.json.
type Row struct {
	Situation   string       `json:"情境"`
	Observe     string       `json:"必须观察到"`
	Event       string       `json:"event"`
	Queue       string       `json:"queue"`
	Batch       []Message    `json:"batch"`
	Steps       []Step       `json:"steps"`
	Throws      bool         `json:"throws"`
	Platform    []Call       `json:"platform"`
	Outcome     *string      `json:"outcome"`
	Redelivered []Redelivery `json:"redelivered"`
}

// Message is one message of a row's batch.
type Message struct {
	ID        string `json:"id"`
	Attempts  int    `json:"attempts"`
	Timestamp int64  `json:"timestamp"` // Unix milliseconds
	Body      string `json:"body"`
}

// Step is one consumer call the handler makes, with what it must return.
type Step struct {
	Call         string  `json:"call"` // the spec function: 读取队列批次, 确认队列消息 or 重试队列消息
	N            int     `json:"n"`
	DelaySeconds int     `json:"delaySeconds"`
	Expect       *string `json:"expect"`
	Error        *Error  `json:"error"`
}

// Error is how a vector writes an expected exception.
type Error struct {
	Kind    string `json:"kind"` // violation, failure or abort
	Message string `json:"message"`
}

// Call is one call the platform must receive.
type Call struct {
	Call         string `json:"call"` // ack or retry
	N            int    `json:"n"`
	DelaySeconds int    `json:"delaySeconds,omitempty"`
}

// Redelivery is one message the platform must deliver again.
type Redelivery struct {
	ID           string `json:"id"`
	Attempts     int    `json:"attempts"`
	DelaySeconds int    `json:"delaySeconds"`
}

// retry is one retry call a platform must receive: the message's ID and
// the delay (fmt prints it as hostbridge.RetryMessage prints).
type retry struct {
	ID           string
	DelaySeconds int
}

// wantCalls is what a platform must report of the handler's calls in this
// row, in getQueueResult's shape: the IDs explicitly acked, and the
// messages retried with their delays, each in the order of its first call.
func (r Row) wantCalls() (acks []string, retries []retry) {
	for _, c := range r.Platform {
		switch c.Call {
		case "ack":
			acks = append(acks, r.Batch[c.N].ID)
		case "retry":
			retries = append(retries, retry{r.Batch[c.N].ID, c.DelaySeconds})
		}
	}
	return acks, retries
}

// CheckResult fails tb unless a platform's result of this row's delivery
// (a hostbridge.DeliveryResult's Outcome, ExplicitAcks and RetryMessages)
// is what the row says.
func (r Row) CheckResult(tb testing.TB, outcome string, explicitAcks []string, retryMessages any) {
	tb.Helper()
	if outcome != *r.Outcome {
		tb.Errorf("outcome = %q, want %q", outcome, *r.Outcome)
	}
	acks, retries := r.wantCalls()
	if fmt.Sprint(explicitAcks, retryMessages) != fmt.Sprint(acks, retries) {
		tb.Errorf("explicitAcks %v, retryMessages %v; want %v, %v", explicitAcks, retryMessages, acks, retries)
	}
}

// Load reads the rows of the queue-consumer.json at path; a file that cannot
// be read or parsed fails tb.
func Load(tb testing.TB, path string) []Row {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct{ Rows []Row }
	if err := json.Unmarshal(data, &doc); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return doc.Rows
}
