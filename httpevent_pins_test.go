package hostbridge

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestHTTPEventPinsHeadHasNoBody pins the body status of a HEAD request
// that comes with a body stream: "2 | 没有正文：方法为 GET 或 HEAD，或宿主没有为该
// 请求提供正文流 | 空" (读取入站有限正文字节). The method is normalised first
// (Fetch's "normalize a method"), so "head" and "get" have none either; a
// POST or an extension method with the same stream has it.
// Pins D48.
func TestHTTPEventPinsHeadHasNoBody(t *testing.T) {
	// Pins I52.
	for _, c := range []struct {
		method string
		st     BodyStatus
		body   string
	}{
		{"HEAD", BodyNone, ""}, {"head", BodyNone, ""}, {"GET", BodyNone, ""}, {"gEt", BodyNone, ""},
		{"POST", BodyOK, "hi"}, {"HEADX", BodyOK, "hi"}, {"DELETE", BodyOK, "hi"},
	} {
		r := &http.Request{Method: c.method, RequestURI: "/", Host: "example.com", URL: &url.URL{Path: "/"},
			Header: http.Header{"Content-Length": {"2"}}, ContentLength: 2, Body: readCloser{strings.NewReader("hi")}}
		st, b, err := ReadInboundBytes(HTTPEvent(r), 10)
		checkError(t, err, nil)
		if st != c.st || string(b) != c.body {
			t.Errorf("%s: status %v body %q, want %v %q", c.method, st, b, c.st, c.body)
		}
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// TestHTTPEventPinsAbsoluteFormUserinfo pins the URL of a request whose
// target is in absolute form with userinfo holding "@": the host is the
// target's authority after its last "@" (as the URL parser takes it), and
// the Host header does not replace it (RFC 9112: a server ignores Host for
// an absolute-form target). 读取入站主机名: "返回当前请求 URL 的 hostname".
// Pins D46.
func TestHTTPEventPinsAbsoluteFormUserinfo(t *testing.T) {
	checkTargetHostPath(t, []targetHostPath{
		{"http://a@b@target.example/p?q", "target.example", "/p"},
		{"http://a:b@c@target.example:81/", "target.example", "/"},
		{"http://target.example/x@y", "target.example", "/x@y"},
		{"http://a@target.example?x@y", "target.example", "/"},
	})
}

// TestHTTPEventPinsAbsoluteFormScheme pins which request targets are in
// absolute form: a scheme (RFC 3986: a letter, then letters, digits, "+",
// "-" or "."; any scheme, not only http) followed by "://". The host of the
// URL is then the target's authority, with the connection's scheme;
// another target is a path, with the Host header's host. 读取入站主机名:
// "返回当前请求 URL 的 hostname".
func TestHTTPEventPinsAbsoluteFormScheme(t *testing.T) {
	checkTargetHostPath(t, []targetHostPath{
		{"z9+.-://target.example/p", "target.example", "/p"},
		{"Zz://target.example/p", "target.example", "/p"},
		{"a0Z://target.example", "target.example", "/"},
		{"A://target.example/", "target.example", "/"},
		{"http://target.example", "target.example", "/"},
		{"9z://target.example/p", "host.example", "/9z://target.example/p"},
		{"z_://target.example/p", "host.example", "/z_://target.example/p"},
		{"z{://target.example/p", "host.example", "/z%7B://target.example/p"},
		{"z[://target.example/p", "host.example", "/z[://target.example/p"},
		{"z`://target.example/p", "host.example", "/z%60://target.example/p"},
		{"z/://target.example/p", "host.example", "/z/://target.example/p"},
		{"z:://target.example/p", "host.example", "/z:://target.example/p"},
		{"@z://target.example/p", "host.example", "/@z://target.example/p"},
		{"://target.example/p", "host.example", "/://target.example/p"},
		{"http:/target.example/p", "host.example", "/http:/target.example/p"},
		{"a://target.example/x://y", "target.example", "/x://y"},
	})
}

// TestHTTPEventPinsGetHeadNoStream pins the Request a GET or HEAD request
// becomes: it has no body stream at all (Request.Body is nil), as a Fetch
// Request of those methods has a null body, even when net/http has one for
// it; other methods keep theirs. (读取入站有限正文字节's status 2: "方法为 GET 或
// HEAD，或宿主没有为该请求提供正文流".)
func TestHTTPEventPinsGetHeadNoStream(t *testing.T) {
	// Pins I52.
	for _, m := range []string{"GET", "HEAD", "get", "Head", "POST", "PATCH"} {
		r := &http.Request{Method: m, RequestURI: "/", Host: "example.com", URL: &url.URL{Path: "/"},
			Header: http.Header{"Content-Length": {"2"}}, ContentLength: 2, Body: readCloser{strings.NewReader("hi")}}
		noStream := HTTPEvent(r).Request().Body() == nil
		if want := strings.EqualFold(m, "GET") || strings.EqualFold(m, "HEAD"); noStream != want {
			t.Errorf("%s: no stream %v, want %v", m, noStream, want)
		}
	}
}

// TestHTTPEventPinsMethodNormalised pins 读取入站方法 on a method net/http
// passes as the client spelled it: Fetch's "normalize a method" upper-cases
// DELETE, GET, HEAD, OPTIONS, POST and PUT, matched ASCII
// case-insensitively, and leaves any other as it is.
func TestHTTPEventPinsMethodNormalised(t *testing.T) {
	for in, want := range map[string]string{"delete": "DELETE", "get": "GET", "head": "HEAD", "options": "OPTIONS",
		"post": "POST", "put": "PUT", "Put": "PUT", "patch": "patch", "PATCH": "PATCH", "connect": "connect"} {
		r := &http.Request{Method: in, RequestURI: "/", Host: "example.com", URL: &url.URL{Path: "/"}, Header: http.Header{}}
		got, err := InboundMethod(HTTPEvent(r))
		checkError(t, err, nil)
		if got != want {
			t.Errorf("InboundMethod(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHTTPEventPinsClientSideRequest pins HTTPEvent on a request built
// client-side (http.NewRequest: no RequestURI): its URL's path and query
// are the target, with its host.
func TestHTTPEventPinsClientSideRequest(t *testing.T) {
	r, err := http.NewRequest("GET", "http://h.example/a/b?c=d", nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := HTTPEvent(r)
	path, err := InboundRawPath(ev)
	checkError(t, err, nil)
	query, err := InboundRawQuery(ev)
	checkError(t, err, nil)
	host, err := InboundHostname(ev)
	checkError(t, err, nil)
	if path != "/a/b" || query != "?c=d" || host != "h.example" {
		t.Errorf("path %q query %q host %q", path, query, host)
	}
}

// TestHTTPEventPinsHandmadeRequest pins HTTPEvent on a request a host built
// by hand: no header map (Host still comes from r.Host), and a
// Content-Length header with no Body, an empty stream (读取入站有限正文字节: "空正文流
// 返回状态 0 与空结果").
func TestHTTPEventPinsHandmadeRequest(t *testing.T) {
	// Pins I61.
	r := &http.Request{Method: "POST", RequestURI: "/", Host: "h.example", URL: &url.URL{Path: "/"}}
	if v, err := InboundHeader(HTTPEvent(r), "host"); err != nil || v != "h.example" {
		t.Errorf("Host header %q, %v", v, err)
	}
	r.Header = http.Header{"Content-Length": {"0"}}
	st, b, err := ReadInboundBytes(HTTPEvent(r), 10)
	checkError(t, err, nil)
	if st != BodyOK || len(b) != 0 {
		t.Errorf("status %v body %q, want 0 and none", st, b)
	}
}

// TestHTTPEventPinsHeaderValues pins the header values HTTPEvent gives:
// bytes that are not UTF-8 become U+FFFD (a Worker's Headers hold
// USVStrings); Transfer-Encoding is put back from r.TransferEncoding only
// when net/http moved it there, never as an empty field.
func TestHTTPEventPinsHeaderValues(t *testing.T) {
	r := &http.Request{Method: "GET", RequestURI: "/", Host: "h.example", URL: &url.URL{Path: "/"},
		Header: http.Header{"X-A": {"a\xffb", "ok"}}}
	ev := HTTPEvent(r)
	if v, err := InboundHeader(ev, "x-a"); err != nil || v != "a\ufffdb, ok" {
		t.Errorf("X-A %q, %v", v, err)
	}
	if ok, err := InboundHeaderExists(ev, "transfer-encoding"); err != nil || ok {
		t.Errorf("Transfer-Encoding exists %v, %v", ok, err)
	}
	r.TransferEncoding = []string{"chunked"}
	if v, err := InboundHeader(HTTPEvent(r), "transfer-encoding"); err != nil || v != "chunked" {
		t.Errorf("Transfer-Encoding %q, %v", v, err)
	}
}

// TestHTTPEventPinsHostReadMarksUsed pins 读取入站有限正文字节's status 3 after
// the host read the body itself ("正文已被读取：本包任一读取函数、宿主的其他读取，或其他读取器
// 已锁定正文流"): Open gives the host the stream and marks it used.
func TestHTTPEventPinsHostReadMarksUsed(t *testing.T) {
	// Pins I53.
	r := &http.Request{Method: "POST", RequestURI: "/", Host: "h.example", URL: &url.URL{Path: "/"},
		Header: http.Header{"Content-Length": {"2"}}, ContentLength: 2, Body: readCloser{strings.NewReader("hi")}}
	ev := HTTPEvent(r)
	body := ev.Request().Body()
	if body.Used() {
		t.Fatal("used before any read")
	}
	rc := body.Open()
	if b := make([]byte, 2); rc == nil || !body.Used() {
		t.Fatalf("Open gave %v, used %v", rc, body.Used())
	} else if n, _ := rc.Read(b); string(b[:n]) != "hi" {
		t.Errorf("the host read %q", b[:n])
	}
	if st, _, err := ReadInboundBytes(ev, 10); err != nil || st != BodyUsed {
		t.Errorf("status %v, %v; want 3", st, err)
	}
}

// TestHTTPEventPinsDotSegments pins the path of a request target, as
// workerd makes it: first tabs and newlines are removed, then "." and ".."
// segments split on "/" alone are resolved (a "\" is part of a segment
// there), then the URL parser runs; a target that starts with "\" skips
// workerd's pass. An absolute-form target's path is treated the same.
func TestHTTPEventPinsDotSegments(t *testing.T) {
	for _, c := range []struct{ target, path string }{
		{"/a\\b/.\t./c", "/c"},
		{"http://t.example/a\\b/.\t./c", "/c"},
		{"/a\\b/./../c", "/c"},
		{"/./a/b/../c", "/a/c"},
		{"\\x\\y/..", "/x/"},
		{"/a\\b/..", "/"},
	} {
		r := &http.Request{Method: "GET", RequestURI: c.target, Host: "h.example", URL: &url.URL{Path: "/"}, Header: http.Header{}}
		path, err := InboundRawPath(HTTPEvent(r))
		checkError(t, err, nil)
		if path != c.path {
			t.Errorf("%q: path %q, want %q", c.target, path, c.path)
		}
	}
}

// TestHTTPEventPinsAbsoluteFormAuthority pins an absolute-form target's
// authority: it ends at the first "/", "\", "?" or "#", its host starts
// after its last "@" (a leading one too), and an empty one is no host at
// all — never the Host header's — so the URL fails (Failure
// MsgRequestURL).
func TestHTTPEventPinsAbsoluteFormAuthority(t *testing.T) {
	r := &http.Request{Method: "GET", RequestURI: "http://@t.example/p", Host: "h.example", URL: &url.URL{Path: "/"}, Header: http.Header{}}
	if host, err := InboundHostname(HTTPEvent(r)); err != nil || host != "t.example" {
		t.Errorf("hostname %q, %v", host, err)
	}
	for _, target := range []string{"http://?@t.example", "http:///@t.example", "http://#@t.example", "http://\\@t.example"} {
		r.RequestURI = target
		_, err := InboundHostname(HTTPEvent(r))
		checkError(t, err, &wantError{"failure", MsgRequestURL})
	}
}

// targetHostPath is a request target sent with Host: host.example, and the
// hostname and raw path the app must read.
type targetHostPath struct{ target, host, path string }

// checkTargetHostPath sends each target over HTTPEvent and checks what
// InboundHostname and InboundRawPath read.
func checkTargetHostPath(t *testing.T, cases []targetHostPath) {
	t.Helper()
	for _, c := range cases {
		r := &http.Request{Method: "GET", RequestURI: c.target, Host: "host.example", URL: &url.URL{Path: "/"}, Header: http.Header{}}
		ev := HTTPEvent(r)
		host, err := InboundHostname(ev)
		checkError(t, err, nil)
		path, err := InboundRawPath(ev)
		checkError(t, err, nil)
		if host != c.host || path != c.path {
			t.Errorf("%q: hostname %q path %q, want %q %q", c.target, host, path, c.host, c.path)
		}
	}
}
