package hostbridge

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// vectorFile is a conformance vector file (testdata/README.md).
type vectorFile struct {
	Spec     string `json:"spec"`
	Table    string `json:"table"`
	Platform struct {
		Permissions json.RawMessage   `json:"permissions"`
		Bindings    map[string]string `json:"bindings"`
	} `json:"platform"`
	Rows []struct {
		Situation string            `json:"情境"`
		Must      string            `json:"必须观察到"`
		Cases     []json.RawMessage `json:"cases"`
	} `json:"rows"`
}

func loadVectors(t testing.TB, name string) vectorFile {
	t.Helper()
	var f vectorFile
	readTestJSON(t, name, &f)
	if len(f.Rows) == 0 {
		t.Fatalf("%s: no rows", name)
	}
	return f
}

// build makes the bytes a vector describes: a JSON string as it is (UTF-8),
// {"hex": "…"}, {"repeat": v, "times": n}, or {"concat": [v, …]}.
func build(t testing.TB, v json.RawMessage) []byte {
	t.Helper()
	var s string
	if json.Unmarshal(v, &s) == nil {
		return []byte(s)
	}
	var b struct {
		Hex    *string           `json:"hex"`
		Repeat json.RawMessage   `json:"repeat"`
		Times  int               `json:"times"`
		Concat []json.RawMessage `json:"concat"`
	}
	if err := json.Unmarshal(v, &b); err != nil {
		t.Fatalf("bad builder %s: %v", v, err)
	}
	switch {
	case b.Hex != nil:
		h, err := hex.DecodeString(*b.Hex)
		if err != nil {
			t.Fatal(err)
		}
		return h
	case b.Repeat != nil:
		return bytes.Repeat(build(t, b.Repeat), b.Times)
	case b.Concat != nil:
		var out []byte
		for _, p := range b.Concat {
			out = append(out, build(t, p)...)
		}
		return out
	}
	t.Fatalf("bad builder %s", v)
	return nil
}

// wantError is how a vector writes an expected exception.
type wantError struct {
	Kind    string `json:"kind"` // violation, failure or abort
	Message string `json:"message"`
}

var kindNames = map[string]ErrorKind{"violation": Violation, "failure": Failure, "abort": Abort}

// checkError compares err with the expected exception (nil: no error).
func checkError(t *testing.T, err error, want *wantError) {
	t.Helper()
	if d := errorDiff(err, want); d != "" {
		t.Error(d)
	}
}

// errorDiff is the package's one error assertion: how err differs from the
// expected exception (nil: no error), or "". The message is compared to
// the byte, the kind and Catchable with it.
func errorDiff(err error, want *wantError) string {
	if want == nil {
		if err != nil {
			return fmt.Sprintf("error %q, want none", err)
		}
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("error %v, want %s %q", err, want.Kind, want.Message)
	}
	if k, ok := kindNames[want.Kind]; !ok || e.Msg != want.Message || e.Kind != k || e.Catchable() != (k != Abort) {
		return fmt.Sprintf("error %s %q (catchable %v), want %s %q", e.Kind, e.Msg, e.Catchable(), want.Kind, want.Message)
	}
	return ""
}

