package pagehost

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"
)

// blockWriter is a log reader that has stalled: every Write blocks until
// the test ends.
type blockWriter struct {
	entered chan struct{} // a Write began
	release chan struct{}
}

func newBlockWriter(t *testing.T) *blockWriter {
	w := &blockWriter{entered: make(chan struct{}, 1), release: make(chan struct{})}
	t.Cleanup(func() { close(w.release) })
	return w
}

func (w *blockWriter) Write(p []byte) (int, error) {
	select {
	case w.entered <- struct{}{}:
	default:
	}
	<-w.release
	return len(p), nil
}

// TestLogWriterNeverBlocks: with the reader stalled, Write returns at once;
// past the records waiting, records are dropped and counted; Close waits
// only as long as it is told.
func TestLogWriterNeverBlocks(t *testing.T) {
	w := newBlockWriter(t)
	l := newLogWriter(w, 4)
	l.Write([]byte("0\n"))
	<-w.entered // the writer holds record 0
	for i := 1; i <= 10; i++ {
		if n, err := fmt.Fprintf(l, "%d\n", i); n != 2 && n != 3 || err != nil {
			t.Fatalf("Write: %d %v", n, err)
		}
	}
	if got := l.dropped.Load(); got != 6 {
		t.Errorf("dropped %d, want 6 (10 written, 4 waiting)", got)
	}
	if l.Close(10 * time.Millisecond) {
		t.Error("Close reported the records written")
	}
	l.Write([]byte("late\n"))
	if got := l.dropped.Load(); got != 7 {
		t.Errorf("dropped %d after a write past Close, want 7", got)
	}
}

// TestStalledLogKeepsDelivering: a host whose log reader has stalled still
// delivers every message; /stats counts the records dropped.
func TestStalledLogKeepsDelivering(t *testing.T) {
	cfg := testConfig()
	logw := newLogWriter(newBlockWriter(t), 8)
	h, err := newHost(cfg, NewMemoryStore(), slog.New(slog.NewTextHandler(logw, nil)))
	if err != nil {
		t.Fatal(err)
	}
	h.logw = logw
	base, _, _ := serveTest(t, h)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < 200; i += 4 {
				if code, v := post(t, http.DefaultClient, fmt.Sprintf("%s/pages/log/%d?version=1", base, i), ""); code != 202 {
					t.Errorf("%d %v", code, v)
				}
			}
		})
	}
	wg.Wait()
	s := settle(t, h, 200)
	checkCounts(t, s, 200)
	if s.LogDropped == 0 {
		t.Errorf("%+v: no log record dropped", s)
	}
}
