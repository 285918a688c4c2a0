package hostbridge

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"math"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// post is a fetch event whose POST body arrives in the given chunks.
func post(header http.Header, chunks ...string) (Event, *FakeBody) {
	fb := &FakeBody{Chunks: [][]byte{}}
	for _, c := range chunks {
		fb.Chunks = append(fb.Chunks, []byte(c))
	}
	return NewRequestEvent(EventFetch, "POST", "https://example.com/", header, fb), fb
}

// wantError checks err is an *Error of kind with exactly msg.
func wantBodyError(t *testing.T, what string, err error, kind ErrorKind, msg string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: got %v, want %s %q", what, err, kind, msg)
	}
	if e.Kind != kind || e.Msg != msg {
		t.Errorf("%s: got %s %q, want %s %q", what, e.Kind, e.Msg, kind, msg)
	}
	return e
}

// readers are the three bounded body readers, results as bytes.
var readers = []struct {
	name string
	read func(Event, int) (BodyStatus, []byte, error)
}{
	{"ReadInboundText", func(ev Event, n int) (BodyStatus, []byte, error) {
		st, s, err := ReadInboundText(ev, n)
		return st, []byte(s), err
	}},
	{"ReadInboundStrictText", func(ev Event, n int) (BodyStatus, []byte, error) {
		st, s, err := ReadInboundStrictText(ev, n)
		return st, []byte(s), err
	}},
	{"ReadInboundBytes", ReadInboundBytes},
	{"ReadInboundBoundedJSON", func(ev Event, n int) (BodyStatus, []byte, error) {
		st, s, err := ReadInboundBoundedJSON(ev, n)
		return st, []byte(s), err
	}},
}

// TestBodyLimitArgument: "参数是字节上限，须在 1 至 16777216（16 MiB）之间" and
// "上限 1 至 8388608"; at N and N+1 on both ends. An out-of-range limit does
// not touch the body.
func TestBodyLimitArgument(t *testing.T) {
	// Pins I47, I48, I62, I89, I90.
	for _, r := range readers {
		hi, msg := MaxBodyLimit, MsgBodyLimitRange
		if r.name == "ReadInboundBoundedJSON" {
			hi, msg = MaxBoundedJSONLimit, MsgJSONLimitRange
		}
		for _, limit := range []int{0, hi + 1, -1, 1 << 40} {
			ev, fb := post(nil, "7")
			_, _, err := r.read(ev, limit)
			e := wantBodyError(t, r.name, err, Violation, msg)
			if !e.Catchable() || fb.Used() || fb.Pulls != 0 {
				t.Errorf("%s(%d): catchable %v, body used %v", r.name, limit, e.Catchable(), fb.Used())
			}
		}
		for _, limit := range []int{1, hi} {
			ev, _ := post(nil, "7")
			st, got, err := r.read(ev, limit)
			if err != nil || st != BodyOK || string(got) != "7" {
				t.Errorf("%s(%d): (%d, %q, %v), want (0, \"7\")", r.name, limit, st, got, err)
			}
		}
		// The body of limit+1 bytes at limit 1.
		ev, fb := post(nil, "7", "8")
		if st, got, err := r.read(ev, 1); err != nil || st != BodyTooLarge || len(got) != 0 || !fb.Canceled || fb.Pulls != 2 {
			t.Errorf("%s(1) on 2 bytes: (%d, %q, %v), canceled %v pulls %d", r.name, st, got, err, fb.Canceled, fb.Pulls)
		}
	}
}

// TestBodyOrder: the event first, then the limit, then status 2 before 3,
// then Content-Length.
// Pins D1, D39.
func TestBodyOrder(t *testing.T) {
	// Pins I10, I55, I91.
	for _, r := range readers {
		// No current request: Failure, before the limit is looked at.
		for _, ev := range []Event{
			nil,
			NewRequestEvent(EventQueue, "POST", "https://example.com/", nil, &FakeBody{}),
			NewRequestEvent("unknown", "POST", "https://example.com/", nil, &FakeBody{}),
		} {
			_, _, err := r.read(ev, 0)
			if e := wantBodyError(t, r.name, err, Failure, MsgNoRequest); !e.Catchable() {
				t.Errorf("%s: no request is not catchable", r.name)
			}
		}
		// GET / HEAD in any case, even with a used body and a huge
		// Content-Length: status 2.
		for _, m := range []string{"GET", "HEAD", "get", "Head"} {
			fb := &FakeBody{Chunks: [][]byte{[]byte("x")}}
			fb.Open()
			h := http.Header{"Content-Length": {"99999999999999999999"}}
			st, _, err := r.read(NewRequestEvent(EventServiceFetch, m, "https://example.com/", h, fb), 10)
			if err != nil || st != BodyNone || fb.Pulls != 0 {
				t.Errorf("%s %s: (%d, %v), want 2", r.name, m, st, err)
			}
		}
		// Used before Content-Length.
		fb := &FakeBody{Chunks: [][]byte{[]byte("x")}}
		fb.Open()
		h := http.Header{"Content-Length": {"99999999999999999999"}}
		if st, _, err := r.read(NewRequestEvent(EventDurableFetch, "PUT", "https://example.com/", h, fb), 10); err != nil || st != BodyUsed {
			t.Errorf("%s used: (%d, %v), want 3", r.name, st, err)
		}
		// A method other than GET or HEAD with a body is read.
		for _, m := range []string{"OPTIONS", "DELETE", "GETX", "POST"} {
			ev := NewRequestEvent(EventFetch, m, "https://example.com/", nil, &FakeBody{Chunks: [][]byte{[]byte("x")}})
			if st, _, err := r.read(ev, 10); err != nil || st == BodyNone || st == BodyUsed {
				t.Errorf("%s %s: (%d, %v), want it read", r.name, m, st, err)
			}
		}
	}
}