func newVectorPlatform(t *testing.T, f vectorFile) *MemoryPlatform {
	p := NewMemoryPlatform()
	for b, q := range f.Platform.Bindings {
		p.Bind(b, q)
	}
	if err := p.GrantJSON(string(f.Platform.Permissions)); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProducerVectors runs the producer rows of 一致性样例 and the limits
// and decisions rows.
// Pins D1, D3, D10, D11, D12, D13, D14, D15, D16, D18.
func TestProducerVectors(t *testing.T) {
	// Pins Q6, Q7, Q8, Q9, Q11, Q13, Q14, Q16, Q17, Q18, Q19, Q20, Q21, Q23,
	//   Q24, Q25, Q26, Q28, Q29, Q30, Q31, Q32, Q33, Q34, Q35, Q36, Q37, Q38,
	//   Q40, Q41, Q42, Q43, Q44, Q45, Q46, Q47, Q48, Q49, Q76, Q77, Q78, Q79,
	//   Q80, Q81, Q82, Q83, Q90.
	for _, name := range []string{"queue-producer.json", "queue-producer-limits.json"} {
		f := loadVectors(t, name)
		for _, row := range f.Rows {
			for _, raw := range row.Cases {
				var c struct {
					Call          string          `json:"call"`
					Binding       string          `json:"binding"`
					Body          json.RawMessage `json:"body"`
					Batch         json.RawMessage `json:"batch"`
					DelaySeconds  int             `json:"delaySeconds"`
					PlatformFails string          `json:"platformFails"`
					Expect        struct {
						Error *wantError `json:"error"`
						Calls []struct {
							Method   string `json:"method"`
							Binding  string `json:"binding"`
							Error    string `json:"error"`
							Messages []struct {
								Body    json.RawMessage `json:"body"`
								Options SendOptions     `json:"options"`
							} `json:"messages"`
						} `json:"calls"`
					} `json:"expect"`
				}
				if err := json.Unmarshal(raw, &c); err != nil {
					t.Fatal(err)
				}
				t.Run(row.Situation, func(t *testing.T) {
					p := newVectorPlatform(t, f)
					if c.PlatformFails != "" {
						p.FailNext(c.PlatformFails)
					}
					text := c.Body
					if c.Batch != nil {
						text = c.Batch
					}
					_, err := callSpec(t, c.Call, specArgs{Platform: p, Binding: c.Binding,
						Text: string(build(t, text)), DelaySeconds: c.DelaySeconds})
					checkError(t, err, c.Expect.Error)
					got := p.Calls()
					if len(got) != len(c.Expect.Calls) {
						t.Fatalf("%s: platform got %d calls, want %d", row.Must, len(got), len(c.Expect.Calls))
					}
					for k, want := range c.Expect.Calls {
						g := got[k]
						if g.Method != want.Method || g.Binding != want.Binding || g.Err != want.Error || len(g.Messages) != len(want.Messages) {
							t.Fatalf("call %d: %s %s (%d messages, err %q), want %s %s (%d, %q)", k,
								g.Method, g.Binding, len(g.Messages), g.Err, want.Method, want.Binding, len(want.Messages), want.Error)
						}
						for m, wm := range want.Messages {
							gm := g.Messages[m]
							if wb := build(t, wm.Body); !bytes.Equal(gm.Body, wb) {
								t.Errorf("message %d body %.80q…, want %.80q…", m, gm.Body, wb)
							}
							if gm.ContentType != wm.Options.ContentType || gm.DelaySeconds != wm.Options.DelaySeconds {
								t.Errorf("message %d options %q/%d, want %q/%d", m, gm.ContentType, gm.DelaySeconds, wm.Options.ContentType, wm.Options.DelaySeconds)
							}
						}
					}
				})
			}
		}
	}
}

// FuzzSendQueueMessage: no input panics, and what reaches the platform is
// valid canonical JSON.
// Pins D18.
func FuzzSendQueueMessage(f *testing.F) {
	for _, s := range []string{`{"kind":"page"}`, `{"$句柄":1}`, `1e999`, `{`, `[[[[]]]]`, `"\ud800"`, `{"a":{"$句柄":1},"a":2}`} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, body string, delay int) {
		p := NewMemoryPlatform()
		p.Bind("Q", "q")
		p.Grant("Q")
		err := SendQueueMessage(context.Background(), p, "Q", body, delay)
		calls := p.Calls()
		if err != nil {
			if len(calls) != 0 {
				t.Fatalf("error %v but the platform was called", err)
			}
			return
		}
		got := calls[0].Messages[0].Body
		again, _, err := canonical(nil, got, &canonOptions{})
		if err != nil || !bytes.Equal(again, got) || !json.Valid(got) {
			t.Fatalf("sent %q: not canonical JSON (%v)", got, err)
		}
	})
}

