package hostbridge

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// HTTPEvent returns an Event of kind fetch carrying r, a request a net/http
// server received, so that a Go host can call the Inbound and ReadInbound
// functions on it. The request looks as a Worker's Request would:
//
//   - URL: what a WHATWG URL parser serialises for the request: the scheme
//     from the connection (https under TLS, else http), the host lower case
//     without the scheme's default port, the request-target (bytes that
//     are not UTF-8 first decoded the lenient way, to U+FFFD): its . and ..
//     segments first removed as bare workerd removes them (split on / only),
//     then its path normalised as the URL path parser does for http(s) (\
//     as /, . and .. segments including %2e forms, the path percent-encode
//     set), the query
//     with the special-query percent-encode set, no fragment.
//   - Method: normalised as the Fetch standard does: DELETE, GET, HEAD,
//     OPTIONS, POST and PUT matched case-insensitively are upper-cased;
//     others are kept byte for byte.
//   - Header: r.Header (a copy), with Host (r.Host) and Transfer-Encoding
//     (r.TransferEncoding) put back where net/http moved them out.
//     Content-Length is as the client sent it, except beside chunked
//     framing: net/http deletes it there and keeps no trace of it, so the
//     body readers' Content-Length precheck cannot see it (a Worker's can).
//     Header values are as net/http gives them (trailing spaces trimmed,
//     obs-fold lines joined by one space), with bytes that are not UTF-8
//     decoded the lenient way (U+FFFD), as workerd does.
//   - Body: as workerd gives it: no stream (nil) for GET and HEAD and for a
//     request that has no body (r.Body nil or http.NoBody, or r.ContentLength
//     0 without a Content-Length header: over HTTP/1 neither Content-Length
//     nor Transfer-Encoding, over HTTP/2 headers that end the stream); an
//     empty stream for Content-Length: 0; otherwise a stream over r.Body,
//     with or without a declared length (chunked, or HTTP/2 DATA frames
//     without content-length). Reading
//     it through this adapter, by the package or the host, marks it used;
//     closing the reader early cancels it (closes r.Body). Of two readers
//     racing for it, exactly one gets it; the other sees it used.
//     HTTPEvent puts in r.Body a reader of the same stream that marks it
//     used too: a handler that reads, parses (ParseForm) or closes r.Body
//     after HTTPEvent leaves the package's readers status 3. A read before
//     HTTPEvent, or through r.Body as it was before, cannot be seen: the
//     readers read what is left (D51).
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
		url:    requestURL(r.TLS != nil, requestHost(r), target),
		header: requestHeader(r),
	}
	_, hasLength := r.Header["Content-Length"]
	// net/http's server gives ContentLength 0 without the header only to a
	// request without a body (over HTTP/2 its Body is then an empty stream,
	// not http.NoBody); -1 is a body of unknown length (chunked, HTTP/2).
	hasStream := r.Body != nil && r.Body != http.NoBody && (r.ContentLength != 0 || hasLength)
	switch {
	case req.method == http.MethodGet || req.method == http.MethodHead:
	case hasStream:
		req.body = &httpBody{r: r.Body}
	case hasLength:
		req.body = &httpBody{r: http.NoBody}
	}
	if req.body != nil && r.Body != nil {
		r.Body = hostBody{req.body, r.Body}
	}
	return httpEvent{req}
}

// requestHost is the host the request names (r.Host: the Host header, or
// an absolute-form target's authority), else the address it arrived on
// (an HTTP/1.0 request may name none), else "".
func requestHost(r *http.Request) string {
	if r.Host != "" {
		return r.Host
	}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return a.String()
	}
	return ""
}

// requestHeader is r.Header with the fields net/http moved out of it put
// back, as a Worker's Request.headers has them: Host (r.Host) and
// Transfer-Encoding (r.TransferEncoding). A field r.Header already has is
// kept. Values are decoded as UTF-8 the lenient way, as workerd does: bytes
// that are not UTF-8 become U+FFFD.
func requestHeader(r *http.Request) http.Header {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for _, vs := range h {
		for i, v := range vs {
			vs[i] = utf8DecodeWithoutBOM(v)
		}
	}
	if _, ok := h["Host"]; !ok && r.Host != "" {
		h["Host"] = []string{r.Host}
	}
	if _, ok := h["Transfer-Encoding"]; !ok && len(r.TransferEncoding) > 0 {
		h["Transfer-Encoding"] = []string{strings.Join(r.TransferEncoding, ", ")}
	}
	return h
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

func (e httpEvent) Kind() string     { return EventFetch }
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
	b.markUsed()
	return b.r
}

func (b *httpBody) markUsed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used = true
}

// hostBody is what HTTPEvent leaves in r.Body: the request's stream, which
// the host reading or closing marks used (D51), as reading a Worker's
// request body elsewhere disturbs it.
type hostBody struct {
	b *httpBody
	r io.ReadCloser
}