// TestContentLength: "若请求的 Content-Length 全由 1 至 18 位十进制数字组成且已超过
// 上限，或长达 19 位以上（必然超过任何上限），立即返回 1 而不读取任何字节；其余形态的
// Content-Length 一概忽略，只按流式计数判断。"
// Pins D39.
func TestContentLength(t *testing.T) {
	// Pins I56, I57, I62.
	tests := []struct {
		cl     []string
		chunks []string
		limit  int
		status BodyStatus
		pulls  int
	}{
		{[]string{"11"}, []string{"hello world"}, 10, BodyTooLarge, 0},
		{[]string{"10"}, []string{"hello worl"}, 10, BodyOK, 1},
		{[]string{"999999999999999999"}, []string{"x"}, MaxBodyLimit, BodyTooLarge, 0}, // 18 digits
		{[]string{"000000000000000001"}, []string{"x"}, 1, BodyOK, 1},                  // 18 digits, value 1
		{[]string{"000000000000000002"}, []string{"x"}, 1, BodyTooLarge, 0},            // 18 digits, value 2
		{[]string{"0000000000000000001"}, []string{"x"}, 10, BodyTooLarge, 0},          // 19 digits, leading zeros count
		{[]string{"9999999999999999999999"}, []string{"x"}, MaxBodyLimit, BodyTooLarge, 0},
		{[]string{"16777216"}, []string{"x"}, MaxBodyLimit, BodyOK, 1},
		{[]string{"16777217"}, []string{"x"}, MaxBodyLimit, BodyTooLarge, 0},
		{[]string{"0"}, []string{"x"}, 1, BodyOK, 1}, // declared shorter than it is: the count decides
		{[]string{"0"}, []string{"xy"}, 1, BodyTooLarge, 1},
		// Other forms are ignored: the stream count decides.
		{[]string{"+11"}, []string{"x"}, 10, BodyOK, 1},
		{[]string{" 11"}, []string{"x"}, 10, BodyOK, 1},
		{[]string{"11 "}, []string{"x"}, 10, BodyOK, 1},
		{[]string{"-1"}, []string{"x"}, 10, BodyOK, 1},
		{[]string{"1e3"}, []string{"x"}, 10, BodyOK, 1},
		{[]string{"0x20"}, []string{"x"}, 10, BodyOK, 1},
		{[]string{""}, []string{"x"}, 10, BodyOK, 1},
		{[]string{"11", "11"}, []string{"x"}, 10, BodyOK, 1}, // Headers.get: "11, 11"
		{[]string{"１１"}, []string{"x"}, 10, BodyOK, 1},       // fullwidth digits
		{[]string{"11"}, []string{"hello", " world"}, 100, BodyOK, 2},
	}
	for _, tt := range tests {
		for _, r := range readers[:3] {
			ev, fb := post(http.Header{"Content-Length": tt.cl}, tt.chunks...)
			st, _, err := r.read(ev, tt.limit)
			if err != nil || st != tt.status || fb.Pulls != tt.pulls || fb.Used() != (tt.pulls > 0) {
				t.Errorf("%s Content-Length %q limit %d: (%d, %v) pulls %d used %v, want %d pulls %d", r.name, tt.cl, tt.limit, st, err, fb.Pulls, fb.Used(), tt.status, tt.pulls)
			}
		}
	}
	// A header map built by hand, without canonical keys.
	fb := &FakeBody{Chunks: [][]byte{[]byte("x")}}
	ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", http.Header{"content-length": {"11"}}, fb)
	if st, _, _ := ReadInboundBytes(ev, 10); st != BodyTooLarge || fb.Pulls != 0 {
		t.Errorf("lower-case content-length key: status %d pulls %d", st, fb.Pulls)
	}
}

// TestContentLengthWrong: a Content-Length within the limit is only
// prechecked; "只按流式计数判断" — a body longer or shorter than declared is
// read whole, in order, whatever the chunking.
// Pins D39.
func TestContentLengthWrong(t *testing.T) {
	// Pins I57.
	body := strings.Repeat("0123456789abcdefé東👍\n", 1000) // 27 000 bytes, characters cut by the chunks
	for _, declared := range []int{0, 1, 511, 512, 5000, 9500, len(body) - 1, len(body), len(body) + 1, 60000, 1 << 20} {
		for _, chunk := range []int{1000, 777, 65536} {
			var chunks []string
			for p := body; len(p) > 0; p = p[min(chunk, len(p)):] {
				chunks = append(chunks, p[:min(chunk, len(p))])
			}
			for _, r := range readers[:3] {
				ev, fb := post(http.Header{"Content-Length": {strconv.Itoa(declared)}}, chunks...)
				st, got, err := r.read(ev, MaxBodyLimit)
				if err != nil || st != BodyOK || string(got) != body || fb.Pulls != len(chunks) {
					t.Errorf("%s, Content-Length %d, chunks of %d: (%d, %d bytes, %v), pulls %d; want the %d bytes", r.name, declared, chunk, st, len(got), err, fb.Pulls, len(body))
				}
			}
		}
	}
	// Over the limit after more than declared: status 1, nothing pulled after.
	for _, r := range readers[:3] {
		ev, fb := post(http.Header{"Content-Length": {"100"}}, strings.Repeat("x", 600), strings.Repeat("x", 600), "x")
		if st, _, err := r.read(ev, 1000); err != nil || st != BodyTooLarge || fb.Pulls != 2 {
			t.Errorf("%s, 1201 bytes declared 100, limit 1000: (%d, %v), pulls %d", r.name, st, err, fb.Pulls)
		}
	}
	// ReadInboundJSON strips a BOM split across chunks before it decodes
	// leniently, with and without a declared length.
	for _, h := range []http.Header{nil, {"Content-Length": {"9"}}} {
		ev, _ := post(h, "\xef", "\xbb", "\xbf[\"\xc3\x28\"]")
		if s, err := ReadInboundJSON(ev); err != nil || s != "[\"\uFFFD(\"]" {
			t.Errorf("BOM in pieces, header %v: (%q, %v)", h, s, err)
		}
	}
}

