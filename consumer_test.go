package hostbridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"hostbridge/internal/queuevectors"
)

// The rows of testdata/queue-consumer.json, under the names these tests use.
type (
	consumerRow   = queuevectors.Row
	consumerStep  = queuevectors.Step
	platformCall  = queuevectors.Call
	redeliveryRow = queuevectors.Redelivery
)

func loadConsumerRows(tb testing.TB) []consumerRow {
	return queuevectors.Load(tb, "testdata/queue-consumer.json")
}

// rowMessage is the Message a row's batch item stands for.
func rowMessage(r queuevectors.Message) Message {
	return Message{ID: r.ID, Attempts: r.Attempts, Timestamp: time.UnixMilli(r.Timestamp), Body: json.RawMessage(r.Body)}
}

// recBatch is a Batch that records every call it gets.
type recBatch struct {
	queue string
	msgs  []Message
	calls []platformCall
}

func (b *recBatch) Queue() string       { return b.queue }
func (b *recBatch) Messages() []Message { return b.msgs }
func (b *recBatch) Ack(i int)           { b.calls = append(b.calls, platformCall{Call: "ack", N: i}) }
func (b *recBatch) Retry(i, d int) {
	b.calls = append(b.calls, platformCall{Call: "retry", N: i, DelaySeconds: d})
}

// testEvent is an Event of any kind, with or without a batch.
type testEvent struct {
	kind  string
	batch Batch
}

func (e testEvent) Kind() string     { return e.kind }
func (e testEvent) Request() Request { return nil }
func (e testEvent) Batch() Batch     { return e.batch }

// checkErr and rowError are errorDiff and wantError under the names
// memory_test.go still uses.
type rowError = wantError

func checkErr(err error, want *wantError) error {
	if d := errorDiff(err, want); d != "" {
		return errors.New(d)
	}
	return nil
}

// runSteps makes the row's calls in ev; it reports every difference.
func runSteps(t *testing.T, ev Event, steps []consumerStep) {
	t.Helper()
	for i, s := range steps {
		r, err := callSpec(t, s.Call, specArgs{Event: ev, N: s.N, DelaySeconds: s.DelaySeconds})
		if got, _ := r.Value.(string); s.Expect != nil && got != *s.Expect {
			t.Errorf("step %d %s:\n got %s\nwant %s", i, s.Call, got, *s.Expect)
		}
		if e := errorDiff(err, (*wantError)(s.Error)); e != "" {
			t.Errorf("step %d %s: %v", i, s.Call, e)
		}
	}
}

// TestQueueConsumerConformance runs testdata/queue-consumer.json twice: on a
// Batch that records its calls, and on MemoryPlatform, whose outcome and
// redelivery the rows also give.
// Pins D24, D26.
func TestQueueConsumerConformance(t *testing.T) {
	// Pins Q27, Q42, Q53, Q54, Q60, Q62, Q68, Q69, Q84, Q85, Q86, Q87, Q88.
	rows := loadConsumerRows(t)
	if len(rows) != 5 {
		t.Fatalf("%d rows, want the spec's last 5", len(rows))
	}
	for _, row := range rows {
		t.Run(row.Situation, func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("情境: %s\n必须观察到: %s", row.Situation, row.Observe)
				}
			}()
			var rec *recBatch
			ev := testEvent{kind: row.Event}
			if row.Batch != nil {
				rec = &recBatch{queue: row.Queue}
				for _, m := range row.Batch {
					rec.msgs = append(rec.msgs, rowMessage(m))
				}
				ev.batch = rec
			}
			runSteps(t, ev, row.Steps)
			if rec != nil && !equalCalls(rec.calls, row.Platform) {
				t.Errorf("platform calls = %v, want %v", rec.calls, row.Platform)
			}
			if row.Event != EventQueue {
				return
			}
			t.Run("MemoryPlatform", func(t *testing.T) { runRowOnMemory(t, row) })
		})
	}
}

func equalCalls(got, want []platformCall) bool {
	return len(got) == len(want) && (len(got) == 0 || reflect.DeepEqual(got, want))
}