// benchBatch is a batch text of about size bytes: items with realistic
// bodies, pretty-printed.
func benchBatch(size int) string {
	var b strings.Builder
	b.WriteString("[\n")
	for n := 0; b.Len() < size; n++ {
		if n > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {"body": {"kind": "page", "url": "/release/%d/页面", "version": "v%d", "refresh": true, "weight": %g, "tags": ["a\"b", "c\\d", "],["], "0": null}, "delaySeconds": %d}`,
			n, n%10, float64(n)*1.25, n%60)
	}
	b.WriteString("\n]")
	return b.String()
}

func BenchmarkSendQueueMessage128KB(b *testing.B) {
	body := benchBatch(MaxMessageBytes - 1000)
	p := NewMemoryPlatform()
	p.Bind("Q", "q")
	p.Grant("Q")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, msg := canonicalBody([]byte(body)); msg != "" {
			b.Fatal(msg)
		}
	}
}

// TestSendContext: a caller's context reaches the platform; one that has
// ended fails the send as a Failure that wraps its error, and nothing is
// sent.
// Pins D19.
func TestSendContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sends := []struct {
		name, want string
		send       func(p Platform) error
	}{
		{"SendQueueMessage", "队列发送失败：context canceled", func(p Platform) error { return SendQueueMessage(ctx, p, "Q", `{"a":1}`, 0) }},
		{"SendQueueBatch", "队列批量发送失败：context canceled", func(p Platform) error { return SendQueueBatch(ctx, p, "Q", `[{"body":1}]`) }},
	}
	for _, c := range sends {
		name, send := c.name, c.send
		p := NewMemoryPlatform()
		p.Bind("Q", "q")
		p.Grant("Q")
		err := send(p)
		var e *Error
		if !errors.As(err, &e) || e.Kind != Failure || e.Msg != c.want {
			t.Errorf("%s with a canceled context: %#v, want a Failure %s", name, err, c.want)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: errors.Is(err, context.Canceled) = false", name)
		}
		if s := p.Stats("q"); s.Sent != 0 || len(p.Calls()) != 0 {
			t.Errorf("%s: sent %d, calls %v; want nothing", name, s.Sent, p.Calls())
		}
	}
}

// rawIs reports whether body is the JSON text want.
func rawIs(body any, want string) bool {
	raw, ok := body.(json.RawMessage)
	return ok && string(raw) == want
}

// TestAnyJSONValueBody: a message body and a bounded JSON body may be any
// JSON value, not only an object: each top-level kind is sent (as its
// canonical text) and read back as status 0.
func TestAnyJSONValueBody(t *testing.T) {
	// Pins Q10, I109.
	for _, c := range []struct{ in, canon string }{
		{`{"a": 1}`, `{"a":1}`}, {` [1, "x"] `, `[1,"x"]`}, {`"s"`, `"s"`},
		{`1.50`, `1.5`}, {`true`, `true`}, {`false`, `false`}, {`null`, `null`},
	} {
		p := newVirtual(t)
		if err := SendQueueMessage(context.Background(), p, "B", c.in, 0); err != nil {
			t.Errorf("send %s: %v", c.in, err)
			continue
		}
		if q := p.Queued("q"); len(q) != 1 || !rawIs(q[0].Body, c.canon) {
			t.Errorf("send %s: queued %+v, want body %s", c.in, q, c.canon)
		}
		ev, _ := post(http.Header{"Content-Type": {"text/plain"}}, c.in)
		if st, got, err := ReadInboundBoundedJSON(ev, 1000); st != BodyOK || got != c.canon || err != nil {
			t.Errorf("bounded JSON %s: (%d, %q, %v), want (0, %q)", c.in, st, got, err, c.canon)
		}
	}
}

// TestDelayRangeStays pins D17: 43200 s is the longest delay, though
// Cloudflare allows 86400. MemoryPlatform's Send refuses more (Enqueue's
// clamp is pinned by TestMemoryEnqueueDelayClamp), and so do the
// producer and Retry.
func TestDelayRangeStays(t *testing.T) {
	p := newVirtual(t)
	ctx := context.Background()
	for _, d := range []int{43201, 86400, -1} {
		if err := p.Send(ctx, "B", []byte("1"), SendOptions{ContentType: contentTypeJSON, DelaySeconds: d}); err == nil {
			t.Errorf("Send with delay %d accepted", d)
		}
	}
	if err := p.Send(ctx, "B", []byte("1"), SendOptions{ContentType: contentTypeJSON, DelaySeconds: 43200}); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats("q"); s.Sent != 1 {
		t.Fatalf("Sent %d, want 1", s.Sent)
	}
	err := SendQueueMessage(ctx, p, "B", "1", 86400)
	var e *Error
	if !errors.As(err, &e) || e.Msg != "延迟秒数须在 0 至 43200 之间" {
		t.Errorf("SendQueueMessage with delay 86400: %v", err)
	}
	b := &recBatch{msgs: []Message{{ID: "a", Attempts: 1, Body: json.RawMessage("1")}}}
	if err := RetryQueueMessage(testEvent{kind: "queue", batch: b}, 0, 86400); err == nil {
		t.Error("RetryQueueMessage with delay 86400 accepted")
	}
}

// grantedOf returns which of names b grants.
func grantedOf(b *Bindings, names ...string) []string {
	var got []string
	for _, n := range names {
		b.mu.Lock()
		if b.granted[n] {
			got = append(got, n)
		}
		b.mu.Unlock()
	}
	return got
}

// TestGrantJSONExactKey: only the key spelled "QUEUE" grants (the spec's
// permission text is {"QUEUE":["PAGE_QUEUE"]}); a key in another case is
// another permission. A key written with escapes is the same key, as
// JSON.parse reads it, and a repeated "QUEUE" counts with its last value.
// Pins D20.
func TestGrantJSONExactKey(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{`{"QUEUE":["A","B"]}`, []string{"A", "B"}},
		{`{"queue":["A"]}`, nil},
		{`{"Queue":["A"],"qUEUE":["B"]}`, nil},
		{`{"QUEUE":["A"],"Queue":["B"]}`, []string{"A"}},
		{`{"Queue":["B"],"QUEUE":["A"]}`, []string{"A"}},
		{`{"\u0051UEUE":["A"]}`, []string{"A"}},
		{`{"QUEUE":["B"],"QUEUE":["A"]}`, []string{"A"}},
		{`{"QUEUE":"x","QUEUE":["A"]}`, []string{"A"}},
		{`{"QUEUE":[]}`, nil},
		{"{ \"QUEUE\" : [ \"A\" ,\n\"B\" ] , \"n\": 1e999 }", []string{"A", "B"}},
		{`{}`, nil},
		{`{"OTHER":["A"]}`, nil},
	} {
		var b Bindings
		if err := b.GrantJSON(c.text); err != nil {
			t.Errorf("GrantJSON(%s): %v", c.text, err)
		}
		if got := grantedOf(&b, "A", "B"); !slices.Equal(got, c.want) {
			t.Errorf("GrantJSON(%s) grants %q, want %q", c.text, got, c.want)
		}
	}
}

// TestGrantJSONErrors: a permission text that is not a JSON object, or whose
// "QUEUE" is not an array of strings, is an error with a fixed text and
// grants nothing, not even the items that are strings.
// Pins D20.
func TestGrantJSONErrors(t *testing.T) {
	const notObject = "hostbridge: permission text is not a JSON object"
	const notStrings = `hostbridge: permission "QUEUE" is not an array of strings`
	for _, c := range []struct{ text, want string }{
		{`{"QUEUE":"A"}`, notStrings},
		{`{"QUEUE":null}`, notStrings},
		{`{"QUEUE":{"A":true}}`, notStrings},
		{`{"QUEUE":["A",1]}`, notStrings},
		{`{"QUEUE":["A",null]}`, notStrings},
		{`{"QUEUE":["A"],"QUEUE":"A"}`, notStrings},
		{`null`, notObject},
		{`["A"]`, notObject},
		{`"QUEUE"`, notObject},
		{`1e999`, notObject},
	} {
		var b Bindings
		err := b.GrantJSON(c.text)
		if err == nil || err.Error() != c.want {
			t.Errorf("GrantJSON(%s): %v, want %q", c.text, err, c.want)
		}
		if got := grantedOf(&b, "A"); got != nil {
			t.Errorf("GrantJSON(%s) grants %q", c.text, got)
		}
	}
	var b Bindings
	err := b.GrantJSON(`{"QUEUE":["A"]`)
	var syntax *json.SyntaxError
	if err == nil || !strings.HasPrefix(err.Error(), notObject+": ") || !errors.As(err, &syntax) {
		t.Errorf("GrantJSON of a text that is not JSON: %v, want %q, then the parser's reason", err, notObject+": ")
	}
}
