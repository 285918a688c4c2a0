package hostbridge

import (
	"io"
	"net/http"
	"strings"
	"sync"
)

// HTTPEvent adapts a request received by a net/http server to an Event of
// kind fetch, so a Go host can call the 入站 functions on it. The request
// looks as a Worker's Request would:
//
//   - URL: what a WHATWG URL parser serialises for the request: the scheme
//     from the connection (https under TLS, else http), the host lower case
//     without the scheme's default port, the request-target's path
//     normalised as the URL path parser does for http(s) (\ as /, . and ..
//     segments including %2e forms, the path percent-encode set), the query
//     with the special-query percent-encode set, no fragment.
//   - Method: normalised as the Fetch standard does: DELETE, GET, HEAD,
//     OPTIONS, POST and PUT matched case-insensitively are upper-cased;
//     others are kept byte for byte.
//   - Header: r.Header, Content-Length as the client sent it (net/http keeps
//     Transfer-Encoding in r.TransferEncoding, not in the headers).
//   - Body: as workerd gives it: no stream (nil) for GET and HEAD and for a
//     request with neither Content-Length nor Transfer-Encoding; an empty
//     stream for Content-Length: 0; otherwise a stream over r.Body. Reading
//     it through this adapter, by the package or the host, marks it used;
//     closing the reader early cancels it (closes r.Body).
//
// The event is for the handler's goroutine: the request it reads belongs to
// the handler call.
func HTTPEvent(r *http.Request) Event {
	target := r.RequestURI
	if target == "" { // a client-side request built in a test
		target = r.URL.RequestURI()
	}
	req := &httpRequest{
		method: fetchMethod(r.Method),
		url:    requestURL(r.TLS != nil, r.Host, target),
		header: r.Header,
	}
	_, hasLength := r.Header["Content-Length"]
	switch {
	case req.method == http.MethodGet || req.method == http.MethodHead:
	case len(r.TransferEncoding) > 0 || hasLength:
		req.body = &httpBody{r: r.Body}
	}
	return httpEvent{req}
}

// fetchMethod normalises a method as Fetch does ("normalize a method").
func fetchMethod(m string) string {
	for _, std := range [...]string{"DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"} {
		if strings.EqualFold(m, std) {
			return std
		}
	}
	return m
}

type httpEvent struct{ req *httpRequest }

func (e httpEvent) Kind() string     { return KindFetch }
func (e httpEvent) Request() Request { return e.req }
func (e httpEvent) Batch() Batch     { return nil }

type httpRequest struct {
	method, url string
	header      http.Header
	body        *httpBody
}

func (r *httpRequest) Method() string      { return r.method }
func (r *httpRequest) URL() string         { return r.url }
func (r *httpRequest) Header() http.Header { return r.header }
func (r *httpRequest) Body() Body {
	if r.body == nil {
		return nil // no stream: an untyped nil, not a nil *httpBody
	}
	return r.body
}

// httpBody is a request body stream over r.Body.
type httpBody struct {
	mu   sync.Mutex
	r    io.ReadCloser
	used bool
}

func (b *httpBody) Used() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

func (b *httpBody) Open() io.ReadCloser {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used = true
	return b.r
}

var (
	_ Event = httpEvent{}
	_ Body  = (*httpBody)(nil)
)