func runRowOnMemory(t *testing.T, row consumerRow) {
	p := NewMemoryPlatform()
	p.VirtualClock(time.Unix(1800000000, 0))
	s := DefaultConsumerSettings()
	s.MaxBatchSize = len(row.Batch)
	if err := p.SetConsumer(row.Queue, s); err != nil {
		t.Fatal(err)
	}
	for _, m := range row.Batch {
		p.Enqueue(row.Queue, rowMessage(m), 0)
	}
	r, ok := p.Deliver(row.Queue, func(ev Event) error {
		runSteps(t, ev, row.Steps)
		if row.Throws {
			return errors.New("uncaught exception")
		}
		return nil
	})
	if !ok {
		t.Fatal("no batch delivered")
	}
	row.CheckResult(t, r.Outcome, r.ExplicitAcks, r.RetryMessages)
	var again []redeliveryRow
	for _, rm := range r.Retried {
		again = append(again, redeliveryRow{ID: rm.ID, DelaySeconds: rm.DelaySeconds})
	}
	// The next deliveries: their attempts.
	q := p.Queued(row.Queue)
	if len(q) != len(again) {
		t.Fatalf("queued %d messages after the event, want %d", len(q), len(again))
	}
	for i := range again {
		if q[i].ID != again[i].ID {
			t.Fatalf("queued[%d] = %s, want %s", i, q[i].ID, again[i].ID)
		}
		again[i].Attempts = q[i].Attempts
	}
	if len(again) != len(row.Redelivered) || (len(again) > 0 && !reflect.DeepEqual(again, row.Redelivered)) {
		t.Errorf("redelivered = %+v, want %+v", again, row.Redelivered)
	}
}