// TestBodyStream: counting, cancelling, empty chunks, stream failures.
// Pins D43.
func TestBodyStream(t *testing.T) {
	// Pins I46, I50, I51, I58, I60, I61, I74.
	// "一旦超过上限就取消读取流并返回 1 … 不会继续读取更多数据"
	for _, r := range readers[:3] {
		ev, fb := post(nil, "aaaa", "bbbb", "cccc", "dddd")
		if st, got, err := r.read(ev, 5); err != nil || st != BodyTooLarge || len(got) != 0 || fb.Pulls != 2 || !fb.Canceled {
			t.Errorf("%s: (%d, %q, %v) pulls %d canceled %v, want 1 after 2 pulls, cancelled", r.name, st, got, err, fb.Pulls, fb.Canceled)
		}
		// "取消时上游的取消回调即使失败也被吞掉，仍返回 1"
		ev, fb = post(nil, "aaaa", "bbbb")
		fb.CancelErr = errors.New("cancel failed")
		if st, _, err := r.read(ev, 5); err != nil || st != BodyTooLarge || !fb.Canceled {
			t.Errorf("%s with a failing cancel: (%d, %v)", r.name, st, err)
		}
		// A read to the end does not cancel.
		ev, fb = post(nil, "", "ab", "", "", "cd", "")
		if st, got, err := r.read(ev, 4); err != nil || st != BodyOK || string(got) != "abcd" || fb.Canceled || fb.Pulls != 6 {
			t.Errorf("%s with empty chunks: (%d, %q, %v) canceled %v pulls %d", r.name, st, got, err, fb.Canceled, fb.Pulls)
		}
		// "读取流本身失败（如连接中断）是平台故障，抛出含原因的可捕获异常"
		cause := errors.New("connection reset")
		ev, fb = post(nil, "ab", "cd")
		fb.Err = cause
		_, got, err := r.read(ev, 100)
		e := wantBodyError(t, r.name, err, Failure, MsgBodyReadFailed+"connection reset")
		if !errors.Is(err, cause) || !e.Catchable() || len(got) != 0 {
			t.Errorf("%s: stream failure: cause %v catchable %v result %q", r.name, e.Err, e.Catchable(), got)
		}
		// Over the limit before the failure: status 1.
		ev, fb = post(nil, "ab", "cd")
		fb.Err = cause
		if st, _, err := r.read(ev, 3); err != nil || st != BodyTooLarge {
			t.Errorf("%s: over the limit, then failing: (%d, %v)", r.name, st, err)
		}
		// The body is used after every read that opened it.
		for _, limit := range []int{100, 3} {
			ev, _ := post(nil, "ab", "cd")
			r.read(ev, limit)
			if st, _, err := r.read(ev, 100); err != nil || st != BodyUsed {
				t.Errorf("%s: second read after limit %d: (%d, %v), want 3", r.name, limit, st, err)
			}
		}
	}
	// Strict: invalid before the failure is status 4.
	ev, fb := post(nil, "a\xff", "cd")
	fb.Err = errors.New("connection reset")
	if st, _, err := ReadInboundStrictText(ev, 100); err != nil || st != BodyInvalidUTF8 || fb.Pulls != 1 || !fb.Canceled {
		t.Errorf("strict, invalid then failing: (%d, %v) pulls %d", st, err, fb.Pulls)
	}
	// Strict: counting comes before validating the chunk.
	ev, _ = post(nil, "a", "\xff\xff")
	if st, _, _ := ReadInboundStrictText(ev, 2); st != BodyTooLarge {
		t.Errorf("strict, invalid chunk crossing the limit: %d, want 1", st)
	}
	// A lenient Violation after reading: the body is used.
	ev, fb = post(nil, strings.Repeat("\xff", MaxLenientTextBytes/3+1))
	_, s, err := ReadInboundText(ev, MaxBodyLimit)
	wantBodyError(t, "lenient over 16 MiB", err, Violation, MsgLenientTooLong)
	if s != "" || !fb.Used() {
		t.Errorf("lenient over 16 MiB: text of %d bytes, used %v", len(s), fb.Used())
	}
	// Bytes: BOM and NUL kept; an empty body is an empty, non-nil slice.
	ev, _ = post(nil, "\xef\xbb\xbf\x00\xef\xbb\xbf")
	if _, got, _ := ReadInboundBytes(ev, 100); string(got) != "\xef\xbb\xbf\x00\xef\xbb\xbf" {
		t.Errorf("bytes: %q", got)
	}
	ev, _ = post(nil)
	if st, got, err := ReadInboundBytes(ev, 100); st != BodyOK || got == nil || len(got) != 0 || err != nil {
		t.Errorf("bytes of an empty body: (%d, %v, %v)", st, got, err)
	}
	// Only the BOM at the very start goes, also when split across chunks.
	for _, r := range readers[:2] {
		ev, _ = post(nil, "\xef", "\xbb", "\xbfa\xef\xbb\xbf")
		if _, got, _ := r.read(ev, 100); string(got) != "a\ufeff" {
			t.Errorf("%s: split BOM: %q", r.name, got)
		}
		ev, _ = post(nil, "\xef\xbb\xbf\xef\xbb\xbf")
		if _, got, _ := r.read(ev, 100); string(got) != "\ufeff" {
			t.Errorf("%s: two BOMs: %q", r.name, got)
		}
	}
}

