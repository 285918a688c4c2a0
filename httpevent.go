package hostbridge

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
)

// HTTPEvent adapts a request received by a net/http server to an Event of
// kind fetch, so a Go host can call the 入站 functions on it. The request
// looks as a Worker's Request would:
//
//   - URL: what a WHATWG URL parser serialises for the request: the scheme
//     from the connection (https under TLS, else http), the host lower case
//     without the scheme's default port, the request-target (bytes that
//     are not UTF-8 first decoded the lenient way, to U+FFFD): its path
//     normalised as the URL path parser does for http(s) (\ as /, . and ..
//     segments including %2e forms, the path percent-encode set), the query
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
// on a connection (tls: https, else http) with the Host host and the
// request-target requestURI (net/http's Request.Host and RequestURI): what
// Request.url is in a Worker. It parses "scheme://" host requestURI:
//
//   - the host is ASCII lower-cased; an IPv4 address in any form the IPv4
//     parser accepts (§3.5) and an IPv6 address are written as the host
//     serializer does (§3.6); the port has its leading zeros dropped and is
//     dropped when it is the scheme's default (80, 443);
//   - the path is normalised by the path state (normalizePath): "\" as "/",
//     "." and ".." segments (and their %2e forms) resolved, bytes in the path
//     percent-encode set encoded; a missing path is "/";
//   - the query is encoded with the special-query percent-encode set (§4.4
//     query state); the fragment is dropped (a request-target has none);
//   - bytes of host or requestURI that are not UTF-8 are first decoded the
//     lenient way (U+FFFD), as workerd does, so "/\xFF" is "/%EF%BF%BD".
//
// An absolute-form request-target (RFC 9112 §3.2.2, "http://h/p") gives its
// own host instead of host; its scheme is ignored for tls. An asterisk-form or
// other target not starting with "/" is resolved against "/". The target is
// never read as an authority: "//evil/p" is the path "//evil/p" of host.
//
// A host that is not a valid URL host (IDNA, forbidden code points, a bad
// port) is passed on lower-cased as it is: requestURL does not fail. An
// empty host, or one holding a delimiter that would end it (/ \ ? # @),
// gives "": no URL, rather than one whose host comes from elsewhere.
func requestURL(tls bool, host, requestURI string) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	// §4.4 basic URL parser: "Remove any leading and trailing C0 control or
	// space from input." (the input starts with the scheme, so only trailing
	// ones go) and "Remove all ASCII tab or newline from input."
	target := strings.TrimRight(removeTabNewline(utf8DecodeWithoutBOM(requestURI)), "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	host = removeTabNewline(utf8DecodeWithoutBOM(host))
	if h, rest, ok := absoluteForm(target); ok {
		host, target = h, rest
	} else if target != "" && target[0] != '/' && target[0] != '\\' {
		target = "/" + target
	}
	if host == "" || strings.ContainsAny(host, `/\?#@`) {
		return "" // no host: never one read from the path
	}
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	path, query, hasQuery := strings.Cut(target, "?")
	b := make([]byte, 0, len(scheme)+3+len(host)+len(target)+16)
	b = append(b, scheme...)
	b = append(b, "://"...)
	b = append(b, serializeHostPort(scheme, host)...)
	b = append(b, normalizePath(path)...)
	if hasQuery {
		b = append(b, '?')
		b = appendPercentEncoded(b, query, encodeSpecialQuery, false)
	}
	return string(b)
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

// serializeHostPort parses host[:port] for a special scheme and serialises it
// as §4.5 does: host, then ":" port unless the port is null or the default.
func serializeHostPort(scheme, hp string) string {
	host, port := hp, ""
	if strings.HasPrefix(hp, "[") {
		if j := strings.IndexByte(hp, ']'); j >= 0 {
			host, port = hp[:j+1], strings.TrimPrefix(hp[j+1:], ":")
		}
	} else if j := strings.LastIndexByte(hp, ':'); j >= 0 {
		host, port = hp[:j], hp[j+1:]
	}
	host = serializeHost(host)
	// §4.4 port state: "If buffer is not the empty string: Let port be the
	// mathematical integer value that is represented by buffer in radix-10
	// … If port is url's scheme's default port, set url's port to null."
	if port != "" {
		if n, err := strconv.ParseUint(port, 10, 16); err == nil && asciiDigits(port) {
			port = strconv.FormatUint(n, 10)
			if port == defaultPort(scheme) {
				port = ""
			}
		}
	}
	if port == "" {
		return host
	}
	return host + ":" + port
}

// asciiLower is ASCII lowercase (Infra): A–Z become a–z; other bytes stay.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func asciiDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// serializeHost is the host parser (§3.5) and serializer (§3.6) for the hosts
// a request can name: IPv6 in brackets, IPv4 in the IPv4 parser's forms, or an
// ASCII domain, lower-cased (domain to ASCII of an ASCII domain lower-cases
// it). Anything else is lower-cased and kept.
func serializeHost(host string) string {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		if a, err := netip.ParseAddr(host[1 : len(host)-1]); err == nil && a.Is6() && a.Zone() == "" {
			return "[" + serializeIPv6(a.As16()) + "]"
		}
		return asciiLower(host)
	}
	host = asciiLower(host)
	if v4, ok := parseIPv4(host); ok {
		return strconv.Itoa(int(v4>>24)) + "." + strconv.Itoa(int(v4>>16&255)) + "." +
			strconv.Itoa(int(v4>>8&255)) + "." + strconv.Itoa(int(v4&255))
	}
	return host
}

