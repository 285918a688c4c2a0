package hostbridge

import (
	"errors"
	"io"
	"net/http"
	"testing"
)

func TestFakeBody(t *testing.T) {
	cancelErr := errors.New("cancel failed")
	fb := &FakeBody{Chunks: [][]byte{[]byte("abc"), {}, []byte("de")}, CancelErr: cancelErr}
	if fb.Used() || fb.Pulls != 0 {
		t.Fatal("a new body is used")
	}
	rc := fb.Open()
	if !fb.Used() {
		t.Error("an opened body is not used")
	}
	buf := make([]byte, 2)
	steps := []struct {
		n     int
		err   error
		pulls int
	}{
		{2, nil, 1}, // "ab": the first chunk, cut by the small buffer
		{1, nil, 1}, // "c": its rest, no new pull
		{0, nil, 2}, // the empty chunk
		{2, nil, 3}, // "de"
		{0, io.EOF, 3},
		{0, io.EOF, 3},
	}
	for i, s := range steps {
		n, err := rc.Read(buf)
		if n != s.n || err != s.err || fb.Pulls != s.pulls {
			t.Errorf("read %d: (%d, %v) pulls %d, want (%d, %v) pulls %d", i, n, err, fb.Pulls, s.n, s.err, s.pulls)
		}
	}
	if n, err := rc.Read(nil); n != 0 || err != nil || fb.Pulls != 3 {
		t.Errorf("empty read: (%d, %v)", n, err)
	}
	if err := rc.Close(); err != nil || fb.Canceled {
		t.Errorf("close after the end: %v, canceled %v", err, fb.Canceled)
	}
	if _, err := rc.Read(buf); err == nil || err == io.EOF {
		t.Errorf("read after close: %v", err)
	}
	// A second reader of a used body fails.
	rc2 := fb.Open()
	if _, err := rc2.Read(buf); err == nil || err == io.EOF {
		t.Errorf("second reader: %v", err)
	}
	if err := rc2.Close(); err != nil || fb.Canceled {
		t.Errorf("second reader's Close: %v, canceled %v", err, fb.Canceled)
	}

	// Close before the end cancels and returns CancelErr, once.
	fb = &FakeBody{Chunks: [][]byte{[]byte("abc"), []byte("de")}, CancelErr: cancelErr}
	rc = fb.Open()
	rc.Read(buf)
	if err := rc.Close(); err != cancelErr || !fb.Canceled || fb.Pulls != 1 {
		t.Errorf("cancel: %v, canceled %v, pulls %d", err, fb.Canceled, fb.Pulls)
	}
	if err := rc.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}

	// Err after the chunks; an empty stream ends at once.
	reset := errors.New("connection reset")
	fb = &FakeBody{Chunks: [][]byte{[]byte("a")}, Err: reset}
	rc = fb.Open()
	if n, err := rc.Read(buf); n != 1 || err != nil {
		t.Errorf("(%d, %v)", n, err)
	}
	if _, err := rc.Read(buf); err != reset {
		t.Errorf("after the chunks: %v, want %v", err, reset)
	}
	if rc.Close(); fb.Canceled {
		t.Error("close after a failure cancelled")
	}
	fb = &FakeBody{}
	if n, err := fb.Open().Read(buf); n != 0 || err != io.EOF || fb.Pulls != 0 {
		t.Errorf("empty stream: (%d, %v) pulls %d", n, err, fb.Pulls)
	}
}

func TestNewRequestEvent(t *testing.T) {
	h := http.Header{"X-A": {"1"}}
	ev := NewRequestEvent(EventFetch, "PATCH", "https://example.com/a?b", h, nil)
	r := ev.Request()
	if ev.Kind() != EventFetch || ev.Batch() != nil || r == nil {
		t.Fatalf("kind %q batch %v request %v", ev.Kind(), ev.Batch(), r)
	}
	if r.Method() != "PATCH" || r.URL() != "https://example.com/a?b" || r.Header().Get("x-a") != "1" {
		t.Errorf("request: %q %q %v", r.Method(), r.URL(), r.Header())
	}
	if r.Body() != nil {
		t.Errorf("a nil *FakeBody must be a nil Body, got %#v", r.Body())
	}
	fb := &FakeBody{}
	if got := NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, fb).Request().Body(); got != Body(fb) {
		t.Errorf("body %v", got)
	}
	// The fake answers Request() for any kind; the package ignores it.
	ev = NewRequestEvent(EventQueue, "POST", "https://example.com/", nil, fb)
	if ev.Request() == nil {
		t.Error("no request")
	}
	if _, _, err := ReadInboundBytes(ev, 10); err == nil || fb.Used() {
		t.Errorf("queue event read: %v, used %v", err, fb.Used())
	}
}

// TestFakeBodyOneReader pins FakeBody's lock as a ReadableStream's:
// once a reader has it, a second Open — while the first is still reading,
// before its stream ended or was canceled — gets a reader whose every Read
// fails, and the first reader's data is not shared with it (读取入站有限正文字节
// status 3: "其他读取器已锁定正文流").
func TestFakeBodyOneReader(t *testing.T) {
	fb := &FakeBody{Chunks: [][]byte{[]byte("ab"), []byte("cd")}}
	first := fb.Open()
	buf := make([]byte, 1)
	if n, err := first.Read(buf); n != 1 || err != nil || buf[0] != 'a' {
		t.Fatalf("first read (%d, %v) %q", n, err, buf[:n])
	}
	second := fb.Open()
	if n, err := second.Read(buf); n != 0 || !errors.Is(err, errFakeLocked) {
		t.Errorf("second reader: (%d, %v), want the locked error", n, err)
	}
	if err := second.Close(); err != nil || fb.Canceled {
		t.Errorf("closing the second reader: %v, canceled %v", err, fb.Canceled)
	}
	rest, err := io.ReadAll(first)
	if err != nil || string(rest) != "bcd" || fb.Pulls != 2 {
		t.Errorf("the first reader's rest %q, %v, pulls %d", rest, err, fb.Pulls)
	}
}
