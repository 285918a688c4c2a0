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
	for _, c := range []struct{ target, host, path string }{
		{"http://a@b@target.example/p?q", "target.example", "/p"},
		{"http://a:b@c@target.example:81/", "target.example", "/"},
		{"http://target.example/x@y", "target.example", "/x@y"},
		{"http://a@target.example?x@y", "target.example", "/"},
	} {
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

// TestHTTPEventPinsAbsoluteFormScheme pins which request targets are in
// absolute form: a scheme (RFC 3986: a letter, then letters, digits, "+",
// "-" or "."; any scheme, not only http) followed by "://". The host of the
// URL is then the target's authority, with the connection's scheme;
// another target is a path, with the Host header's host. 读取入站主机名:
// "返回当前请求 URL 的 hostname".
func TestHTTPEventPinsAbsoluteFormScheme(t *testing.T) {
	for _, c := range []struct{ target, host, path string }{
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
	} {
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
