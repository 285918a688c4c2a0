package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"hostbridge"
	"hostbridge/internal/queuevectors"
)

var kinds = map[string]hostbridge.ErrorKind{"violation": hostbridge.Violation, "failure": hostbridge.Failure, "abort": hostbridge.Abort}

// runSteps makes the row's calls in ev, each named by its spec function, and
// reports every difference.
func runSteps(t *testing.T, ev hostbridge.Event, steps []queuevectors.Step) {
	t.Helper()
	for i, s := range steps {
		var err error
		switch s.Call {
		case "读取队列批次":
			var got string
			got, err = hostbridge.ReadQueueBatch(ev)
			if s.Expect != nil && got != *s.Expect {
				t.Errorf("step %d 读取队列批次:\n got %s\nwant %s", i, got, *s.Expect)
			}
		case "确认队列消息":
			err = hostbridge.AckQueueMessage(ev, s.N)
		case "重试队列消息":
			err = hostbridge.RetryQueueMessage(ev, s.N, s.DelaySeconds)
		default:
			t.Fatalf("step %d: unknown call %q", i, s.Call)
		}
		var e *hostbridge.Error
		switch {
		case s.Error == nil && err != nil:
			t.Errorf("step %d %s: unexpected error %v", i, s.Call, err)
		case s.Error != nil && (!errors.As(err, &e) || e.Msg != s.Error.Message || e.Kind != kinds[s.Error.Kind]):
			t.Errorf("step %d %s: error %v, want %s %q", i, s.Call, err, s.Error.Kind, s.Error.Message)
		}
	}
}

// retryUnitForRows makes a retry delay's second this long, so that the
// rows' 30 s retries come back in real time within a test (the real-time
// analogue of MemoryPlatform's virtual clock).
const retryUnitForRows = 50 * time.Millisecond

// TestConsumerVectors replays every queue row of queue-consumer.json on an
// embedded single node: the calls the platform took, the outcome, and the
// redeliveries with their attempts, after their delays.
func TestConsumerVectors(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	replayRows(t, openSingle(t))
}

func replayRows(t *testing.T, p *Platform) {
	rows := queuevectors.Load(t, "../testdata/queue-consumer.json")
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for i, row := range rows {
		if row.Event != hostbridge.EventQueue {
			continue
		}
		t.Run(row.Situation, func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("情境: %s\n必须观察到: %s", row.Situation, row.Observe)
				}
			}()
			// Each row has a namespace of its own: the rows share IDs.
			replayRow(t, p.sharing(fmt.Sprintf("ROW%d", i)), row.Queue, row)
		})
	}
}

// sharing is a Platform on p's connection whose names start with prefix.
func (p *Platform) sharing(prefix string) *Platform {
	o := p.opts
	o.Prefix = prefix
	s := newPlatform(o)
	s.nc, s.js, s.idBase, s.retryUnit = p.nc, p.js, p.idBase, retryUnitForRows
	return s
}

func replayRow(t *testing.T, p *Platform, queue string, row queuevectors.Row) {
	setConsumer(t, p, queue, func(s *hostbridge.ConsumerSettings) {
		s.MaxBatchSize, s.MaxBatchTimeout = len(row.Batch), 200*time.Millisecond
	})
	for _, m := range row.Batch {
		hm := hostbridge.Message{ID: m.ID, Attempts: m.Attempts, Timestamp: time.UnixMilli(m.Timestamp), Body: json.RawMessage(m.Body)}
		if _, err := p.Enqueue(context.Background(), queue, hm, 0); err != nil {
			t.Fatal(err)
		}
	}
	// done is taken as the handler returns, before the platform schedules
	// any retry: the earliest a redelivery may come is measured from it.
	var done time.Time
	r, ok := deliverWithin(t, p, queue, 30*time.Second, func(ev hostbridge.Event) error {
		runSteps(t, ev, row.Steps)
		done = time.Now()
		if row.Throws {
			return errors.New("uncaught exception")
		}
		return nil
	})
	if !ok {
		t.Fatal("no batch delivered")
	}
	row.CheckResult(t, r.Outcome, r.ExplicitAcks, r.RetryMessages)
	checkRedelivered(t, p, queue, row, r, done)
}

// checkRedelivered receives the redeliveries the row expects: the same
// messages with their attempts, none before its delay, then nothing more.
func checkRedelivered(t *testing.T, p *Platform, queue string, row queuevectors.Row, r hostbridge.DeliveryResult, done time.Time) {
	delays := map[string]int{}
	for _, rm := range r.Retried {
		delays[rm.ID] = rm.DelaySeconds
	}
	var got []queuevectors.Redelivery
	for len(got) < len(row.Redelivered) {
		_, ok := deliverWithin(t, p, queue, 30*time.Second, func(ev hostbridge.Event) error {
			for _, m := range ev.Batch().Messages() {
				d := delays[m.ID]
				if early := done.Add(time.Duration(d) * retryUnitForRows).Sub(time.Now()); early > 0 {
					t.Errorf("%s redelivered %v before its %d s delay", m.ID, early, d)
				}
				got = append(got, queuevectors.Redelivery{ID: m.ID, Attempts: m.Attempts, DelaySeconds: d})
			}
			return nil
		})
		if !ok {
			break
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Attempts < got[j].Attempts })
	if len(got) != len(row.Redelivered) || (len(got) > 0 && !reflect.DeepEqual(got, row.Redelivered)) {
		t.Errorf("redelivered = %+v, want %+v", got, row.Redelivered)
	}
	if r, ok := deliverWithin(t, p, queue, 300*time.Millisecond, nil); ok {
		t.Errorf("delivered again: %+v", r)
	}
}
