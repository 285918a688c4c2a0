package pagehost

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// logWriter hands each Write (slog writes one record per call) to a
// goroutine that writes it to w, so that a slow, stalled or closed log
// reader never stalls the caller: when lines lines are already waiting,
// Write drops the record and counts it. A record w fails to take (EPIPE
// from a closed stderr) is counted too.
type logWriter struct {
	w       io.Writer
	mu      sync.Mutex // closed and sends on lines
	closed  bool
	lines   chan []byte
	done    chan struct{}
	dropped atomic.Int64
}

func newLogWriter(w io.Writer, lines int) *logWriter {
	l := &logWriter{w: w, lines: make(chan []byte, lines), done: make(chan struct{})}
	go l.run()
	return l
}

// Write never blocks on w and never fails.
func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		l.dropped.Add(1)
		return len(p), nil
	}
	select {
	case l.lines <- append([]byte(nil), p...):
	default:
		l.dropped.Add(1)
	}
	return len(p), nil
}

func (l *logWriter) run() {
	defer close(l.done)
	for p := range l.lines {
		if _, err := l.w.Write(p); err != nil {
			l.dropped.Add(1)
		}
	}
}

// Close takes no more records and waits at most wait for those waiting to
// be written; it reports whether they were.
func (l *logWriter) Close(wait time.Duration) bool {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.lines)
	}
	l.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-l.done:
		return true
	case <-t.C:
		return false
	}
}