// TestLenientTextLimit: "若超过 16 MiB，属于违规" — at N and N+1 UTF-8 bytes
// of decoded text. Each 0xff becomes U+FFFD, 3 bytes.
// Pins D41.
func TestLenientTextLimit(t *testing.T) {
	// Pins I67, I68, I69.
	n := MaxLenientTextBytes / 3 // 5592405 bytes of 0xff: 16777215 bytes of text
	for _, tail := range []string{"a", "ab"} {
		body := strings.Repeat("\xff", n) + tail
		ev, _ := post(nil, body)
		st, s, err := ReadInboundText(ev, MaxBodyLimit)
		if tail == "a" {
			if err != nil || st != BodyOK || len(s) != MaxLenientTextBytes || !strings.HasPrefix(s, "\ufffd\ufffd") || !strings.HasSuffix(s, "\ufffda") {
				t.Errorf("decoded text of exactly 16 MiB: (%d, %d bytes, %v)", st, len(s), err)
			}
		} else {
			wantBodyError(t, "decoded text of 16 MiB + 1", err, Violation, MsgLenientTooLong)
		}
	}
	// 6 MiB of 0xff: 18 MiB of U+FFFD.
	ev, _ := post(nil, strings.Repeat("\xff", 6<<20))
	_, _, err := ReadInboundText(ev, MaxBodyLimit)
	wantBodyError(t, "6 MiB of ff", err, Violation, MsgLenientTooLong)
	// A body over the limit is status 1, whatever its decoded length.
	ev, _ = post(nil, strings.Repeat("\xff", 6<<20), "x")
	if st, _, err := ReadInboundText(ev, 6<<20); err != nil || st != BodyTooLarge {
		t.Errorf("over the limit: (%d, %v), want 1", st, err)
	}
}

// TestReadInboundJSONErrors: every problem of the old function is a catchable
// Failure.
// Pins D32, D45.
func TestReadInboundJSONErrors(t *testing.T) {
	// Pins I75, I76, I77, I79, I80, I81, I82, I83, I84, I125, I146.
	check := func(what string, ev Event, msg string) *Error {
		t.Helper()
		s, err := ReadInboundJSON(ev)
		e := wantBodyError(t, what, err, Failure, msg)
		if !e.Catchable() || s != "" {
			t.Errorf("%s: catchable %v, text %q", what, e.Catchable(), s)
		}
		return e
	}
	check("no request", NewRequestEvent("scheduled", "POST", "https://example.com/", nil, &FakeBody{}), MsgNoRequest)
	check("GET", NewRequestEvent(EventFetch, "GET", "https://example.com/", nil, &FakeBody{}), MsgJSONBodyNone)
	check("no stream", NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, nil), MsgJSONBodyNone)
	ev, _ := post(nil, "{}")
	ReadInboundBytes(ev, 10)
	check("used", ev, MsgJSONBodyUsed)
	ev, fb := post(http.Header{"Content-Length": {"2097153"}}, "{}")
	check("declared 2 MiB + 1", ev, MsgJSONBodyTooLarge)
	if fb.Used() {
		t.Error("declared 2 MiB + 1: body read")
	}
	ev, fb = post(nil, "["+strings.Repeat(" ", JSONBodyLimit-1), "]")
	check("2 MiB + 1", ev, MsgJSONBodyTooLarge)
	if !fb.Canceled {
		t.Error("2 MiB + 1: not cancelled")
	}
	cause := errors.New("connection reset")
	ev, fb = post(nil, "{")
	fb.Err = cause
	if e := check("stream failure", ev, MsgBodyReadFailed+"connection reset"); !errors.Is(e, cause) {
		t.Error("stream failure: cause lost")
	}
	// Bytes that are not UTF-8 are decoded leniently, as Request.json()
	// does (D45), over the whole body: never an Invalid UTF-8 error.
	for _, tt := range []struct {
		chunks []string
		want   string // the canonical text, or the error message
	}{
		{[]string{"\"\xff\""}, "\"\uFFFD\""},
		{[]string{`{"a":"`, "\xc3\x28\"}"}, "{\"a\":\"\uFFFD(\"}"},
		{[]string{"\xef\xbb\xbf[\"\xed\xa0\x80\"]"}, "[\"\uFFFD\uFFFD\uFFFD\"]"}, // a surrogate, after a BOM
		{[]string{`["`, "\xe4", "\xb8", "\xad\"]"}, `["中"]`},
		{[]string{"\xff"}, MsgJSONBodyInvalid + "SyntaxError: Unexpected token '\uFFFD' in JSON at position 0"},
		{[]string{`["`, "\xe4\xb8"}, MsgJSONBodyInvalid + "SyntaxError: Unterminated string in JSON at position 5"}, // truncated at the end: ["\uFFFD, 5 bytes
	} {
		ev, _ := post(nil, tt.chunks...)
		if strings.HasPrefix(tt.want, MsgJSONBodyInvalid) {
			check("not UTF-8", ev, tt.want)
		} else if s, err := ReadInboundJSON(ev); err != nil || s != tt.want {
			t.Errorf("not UTF-8 %q: (%q, %v), want %q", tt.chunks, s, err, tt.want)
		}
	}
	ev, _ = post(nil, "{bad")
	e := check("{bad", ev, MsgJSONBodyInvalid+"SyntaxError: Unexpected token 'b' in JSON at position 1")
	var se *syntaxError
	if !errors.As(e, &se) {
		t.Errorf("{bad: cause %T", e.Err)
	}
	ev, _ = post(nil)
	check("empty", ev, MsgJSONBodyInvalid+SyntaxPrefix+syntaxUnexpectedEnd+syntaxPosition+"0")
	// "规范化后的文字也不得超过 2 MiB": each 1e21 grows a byte (1e+21).
	// ["x…x",1e21,…]: canonical 6k+l+4 bytes, input 5k+l+4.
	k := 100000
	for _, l := range []int{JSONBodyLimit - 6*k - 4, JSONBodyLimit - 6*k - 3} {
		body := `["` + strings.Repeat("x", l) + `"` + strings.Repeat(",1e21", k) + "]"
		ev, _ := post(nil, body)
		if l == JSONBodyLimit-6*k-4 {
			if s, err := ReadInboundJSON(ev); err != nil || len(s) != JSONBodyLimit {
				t.Errorf("canonical of exactly 2 MiB: %d bytes, %v", len(s), err)
			}
		} else {
			check("canonical of 2 MiB + 1", ev, MsgJSONBodyTooLarge)
		}
	}
	// Input of exactly 2 MiB.
	ev, _ = post(nil, "["+strings.Repeat(" ", JSONBodyLimit-2)+"]")
	if s, err := ReadInboundJSON(ev); err != nil || s != "[]" {
		t.Errorf("2 MiB of input: (%q, %v)", s, err)
	}
	// A BOM is stripped; ±Infinity is null.
	ev, _ = post(nil, "\xef\xbb\xbf[1e999,-1e999]")
	if s, err := ReadInboundJSON(ev); err != nil || s != "[null,null]" {
		t.Errorf("BOM and infinities: (%q, %v)", s, err)
	}
}

