package hostbridge

import (
	"errors"
	"io"
	"net/http"
)

// NewRequestEvent returns an Event of the given kind carrying an HTTP request
// with method, url (absolute, as Request.url gives it), header and body; its
// Batch is nil. A nil body is a request for which the host provides no body
// stream; a FakeBody with no Chunks is an empty stream.
//
// The event answers Request() whatever kind says: it is the package that
// ignores the request of an event kind that carries none (queue, scheduled,
// an unknown kind), so a test can check that it does. header may be nil.
func NewRequestEvent(kind, method, url string, header http.Header, body *FakeBody) Event {
	r := &fakeRequest{method: method, url: url, header: header}
	if body != nil {
		r.body = body // a nil *FakeBody must stay a nil Body
	}
	return &fakeEvent{kind: kind, req: r}
}

// FakeBody is a request body stream for tests: it delivers Chunks, one per
// pull, then ends with Err (the stream's failure, such as a connection reset)
// if set, else io.EOF. What happened is left in plain fields.
//
// It differs from a real stream in these ways:
//   - a Read whose buffer is smaller than the current chunk returns the first
//     part and keeps the rest for the next Read, without a new pull (a
//     ReadableStream reader always hands over whole chunks);
//   - nothing checks the chunks against the Content-Length header, which a
//     real HTTP stack enforces;
//   - Open on a used body returns a reader whose every Read fails, where a
//     locked ReadableStream throws at getReader;
//   - a Read after Close fails, where a cancelled stream reads as done;
//   - it is not safe for concurrent use, and it never blocks.
type FakeBody struct {
	Chunks    [][]byte // delivered in order, one chunk per pull; an empty chunk is a pull of 0 bytes
	Err       error    // returned after the last chunk instead of io.EOF, if set
	CancelErr error    // returned by Close when it cancels the stream

	Pulls    int  // chunks pulled so far
	Canceled bool // Close was called before the stream ended (io.EOF or Err was returned)

	opened bool // Open was called: the body is used
	ended  bool // io.EOF or Err was returned
	closed bool
	next   int    // index of the next chunk to pull
	rest   []byte // unread part of the last pulled chunk
}

// errFakeLocked is what a second reader of a FakeBody reads.
var errFakeLocked = errors.New("hostbridge: FakeBody already opened")

// errFakeClosed is what a Read after Close returns.
var errFakeClosed = errors.New("hostbridge: FakeBody read after Close")

var (
	_ Event         = (*fakeEvent)(nil)
	_ Request       = (*fakeRequest)(nil)
	_ Body          = (*FakeBody)(nil)
	_ io.ReadCloser = (*fakeReader)(nil)
)

// Used reports whether the body was opened.
func (b *FakeBody) Used() bool { return b.opened }

// Open locks the body and returns its reader. On a body opened before, the
// reader returned fails on every Read and its Close does nothing.
func (b *FakeBody) Open() io.ReadCloser {
	if b.opened {
		return &fakeReader{}
	}
	b.opened = true
	return &fakeReader{b: b}
}

// fakeReader reads a FakeBody; b is nil for a second, failing reader.
type fakeReader struct{ b *FakeBody }

// Read pulls the next chunk when the last one is used up, and copies as much
// as fits into p. A zero-length p pulls nothing.
func (r *fakeReader) Read(p []byte) (int, error) {
	b := r.b
	switch {
	case b == nil:
		return 0, errFakeLocked
	case b.closed:
		return 0, errFakeClosed
	case len(p) == 0:
		return 0, nil
	}
	if len(b.rest) == 0 {
		if b.next == len(b.Chunks) {
			b.ended = true
			if b.Err != nil {
				return 0, b.Err
			}
			return 0, io.EOF
		}
		b.rest = b.Chunks[b.next]
		b.next++
		b.Pulls++
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

// Close cancels the stream unless it ended: it records Canceled and returns
// CancelErr. A second Close does nothing.
func (r *fakeReader) Close() error {
	b := r.b
	if b == nil || b.closed {
		return nil
	}
	b.closed = true
	if b.ended {
		return nil
	}
	b.Canceled = true
	return b.CancelErr
}

type fakeEvent struct {
	kind string
	req  *fakeRequest
}

func (e *fakeEvent) Kind() string     { return e.kind }
func (e *fakeEvent) Request() Request { return e.req }
func (e *fakeEvent) Batch() Batch     { return nil }

type fakeRequest struct {
	method, url string
	header      http.Header
	body        Body
}

func (r *fakeRequest) Method() string      { return r.method }
func (r *fakeRequest) URL() string         { return r.url }
func (r *fakeRequest) Header() http.Header { return r.header }
func (r *fakeRequest) Body() Body          { return r.body }