// serializeIPv6 is the IPv6 serializer (§3.6): pieces in lower-case hex
// without leading zeros, the first longest run of two or more zero pieces
// compressed to "::". Unlike netip, an IPv4-mapped address stays hex.
func serializeIPv6(a [16]byte) string {
	var pieces [8]uint16
	for i := range pieces {
		pieces[i] = uint16(a[2*i])<<8 | uint16(a[2*i+1])
	}
	// "Let compress be an index to the first IPv6 piece in the first longest
	// sequences of address's IPv6 pieces that are 0. If there is no sequence
	// of address's IPv6 pieces that are 0 that is longer than 1, then set
	// compress to null."
	compress, best := -1, 1
	for i := 0; i < 8; {
		if pieces[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && pieces[j] == 0 {
			j++
		}
		if j-i > best {
			compress, best = i, j-i
		}
		i = j
	}
	var b []byte
	for i := 0; i < 8; i++ {
		if i == compress {
			if i == 0 {
				b = append(b, "::"...)
			} else {
				b = append(b, ':')
			}
			i += best - 1
			continue
		}
		b = strconv.AppendUint(b, uint64(pieces[i]), 16)
		if i != 7 {
			b = append(b, ':')
		}
	}
	return string(b)
}

// parseIPv4 is the IPv4 parser (§3.5) for a host that "ends in a number":
// one to four dot-separated numbers, each decimal, octal (leading 0) or hex
// (0x), the last filling the remaining bytes. ok is false for a domain or an
// invalid address (which a URL parser rejects; the caller keeps it as is).
func parseIPv4(host string) (uint32, bool) {
	parts := strings.Split(host, ".")
	// "If the last item in parts is the empty string, … remove the last item
	// from parts."
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	// ends-in-a-number checker: the last part is all digits, or 0x hex.
	lastPart := parts[len(parts)-1]
	if !asciiDigits(lastPart) {
		if _, ok := parseIPv4Number(lastPart); !ok || !(strings.HasPrefix(lastPart, "0x")) {
			return 0, false
		}
	}
	if len(parts) > 4 {
		return 0, false
	}
	var nums []uint64
	for _, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return 0, false
		}
		nums = append(nums, n)
	}
	last := len(nums) - 1
	for _, n := range nums[:last] {
		if n > 255 {
			return 0, false
		}
	}
	if nums[last] >= 1<<(8*(5-len(nums))) {
		return 0, false
	}
	v := nums[last]
	for i, n := range nums[:last] {
		v += n << (8 * (3 - i))
	}
	return uint32(v), true
}

// parseIPv4Number is the IPv4 number parser (§3.5).
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s, base = s[2:], 16
	} else if len(s) >= 2 && s[0] == '0' {
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d, ok := hexValue(s[i])
		if !ok || int(d) >= base {
			return 0, false
		}
		n = n*uint64(base) + uint64(d)
		if n > 1<<32 {
			n = 1 << 33 // too large for any part; stop growing
		}
	}
	return n, true
}