// TestInboundBodyDecisions runs testdata/inbound-body.json: the rows of the
// decisions D40 and D45 take on body reading (a whole chunk counted before it
// is validated; 读取入站癸象正文文 decoding leniently), and of the order of
// the status checks (2, then 3, then Content-Length's 1), their expectations
// computed by node's TextDecoder and JSON.
// Pins D40, D45.
func TestInboundBodyDecisions(t *testing.T) {
	// Pins I55, I77.
	if rows := runInboundRows(t, "inbound-body.json"); rows != 13 {
		t.Errorf("%d rows", rows)
	}
}

// TestBoundedJSON: limits, nesting and the parser's bounds.
// Pins D3, D45.
func TestBoundedJSON(t *testing.T) {
	// Pins I86, I88, I103.
	// Status 4 needs no parser.
	ev, _ := post(nil, "[\"\xc0\xaf\"]")
	if st, s, err := ReadInboundBoundedJSON(ev, 100); err != nil || st != BodyInvalidUTF8 || s != "" {
		t.Errorf("overlong /: (%d, %q, %v)", st, s, err)
	}
	// "嵌套过深": 1000 levels are fine, 1001 are status 5 (the numbers of
	// doc.go's bound, not MaxJSONDepth, so that the bound cannot move alone).
	for _, depth := range []int{1000, 1001} {
		body := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		ev, _ := post(nil, body)
		st, s, err := ReadInboundBoundedJSON(ev, 8388608)
		if depth == 1000 && (err != nil || st != BodyOK || s != body) {
			t.Errorf("depth %d: (%d, %.40q, %v), want 0", depth, st, s, err)
		}
		if depth == 1001 && (err != nil || st != BodyInvalidJSON || s != SyntaxPrefix+syntaxTooDeep+syntaxPosition+"1000") {
			t.Errorf("depth %d: (%d, %.80q, %v), want 5", depth, st, s, err)
		}
	}
	// 4 million '[' in an 8 MiB body: status 5, bounded memory.
	body := strings.Repeat("[", 4_000_000) + strings.Repeat(" ", MaxBoundedJSONLimit-4_000_000)
	ev, _ = post(nil, body)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	st, s, err := ReadInboundBoundedJSON(ev, MaxBoundedJSONLimit)
	runtime.ReadMemStats(&after)
	if err != nil || st != BodyInvalidJSON || !strings.Contains(s, syntaxTooDeep) {
		t.Errorf("4 million [: (%d, %.80q, %v), want 5", st, s, err)
	}
	// The blocks (about 1.06 × the body), one copy into a single buffer,
	// the parser's output buffer; nothing per level.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 7*uint64(len(body))/2 {
		t.Errorf("4 million [: allocated %d bytes for a body of %d", alloc, len(body))
	}
	// Exactly the limit; one more byte.
	ev, _ = post(nil, `{"a":1}`)
	if st, s, _ := ReadInboundBoundedJSON(ev, 7); st != BodyOK || s != `{"a":1}` {
		t.Errorf("at the limit: (%d, %q)", st, s)
	}
	// BOM stripped, one only.
	ev, _ = post(nil, "\xef\xbb\xbf{}")
	if st, s, _ := ReadInboundBoundedJSON(ev, 100); st != BodyOK || s != "{}" {
		t.Errorf("BOM: (%d, %q)", st, s)
	}
	ev, _ = post(nil, "\xef\xbb\xbf\xef\xbb\xbf{}")
	if st, s, _ := ReadInboundBoundedJSON(ev, 100); st != BodyInvalidJSON || !strings.HasPrefix(s, SyntaxPrefix) {
		t.Errorf("two BOMs: (%d, %q)", st, s)
	}
}

// TestReadMemory: "宿主最多持有已接受的字节再加使总数越界的那一块", and memory
// follows what arrived. In steady state (the block pools warm) a read
// allocates at most 1.25 × the body, with or without a declared
// Content-Length.
// Pins D44.
func TestReadMemory(t *testing.T) {
	// Pins I46, I59, I138.
	for _, size := range []int{4 << 20, 3<<20 + 12345} {
		chunks := splitChunks(bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size], 64<<10)
		readMemory(t, size, chunks)
	}
	// Over the limit: nothing held beyond limit+1 bytes, and the blocks.
	chunks := splitChunks(make([]byte, 4<<20), 64<<10)
	ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, &FakeBody{Chunks: chunks})
	var st BodyStatus
	if alloc := allocated(func() { st, _, _ = ReadInboundBytes(ev, 1<<20) }); st != BodyTooLarge || alloc > 11*(1<<20)/10 {
		t.Errorf("over a 1 MiB limit: status %d, allocated %d", st, alloc)
	}
}

