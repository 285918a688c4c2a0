package hostbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHeaderVectors runs testdata/inbound-headers.json.
// Pins D37.
func TestHeaderVectors(t *testing.T) {
	// Pins I1, I6, I7, I13, I18, I38, I39, I40, I42, I43, I44, I136, I145.
	var f struct {
		Rows []struct {
			Situation string          `json:"情境"`
			Kind      string          `json:"kind"`
			Headers   [][2]string     `json:"headers"`
			Call      string          `json:"call"`
			Arg       json.RawMessage `json:"arg"`
			Want      any             `json:"want"`
			Error     *wantError      `json:"error"`
		} `json:"rows"`
	}
	readTestJSON(t, "inbound-headers.json", &f)
	for _, row := range f.Rows {
		t.Run(row.Situation, func(t *testing.T) {
			h := http.Header{}
			for _, kv := range row.Headers {
				h[kv[0]] = append(h[kv[0]], kv[1]) // as the host spelled it, not canonicalised
			}
			ev := NewRequestEvent(row.Kind, "GET", "https://example.com/", h, nil)
			name := string(build(t, row.Arg))
			r, err := callSpec(t, row.Call, specArgs{Event: ev, Text: name})
			checkError(t, err, row.Error)
			if got := r.Value; row.Error == nil && got != row.Want {
				t.Errorf("%s(%.40q) = %#v, want %#v", row.Call, name, got, row.Want)
			}
		})
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

// TestInboundHeaderWithoutValues pins 入站标头存在 for a header that is
// present with no value at all, as a host may build an http.Header by hand
// (a nil or empty value list, under the canonical key or another
// spelling): "只要标头出现即为阳，值为空字符串也算出现；名称不区分大小写（headers.has
// 语义）". 读取入站标头值 gives "" for it, as for a missing one.
func TestInboundHeaderWithoutValues(t *testing.T) {
	// Pins I39.
	h := http.Header{"X-Nil": nil, "X-Empty": {}, "X-Blank": {""}, "x-lower-nil": nil, "x-lower-empty": {}}
	ev := NewRequestEvent(EventFetch, "GET", "https://example.com/", h, nil)
	for _, c := range []struct {
		name   string
		exists bool
	}{
		{"x-nil", true}, {"X-EMPTY", true}, {"x-blank", true}, {"X-Lower-Nil", true}, {"x-lower-empty", true}, {"x-missing", false},
	} {
		got, err := InboundHeaderExists(ev, c.name)
		checkError(t, err, nil)
		if got != c.exists {
			t.Errorf("InboundHeaderExists(%q) = %v, want %v", c.name, got, c.exists)
		}
		v, err := InboundHeader(ev, c.name)
		checkError(t, err, nil)
		if v != "" {
			t.Errorf("InboundHeader(%q) = %q, want \"\"", c.name, v)
		}
	}
}

// TestInboundHeaderSpellingsJoined pins 读取入站标头值 over a header
// the host spelled several ways: every spelling is the same header
// ("名称不区分大小写"), its values joined with ", " as Headers.get joins
// them, the canonical spelling's first when present and the others in
// sorted key order.
// Pins D37.
func TestInboundHeaderSpellingsJoined(t *testing.T) {
	h := http.Header{"x-a": {"1"}, "X-a": {"2", "3"}}
	ev := NewRequestEvent(EventFetch, "GET", "https://example.com/", h, nil)
	if v, err := InboundHeader(ev, "X-A"); err != nil || v != "2, 3, 1" {
		t.Errorf("InboundHeader = %q, %v; want \"2, 3, 1\"", v, err)
	}
	h = http.Header{"x-a": {"1"}, "X-A": {"0"}}
	ev = NewRequestEvent(EventFetch, "GET", "https://example.com/", h, nil)
	if v, err := InboundHeader(ev, "x-a"); err != nil || v != "0" {
		t.Errorf("InboundHeader with the canonical key = %q, %v; want \"0\"", v, err)
	}
}

// TestInboundQueryNameUSV pins 读取入站查询参数 and 入站查询参数存在 for a
// name that is not valid UTF-8: it is converted as a USVString is (each
// maximal ill-formed subpart to U+FFFD) before it is compared with the
// query's names, which the form parser decodes the same way ("按浏览器 URL
// 查询参数规则读取第一个同名值，已经百分号解码"). A BOM is not stripped from either.
// Pins D36.
func TestInboundQueryNameUSV(t *testing.T) {
	// Pins I19.
	ev := fetchEvent("https://example.com/?a%FF=1&%EF%BB%BFb=2&c=3")
	for _, c := range []struct {
		name, value string
		ok          bool
	}{
		{"a\xff", "1", true},
		{"a\ufffd", "1", true},
		{"a", "", false},
		{"\ufeffb", "2", true},
		{"\xef\xbb\xbfb", "2", true},
		{"b", "", false},
		{"c", "3", true},
	} {
		v, err := InboundQueryParam(ev, c.name)
		checkError(t, err, nil)
		ok, err2 := InboundQueryParamExists(ev, c.name)
		checkError(t, err2, nil)
		if v != c.value || ok != c.ok {
			t.Errorf("%q: value %q exists %v, want %q %v", c.name, v, ok, c.value, c.ok)
		}
	}
}

// TestInboundQueryWithoutRequest pins 入站查询参数存在 outside a fetch
// event: it throws (no request), it does not answer true or false.
// Pins D32.
func TestInboundQueryWithoutRequest(t *testing.T) {
	ev := NewRequestEvent(EventQueue, "GET", "https://example.com/?a=1", nil, nil)
	ok, err := InboundQueryParamExists(ev, "a")
	checkError(t, err, &wantError{"failure", MsgNoRequest})
	if ok {
		t.Error("InboundQueryParamExists = true outside a fetch event")
	}
}

// inboundConformance is testdata/inbound-conformance.json: the rows of the
// example tables of 网页入站接口规范 0.8.0.
type inboundConformance struct {
	Source string
	Tables []struct {
		Table string
		Rows  []struct {
			Situation string `json:"情境"`
			Observe   string `json:"必须观察到"`
			Cases     []conformanceCase
		}
	}
}

type conformanceCase struct {
	Note    string
	Request struct {
		Kind, Method, URL string
		Headers           [][2]string
		Body              *conformanceBody
	}
	Calls []conformanceCall
}

type conformanceBody struct {
	Chunks    []json.RawMessage // builders, one chunk each
	Bytes     json.RawMessage   // a builder, cut into chunks of ChunkSize
	ChunkSize int               `json:"chunk_size"`
	Used      bool
}

type conformanceCall struct {
	Function string // the spec function's name
	Limit    int
	Name     string
	Expect   struct {
		Status       *int
		Text         *string
		Bytes        json.RawMessage // a builder, or null for no bytes
		SameAsBody   bool            `json:"same_as_body"`
		ReasonPrefix string          `json:"reason_prefix"`
		Value        *bool
		Error        *struct {
			Kind            string // violation, failure or abort
			Message         *string
			MessagePrefix   string `json:"message_prefix"`
			MessageContains string `json:"message_contains"`
		}
	}
	BodyAfter *struct {
		Pulls    int
		Canceled bool
		Used     bool
	} `json:"body_after"`
	NeedsCanonical bool `json:"needs_canonical"`
}

// fakeBody builds the FakeBody a row describes and returns the whole body.
func (b *conformanceBody) fakeBody(t *testing.T) (*FakeBody, []byte) {
	if b == nil {
		return nil, nil
	}
	fb := &FakeBody{Chunks: [][]byte{}}
	var all []byte
	for _, c := range b.Chunks {
		p := build(t, c)
		fb.Chunks = append(fb.Chunks, p)
		all = append(all, p...)
	}
	if b.Bytes != nil {
		if b.ChunkSize < 1 {
			t.Fatal("bytes without chunk_size")
		}
		all = build(t, b.Bytes)
		fb.Chunks = splitChunks(all, b.ChunkSize)
	}
	if b.Used {
		fb.Open()
	}
	return fb, all
}

func TestInboundConformance(t *testing.T) {
	// Pins I45, I47, I49, I50, I51, I52, I53, I54, I56, I58, I59, I62, I63,
	//   I65, I73, I75, I84, I88, I89, I91, I92, I94, I95, I96, I97, I98, I99,
	//   I100, I101, I102, I103, I105, I108, I110, I111, I112, I113, I114, I115,
	//   I116, I117, I118, I119, I120, I121, I123, I127, I128, I129, I130, I131,
	//   I132, I133, I134, I135, I136, I137, I146, I148.
	if rows := runInboundRows(t, "inbound-conformance.json"); rows != 23 {
		t.Errorf("%d rows, want 12 + 11", rows)
	}
}

// runInboundRows runs every case of a file in the format of
// inbound-conformance.json and returns how many rows it has.
func runInboundRows(t *testing.T, file string) int {
	var doc inboundConformance
	readTestJSON(t, file, &doc)
	rows := 0
	for _, tab := range doc.Tables {
		for ri, row := range tab.Rows {
			rows++
			for ci, c := range row.Cases {
				fb, all := c.Request.Body.fakeBody(t)
				h := http.Header{}
				for _, kv := range c.Request.Headers {
					h.Add(kv[0], kv[1])
				}
				ev := NewRequestEvent(c.Request.Kind, c.Request.Method, c.Request.URL, h, fb)
				for k, call := range c.Calls {
					where := func() string {
						s := tab.Table + " 行 " + strconv.Itoa(ri+1) + " 「" + row.Situation + "」 → " + row.Observe +
							"; case " + strconv.Itoa(ci+1) + " call " + strconv.Itoa(k+1) + " " + call.Function
						if c.Note != "" {
							s += " (" + c.Note + ")"
						}
						return s
					}
					runConformanceCall(t, where, ev, fb, all, call)
				}
			}
		}
	}
	return rows
}

func runConformanceCall(t *testing.T, where func() string, ev Event, fb *FakeBody, all []byte, call conformanceCall) {
	t.Helper()
	r, err := callSpec(t, call.Function, specArgs{Event: ev, Limit: call.Limit, Text: call.Name})
	st := r.Status
	text, _ := r.Value.(string)
	bs, isByte := r.Value.([]byte)
	val, _ := r.Value.(bool)
	ex := call.Expect
	if ex.Error != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got error %v, want a %s exception", where(), err, ex.Error.Kind)
			return
		}
		if e.Kind != kindNames[ex.Error.Kind] || !e.Catchable() {
			t.Errorf("%s: got kind %s (catchable %v), want %s", where(), e.Kind, e.Catchable(), ex.Error.Kind)
		}
		if m := ex.Error.Message; m != nil && e.Msg != *m {
			t.Errorf("%s: got message %q, want %q", where(), e.Msg, *m)
		}
		if !strings.HasPrefix(e.Msg, ex.Error.MessagePrefix) || !strings.Contains(e.Msg, ex.Error.MessageContains) {
			t.Errorf("%s: got message %q, want it to start with %q and contain %q", where(), e.Msg, ex.Error.MessagePrefix, ex.Error.MessageContains)
		}
	} else if err != nil {
		t.Errorf("%s: unexpected error %v", where(), err)
		return
	} else {
		if ex.Status != nil && int(st) != *ex.Status {
			t.Errorf("%s: got status %d, want %d", where(), st, *ex.Status)
		}
		switch {
		case ex.Value != nil:
			if val != *ex.Value {
				t.Errorf("%s: got %v, want %v", where(), val, *ex.Value)
			}
		case ex.SameAsBody:
			got := []byte(text)
			if isByte {
				got = bs
			}
			if !bytes.Equal(got, all) {
				t.Errorf("%s: result of %d bytes is not the body of %d", where(), len(got), len(all))
			}
		case isByte:
			var want []byte
			if string(ex.Bytes) != "null" {
				want = build(t, ex.Bytes)
			}
			if !bytes.Equal(bs, want) || (bs == nil) != (want == nil) {
				t.Errorf("%s: got bytes %x (nil %v), want %s", where(), bs, bs == nil, ex.Bytes)
			}
		case ex.ReasonPrefix != "":
			if !strings.HasPrefix(text, ex.ReasonPrefix) || len(text) == len(ex.ReasonPrefix) {
				t.Errorf("%s: got reason %q, want a non-empty one starting %q", where(), text, ex.ReasonPrefix)
			}
		case ex.Text != nil:
			if text != *ex.Text {
				t.Errorf("%s: got %q, want %q", where(), text, *ex.Text)
			}
		}
	}
	if a := call.BodyAfter; a != nil {
		if fb == nil {
			t.Fatalf("%s: body_after without a body", where())
		}
		if fb.Pulls != a.Pulls || fb.Canceled != a.Canceled || fb.Used() != a.Used {
			t.Errorf("%s: body after: pulls %d canceled %v used %v, want %d %v %v", where(), fb.Pulls, fb.Canceled, fb.Used(), a.Pulls, a.Canceled, a.Used)
		}
	}
}

