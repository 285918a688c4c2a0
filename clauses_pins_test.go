package hostbridge

// Tests for clauses of testdata/clauses.json that no other test pinned.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestQueueEventKindIsQueue: a batch MemoryPlatform delivers is an event
// whose 读取入站事件种类 is "queue", and it carries no HTTP request.
func TestQueueEventKindIsQueue(t *testing.T) {
	// Pins Q3.
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	if err := SendQueueMessage(context.Background(), p, "B", `1`, 0); err != nil {
		t.Fatal(err)
	}
	var kind string
	var reqErr error
	if _, ok := p.Deliver("q", func(ev Event) error {
		kind = InboundEventKind(ev)
		_, reqErr = InboundMethod(ev)
		return nil
	}); !ok {
		t.Fatal("no batch delivered")
	}
	if kind != "queue" || !hasMsg(reqErr, MsgNoRequest) {
		t.Errorf("kind %q, InboundMethod error %v; want queue and %s", kind, reqErr, MsgNoRequest)
	}
}

// IsError reports whether err is an *Error whose text is msg.
func hasMsg(err error, msg string) bool {
	e, ok := err.(*Error)
	return ok && e.Msg == msg
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

// TestHeadRequestHasNoBody: a HEAD request is status 2 whatever stream it
// carries, and the stream is not touched, as for GET; the method is
// compared case-insensitively.
func TestHeadRequestHasNoBody(t *testing.T) {
	// Pins I52.
	for _, method := range []string{"HEAD", "head", "GET", "get"} {
		for _, r := range readers {
			fb := &FakeBody{Chunks: [][]byte{[]byte("hi")}}
			ev := NewRequestEvent("fetch", method, "https://example.com/", nil, fb)
			st, got, err := r.read(ev, 10)
			if st != BodyNone || len(got) != 0 || err != nil || fb.Used() || fb.Pulls != 0 {
				t.Errorf("%s %s: (%d, %q, %v) used %v; want (2, empty) untouched", r.name, method, st, got, err, fb.Used())
			}
		}
	}
	fb := &FakeBody{Chunks: [][]byte{[]byte("hi")}}
	if st, _, _ := ReadInboundBytes(NewRequestEvent("fetch", "POST", "https://example.com/", nil, fb), 10); st != BodyOK {
		t.Errorf("POST: status %d, want 0", st)
	}
}

// TestBodyNotDecodedNorTyped: the readers neither undo a Content-Encoding
// nor look at Content-Type: a gzip body declared text/plain comes back as
// its bytes, and the bounded JSON reader parses a body of any type.
func TestBodyNotDecodedNorTyped(t *testing.T) {
	// Pins I139, I141.
	gz := "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
	h := http.Header{"Content-Encoding": {"gzip"}, "Content-Type": {"text/plain"}}
	ev, _ := post(h, gz)
	if st, got, err := ReadInboundBytes(ev, 100); st != BodyOK || string(got) != gz || err != nil {
		t.Errorf("gzip body: (%d, %q, %v), want its 10 bytes", st, got, err)
	}
	ev, _ = post(http.Header{"Content-Type": {"image/png"}}, `{"a":1}`)
	if st, got, err := ReadInboundBoundedJSON(ev, 100); st != BodyOK || got != `{"a":1}` || err != nil {
		t.Errorf("JSON sent as image/png: (%d, %q, %v), want (0, {\"a\":1})", st, got, err)
	}
}

// TestBatchTotalOnCanonicalBodies: "全部 body 合计不超过 256000 字节" is
// measured on the canonical bodies, not their input: three bodies of 85000
// canonical bytes (255000 in all) written with 15000 spaces each (300000
// bytes of input) are sent; one canonical byte more in all is refused.
func TestBatchTotalOnCanonicalBodies(t *testing.T) {
	// Pins Q34.
	body := func(n int) string { return "[" + strings.Repeat(" ", 15000) + `"` + strings.Repeat("a", n-4) + `"]` }
	batch := func(last int) string {
		return `[{"body":` + body(85000) + `},{"body":` + body(85000) + `},{"body":` + body(last) + `}]`
	}
	p := newVirtual(t)
	if err := SendQueueBatch(context.Background(), p, "B", batch(85000)); err != nil {
		t.Fatalf("255000 canonical bytes in all: %v", err)
	}
	if err := SendQueueBatch(context.Background(), p, "B", batch(86001)); !hasMsg(err, "批量消息合计超过 256000 字节") {
		t.Errorf("256001 canonical bytes in all: %v", err)
	}
	if n := len(p.Queued("q")); n != 3 {
		t.Errorf("queued %d messages, want the first batch's 3", n)
	}
}