// allocated is the bytes f allocates (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func readMemory(t *testing.T, size int, chunks [][]byte) {
	for _, r := range readers[:3] {
		for _, declared := range []bool{true, false} {
			h := http.Header{}
			if declared {
				h.Set("Content-Length", strconv.Itoa(size))
			}
			// The least of three reads after one that warms the pools.
			least := uint64(math.MaxUint64)
			for i := 0; i < 4; i++ {
				ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", h, &FakeBody{Chunks: chunks})
				var (
					st  BodyStatus
					got []byte
					err error
				)
				alloc := allocated(func() { st, got, err = r.read(ev, MaxBodyLimit) })
				if err != nil || st != BodyOK || len(got) != size {
					t.Fatalf("%s: (%d, %d bytes, %v)", r.name, st, len(got), err)
				}
				if r.name != "ReadInboundBytes" {
					alloc -= uint64(len(got)) // the []byte(s) of the test's wrapper
				}
				if i > 0 {
					least = min(least, alloc)
				}
			}
			ratio, want := float64(least)/float64(size), 1.25
			if raceEnabled {
				want = 1.6 // a quarter of the blocks not reused
			}
			t.Logf("%s, Content-Length declared %v: allocated %.3f × the body", r.name, declared, ratio)
			if ratio > want {
				t.Errorf("%s, Content-Length declared %v: allocated %.2f × the body, want ≤ %.2f", r.name, declared, ratio, want)
			}
		}
	}
}

// raceEnabled: the race detector is on (go test -race records it in the
// build info), and sync.Pool drops a random quarter of what is put in it
// (so pooled memory is reused less).
var raceEnabled = func() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.Contains(bi.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
}()

// TestCountBeforeValidating: a strict read counts a whole chunk against the
// limit before it validates any byte of it, whatever the reader's buffers
// and pools hold.
// Pins D40.
func TestCountBeforeValidating(t *testing.T) {
	// Pins I71.
	chunk := append([]byte{0xff}, strings.Repeat("a", 700)...) // one chunk of 701 bytes
	read := func(f func(Event, int) BodyStatus, limit int, chunks ...[]byte) (BodyStatus, *FakeBody) {
		fb := &FakeBody{Chunks: chunks}
		return f(NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, fb), limit), fb
	}
	strict := func(ev Event, n int) BodyStatus { st, _, _ := ReadInboundStrictText(ev, n); return st }
	bounded := func(ev Event, n int) BodyStatus { st, _, _ := ReadInboundBoundedJSON(ev, n); return st }
	for limit := 512; limit <= 701; limit++ {
		want := BodyTooLarge
		if limit == 701 {
			want = BodyInvalidUTF8
		}
		for name, f := range map[string]func(Event, int) BodyStatus{"strict": strict, "bounded JSON": bounded} {
			if st, fb := read(f, limit, chunk); st != want || fb.Pulls != 1 || !fb.Canceled {
				t.Fatalf("%s, 701-byte chunk FF a…, limit %d: status %d (pulls %d), want %d", name, limit, st, fb.Pulls, want)
			}
		}
	}
	// ReadInboundBoundedJSON(ev, 600): the same cold and with the pools warm
	// from a large body.
	for i := 0; i < 3; i++ {
		if st, _ := read(bounded, 600, chunk); st != BodyTooLarge {
			t.Fatalf("bounded JSON, limit 600, read %d: status %d, want 1", i+1, st)
		}
		big := "[" + strings.Repeat("1,", 1<<20) + "1]"
		if st, _ := read(bounded, MaxBoundedJSONLimit, []byte(big)); st != BodyOK {
			t.Fatalf("warming read: status %d", st)
		}
	}
	// One 3 MiB chunk starting FF: over 2 MiB, not invalid.
	huge := append([]byte{0xff}, bytes.Repeat([]byte("a"), 3<<20-1)...)
	ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, &FakeBody{Chunks: [][]byte{huge}})
	if _, err := ReadInboundJSON(ev); err == nil || err.Error() != MsgJSONBodyTooLarge {
		t.Errorf("ReadInboundJSON on 3 MiB starting FF: %v, want %s", err, MsgJSONBodyTooLarge)
	}
	if st, _ := read(bounded, JSONBodyLimit, huge); st != BodyTooLarge {
		t.Errorf("bounded JSON, limit 2 MiB, 3 MiB starting FF: status %d, want 1", st)
	}
	// Chunks a, FF, bcdef at limit 5: the second chunk is complete and bad
	// before the third is pulled.
	if st, fb := read(strict, 5, []byte("a"), []byte{0xff}, []byte("bcdef")); st != BodyInvalidUTF8 || fb.Pulls != 2 {
		t.Errorf("chunks a, FF, bcdef at limit 5: status %d, pulls %d; want 4 after 2", st, fb.Pulls)
	}
}

// TestBlockSizes: the blocks double with what was read, from blockMin to
// blockMax, never over what arrived (past blockMin), and each comes from
// and goes back to the pool of its size.
func TestBlockSizes(t *testing.T) {
	if blockMin<<(blockClasses-1) != blockMax {
		t.Fatalf("%d classes from %d do not reach %d", blockClasses, blockMin, blockMax)
	}
	// "blockMin while less than 1 KiB arrived, then the largest power of
	// two not over it".
	for n, want := range map[int]int{0: 512, 1023: 512, 1024: 1024, 2047: 1024, 2048: 2048, 65536: 65536, 1 << 20: 65536} {
		if got := blockSize(n); got != want {
			t.Errorf("blockSize(%d) = %d, want %d", n, got, want)
		}
	}
	for n := 0; n < 1<<20; n += 97 {
		size := blockSize(n)
		if size&(size-1) != 0 || size < blockMin || size > blockMax || size > max(blockMin, n) || size < min(blockMax, n/2) {
			t.Fatalf("blockSize(%d) = %d", n, size)
		}
	}
	for size := blockMin; size <= blockMax; size *= 2 {
		b := getBlock(size)
		if len(*b) != 0 || cap(*b) != size {
			t.Fatalf("getBlock(%d): len %d cap %d", size, len(*b), cap(*b))
		}
		*b = append(*b, 1)
		putBlock(b)
	}
}