// TestEventKindsIsACopy: EventKinds returns a fresh slice each call, so a
// caller that modifies one changes neither the package's list nor the next
// call's result.
func TestEventKindsIsACopy(t *testing.T) {
	first := EventKinds()
	if len(first) != 29 || first[0] != "fetch" || first[3] != "queue" {
		t.Fatalf("EventKinds() = %q", first)
	}
	want := slices.Clone(first)
	first[0] = "changed"
	_ = append(first[:1], "appended")
	if got := EventKinds(); !slices.Equal(got, want) {
		t.Errorf("after modifying a result, EventKinds() = %q, want %q", got, want)
	}
}

// TestBodyStatusString: each status prints as its constant's name, and a
// value that is none of them as BodyStatus(n).
func TestBodyStatusString(t *testing.T) {
	for _, c := range []struct {
		st   BodyStatus
		want string
	}{
		{0, "BodyOK"}, {1, "BodyTooLarge"}, {2, "BodyNone"}, {3, "BodyUsed"},
		{4, "BodyInvalidUTF8"}, {5, "BodyInvalidJSON"},
		{6, "BodyStatus(6)"}, {9, "BodyStatus(9)"}, {-1, "BodyStatus(-1)"},
	} {
		if got := c.st.String(); got != c.want {
			t.Errorf("BodyStatus(%d).String() = %q, want %q", int(c.st), got, c.want)
		}
	}
}
