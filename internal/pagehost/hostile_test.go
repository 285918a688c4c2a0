package pagehost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hostbridge"
)

// syncBuffer is a bytes.Buffer for a log written by several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// dial opens a raw connection to base with a deadline that only stops a hang.
func dial(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// readReply reads one response from c: its status, Retry-After and error text.
func readReply(t *testing.T, c net.Conn) (int, string) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const partialBatch = "POST /batch HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n[{\"body\":"

// TestParserReasonToLog: a body that is not JSON (status 5) gets the host's
// own text; the parser's reason goes to the log only.
func TestParserReasonToLog(t *testing.T) {
	var log syncBuffer
	h := &host{log: slog.New(slog.NewTextHandler(&log, nil))}
	rec := httptest.NewRecorder()
	reason := "SyntaxError: Unexpected end of input in JSON at position 0"
	h.replyStatus(rec, hostbridge.BodyInvalidJSON, reason)
	if rec.Code != 400 || strings.Contains(rec.Body.String(), "SyntaxError") || !strings.Contains(rec.Body.String(), msgBodyNotJSON) {
		t.Errorf("client got %d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(log.String(), "Unexpected end of input in JSON at position 0") {
		t.Errorf("log %q lacks the reason", log.String())
	}
}

// TestSlowBody: a body that stops arriving is cut off by the read timeout
// with 408.
func TestSlowBody(t *testing.T) {
	cfg := testConfig()
	cfg.ReadTimeout = 200 * time.Millisecond
	_, base, _, _ := start(t, cfg)
	c := dial(t, base)
	io.WriteString(c, partialBatch)
	if code, body := readReply(t, c); code != http.StatusRequestTimeout || !strings.Contains(body, msgBodyTimeout) {
		t.Errorf("%d %s", code, body)
	}
}

// TestClientGivesUp: a client that stops sending mid-body (and closes its
// side) gets 400, not 503.
func TestClientGivesUp(t *testing.T) {
	_, base, _, _ := start(t, testConfig())
	c := dial(t, base)
	io.WriteString(c, partialBatch)
	c.(*net.TCPConn).CloseWrite()
	if code, body := readReply(t, c); code != http.StatusBadRequest || !strings.Contains(body, msgBodyBroken) {
		t.Errorf("%d %s", code, body)
	}
}

// TestIdleClosed: a keep-alive connection that sends nothing more is closed
// after the idle timeout; one that never sends its headers after the header
// timeout.
func TestIdleClosed(t *testing.T) {
	cfg := testConfig()
	cfg.IdleTimeout, cfg.ReadHeaderTimeout = 100*time.Millisecond, 100*time.Millisecond
	_, base, _, _ := start(t, cfg)
	c := dial(t, base)
	io.WriteString(c, "GET /stats HTTP/1.1\r\nHost: x\r\n\r\n")
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("idle keep-alive connection: %v, want EOF", err)
	}
	silent := dial(t, base)
	if _, err := silent.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("silent connection: %v, want EOF", err)
	}
}

// TestHeadersCapped: -max-header-bytes, 16 KiB by default, is exact: a
// request whose line and headers, line breaks and the blank line ending
// them included, take 16384 bytes is answered; one of 16385 bytes gets
// 431 (net/http's own slack of 4096 bytes taken off). Also for a smaller
// limit.
func TestHeadersCapped(t *testing.T) {
	for _, c := range []struct{ flag, size, want int }{
		{0, 16384, 200}, {0, 16385, 431}, {8192, 8192, 200}, {8192, 8193, 431},
	} {
		cfg := testConfig()
		if c.flag != 0 {
			cfg.MaxHeaderBytes = c.flag
		}
		_, base, _, _ := start(t, cfg)
		conn := dial(t, base)
		head := "GET /stats HTTP/1.1\r\nHost: x\r\nX-Big: \r\n\r\n"
		pad := strings.Repeat("a", c.size-len(head))
		io.WriteString(conn, head[:len(head)-4]+pad+"\r\n\r\n")
		if code, _ := readReply(t, conn); code != c.want {
			t.Errorf("-max-header-bytes %d, %d bytes: %d, want %d", cfg.MaxHeaderBytes, c.size, code, c.want)
		}
	}
}

// TestConnCap: the listener holds at most its cap of connections; a closed
// one frees its slot.
func TestConnCap(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newLimitListener(ln, 2)
	defer l.Close()
	var conns []net.Conn
	for range 2 {
		d := dial(t, "http://"+ln.Addr().String())
		defer d.Close()
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	select {
	case l.slots <- struct{}{}:
		t.Fatal("a third slot was free")
	default:
	}
	conns[0].Close()
	conns[0].Close() // frees one slot, once
	if l.open() != 1 {
		t.Errorf("open %d after a close, want 1", l.open())
	}
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	dial(t, "http://"+ln.Addr().String())
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v", err)
	}
}

// statsConn asks for /stats again and again on one connection of its own,
// which /stats then counts: a client's pool could open another at any time.
type statsConn struct {
	c net.Conn
	r *bufio.Reader
}

func newStatsConn(t *testing.T, base string) *statsConn {
	c := dial(t, base)
	return &statsConn{c: c, r: bufio.NewReader(c)}
}