// TestBodyReadBadCount: a stream whose Read returns a count outside
// 0…len(p) fails the read (D43), whichever way it is out.
// Pins D43.
func TestBodyReadBadCount(t *testing.T) {
	for _, k := range []func(p []byte) int{
		func([]byte) int { return -1 },
		func(p []byte) int { return len(p) + 1 },
	} {
		ev, _ := post(nil, "x")
		st, _, err := ReadInboundBytes(withBody(ev, badCountBody{k}), 100)
		if st != 0 || err == nil || !strings.HasPrefix(err.Error(), MsgBodyReadFailed) {
			t.Errorf("count %d: (%d, %v), want a read failure", k(make([]byte, 4)), st, err)
		}
	}
}

// badCountBody's Read returns k(p) and no error.
type badCountBody struct{ k func([]byte) int }

func (b badCountBody) Used() bool                 { return false }
func (b badCountBody) Open() io.ReadCloser        { return b }
func (b badCountBody) Read(p []byte) (int, error) { return b.k(p), nil }
func (b badCountBody) Close() error               { return nil }

// TestReadMemoryFalseLength: a 1-byte body that declares a Content-Length
// within the limit (16000000, or just under the JSON functions' limits)
// costs what arrived, not what was declared: under 1 MiB for every reader,
// with the pools cold or warm.
// Pins D44.
func TestReadMemoryFalseLength(t *testing.T) {
	read := map[string]func(Event) error{
		"ReadInboundBytes":       func(ev Event) error { _, _, err := ReadInboundBytes(ev, MaxBodyLimit); return err },
		"ReadInboundText":        func(ev Event) error { _, _, err := ReadInboundText(ev, MaxBodyLimit); return err },
		"ReadInboundStrictText":  func(ev Event) error { _, _, err := ReadInboundStrictText(ev, MaxBodyLimit); return err },
		"ReadInboundBoundedJSON": func(ev Event) error { _, _, err := ReadInboundBoundedJSON(ev, MaxBoundedJSONLimit); return err },
		"ReadInboundJSON":        func(ev Event) error { _, err := ReadInboundJSON(ev); return err },
	}
	declared := map[string]string{"ReadInboundBoundedJSON": "8000000", "ReadInboundJSON": "2000000"}
	for name, f := range read {
		cl := cmp.Or(declared[name], "16000000")
		for i := 0; i < 2; i++ {
			ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", http.Header{"Content-Length": {cl}}, &FakeBody{Chunks: [][]byte{[]byte("1")}})
			var err error
			if alloc := allocated(func() { err = f(ev) }); err != nil || alloc >= 1<<20 {
				t.Errorf("%s, 1 byte declared %s (read %d): allocated %d bytes, %v", name, cl, i+1, alloc, err)
			}
		}
	}
}

