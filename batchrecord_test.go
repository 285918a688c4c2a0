package hostbridge

import (
	"reflect"
	"testing"
)

// TestBatchRecordRules checks the rules every platform's Batch keeps: the
// first of Ack and Retry wins, a second Retry replaces the delay, indexes
// and delays out of range are ignored, and so is every call after Close.
// Pins D26.
func TestBatchRecordRules(t *testing.T) {
	// Pins Q52, Q61, Q67.
	msgs := []Message{{ID: "m0"}, {ID: "m1"}, {ID: "m2"}, {ID: "m3"}, {ID: "m4"}}
	b := NewBatchRecord("q", msgs)
	var _ Batch = b
	b.Retry(1, 5) // m1: retry first, the ack below loses
	b.Ack(0)      // m0: ack first, the retry below loses
	b.Retry(0, 7)
	b.Ack(1)
	b.Retry(2, 9) // m2: the second retry's delay replaces the first's
	b.Retry(2, 0)
	b.Ack(-1) // out of range: ignored
	b.Ack(5)
	b.Retry(5, 1)
	b.Retry(3, -1)
	b.Retry(3, MaxDelaySeconds+1)
	b.Retry(4, MaxDelaySeconds) // the largest delay is in range
	b.Close()
	b.Ack(3) // after Close: ignored
	b.Retry(3, 1)
	b.Retry(4, 1)

	want := []MessageOutcome{
		{Acked: true},
		{Retried: true, DelaySeconds: 5},
		{Retried: true, DelaySeconds: 0},
		{},
		{Retried: true, DelaySeconds: MaxDelaySeconds},
	}
	for i, w := range want {
		if got := b.Outcome(i); got != w {
			t.Errorf("Outcome(%d) = %+v, want %+v", i, got, w)
		}
	}
	if got := b.Outcome(5); got != (MessageOutcome{}) {
		t.Errorf("Outcome(5) = %+v, want untouched", got)
	}
	var r DeliveryResult
	b.ReportCalls(&r)
	wantRetries := []RetryMessage{{"m1", 5}, {"m2", 0}, {"m4", MaxDelaySeconds}}
	if !reflect.DeepEqual(r.ExplicitAcks, []string{"m0"}) || !reflect.DeepEqual(r.RetryMessages, wantRetries) {
		t.Errorf("ReportCalls: acks %v retries %v, want [m0] %v", r.ExplicitAcks, r.RetryMessages, wantRetries)
	}
	if b.Queue() != "q" || len(b.Messages()) != len(msgs) {
		t.Errorf("Queue %q, %d messages", b.Queue(), len(b.Messages()))
	}
}

// TestBatchRecordNegativeIndex pins that a BatchRecord ignores
// a negative index as it ignores one past the end: Ack(-1) and Retry(-1, d)
// change no outcome and report no call, and Outcome(-1) is untouched.
// (The consumer functions refuse such an index first; a platform's
// handler may call the Batch directly.)
// Pins D26.
func TestBatchRecordNegativeIndex(t *testing.T) {
	b := NewBatchRecord("q", []Message{{ID: "m0"}, {ID: "m1"}})
	b.Ack(-1)
	b.Retry(-1, 0)
	b.Retry(-1, 5)
	b.Retry(-2, 1)
	b.Close()
	for i := -2; i < 3; i++ {
		if got := b.Outcome(i); got != (MessageOutcome{}) {
			t.Errorf("Outcome(%d) = %+v, want untouched", i, got)
		}
	}
	var r DeliveryResult
	b.ReportCalls(&r)
	if r.ExplicitAcks != nil || r.RetryMessages != nil {
		t.Errorf("calls reported: %v, %v", r.ExplicitAcks, r.RetryMessages)
	}
}
