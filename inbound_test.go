package hostbridge

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
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