func splitChunks(body []byte, size int) [][]byte {
	var chunks [][]byte
	for len(body) > 0 {
		n := min(size, len(body))
		chunks = append(chunks, body[:n])
		body = body[n:]
	}
	return chunks
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

// TestCanonicalBodyAfterSyntaxError pins that a JSON body's result is its
// own body's canonical text, whatever the read before it did: a body that
// fails to parse (status 5, or MsgJSONBodyInvalid) leaves nothing behind
// that the next read sees. The buffers the JSON readers keep between calls
// must then hold no part of the failed read's text in two places at once:
// a next body whose keys are reordered (array-index keys first: its output
// overtakes its input)
// would be written over itself. Both readers, several rounds, since the
// buffers are pooled.
func TestCanonicalBodyAfterSyntaxError(t *testing.T) {
	// Pins I93.
	const good, want = `{"1":true,"0":false}`, `{"0":false,"1":true}`
	bad := `{"1":true,"0":false` + strings.Repeat(" ", 300) + `x}`
	bounded := func(body string) (BodyStatus, string) {
		ev, _ := post(nil, body)
		st, s, err := ReadInboundBoundedJSON(ev, MaxBoundedJSONLimit)
		if err != nil {
			t.Fatalf("ReadInboundBoundedJSON: %v", err)
		}
		return st, s
	}
	whole := func(body string) (BodyStatus, string) {
		ev, _ := post(nil, body)
		s, err := ReadInboundJSON(ev)
		if err != nil {
			return BodyInvalidJSON, ""
		}
		return BodyOK, s
	}
	for _, r := range []struct {
		name string
		read func(string) (BodyStatus, string)
	}{{"ReadInboundBoundedJSON", bounded}, {"ReadInboundJSON", whole}} {
		for round := range 8 {
			if st, _ := r.read(bad); st != BodyInvalidJSON {
				t.Fatalf("%s round %d: the bad body gave status %d", r.name, round, st)
			}
			if st, s := r.read(good); st != BodyOK || s != want {
				t.Fatalf("%s round %d: after a syntax error (%d, %q), want (0, %q)", r.name, round, st, s, want)
			}
		}
	}
}

// TestContentLengthLongNotDigits pins that only a Content-Length
// of decimal digits throughout counts: one of 19 characters or more with a
// byte that is no digit anywhere in it (below '0' or above '9', not only
// at the start) is another form, ignored ("其余形态的 Content-Length 一概忽略，
// 只按流式计数判断"): the body is read and counted, not refused as 19
// digits would be ("长达 19 位以上").
// Pins D39.
func TestContentLengthLongNotDigits(t *testing.T) {
	// Pins I56, I57.
	for _, cl := range []string{"1234567890123456789/", "1234567890123456789x", "9/00000000000000000000", "0000000000000000000:", "1 234567890123456789"} {
		for _, r := range readers {
			ev, fb := post(http.Header{"Content-Length": {cl}}, `"ab"`)
			if st, got, err := r.read(ev, 100); err != nil || st != BodyOK || string(got) != `"ab"` || fb.Pulls != 1 {
				t.Errorf("%s, Content-Length %q: (%d, %q, %v), pulls %d; want (0, the body)", r.name, cl, st, got, err, fb.Pulls)
			}
		}
	}
	// 19 digits: status 1 before any byte is read.
	ev, fb := post(http.Header{"Content-Length": {"0000000000000000001"}}, `"ab"`)
	if st, _, err := ReadInboundBytes(ev, 100); err != nil || st != BodyTooLarge || fb.Pulls != 0 {
		t.Errorf("19 digits: (%d, %v), pulls %d; want status 1, nothing read", st, err, fb.Pulls)
	}
}

// jsonTestSuite is testdata/jsontestsuite.json (nst/JSONTestSuite, with
// node's verdicts).
type jsonTestSuite []struct {
	Name        string
	Set         string
	Expectation string
	InputHex    string `json:"input_hex"`
	UTF8Valid   bool   `json:"utf8_valid"`
	JSAccepts   bool   `json:"js_accepts"`
	Canonical   string
}

// TestJSONTestSuiteBoundedJSON sends every JSONTestSuite file as a request
// body through ReadInboundBoundedJSON (8 MiB limit): bytes that are not UTF-8
// are status 4; otherwise what node's JSON.parse accepts is status 0 with
// JSON.stringify's text, and the rest status 5 with a SyntaxError reason.
// So y files are 0, n files 4 or 5, i files whatever node does. A leading
// BOM is stripped, as TextDecoder strips it (i_structure_UTF-8_BOM_empty_object
// is accepted; n_structure_UTF8_BOM_no_data is an empty text, status 5).
// Pins D7, D9.
func TestJSONTestSuiteBoundedJSON(t *testing.T) {
	// Pins I93, I106.
	var suite jsonTestSuite
	readTestJSON(t, "jsontestsuite.json", &suite)
	if len(suite) != 340 {
		t.Fatalf("%d files, want 340", len(suite))
	}
	count := map[string]int{}
	for _, c := range suite {
		body := mustHex(t, c.InputHex)
		// Two chunkings: whole, and cut in the middle.
		for _, chunks := range [][][]byte{{body}, {body[:len(body)/2], body[len(body)/2:]}} {
			fb := &FakeBody{Chunks: chunks}
			ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, fb)
			st, s, err := ReadInboundBoundedJSON(ev, MaxBoundedJSONLimit)
			if err != nil {
				t.Errorf("%s: error %v", c.Name, err)
				continue
			}
			switch {
			case !c.UTF8Valid:
				if st != BodyInvalidUTF8 || s != "" {
					t.Errorf("%s: (%d, %.60q), want (4, \"\")", c.Name, st, s)
				}
			case c.JSAccepts:
				if st != BodyOK || s != c.Canonical {
					t.Errorf("%s: (%d, %.60q), want (0, %.60q)", c.Name, st, s, c.Canonical)
				}
			default:
				if st != BodyInvalidJSON || !strings.HasPrefix(s, SyntaxPrefix) || len(s) <= len(SyntaxPrefix) {
					t.Errorf("%s: (%d, %.60q), want 5 with a SyntaxError reason", c.Name, st, s)
				}
			}
			if c.Expectation == "y" && st != BodyOK || c.Expectation == "n" && st != BodyInvalidUTF8 && st != BodyInvalidJSON {
				t.Errorf("%s: status %d for an %s file", c.Name, st, c.Expectation)
			}
		}
		count[c.Set+" "+c.Expectation]++
	}
	t.Logf("JSONTestSuite files: %v", count)
}

// TestBodyReadTakesAtMostLimitPlusOne: a read over the limit takes no more
// than limit+1 bytes from the stream, however large the chunk on offer.
func TestBodyReadTakesAtMostLimitPlusOne(t *testing.T) {
	// Pins I46, I59.
	for _, limit := range []int{1, 7, 100, 1000, 70000} {
		chunk := make([]byte, 3*limit+1000)
		fb := &FakeBody{Chunks: [][]byte{chunk}}
		ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, fb)
		st, got, err := ReadInboundBytes(ev, limit)
		if taken := len(chunk) - len(fb.rest); st != BodyTooLarge || got != nil || err != nil || taken != limit+1 {
			t.Errorf("limit %d: (%d, %d bytes, %v), %d bytes taken from the stream, want (1, none) and %d", limit, st, len(got), err, taken, limit+1)
		}
	}
}

// TestBoundedJSONNoCanonicalCap: the bounded JSON reader has no cap of its
// own on the canonical text (文字长度不再单独限制为 2 MiB): a body of
// 8388608 bytes, the highest limit, whose canonical text is as long, and
// one under 2 MiB whose canonical text passes 2 MiB by the e+ its numbers
// gain, are status 0 with that text.
func TestBoundedJSONNoCanonicalCap(t *testing.T) {
	// Pins I107.
	str := `"` + strings.Repeat("a", 8388608-2) + `"`
	nums := "[" + strings.Repeat("1e21,", 2097152/5-1) + "1]" // under 2 MiB raw, over it canonical
	for _, c := range []struct{ name, body, canon string }{
		{"a string of 8 MiB", str, str},
		{"numbers gaining e+", nums, strings.ReplaceAll(nums, "1e21", "1e+21")},
	} {
		ev, _ := post(nil, c.body)
		st, got, err := ReadInboundBoundedJSON(ev, 8388608)
		if st != 0 || got != c.canon || err != nil {
			t.Errorf("%s (%d bytes): (%d, %d bytes, %v), want (0, the %d bytes of its canonical text)", c.name, len(c.body), st, len(got), err, len(c.canon))
		}
	}
}