// TestConsumerIndexAndDelayLimits checks n at -1, 0, len-1, len and the
// retry delay at -1, 0, 1, MaxDelaySeconds, MaxDelaySeconds+1.
// Pins D1, D17.
func TestConsumerIndexAndDelayLimits(t *testing.T) {
	// Pins Q64, Q65, Q66, Q86.
	msgs := []Message{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	for _, tc := range []struct {
		n  int
		ok bool
	}{{-1, false}, {0, true}, {len(msgs) - 1, true}, {len(msgs), false}, {math.MinInt, false}, {math.MaxInt, false}} {
		for _, call := range []string{"ack", "retry"} {
			b := &recBatch{msgs: msgs}
			ev := testEvent{kind: EventQueue, batch: b}
			var err error
			if call == "ack" {
				err = AckQueueMessage(ev, tc.n)
			} else {
				err = RetryQueueMessage(ev, tc.n, 0)
			}
			want := &wantError{Message: MsgMessageIndex, Kind: "violation"}
			if tc.ok {
				want = nil
			}
			if e := errorDiff(err, want); e != "" {
				t.Errorf("%s %d: %v", call, tc.n, e)
			}
			if got := len(b.calls); got != map[bool]int{true: 1, false: 0}[tc.ok] {
				t.Errorf("%s %d: %d platform calls", call, tc.n, got)
			} else if tc.ok && (b.calls[0].Call != call || b.calls[0].N != tc.n) {
				t.Errorf("%s %d: platform got %+v", call, tc.n, b.calls[0])
			}
		}
	}
	for _, tc := range []struct {
		delay int
		ok    bool
	}{{-1, false}, {0, true}, {1, true}, {MaxDelaySeconds, true}, {MaxDelaySeconds + 1, false}, {math.MinInt, false}, {math.MaxInt, false}} {
		b := &recBatch{msgs: msgs}
		err := RetryQueueMessage(testEvent{kind: EventQueue, batch: b}, 1, tc.delay)
		want := &wantError{Message: MsgDelayRange, Kind: "violation"}
		if tc.ok {
			want = nil
		}
		if e := errorDiff(err, want); e != "" {
			t.Errorf("retry delay %d: %v", tc.delay, e)
		}
		if tc.ok != (len(b.calls) == 1) || (tc.ok && b.calls[0] != (platformCall{Call: "retry", N: 1, DelaySeconds: tc.delay})) {
			t.Errorf("retry delay %d: platform got %+v", tc.delay, b.calls)
		}
	}
	// The index is checked before the delay.
	err := RetryQueueMessage(testEvent{kind: EventQueue, batch: &recBatch{msgs: msgs}}, 3, -1)
	if e := errorDiff(err, &wantError{"violation", MsgMessageIndex}); e != "" {
		t.Error(e)
	}
}

// TestConsumerNotQueueEvent: every consumer function checks its event first.
// Pins D1, D21.
func TestConsumerNotQueueEvent(t *testing.T) {
	// Pins Q50, Q51, Q88.
	want := &wantError{Message: MsgNotQueueEvent, Kind: "violation"}
	b := &recBatch{msgs: []Message{{ID: "a", Body: json.RawMessage("1")}}}
	for _, ev := range []Event{nil, testEvent{kind: EventFetch}, testEvent{kind: EventFetch, batch: b},
		testEvent{kind: EventQueue}, testEvent{kind: "Queue", batch: b}, testEvent{kind: "", batch: b}} {
		_, err := ReadQueueBatch(ev)
		if e := errorDiff(err, want); e != "" {
			t.Errorf("read %#v: %v", ev, e)
		}
		if e := errorDiff(AckQueueMessage(ev, 0), want); e != "" {
			t.Errorf("ack %#v: %v", ev, e)
		}
		// The event comes before the arguments.
		if e := errorDiff(RetryQueueMessage(ev, -1, -1), want); e != "" {
			t.Errorf("retry %#v: %v", ev, e)
		}
	}
	if len(b.calls) != 0 {
		t.Errorf("platform calls %v", b.calls)
	}
}

// TestReadQueueBatchBodies needs the real canonical: invalid JSON and
// ±Infinity are not JSON values; depth 32 passes, 33 aborts; the first
// problem in message order wins.
// Pins D3, D23.
func TestReadQueueBatchBodies(t *testing.T) {
	// Pins Q27, Q57, Q58, Q59.
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	notJSON := func(n int) *wantError { return &wantError{"violation", MsgMessageNotJSON + fmt.Sprint(n)} }
	tooDeep := func(n int) *wantError { return &wantError{"abort", MsgMessageTooDeep + fmt.Sprint(n)} }
	for _, tc := range []struct {
		bodies []string
		want   *wantError
		text   string
	}{
		{[]string{`1`, `{`}, notJSON(1), ""},
		{[]string{`1`, ``}, notJSON(1), ""},
		{[]string{`1`, `1 2`}, notJSON(1), ""},
		{[]string{`1`, "\"\xff\""}, notJSON(1), ""},
		{[]string{`1e999`}, notJSON(0), ""},
		{[]string{`[-1e999]`}, notJSON(0), ""},
		{[]string{`{"a":1e999,"a":1}`}, nil, `[{"a":1}]`}, // the parsed value has no ±Infinity
		// "嵌套超过宿主桥限制（32 层）": the spec's number, not MaxReadDepth.
		{[]string{deep(32)}, nil, "[" + deep(32) + "]"},
		{[]string{`1`, deep(33)}, tooDeep(1), ""},
		{[]string{`{"a":` + deep(31) + `}`}, nil, `[{"a":` + deep(31) + `}]`},
		{[]string{`{"a":` + deep(32) + `}`}, tooDeep(0), ""},
		{[]string{deep(33), `{`}, tooDeep(0), ""},
		{[]string{`{`, deep(33)}, notJSON(0), ""},
		{[]string{`{"$句柄":"1","$数字":"2"}`}, nil, `[{"$句柄":"1","$数字":"2"}]`},
	} {
		b := &recBatch{queue: "Q"}
		for i, body := range tc.bodies {
			b.msgs = append(b.msgs, Message{ID: fmt.Sprint(i), Attempts: 1, Timestamp: time.UnixMilli(5), Body: json.RawMessage(body)})
		}
		got, err := ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
		if e := errorDiff(err, tc.want); e != "" {
			t.Errorf("%.60q: %v", tc.bodies, e)
			continue
		}
		if tc.want != nil {
			continue
		}
		var doc struct {
			Messages []struct{ Body json.RawMessage }
		}
		if err := json.Unmarshal([]byte(got), &doc); err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		var bodies []string
		for _, m := range doc.Messages {
			bodies = append(bodies, string(m.Body))
		}
		if text := "[" + strings.Join(bodies, ",") + "]"; text != tc.text {
			t.Errorf("%.60q: bodies %s, want %s", tc.bodies, text, tc.text)
		}
	}
}

// TestReadQueueBatchShape needs no body parsing: an empty batch, strings
// quoted as JSON.stringify does, timestamps in whole milliseconds.
// Pins D22.
func TestReadQueueBatchShape(t *testing.T) {
	// Pins Q53, Q56.
	b := &recBatch{queue: "q\"\\\n\u2028"}
	got, err := ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
	if want := `{"queue":"q\"\\\n` + "\u2028" + `","messages":[]}`; err != nil || got != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
	// No message and a queue name of more than 32 bytes.
	b.queue = strings.Repeat("q", 63)
	got, err = ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
	if want := `{"queue":"` + b.queue + `","messages":[]}`; err != nil || got != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
	b.queue = "Q"
	b.msgs = []Message{{ID: "\x01", Attempts: 7, Timestamp: time.UnixMilli(-1).Add(999 * time.Microsecond), Body: json.RawMessage(`"s"`)}}
	got, err = ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
	if want := `{"queue":"Q","messages":[{"id":"\u0001","attempts":7,"timestamp":-1,"body":"s"}]}`; err != nil || got != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
	// An ID longer than what the reader sets aside for one.
	b.msgs[0].ID = strings.Repeat("i", 200)
	got, err = ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
	if want := `{"queue":"Q","messages":[{"id":"` + b.msgs[0].ID + `","attempts":7,"timestamp":-1,"body":"s"}]}`; err != nil || got != want {
		t.Errorf("got %.60s…, %v", got, err)
	}
}

// TestReadQueueBatchInvalidUTF8: an ID or queue name that is not UTF-8 is
// written as TextDecoder decodes it, one U+FFFD per maximal subpart, as the
// query readers decode a query: F0 90 80 is one subpart, FF another.
// Pins D22.
func TestReadQueueBatchInvalidUTF8(t *testing.T) {
	b := &recBatch{queue: "q\xff", msgs: []Message{{ID: "a\xf0\x90\x80b", Attempts: 1, Timestamp: time.UnixMilli(0), Body: json.RawMessage(`1`)}}}
	got, err := ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
	want := `{"queue":"q` + "\ufffd" + `","messages":[{"id":"a` + "\ufffd" + `b","attempts":1,"timestamp":0,"body":1}]}`
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if id := utf8DecodeWithoutBOM(b.msgs[0].ID); !strings.Contains(got, `"`+id+`"`) {
		t.Errorf("the ID %q reads %q, the query readers' decoding %q", b.msgs[0].ID, got, id)
	}
}

// FuzzAckRetry: an ack or retry reaches the platform exactly when no error
// is returned, and then with the arguments given.
// Pins D24.
func FuzzAckRetry(f *testing.F) {
	// Pins Q60, Q62.
	for _, row := range loadConsumerRows(f) {
		for _, s := range row.Steps {
			f.Add(len(row.Batch), s.N, s.DelaySeconds)
		}
	}
	f.Fuzz(func(t *testing.T, size, n, delay int) {
		size = min(max(size, 0), 200)
		b := &recBatch{msgs: make([]Message, size)}
		ev := testEvent{kind: EventQueue, batch: b}
		errAck := AckQueueMessage(ev, n)
		errRetry := RetryQueueMessage(ev, n, delay)
		inRange := n >= 0 && n < size
		okDelay := delay >= 0 && delay <= MaxDelaySeconds
		var want []platformCall
		if inRange {
			want = append(want, platformCall{Call: "ack", N: n})
			if okDelay {
				want = append(want, platformCall{Call: "retry", N: n, DelaySeconds: delay})
			}
		}
		if (errAck == nil) != inRange || (errRetry == nil) != (inRange && okDelay) || !equalCalls(b.calls, want) {
			t.Fatalf("size %d n %d delay %d: %v, %v, calls %v", size, n, delay, errAck, errRetry, b.calls)
		}
	})
}

// FuzzReadQueueBatch: what ReadQueueBatch returns is valid JSON whose body
// is the canonical form of the message body, or the error says which rule.
func FuzzReadQueueBatch(f *testing.F) {
	// Pins Q57.
	for _, row := range loadConsumerRows(f) {
		for _, m := range row.Batch {
			f.Add(m.Body)
		}
	}
	f.Add(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`)
	f.Add(`1e999`)
	f.Fuzz(func(t *testing.T, body string) {
		b := &recBatch{queue: "Q", msgs: []Message{{ID: "x", Attempts: 1, Body: json.RawMessage(body)}}}
		got, err := ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
		canon, info, cerr := canonical(nil, []byte(body), &canonOptions{})
		var e *Error
		switch {
		case cerr != nil || info.problem.kind == problemInf:
			if !errors.As(err, &e) || e.Msg != MsgMessageNotJSON+"0" {
				t.Fatalf("%q: %v", body, err)
			}
		case info.depth > MaxReadDepth:
			if !errors.As(err, &e) || e.Msg != MsgMessageTooDeep+"0" || e.Catchable() {
				t.Fatalf("%q: %v", body, err)
			}
		default:
			want := `{"queue":"Q","messages":[{"id":"x","attempts":1,"timestamp":` +
				fmt.Sprint(time.Time{}.UnixMilli()) + `,"body":` + string(canon) + `}]}`
			if err != nil || got != want || !json.Valid([]byte(got)) {
				t.Fatalf("%q: %s, %v", body, got, err)
			}
		}
		if len(b.calls) != 0 {
			t.Fatal("reading called the platform")
		}
	})
}

// TestReadQueueBatchNotJSON: a message whose Body is no JSON value is
// refused with MsgMessageNotJSON and its index, the message's text
// exactly, and no platform call; whatever Go value a Body that is not a
// json.RawMessage is, it is not JSON. The error's cause (Error: "Err the
// platform's or the parser's cause") is the parser's syntax error, at the
// offset where the body fails, for a json.RawMessage that does not parse;
// a body that is JSON but holds ±Infinity, or that is no json.RawMessage,
// has no parser's error and so no cause.
// Pins D7, D23.
func TestReadQueueBatchNotJSON(t *testing.T) {
	// Pins Q58.
	for _, c := range []struct {
		body any
		off  int // of the syntax error; -1: no cause
	}{
		{json.RawMessage(`[1,`), 3},
		{json.RawMessage("[\"\xff\"]"), 2},
		{json.RawMessage(`{"a" 1}`), 5},
		{json.RawMessage(`[1e400]`), -1},
		{nil, -1}, {[]byte("1"), -1}, {"1", -1}, {time.Unix(0, 0), -1}, {math.NaN(), -1},
		{math.Inf(1), -1}, {1.5, -1}, {map[string]any{}, -1}, {json.Number("1"), -1},
	} {
		b := &recBatch{queue: "Q", msgs: []Message{{ID: "a", Body: json.RawMessage(`1`)}, {ID: "b", Body: c.body}}}
		got, err := ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
		if d := errorDiff(err, &wantError{"violation", MsgMessageNotJSON + "1"}); d != "" || got != "" {
			t.Errorf("body %T %v: %q, %s", c.body, c.body, got, d)
			continue
		}
		if len(b.calls) != 0 {
			t.Errorf("body %T %v: platform calls %v", c.body, c.body, b.calls)
		}
		var se *syntaxError
		switch cause := errors.Unwrap(err); {
		case c.off < 0 && cause != nil:
			t.Errorf("%q: cause %v, want none", c.body, cause)
		case c.off >= 0 && (!errors.As(err, &se) || se.off != c.off || !strings.HasPrefix(se.Error(), SyntaxPrefix)):
			t.Errorf("%q: cause %v, want a syntax error at position %d", c.body, cause, c.off)
		}
	}
}

// TestBodyValue checks the Body a consumer gets for each content type:
// JSON text for "json" and "" (Cloudflare's default), which ReadQueueBatch
// reads; a string for "text" and the bytes for any other type, which are
// not JSON values, so ReadQueueBatch refuses them.
// Pins Q58.
func TestBodyValue(t *testing.T) {
	body := []byte(`{"a":1}`)
	for _, c := range []struct {
		ctype string
		want  any
	}{
		{"json", json.RawMessage(body)},
		{"", json.RawMessage(body)},
		{"text", `{"a":1}`},
		{"v8", body},
	} {
		got := BodyValue(c.ctype, body)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("BodyValue(%q) = %#v, want %#v", c.ctype, got, c.want)
		}
		b := &recBatch{queue: "Q", msgs: []Message{{ID: "x", Attempts: 1, Body: got}}}
		_, err := ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
		var e *Error
		if _, isJSON := c.want.(json.RawMessage); isJSON != (err == nil) || (err != nil && (!errors.As(err, &e) || e.Msg != MsgMessageNotJSON+"0")) {
			t.Errorf("BodyValue(%q): ReadQueueBatch: %v", c.ctype, err)
		}
	}
}

// TestCheckConsumerSettings checks each range of ConsumerSettings at its
// bounds and one past them — Cloudflare's limits: batches of 1 to 100
// messages, a batch timeout of 0 to 60 s, 0 to 100 retries, a retry delay
// of 0 to 43200 s — and the text of each refusal.
// Pins D27.
func TestCheckConsumerSettings(t *testing.T) {
	for _, c := range []struct {
		edit func(*ConsumerSettings)
		err  string // "" when accepted
	}{
		{func(s *ConsumerSettings) { s.MaxBatchSize = 1 }, ""},
		{func(s *ConsumerSettings) { s.MaxBatchSize = 0 }, "hostbridge: MaxBatchSize 0 is not in 1…100"},
		{func(s *ConsumerSettings) { s.MaxBatchSize = 100 }, ""},
		{func(s *ConsumerSettings) { s.MaxBatchSize = 101 }, "hostbridge: MaxBatchSize 101 is not in 1…100"},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 }, ""},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = -time.Nanosecond }, "hostbridge: MaxBatchTimeout -1ns is not in 0…1m0s"},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = 60 * time.Second }, ""},
		{func(s *ConsumerSettings) { s.MaxBatchTimeout = 60*time.Second + time.Nanosecond }, "hostbridge: MaxBatchTimeout 1m0.000000001s is not in 0…1m0s"},
		{func(s *ConsumerSettings) { s.MaxRetries = 0 }, ""},
		{func(s *ConsumerSettings) { s.MaxRetries = -1 }, "hostbridge: MaxRetries -1 is not in 0…100"},
		{func(s *ConsumerSettings) { s.MaxRetries = 100 }, ""},
		{func(s *ConsumerSettings) { s.MaxRetries = 101 }, "hostbridge: MaxRetries 101 is not in 0…100"},
		{func(s *ConsumerSettings) { s.RetryDelay = 0 }, ""},
		{func(s *ConsumerSettings) { s.RetryDelay = -1 }, "hostbridge: RetryDelay -1 is not in 0…43200"},
		{func(s *ConsumerSettings) { s.RetryDelay = 43200 }, ""},
		{func(s *ConsumerSettings) { s.RetryDelay = 43201 }, "hostbridge: RetryDelay 43201 is not in 0…43200"},
		{func(s *ConsumerSettings) { s.DeadLetterQueue = "dlq" }, ""},
		{func(s *ConsumerSettings) { s.DeadLetterQueue = "q" }, `hostbridge: queue "q" cannot be its own dead-letter queue`},
	} {
		s := DefaultConsumerSettings()
		c.edit(&s)
		err := CheckConsumerSettings("q", s)
		if got := fmt.Sprint(err); (err == nil) != (c.err == "") || (err != nil && got != c.err) {
			t.Errorf("CheckConsumerSettings(%+v) = %v, want %q", s, err, c.err)
		}
	}
}
