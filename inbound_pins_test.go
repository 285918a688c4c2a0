package hostbridge

import (
	"net/http"
	"testing"
)

// TestInboundPinsHeaderWithoutValues pins 入站标头存在 for a header that is
// present with no value at all, as a host may build an http.Header by hand
// (a nil or empty value list, under the canonical key or another
// spelling): "只要标头出现即为阳，值为空字符串也算出现；名称不区分大小写（headers.has
// 语义）". 读取入站标头值 gives "" for it, as for a missing one.
func TestInboundPinsHeaderWithoutValues(t *testing.T) {
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

// TestInboundPinsHeaderSpellingsJoined pins 读取入站标头值 over a header
// the host spelled several ways: every spelling is the same header
// ("名称不区分大小写"), its values joined with ", " as Headers.get joins
// them, the canonical spelling's first when present and the others in
// sorted key order.
// Pins D37.
func TestInboundPinsHeaderSpellingsJoined(t *testing.T) {
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

// TestInboundPinsQueryNameUSV pins 读取入站查询参数 and 入站查询参数存在 for a
// name that is not valid UTF-8: it is converted as a USVString is (each
// maximal ill-formed subpart to U+FFFD) before it is compared with the
// query's names, which the form parser decodes the same way ("按浏览器 URL
// 查询参数规则读取第一个同名值，已经百分号解码"). A BOM is not stripped from either.
// Pins D36.
func TestInboundPinsQueryNameUSV(t *testing.T) {
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

// TestInboundPinsQueryWithoutRequest pins 入站查询参数存在 outside a fetch
// event: it throws (no request), it does not answer true or false.
// Pins D32.
func TestInboundPinsQueryWithoutRequest(t *testing.T) {
	ev := NewRequestEvent(EventQueue, "GET", "https://example.com/?a=1", nil, nil)
	ok, err := InboundQueryParamExists(ev, "a")
	checkError(t, err, &wantError{"failure", MsgNoRequest})
	if ok {
		t.Error("InboundQueryParamExists = true outside a fetch event")
	}
}
