package hostbridge

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStandardLibraryOnly pins D2: go.mod has no require, and no file of
// the package (tests aside) imports a package outside the standard library,
// unsafe or os, or starts a goroutine.
func TestStandardLibraryOnly(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "require") {
			t.Errorf("go.mod: %q", line)
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, goparser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") || path == "unsafe" || path == "os" {
				t.Errorf("%s imports %s", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s: a go statement at %s", name, fset.Position(g.Pos()))
			}
			return true
		})
	}
}

// TestErrorKindZero pins D5: the zero value of an Error's Kind is none of
// the three kinds, and the three are distinct.
func TestErrorKindZero(t *testing.T) {
	var e Error
	for _, k := range []struct {
		name string
		is   bool
	}{{"Violation", e.Kind == Violation}, {"Failure", e.Kind == Failure}, {"Abort", e.Kind == Abort}} {
		if k.is {
			t.Errorf("the zero Kind is %s", k.name)
		}
	}
	if Violation == Failure || Failure == Abort || Violation == Abort {
		t.Error("two kinds are equal")
	}
}

// TestDelayRangeStays pins D17: 43200 s is the longest delay, though
// Cloudflare allows 86400. MemoryPlatform's Send refuses more (Enqueue's
// clamp is pinned by TestMemoryPinsEnqueueDelayClamp), and so do the
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

// TestMemoryMessageIDs pins D30's IDs: 32 lower-case hex digits, distinct,
// the first 16 random per platform. (Pending with messages in flight is
// pinned by TestMemoryPinsPendingInFlight.)
func TestMemoryMessageIDs(t *testing.T) {
	p := newVirtual(t)
	setConsumer(t, p, "q", func(s *ConsumerSettings) { s.MaxBatchTimeout = 0 })
	sendN(t, p, 2, 0)
	r := deliver(t, p, "q", ok)
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	if len(r.IDs) != 2 || r.IDs[0] == r.IDs[1] || !hex32.MatchString(r.IDs[0]) || !hex32.MatchString(r.IDs[1]) {
		t.Fatalf("IDs %q", r.IDs)
	}
	other := NewMemoryPlatform().Enqueue("q", Message{Body: json.RawMessage("1")}, 0)
	if !hex32.MatchString(other) || other[:16] == r.IDs[0][:16] {
		t.Errorf("another platform's ID %q beside %q", other, r.IDs[0])
	}
}

// noRequestEvent is a fetch event whose Request is nil.
type noRequestEvent struct{}

func (noRequestEvent) Kind() string     { return "fetch" }
func (noRequestEvent) Request() Request { return nil }
func (noRequestEvent) Batch() Batch     { return nil }

// inboundReaders calls every reader of the request on ev and returns their
// errors, by name.
func inboundReaders(ev Event) map[string]error {
	errs := map[string]error{}
	note := func(name string, err error) { errs[name] = err }
	_, err := InboundMethod(ev)
	note("InboundMethod", err)
	_, err = InboundRawPath(ev)
	note("InboundRawPath", err)
	_, err = InboundDecodedPath(ev)
	note("InboundDecodedPath", err)
	_, err = InboundHeader(ev, "a")
	note("InboundHeader", err)
	_, err = InboundHeaderExists(ev, "a")
	note("InboundHeaderExists", err)
	_, err = InboundQueryParam(ev, "b")
	note("InboundQueryParam", err)
	_, err = InboundQueryParamExists(ev, "b")
	note("InboundQueryParamExists", err)
	_, err = InboundOrigin(ev)
	note("InboundOrigin", err)
	_, err = InboundHostname(ev)
	note("InboundHostname", err)
	_, err = InboundRawQuery(ev)
	note("InboundRawQuery", err)
	_, err = InboundSameOriginURL(ev, "", nil, nil)
	note("InboundSameOriginURL", err)
	_, _, err = ReadInboundText(ev, 10)
	note("ReadInboundText", err)
	_, _, err = ReadInboundStrictText(ev, 10)
	note("ReadInboundStrictText", err)
	_, _, err = ReadInboundBytes(ev, 10)
	note("ReadInboundBytes", err)
	_, err = ReadInboundJSON(ev)
	note("ReadInboundJSON", err)
	_, _, err = ReadInboundBoundedJSON(ev, 10)
	note("ReadInboundBoundedJSON", err)
	return errs
}

// TestRequestEventKinds pins D32: only fetch, service-fetch and
// durable-fetch carry a request. Any other kind, known, unknown or
// differently spelt, is Failure 当前没有 HTTP 请求 for every reader, even
// when the event has a Request; so is a fetch event without one.
func TestRequestEventKinds(t *testing.T) {
	event := func(kind string) Event {
		return NewRequestEvent(kind, "POST", "https://example.com/a?b=1", nil, &FakeBody{Chunks: [][]byte{[]byte("1")}})
	}
	for _, kind := range []string{"fetch", "service-fetch", "durable-fetch"} {
		for name, err := range inboundReaders(event(kind)) {
			if errors.Is(err, ErrNoRequest) { // a body read first leaves status 3 to the others
				t.Errorf("%s on %s: %v", name, kind, err)
			}
		}
	}
	none := map[string]Event{"fetch without a Request": noRequestEvent{}}
	for _, kind := range []string{"queue", "scheduled", "email", "durable-alarm", "Fetch", "FETCH", "fetch ", "", "http"} {
		none[strconv.Quote(kind)] = event(kind)
	}
	for what, ev := range none {
		for name, err := range inboundReaders(ev) {
			var e *Error
			if !errors.As(err, &e) || e.Msg != "当前没有 HTTP 请求" || e.Kind != Failure {
				t.Errorf("%s on %s: %v, want Failure 当前没有 HTTP 请求", name, what, err)
			}
		}
	}
}