func (h hostBody) Read(p []byte) (int, error) {
	h.b.markUsed() // I53
	return h.r.Read(p)
}

func (h hostBody) Close() error {
	h.b.markUsed() // I53
	return h.r.Close()
}

// lock is Used and Open in one step under the lock: of two readers that
// both saw Used false, only the first gets the reader.
func (b *httpBody) lock() (io.ReadCloser, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used {
		return nil, false
	}
	b.used = true
	return b.r, true
}

var (
	_ Event      = httpEvent{}
	_ Body       = (*httpBody)(nil)
	_ bodyLocker = (*httpBody)(nil)
)

// requestURL is the URL a WHATWG URL parser gives for an HTTP request received
// on a connection (tls: https, else http) with the host host and the
// request-target requestURI (net/http's Request.Host and RequestURI): what
// Request.url is in a Worker. It is parseURL of scheme "://" host
// requestURI, serialised:
//
//   - bytes of host or requestURI that are not UTF-8 are first decoded the
//     lenient way (U+FFFD), as workerd does, so "/\xFF" is "/%EF%BF%BD";
//   - an absolute-form request-target (RFC 9112 §3.2.2, "http://h/p") gives
//     its own host instead of host; its scheme is ignored for tls. An
//     asterisk-form or other target not starting with "/" is resolved
//     against "/". The target is never read as an authority: "//evil/p" is
//     the path "//evil/p" of host;
//   - before it is parsed, the target's "." and ".." segments are removed
//     as bare workerd removes them (workerdDotSegments), so "/x\y/.."
//     is "/";
//   - the fragment is dropped (a request-target has none).
//
// A host the URL parser rejects (a bad port or IPv4 address, a forbidden
// code point, a non-ASCII host, which needs IDNA) gives the URL unparsed,
// as workerd's request.url is: the URL readers then fail, as new URL would.
// An empty host, or one holding a delimiter that would end it (/ \ ? # @),
// gives "": no URL, rather than one whose host comes from elsewhere.
func requestURL(tls bool, host, requestURI string) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	target := removeTabNewline(utf8DecodeWithoutBOM(requestURI))
	host = removeTabNewline(utf8DecodeWithoutBOM(host))
	if h, rest, ok := absoluteForm(target); ok {
		host, target = h, rest
	} else if target != "" && target[0] != '/' && target[0] != '\\' {
		target = "/" + target
	}
	if host == "" || strings.ContainsAny(host, `/\?#@`) {
		return "" // no host: never one read from the path
	}
	s := scheme + "://" + host + workerdDotSegments(target)
	u, ok := parseURL(s)
	if !ok {
		return s
	}
	return u.href()
}

func removeTabNewline(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
}

// absoluteForm splits an absolute-form request-target scheme "://" authority
// path into its host (userinfo dropped) and the rest.
func absoluteForm(target string) (host, rest string, ok bool) {
	i := strings.Index(target, "://")
	if i <= 0 || !isScheme(target[:i]) {
		return "", "", false
	}
	auth := target[i+3:]
	end := strings.IndexAny(auth, `/\?#`)
	if end < 0 {
		end = len(auth)
	}
	auth, rest = auth[:end], auth[end:]
	if j := strings.LastIndexByte(auth, '@'); j >= 0 {
		auth = auth[j+1:]
	}
	return auth, rest, true
}

// workerdDotSegments is the pass bare workerd makes over a request-target
// (which starts with "/") before a Worker sees request.url: kj::Url::parse
// in its HTTP_REQUEST context, without percent-decoding, empty segments
// allowed. The path, up to the first "?", is split on "/" only; a "."
// segment is dropped and a ".." segment drops itself and the segment
// before it (none at the root); when either, or an empty segment, ends
// the path, the path ends with "/". Nothing else changes: "\" and "#"
// are ordinary characters, "%2e" is not a dot (the URL parser that runs
// next treats it as the URL Standard says), empty segments stay, the query
// is kept byte for byte. So "/a\b/../c" and "/a#b/../c" are "/c".
func workerdDotSegments(target string) string {
	path, query, hasQuery := strings.Cut(target, "?")
	if !strings.HasPrefix(path, "/") || !strings.Contains(path, "/.") {
		return target
	}
	var out []string
	trailing := false
	segs := strings.Split(path[1:], "/")
	for i, seg := range segs {
		switch {
		case seg == "..":
			out = out[:max(len(out)-1, 0)]
			trailing = true
		case seg == "." || seg == "" && i == len(segs)-1:
			trailing = true
		default:
			out = append(out, seg)
			trailing = false
		}
	}
	var b strings.Builder
	for _, seg := range out {
		b.WriteString("/" + seg)
	}
	if trailing || len(out) == 0 {
		b.WriteByte('/')
	}
	if hasQuery {
		b.WriteString("?" + query)
	}
	return b.String()
}
