package hostbridge

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// seen is what a handler saw of HTTPEvent(r).
type seen struct {
	Method, URL, RawPath, Query string
	Status                      BodyStatus
	Body                        string
	Err                         string
	NoStream                    bool
}

// loopback serves HTTPEvent readings over a real listener: the handler
// reads the body with read and reports what it saw on the channel and in
// the response.
func loopback(t *testing.T, read func(ev Event) (BodyStatus, string, error)) (string, <-chan seen) {
	t.Helper()
	out := make(chan seen, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev := HTTPEvent(r)
		var s seen
		s.Method, _ = InboundMethod(ev)
		s.URL = ev.Request().URL()
		s.RawPath, _ = InboundRawPath(ev)
		s.Query, _ = InboundRawQuery(ev)
		s.NoStream = ev.Request().Body() == nil
		st, body, err := read(ev)
		s.Status, s.Body = st, body
		if err != nil {
			s.Err = err.Error()
		}
		out <- s
		json.NewEncoder(w).Encode(s)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), out
}

// send writes raw request bytes in pieces on a new connection and returns it.
func send(t *testing.T, addr string, pieces ...string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second)) // stops a hang, never expected
	for _, p := range pieces {
		if _, err := io.WriteString(c, p); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// response reads the handler's report from the connection.
func response(t *testing.T, c net.Conn) seen {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s seen
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func strict(limit int) func(Event) (BodyStatus, string, error) {
	return func(ev Event) (BodyStatus, string, error) { return ReadInboundStrictText(ev, limit) }
}

func TestHTTPEventChunkedInPieces(t *testing.T) {
	addr, _ := loopback(t, strict(1000))
	c := send(t, addr, "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n",
		"5\r\nhello\r\n", "1\r\n \r\n", "6\r\n\xe4\xb8\xad\xe6\x96\x87\r\n", "0\r\n\r\n")
	if s := response(t, c); s.Status != BodyOK || s.Body != "hello 中文" || s.NoStream {
		t.Errorf("%+v", s)
	}
}

// TestHTTPEventContentLengthOverLimit: the declared length decides before
// any byte is read; the client never sends the body, so a read would hang.
func TestHTTPEventContentLengthOverLimit(t *testing.T) {
	// Pins I56.
	addr, out := loopback(t, strict(10))
	send(t, addr, "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n")
	if s := <-out; s.Status != BodyTooLarge || s.Body != "" || s.Err != "" {
		t.Errorf("%+v", s)
	}
}

func TestHTTPEventClientHangsUp(t *testing.T) {
	// Pins I74.
	addr, out := loopback(t, strict(1000))
	c := send(t, addr, "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n", "only ten b")
	c.(*net.TCPConn).CloseWrite()
	s := <-out
	if want := MsgBodyReadFailed + io.ErrUnexpectedEOF.Error(); s.Err != want {
		t.Errorf("error %q, want %q", s.Err, want)
	}
}

// TestHTTPEventReadFailureKind: the stream's failure is a catchable Failure
// carrying the cause.
// Pins D43.
func TestHTTPEventReadFailureKind(t *testing.T) {
	// Pins I74, I124.
	errs := make(chan error, 1)
	addr, _ := loopback(t, func(ev Event) (BodyStatus, string, error) {
		st, b, err := ReadInboundBytes(ev, 1000)
		errs <- err
		return st, string(b), err
	})
	c := send(t, addr, "POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n", "abc")
	c.(*net.TCPConn).CloseWrite()
	err := <-errs
	var e *Error
	if !errors.As(err, &e) || e.Kind != Failure || !e.Catchable() || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%#v", err)
	}
}

// TestHTTPEventBodies: workerd's body rules.
// Pins D48.
func TestHTTPEventBodies(t *testing.T) {
	// Pins I61.
	addr, _ := loopback(t, strict(100))
	for _, c := range []struct {
		req      string
		st       BodyStatus
		body     string
		noStream bool
	}{
		{"GET / HTTP/1.1\r\nHost: h\r\n\r\n", BodyNone, "", true},
		{"HEAD / HTTP/1.1\r\nHost: h\r\n\r\n", BodyNone, "", true},
		{"POST / HTTP/1.1\r\nHost: h\r\n\r\n", BodyNone, "", true},
		{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", BodyOK, "", false},
		{"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi", BodyOK, "hi", false},
		{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n\xff", BodyInvalidUTF8, "", false},
	} {
		conn := send(t, addr, c.req)
		if strings.HasPrefix(c.req, "HEAD") {
			continue // no response body to report in
		}
		if s := response(t, conn); s.Status != c.st || s.Body != c.body || s.NoStream != c.noStream {
			t.Errorf("%q: %+v", c.req, s)
		}
	}
}

// TestHTTPEventUsed: once read through the adapter, the body is used.
func TestHTTPEventUsed(t *testing.T) {
	// Pins I63.
	addr, _ := loopback(t, func(ev Event) (BodyStatus, string, error) {
		if st, _, _ := ReadInboundBytes(ev, 100); st != BodyOK {
			return st, "first read", nil
		}
		return ReadInboundStrictText(ev, 100)
	})
	c := send(t, addr, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi")
	if s := response(t, c); s.Status != BodyUsed {
		t.Errorf("%+v", s)
	}
}

// TestHTTPEventTargets: the URL is what a WHATWG parser serialises for the
// request-target; the method as Fetch normalises it.
// Pins D46, D47.
func TestHTTPEventTargets(t *testing.T) {
	addr, out := loopback(t, strict(10))
	for _, c := range []struct{ line, method, url, rawPath, query string }{
		{"GET /a/b/../c HTTP/1.1", "GET", "/a/c", "/a/c", ""},
		{"GET /a/%2e%2E/c/%2e/d HTTP/1.1", "GET", "/c/d", "/c/d", ""},
		{"GET /a\\b\\..\\c HTTP/1.1", "GET", "/a/c", "/a/c", ""},
		{"GET /中文?q=é HTTP/1.1", "GET", "/%E4%B8%AD%E6%96%87?q=%C3%A9", "/%E4%B8%AD%E6%96%87", "?q=%C3%A9"},
		{"GET /p? HTTP/1.1", "GET", "/p?", "/p", ""},
		{"GET /p?a='b\"c'^<> HTTP/1.1", "GET", "/p?a=%27b%22c%27^%3C%3E", "/p", "?a=%27b%22c%27^%3C%3E"},
		{"GET /p^q HTTP/1.1", "GET", "/p%5Eq", "/p%5Eq", ""},
		{"get / HTTP/1.1", "GET", "/", "/", ""},
		{"Patch / HTTP/1.1", "Patch", "/", "/", ""},
		{"GET http://other.example/x HTTP/1.1", "GET", "/x", "/x", ""},
		// workerd's pass: . and .. segments split on / only, before parsing.
		{"GET /x\\y/.. HTTP/1.1", "GET", "/", "/", ""},
		{"GET /a\\b/../c HTTP/1.1", "GET", "/c", "/c", ""},
		{"GET /a#b/../c HTTP/1.1", "GET", "/c", "/c", ""},
		{"GET /a/%2e%2e/../c HTTP/1.1", "GET", "/a/c", "/a/c", ""},
		{"GET /a/%2e%2e/c HTTP/1.1", "GET", "/c", "/c", ""},
		{"GET /a/..?x=/../y HTTP/1.1", "GET", "/?x=/../y", "/", "?x=/../y"},
		{"GET /a//b/./c/. HTTP/1.1", "GET", "/a//b/c/", "/a//b/c/", ""},
		{"GET /../../a/.. HTTP/1.1", "GET", "/", "/", ""},
		{"GET /a/.b/..c/... HTTP/1.1", "GET", "/a/.b/..c/...", "/a/.b/..c/...", ""},
		{"GET http://other.example/a\\b/../c HTTP/1.1", "GET", "/c", "/c", ""},
	} {
		conn := send(t, addr, c.line+"\r\nHost: Example.COM:80\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("%s: the server answered %v %v", c.line, resp.Status, err)
			continue
		}
		var s seen
		json.NewDecoder(resp.Body).Decode(&s)
		resp.Body.Close()
		<-out // the handler's report, already in s
		host := "http://example.com"
		if strings.Contains(c.line, "other.example") {
			host = "http://other.example"
		}
		if s.Method != c.method || s.URL != host+c.url || s.RawPath != c.rawPath || s.Query != c.query {
			t.Errorf("%s: %+v, want %s %s%s %s %q", c.line, s, c.method, host, c.url, c.rawPath, c.query)
		}
	}
}

// TestHTTPEventBadEscape: net/http itself answers 400 to a request-target
// with a bad percent escape, before any handler; a request that reaches the
// adapter another way keeps the escape, and the decoded path is the spec's
// violation.
func TestHTTPEventBadEscape(t *testing.T) {
	addr, out := loopback(t, strict(10))
	conn := send(t, addr, "GET /%zz/%41 HTTP/1.1\r\nHost: h\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusBadRequest || len(out) != 0 {
		t.Fatalf("net/http answered %v %v, handler called %d times", resp.Status, err, len(out))
	}
	r := httptest.NewRequest("GET", "http://h/", nil)
	r.RequestURI = "/%zz/%41"
	ev := HTTPEvent(r)
	if raw, _ := InboundRawPath(ev); raw != "/%zz/%41" {
		t.Errorf("raw path %q", raw)
	}
	_, err = InboundDecodedPath(ev)
	var e *Error
	if !errors.As(err, &e) || e.Msg != MsgPathEncoding || e.Kind != Violation {
		t.Errorf("decoded path error %v", err)
	}
}

// TestHTTPEventOneReader: two goroutines reading one body at once: exactly
// one gets it, the other sees status 3, in every pair.
// Pins D42.
func TestHTTPEventOneReader(t *testing.T) {
	// Pins I53.
	for i := range 2000 {
		r := httptest.NewRequest("POST", "http://h/", strings.NewReader("hi"))
		r.Header.Set("Content-Length", "2")
		ev := HTTPEvent(r)
		start := make(chan struct{})
		sts := make(chan BodyStatus, 2)
		for range 2 {
			go func() {
				<-start
				st, _, _ := ReadInboundBytes(ev, 10)
				sts <- st
			}()
		}
		close(start)
		a, b := <-sts, <-sts
		if min(a, b) != BodyOK || max(a, b) != BodyUsed {
			t.Fatalf("pair %d: statuses %d and %d, want 0 and 3", i, a, b)
		}
	}
}

// TestHTTPEventLostRace: a reader that finds the body unused and then loses
// the lock to another reader gets status 3 from every bounded reader, and
// ReadInboundJSON MsgJSONBodyUsed, as D42 promises ("exactly one gets it
// and the other sees status 3"). Deterministic: the other reader locks the
// body between Used and lock, and never reads it.
// Pins D42.
func TestHTTPEventLostRace(t *testing.T) {
	// Pins I53, I83, I101.
	readers := map[string]func(Event) (BodyStatus, error){
		"text":    func(ev Event) (BodyStatus, error) { st, _, err := ReadInboundText(ev, 10); return st, err },
		"strict":  func(ev Event) (BodyStatus, error) { st, _, err := ReadInboundStrictText(ev, 10); return st, err },
		"bytes":   func(ev Event) (BodyStatus, error) { st, _, err := ReadInboundBytes(ev, 10); return st, err },
		"bounded": func(ev Event) (BodyStatus, error) { st, _, err := ReadInboundBoundedJSON(ev, 10); return st, err },
	}
	lostRace := func() (Event, *racedBody) {
		r := httptest.NewRequest("POST", "http://h/", strings.NewReader("[1]"))
		ev := HTTPEvent(r)
		b := &racedBody{Body: ev.Request().Body()}
		return withBody(ev, b), b
	}
	for name, read := range readers {
		ev, b := lostRace()
		if st, err := read(ev); st != BodyUsed || err != nil || !b.lost {
			t.Errorf("%s: (%d, %v), lost the race %v; want status 3", name, st, err, b.lost)
		}
	}
	ev, b := lostRace()
	if s, err := ReadInboundJSON(ev); s != "" || !b.lost {
		t.Errorf("ReadInboundJSON: %q, lost the race %v", s, b.lost)
	} else {
		wantBodyError(t, "ReadInboundJSON", err, Failure, MsgJSONBodyUsed)
	}
}

// racedBody is a body that another reader locks just after Used says it
// is unused.
type racedBody struct {
	Body
	lost bool // lock found the body taken
}

func (b *racedBody) Used() bool {
	used := b.Body.Used()
	if !used {
		b.Body.(bodyLocker).lock() // the other reader wins
	}
	return used
}

func (b *racedBody) lock() (io.ReadCloser, bool) {
	rc, ok := b.Body.(bodyLocker).lock()
	b.lost = !ok
	return rc, ok
}

// withBody returns ev with its request's body replaced by b.
func withBody(ev Event, b Body) Event { return bodyEvent{ev, bodyRequest{ev.Request(), b}} }

type bodyEvent struct {
	Event
	r Request
}

func (e bodyEvent) Request() Request { return e.r }

type bodyRequest struct {
	Request
	b Body
}

func (r bodyRequest) Body() Body { return r.b }

// headersSeen reports what InboundHeader and InboundHeaderExists give for
// names, and the strict read's status and body.
func headersSeen(limit int, names ...string) func(Event) (BodyStatus, string, error) {
	return func(ev Event) (BodyStatus, string, error) {
		var b strings.Builder
		for _, n := range names {
			v, _ := InboundHeader(ev, n)
			ok, _ := InboundHeaderExists(ev, n)
			fmt.Fprintf(&b, "%s=%q,%v;", n, v, ok)
		}
		st, body, err := ReadInboundStrictText(ev, limit)
		return st, b.String() + body, err
	}
}

// TestHTTPEventMovedHeaders: Host and Transfer-Encoding are headers like
// any other, as in a Worker. A Content-Length beside chunked framing is
// gone (net/http deletes it and keeps no trace), so the precheck cannot
// see it: status 0 where workerd gives 1 (a known platform difference).
// Pins D50.
func TestHTTPEventMovedHeaders(t *testing.T) {
	addr, _ := loopback(t, headersSeen(2, "host", "Transfer-Encoding", "content-length"))
	c := send(t, addr, "POST / HTTP/1.1\r\nHost: Example.com:8080\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n")
	want := `host="Example.com:8080",true;Transfer-Encoding="chunked",true;content-length="",false;a`
	if s := response(t, c); s.Status != BodyOK || s.Body != want {
		t.Errorf("got %d %s, want 0 %s", s.Status, s.Body, want)
	}
	// Content-Length without chunked framing stays, and the precheck sees it.
	c = send(t, addr, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc")
	if s := response(t, c); s.Status != BodyTooLarge {
		t.Errorf("Content-Length 3, limit 2: %+v", s)
	}
}

// TestDeclaredLengthBesideChunked: a host whose Header keeps the declared
// length beside chunked framing (as a Worker's does) gets status 1 from
// the precheck without a byte read: workerd's Content-Length: 3 + chunked,
// limit 2.
// Pins D50.
func TestDeclaredLengthBesideChunked(t *testing.T) {
	h := http.Header{"Content-Length": {"3"}, "Transfer-Encoding": {"chunked"}}
	fb := &FakeBody{Chunks: [][]byte{[]byte("a")}}
	st, _, err := ReadInboundBytes(NewRequestEvent(EventFetch, "POST", "http://h/", h, fb), 2)
	if st != BodyTooLarge || err != nil || fb.Pulls != 0 {
		t.Errorf("status %d, %v, %d pulls; want 1 and no pull", st, err, fb.Pulls)
	}
}

// TestHTTPEventNotUTF8: header value bytes and raw request-target bytes that
// are not UTF-8 are decoded the lenient way, as workerd does.
// Pins D46.
func TestHTTPEventNotUTF8(t *testing.T) {
	addr, _ := loopback(t, func(ev Event) (BodyStatus, string, error) {
		v, _ := InboundHeader(ev, "x-latin")
		p, err := InboundDecodedPath(ev)
		return BodyOK, v + " " + p, err
	})
	c := send(t, addr, "GET /\xff?q=\xe9 HTTP/1.1\r\nHost: h\r\nX-Latin: a\xe9b\r\n\r\n")
	s := response(t, c)
	if s.RawPath != "/%EF%BF%BD" || s.Query != "?q=%EF%BF%BD" || s.Body != "a\ufffdb /\ufffd" || s.Err != "" {
		t.Errorf("%+v", s)
	}
}

// TestHTTPEventHTTP2: over HTTP/2 a body without content-length is a stream
// that the readers read; status 2 only when there is no body at all.
// Pins D48.
func TestHTTPEventHTTP2(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st, body, err := ReadInboundStrictText(HTTPEvent(r), 100)
		fmt.Fprintf(w, "%d %d %q %v", r.ProtoMajor, st, body, err)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		method string
		body   io.Reader
		want   string
	}{
		// Length unknown: no content-length, DATA frames.
		{"POST", io.MultiReader(strings.NewReader("hello "), strings.NewReader("h2")), `2 0 "hello h2" <nil>`},
		{"POST", strings.NewReader("sized"), `2 0 "sized" <nil>`},
		{"POST", nil, `2 0 "" <nil>`},   // Go's client sends content-length: 0
		{"DELETE", nil, `2 2 "" <nil>`}, // the headers end the stream: no body
	} {
		req, err := http.NewRequest(c.method, srv.URL, c.body)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.method, got, c.want)
		}
	}
}

// TestHTTPEventNoHost: an HTTP/1.0 request without Host has the origin of
// the address it arrived on, and a same-origin URL stays there; a request
// with no host and no address has no URL, and the URL readers fail.
// Pins D49.
func TestHTTPEventNoHost(t *testing.T) {
	addr, _ := loopback(t, func(ev Event) (BodyStatus, string, error) {
		o, err1 := InboundOrigin(ev)
		u, err2 := InboundSameOriginURL(ev, "/evil.example/steal", nil, nil)
		ok, _ := InboundHeaderExists(ev, "host")
		return BodyOK, fmt.Sprint(o, " ", u, " ", ok), errors.Join(err1, err2)
	})
	c := send(t, addr, "GET /x HTTP/1.0\r\n\r\n")
	o := "http://" + addr
	if s := response(t, c); s.Body != o+" "+o+"/evil.example/steal false" || s.Err != "" {
		t.Errorf("%+v, want origin %s", s, o)
	}

	r := httptest.NewRequest("GET", "/evil.example/steal", nil)
	r.Host = ""
	ev := HTTPEvent(r)
	for _, call := range urlReaders[1:] {
		_, err := callReader(t, call, ev, "/evil.example/steal")
		checkError(t, err, &wantError{"failure", MsgRequestURL})
	}
}

// TestHTTPEventPunycodeHost: a Host with a label starting xn--, valid
// Punycode or not, is kept lower-cased, as the URL Standard's domain to
// ASCII keeps an ASCII domain; workerd and Node.js 20 refuse the first
// twelve (PLATFORMS.md lists the difference).
// Pins D34.
func TestHTTPEventPunycodeHost(t *testing.T) {
	addr, out := loopback(t, func(ev Event) (BodyStatus, string, error) {
		o, err1 := InboundOrigin(ev)
		u, err2 := InboundSameOriginURL(ev, "/p", nil, nil)
		h, err3 := InboundHostname(ev)
		return BodyOK, o + " " + u + " " + h, errors.Join(err1, err2, err3)
	})
	for _, host := range append(xnRefusedByWorkerd, xnAcceptedByWorkerd...) {
		s := response(t, send(t, addr, "GET /p?q=1 HTTP/1.1\r\nHost: "+host+".example\r\n\r\n"))
		<-out
		h := strings.ToLower(host) + ".example"
		if want := "http://" + h + " http://" + h + "/p?q=1 " + h; s.Body != want || s.Err != "" {
			t.Errorf("Host %s.example: %q, %q; want %q", host, s.Body, s.Err, want)
		}
	}
}

// TestNetHTTPPlatformDifferences: what PLATFORMS.md says net/http does
// before HTTPEvent sees a request, shown
// through a net/http server: refusals answered before any handler, and
// header values changed on the way.
// Pins D50.
func TestNetHTTPPlatformDifferences(t *testing.T) {
	addr, out := loopback(t, func(ev Event) (BodyStatus, string, error) {
		sp, _ := InboundHeader(ev, "x-sp")
		fold, _ := InboundHeader(ev, "x-fold")
		te, _ := InboundHeader(ev, "transfer-encoding")
		return BodyOK, sp + "|" + fold + "|" + te, nil
	})
	for _, c := range []struct {
		name, head string
		status     int
	}{
		{"space in the target", "GET /a b HTTP/1.1\r\nHost: h\r\n", 400},
		{"control byte in the target", "GET /a\x01b HTTP/1.1\r\nHost: h\r\n", 400},
		{"bad percent escape", "GET /a%zz HTTP/1.1\r\nHost: h\r\n", 400},
		{"space before a header colon", "GET / HTTP/1.1\r\nHost: h\r\nX-A : v\r\n", 400},
		{"Content-Length 2^63", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775808\r\n", 400},
		{"control byte in a header value", "GET / HTTP/1.1\r\nHost: h\r\nX-C: a\x01b\r\n", 400},
		{"non-ASCII header name", "GET / HTTP/1.1\r\nHost: h\r\nX-\xc3\x84: v\r\n", 400},
		{"Expect other than 100-continue", "GET / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\n", 417},
	} {
		conn := send(t, addr, c.head+"\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil || resp.StatusCode != c.status || len(out) != 0 {
			t.Errorf("%s: net/http answered %v, %v, handler called %d times; want %d before any handler",
				c.name, resp, err, len(out), c.status)
		}
	}
	for _, c := range []struct{ name, head, want string }{
		{"trailing spaces trimmed, obs-fold joined by one space",
			"GET / HTTP/1.1\r\nHost: h\r\nX-Sp: v  \r\nX-Fold: a\r\n   folded\r\n", "v|a folded|"},
		{"Transfer-Encoding keeps no spelling",
			"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: CHUNKED\r\n\r\n0\r\n", "||chunked"},
		{"Expect: 100-continue reaches the handler",
			"GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n", "||"},
		// What workerd alone refuses reaches the handler over net/http.
		{"lower-case method", "get / HTTP/1.1\r\nHost: h\r\n", "||"},
		{"Content-Length with trailing spaces",
			"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0  \r\n", "||"},
		{"two equal Content-Length fields",
			"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent-Length: 0\r\n", "||"},
		{"Host with sub-delimiters", "GET / HTTP/1.1\r\nHost: a$!'()*~=&;,+\r\n", "||"},
		{"Host :+80", "GET / HTTP/1.1\r\nHost: :+80\r\n", "||"},
		{"trailing whitespace in Host", "GET / HTTP/1.1\r\nHost: h \t\r\n", "||"},
		{"% in Host", "GET / HTTP/1.1\r\nHost: h%41\r\n", "||"},
		{"a request head over 128 KiB",
			"GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + strings.Repeat("a", 128<<10) + "\r\n", "||"},
	} {
		s := response(t, send(t, addr, c.head+"\r\n"))
		<-out
		if s.Body != c.want {
			t.Errorf("%s: the handler saw %q, want %q", c.name, s.Body, c.want)
		}
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// TestHTTPEventAbsoluteFormUserinfo pins the URL of a request whose
// target is in absolute form with userinfo holding "@": the host is the
// target's authority after its last "@" (as the URL parser takes it), and
// the Host header does not replace it (RFC 9112: a server ignores Host for
// an absolute-form target). 读取入站主机名: "返回当前请求 URL 的 hostname".
// Pins D46.
func TestHTTPEventAbsoluteFormUserinfo(t *testing.T) {
	checkTargetHostPath(t, []targetHostPath{
		{"http://a@b@target.example/p?q", "target.example", "/p"},
		{"http://a:b@c@target.example:81/", "target.example", "/"},
		{"http://target.example/x@y", "target.example", "/x@y"},
		{"http://a@target.example?x@y", "target.example", "/"},
	})
}

// TestHTTPEventAbsoluteFormScheme pins which request targets are in
// absolute form: a scheme (RFC 3986: a letter, then letters, digits, "+",
// "-" or "."; any scheme, not only http) followed by "://". The host of the
// URL is then the target's authority, with the connection's scheme;
// another target is a path, with the Host header's host. 读取入站主机名:
// "返回当前请求 URL 的 hostname".
func TestHTTPEventAbsoluteFormScheme(t *testing.T) {
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

// TestHTTPEventMethodNormalised pins 读取入站方法 on a method net/http
// passes as the client spelled it: Fetch's "normalize a method" upper-cases
// DELETE, GET, HEAD, OPTIONS, POST and PUT, matched ASCII
// case-insensitively, and leaves any other as it is.
func TestHTTPEventMethodNormalised(t *testing.T) {
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

// TestHTTPEventClientSideRequest pins HTTPEvent on a request built
// client-side (http.NewRequest: no RequestURI): its URL's path and query
// are the target, with its host.
func TestHTTPEventClientSideRequest(t *testing.T) {
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

// TestHTTPEventHandmadeRequest pins HTTPEvent on a request a host built
// by hand: no header map (Host still comes from r.Host), and a
// Content-Length header with no Body, an empty stream (读取入站有限正文字节: "空正文流
// 返回状态 0 与空结果").
func TestHTTPEventHandmadeRequest(t *testing.T) {
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

// TestHTTPEventHeaderValues pins the header values HTTPEvent gives:
// bytes that are not UTF-8 become U+FFFD (a Worker's Headers hold
// USVStrings); Transfer-Encoding is put back from r.TransferEncoding only
// when net/http moved it there, never as an empty field.
func TestHTTPEventHeaderValues(t *testing.T) {
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

// TestHTTPEventHostReadMarksUsed pins 读取入站有限正文字节's status 3 after
// the host read the body itself ("正文已被读取：本包任一读取函数、宿主的其他读取，或其他读取器
// 已锁定正文流"): Open gives the host the stream and marks it used.
func TestHTTPEventHostReadMarksUsed(t *testing.T) {
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

// TestHTTPEventDotSegments pins the path of a request target, as
// workerd makes it: first tabs and newlines are removed, then "." and ".."
// segments split on "/" alone are resolved (a "\" is part of a segment
// there), then the URL parser runs; a target that starts with "\" skips
// workerd's pass. An absolute-form target's path is treated the same.
func TestHTTPEventDotSegments(t *testing.T) {
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

// TestHTTPEventAbsoluteFormAuthority pins an absolute-form target's
// authority: it ends at the first "/", "\", "?" or "#", its host starts
// after its last "@" (a leading one too), and an empty one is no host at
// all — never the Host header's — so the URL fails (Failure
// MsgRequestURL).
func TestHTTPEventAbsoluteFormAuthority(t *testing.T) {
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

// TestHTTPEventHeadHasNoBody pins the body status of a GET or HEAD request
// that comes with a body stream: "2 | 没有正文：方法为 GET 或 HEAD，或宿主没有为该
// 请求提供正文流 | 空" (读取入站有限正文字节). The Request such a request becomes has
// no body stream at all (Request.Body is nil), as a Fetch Request of those
// methods has a null body, even when net/http has one for it. The method
// is normalised first (Fetch's "normalize a method"), so "head" and "get"
// have none either; a POST or an extension method with the same stream
// keeps it.
// Pins D48.
func TestHTTPEventHeadHasNoBody(t *testing.T) {
	// Pins I52.
	for _, c := range []struct {
		method string
		st     BodyStatus
		body   string
	}{
		{"HEAD", BodyNone, ""}, {"head", BodyNone, ""}, {"Head", BodyNone, ""},
		{"GET", BodyNone, ""}, {"get", BodyNone, ""}, {"gEt", BodyNone, ""},
		{"POST", BodyOK, "hi"}, {"PATCH", BodyOK, "hi"}, {"HEADX", BodyOK, "hi"}, {"DELETE", BodyOK, "hi"},
	} {
		request := func() *http.Request {
			return &http.Request{Method: c.method, RequestURI: "/", Host: "example.com", URL: &url.URL{Path: "/"},
				Header: http.Header{"Content-Length": {"2"}}, ContentLength: 2, Body: readCloser{strings.NewReader("hi")}}
		}
		if noStream := HTTPEvent(request()).Request().Body() == nil; noStream != (c.st == BodyNone) {
			t.Errorf("%s: no stream %v", c.method, noStream)
		}
		st, b, err := ReadInboundBytes(HTTPEvent(request()), 10)
		checkError(t, err, nil)
		if st != c.st || string(b) != c.body {
			t.Errorf("%s: status %v body %q, want %v %q", c.method, st, b, c.st, c.body)
		}
	}
}

// TestHTTPEventHostReadAfter: a net/http handler that makes its event with
// HTTPEvent and then reads, parses or closes r.Body itself leaves the
// package's readers status 3 (正文已被读取：…宿主的其他读取), as a Worker
// whose body another reader took does; the host read what the client sent.
func TestHTTPEventHostReadAfter(t *testing.T) {
	// Pins I53, I63, D51.
	for _, c := range []struct {
		name string
		read func(r *http.Request) string
	}{
		{"io.ReadAll", func(r *http.Request) string { b, _ := io.ReadAll(r.Body); return string(b) }},
		{"ParseForm", func(r *http.Request) string { _ = r.ParseForm(); return r.PostForm.Get("a") }},
		{"an empty read", func(r *http.Request) string { n, _ := r.Body.Read(nil); return strconv.Itoa(n) }},
		{"Close", func(r *http.Request) string { return fmt.Sprint(r.Body.Close()) }},
	} {
		var st BodyStatus
		var text, hostSaw string
		var err error
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ev := HTTPEvent(r)
			hostSaw = c.read(r)
			st, text, err = ReadInboundText(ev, 100)
		})
		r := httptest.NewRequest("POST", "http://h.example/", strings.NewReader("a=hi"))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		h.ServeHTTP(httptest.NewRecorder(), r)
		if st != 3 || text != "" || err != nil {
			t.Errorf("%s: ReadInboundText gave (%d, %q, %v), want (3, \"\", nil)", c.name, st, text, err)
		}
		if want := map[string]string{"io.ReadAll": "a=hi", "ParseForm": "hi", "an empty read": "0", "Close": "<nil>"}[c.name]; hostSaw != want {
			t.Errorf("%s: the host got %q, want %q", c.name, hostSaw, want)
		}
	}
}