func (s *statsConn) get(t *testing.T) Stats {
	t.Helper()
	var st Stats
	if err := json.Unmarshal(s.read(t, "/stats"), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// inFlight is /metrics' count of requests in the handler, this one
// included.
func (s *statsConn) inFlight(t *testing.T) string {
	t.Helper()
	for line := range strings.Lines(string(s.read(t, "/metrics"))) {
		if n, ok := strings.CutPrefix(line, "pagequeue_http_requests_in_flight "); ok {
			return strings.TrimSpace(n)
		}
	}
	t.Fatal("/metrics has no pagequeue_http_requests_in_flight")
	return ""
}

// read GETs path and returns the body.
func (s *statsConn) read(t *testing.T, path string) []byte {
	t.Helper()
	io.WriteString(s.c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(s.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConnectionsCount: /stats counts the connections open, the one it
// came on included: 1 for a lone client, 2 once another is accepted, 1
// again once that one is closed.
func TestConnectionsCount(t *testing.T) {
	_, base, _, _ := start(t, testConfig())
	sc := newStatsConn(t, base)
	if n := sc.get(t).Connections; n != 1 {
		t.Fatalf("a lone client sees %d connections, want 1", n)
	}
	other := dial(t, base)
	io.WriteString(other, "GET /stats HTTP/1.1\r\nHost: x\r\n\r\n")
	readReply(t, other) // the host has accepted it
	if n := sc.get(t).Connections; n != 2 {
		t.Errorf("%d connections with a second one open, want 2", n)
	}
	other.Close() // the host sees the close when it next reads: poll, a deadline only stops a hang
	deadline := time.Now().Add(time.Minute)
	for n := sc.get(t).Connections; n != 1; n = sc.get(t).Connections {
		if n != 2 || time.Now().After(deadline) {
			t.Fatalf("%d connections after the second closed, want 1", n)
		}
	}
}

// TestIdleFloodDoesNotLockOut: with every connection slot held by clients
// that send nothing, a new client is served once the header timeout frees
// a slot.
func TestIdleFloodDoesNotLockOut(t *testing.T) {
	cfg := testConfig()
	cfg.MaxConns, cfg.ReadHeaderTimeout = 4, 100*time.Millisecond
	h, base, _, _ := start(t, cfg)
	for range 8 {
		dial(t, base)
	}
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(base + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || h.stats().Connections > cfg.MaxConns {
		t.Errorf("%d, %d connections open", resp.StatusCode, h.stats().Connections)
	}
}

func TestMaxConnsDefault(t *testing.T) {
	for _, c := range []struct{ files, want int }{{1024, 896}, {256, 224}, {64, 32}, {20, 1}, {20000, 10000}} {
		if got := defaultMaxConns(c.files); got != c.want {
			t.Errorf("defaultMaxConns(%d) = %d, want %d", c.files, got, c.want)
		}
	}
}

// TestQueueFull: past -max-pending a send is refused whole with 503 and
// Retry-After, and counted.
func TestQueueFull(t *testing.T) {
	cfg := testConfig()
	cfg.MaxPending, cfg.BatchSize, cfg.BatchTimeout = 3, 100, time.Minute // nothing is delivered
	h, base, _, _ := start(t, cfg)
	send := func(path, body string) (int, string, string) {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
	}
	for _, c := range []struct {
		path, body string
		code       int
	}{
		{"/pages/a?version=1", "", 202},
		{"/pages/b?version=1", "", 202},
		{"/batch", `[{"body":1},{"body":2}]`, 503},
		{"/batch", `[{"body":1}]`, 202},
		{"/pages/c?version=1", "", 503},
	} {
		code, after, body := send(c.path, c.body)
		if code != c.code || code == 503 && (after != retryAfter || !strings.Contains(body, ErrQueueFull.Error())) {
			t.Errorf("%s %s: %d Retry-After %q %s", c.path, c.body, code, after, body)
		}
	}
	if s := h.stats(); s.Pending != 3 || s.RefusedFull != 2 {
		t.Errorf("%+v, want 3 pending, 2 refused", s)
	}
}

// TestDeadLettersBounded: the dead-letter queue keeps the newest
// -max-dead-letters messages; /stats shows its size and the discarded ones.
func TestDeadLettersBounded(t *testing.T) {
	cfg := testConfig()
	cfg.Fail, cfg.MaxRetries, cfg.MaxDeadLetters = 1, 0, 2
	h, base, _, _ := start(t, cfg)
	batch := `[{"body":"d0"},{"body":"d1"},{"body":"d2"},{"body":"d3"},{"body":"d4"}]` // delivered as one batch, in order
	if code, v := post(t, http.DefaultClient, base+"/batch", batch); code != 202 {
		t.Fatal(code, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h.mem().Wait(ctx, func() bool {
		s := h.stats()
		return s.DeadLettered == 5 && s.DeadLetterDiscarded == 3
	})
	if s := h.stats(); s.DeadLettered != 5 || s.DeadLetterQueue != 2 || s.DeadLetterDiscarded != 3 {
		t.Errorf("%+v, want 5 dead-lettered, 2 kept, 3 discarded", s)
	}
	kept := h.mem().Queued(DeadQueue)
	if len(kept) != 2 || fmt.Sprintf("%s %s", kept[0].Body, kept[1].Body) != `"d3" "d4"` {
		t.Errorf("kept %v, want the newest two", kept)
	}
}
