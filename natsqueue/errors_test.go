package natsqueue

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"hostbridge"
)

// TestCloseTwice: closing a Platform again does nothing.
func TestCloseTwice(t *testing.T) {
	p := openSingle(t)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSendCanceledContext: a send whose context was canceled fails with an
// error that wraps context.Canceled and stores nothing.
func TestSendCanceledContext(t *testing.T) {
	p := openSingle(t)
	send(t, p, `1`, 0) // the stream exists
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Send(ctx, "Q", []byte(`2`), hostbridge.SendOptions{ContentType: "json"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Send: %v", err)
	}
	if err := p.SendBatch(ctx, "Q", []hostbridge.BatchMessage{{Body: []byte(`3`)}, {Body: []byte(`4`)}}); !errors.Is(err, context.Canceled) {
		t.Errorf("SendBatch: %v", err)
	}
	if n := streamMsgs(t, p, "q"); n != 1 {
		t.Errorf("stream holds %d messages, want 1", n)
	}
	if s := p.Stats(ctxBG, "q"); s.Sent != 1 {
		t.Errorf("sent %d, want 1", s.Sent)
	}
}

// TestBatchFillHonoursContext: a batch that waits to fill (MaxBatchTimeout
// 60 s) stops waiting when Deliver's context ends, and its handler gets
// what it has.
func TestBatchFillHonoursContext(t *testing.T) {
	p := openSingle(t)
	setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchSize, s.MaxBatchTimeout = 10, 60*time.Second })
	send(t, p, `1`, 0)
	start := time.Now()
	var got []string
	r, ok := deliverWithin(t, p, "q", 500*time.Millisecond, func(ev hostbridge.Event) error {
		got = bodies(ev)
		return nil
	})
	// pollWait (1 s) bounds one pull; 10 s leaves a loaded machine slack
	// and is far below the 60 s the batch would wait.
	if d := time.Since(start); d > 10*time.Second || !ok || len(got) != 1 || len(r.Acked) != 1 {
		t.Errorf("after %v: ok %v, bodies %v, result %+v", d, ok, got, r)
	}
}

// logBuffer is a slog.Logger whose records a test can read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestErrorsLogged: what Stats cannot return (the server is gone) goes to
// Options.Logger, and it gives the last Pending it read; a single send that gets no answer says so, as a batch
// does.
func TestErrorsLogged(t *testing.T) {
	t.Parallel() // waits on timers; see TestMain
	var logs logBuffer
	o := storeOptions(t)
	o.Timeout, o.Logger = time.Second, slog.New(slog.NewTextHandler(&logs, nil))
	p := openWith(t, o)
	send(t, p, `1`, 0)
	p.Stats(ctxBG, "q") // Pending read: 1
	p.embed.Shutdown()
	p.embed.WaitForShutdown()
	time.Sleep(pendingCache) // the next read goes to the server, and fails
	if s := p.Stats(ctxBG, "q"); s.Pending != 1 || s.Sent != 1 {
		t.Errorf("Stats with the server gone: %+v, want the last Pending read (1) and Sent 1", s)
	}
	p.Stats(ctxBG, "fresh")
	if !strings.Contains(logs.String(), "natsqueue: stats") || !strings.Contains(logs.String(), "queue=fresh") {
		t.Errorf("log: %q", logs.String())
	}
	for _, err := range []error{
		p.Send(context.Background(), "Q", []byte(`2`), hostbridge.SendOptions{ContentType: "json"}),
		p.SendBatch(context.Background(), "Q", []hostbridge.BatchMessage{{Body: []byte(`3`)}, {Body: []byte(`4`)}}),
	} {
		if err == nil || !strings.HasPrefix(err.Error(), "no answer from NATS JetStream: ") {
			t.Errorf("send: %v", err)
		}
	}
}
