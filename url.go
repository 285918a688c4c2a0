package hostbridge

import (
	"strings"
	"unicode/utf8"
)

// The WHATWG URL pieces the 入站 readers need, cited from the URL Standard
// (https://url.spec.whatwg.org/, the living standard since whatwg/url#846 of
// March 2025, whose path percent-encode set includes U+005E (^)):
//
//   - reading the parts of a URL from its serialisation (§4.5), which is what
//     Request.URL gives: splitURL, urlParts.pathname, .search, .origin;
//   - the path state of the basic URL parser for a special URL (§4.4), used by
//     the pathname setter (§6.1) and by requestURL (httpevent.go):
//     normalizePath;
//   - percent-encoding (§1.3) with the sets the readers use: percentEncode.
//
// application/x-www-form-urlencoded (§5, URLSearchParams) is in form.go; the
// host serializer for net/http requests is in httpevent.go.
//
// It is not a full URL parser: hosts are not IDNA-processed, since the
// serialised URL of a request already holds an ASCII host.

// urlParts is a URL record read back from its serialisation. The URL
// serializer (§4.5) writes scheme ":", then "//" userinfo "@" host ":" port
// when there is a host, then the path, "?" query and "#" fragment; each
// component is percent-encoded so that the delimiters after it cannot occur in
// it, so splitting at the first delimiter recovers it.
type urlParts struct {
	scheme      string // ASCII lower case, without ":"
	hasHost     bool   // "//" followed
	userinfo    string // without "@"
	host        string // serialised host: IPv6 in brackets
	port        string // "" when the port is null
	path        string // serialised path: "/a/b", or an opaque path
	query       string // without "?"
	hasQuery    bool   // the query is non-null (it may be "")
	fragment    string // without "#"
	hasFragment bool
}

// splitURL splits a serialised absolute URL. A string that is not a
// serialisation gives some split; it never fails or panics. Request.URL must
// be a serialisation, so the readers' results are specified only for those.
func splitURL(s string) urlParts {
	var u urlParts
	if i := strings.IndexByte(s, ':'); i > 0 && isScheme(s[:i]) {
		u.scheme, s = asciiLower(s[:i]), s[i+1:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s, u.fragment, u.hasFragment = s[:i], s[i+1:], true
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s, u.query, u.hasQuery = s[:i], s[i+1:], true
	}
	if strings.HasPrefix(s, "//") {
		u.hasHost = true
		s = s[2:]
		end := strings.IndexByte(s, '/')
		if end < 0 {
			end = len(s)
		}
		auth := s[:end]
		s = s[end:]
		if i := strings.LastIndexByte(auth, '@'); i >= 0 {
			u.userinfo, auth = auth[:i], auth[i+1:]
		}
		// §3.6 host serializer: an IPv6 address is "[" address "]"; no other
		// host holds ":" or "]".
		hostEnd := strings.IndexByte(auth, ':')
		if strings.HasPrefix(auth, "[") {
			hostEnd = -1
			if j := strings.IndexByte(auth, ']'); j >= 0 && j+1 < len(auth) && auth[j+1] == ':' {
				hostEnd = j + 1
			}
		}
		if hostEnd >= 0 {
			u.host, u.port = auth[:hostEnd], auth[hostEnd+1:]
		} else {
			u.host = auth
		}
		if isSpecialScheme(u.scheme) {
			// A special URL's domain and IP address are ASCII lower case
			// (§3.5 host parsing); a non-special opaque host keeps its case.
			u.host = asciiLower(u.host)
		}
	}
	u.path = s
	return u
}

// isScheme reports whether s is a scheme: an ASCII alpha followed by ASCII
// alphanumerics, "+", "-" and "." (§4.4 scheme start state, scheme state).
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// isSpecialScheme reports whether scheme is a special scheme (URL Standard
// §4.2 URL miscellaneous): ftp, file, http, https, ws, wss.
func isSpecialScheme(scheme string) bool {
	switch scheme {
	case "ftp", "file", "http", "https", "ws", "wss":
		return true
	}
	return false
}

// defaultPort is the special scheme's default port (§4.2), "" for none.
func defaultPort(scheme string) string {
	switch scheme {
	case "ftp":
		return "21"
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	}
	return ""
}

// pathname is URL.pathname (§6.1): the URL path serializer's output. A
// special URL's path always starts with "/"; a split without one (not a
// serialisation) gets it.
func (u urlParts) pathname() string {
	if u.path == "" && isSpecialScheme(u.scheme) {
		return "/"
	}
	return u.path
}

// search is URL.search (§6.1): "If this's URL's query is either null or the
// empty string, return the empty string. Return U+003F (?), followed by this's
// URL's query."
func (u urlParts) search() string {
	if u.query == "" {
		return ""
	}
	return "?" + u.query
}

// hostPort is the host, then ":" and the port when it is not null.
func (u urlParts) hostPort() string {
	if u.port == "" {
		return u.host
	}
	return u.host + ":" + u.port
}

// origin is URL.origin (§4.7 origin, §6.1): the serialisation of the URL's
// origin. A tuple origin (special schemes other than file) serialises as
// scheme "://" host [":" port]; a "blob:" URL has the origin of the URL in its
// path when that is http(s); everything else has an opaque origin, "null"
// (file: is implementation-defined; browsers and node give "null").
func (u urlParts) origin() string {
	switch u.scheme {
	case "ftp", "http", "https", "ws", "wss":
		return u.scheme + "://" + u.hostPort()
	case "blob":
		if inner := splitURL(u.path); inner.scheme == "http" || inner.scheme == "https" {
			return inner.origin()
		}
	}
	return "null"
}

// Percent-encode sets (§1.3). Each contains the one before it, except the
// form set which also contains everything but ASCII alphanumerics and *-._.
type encodeSet uint8

const (
	// C0 control percent-encode set: the C0 controls and all code points
	// greater than U+007E (~). No reader uses it alone; it is the base the
	// others extend, so it holds the zero value.
	_ encodeSet = iota
	// Query percent-encode set: C0 control, U+0020 SPACE, ", #, <, >.
	encodeQuery
	// Special-query percent-encode set: query and U+0027 (').
	encodeSpecialQuery
	// Path percent-encode set: query and ?, ^, `, {, }. (U+005E (^) was added
	// in March 2025, whatwg/url#846; node 20's parser leaves it raw.)
	encodePath
	// application/x-www-form-urlencoded percent-encode set: component and !,
	// ', (, ), ~ — that is, everything but ASCII alphanumerics, *, -, ., _.
	encodeForm
)

// shouldEscape reports whether the byte c (of a UTF-8 encoding) is in set.
// Bytes 0x80 and above belong to code points over U+007E, in every set.
func shouldEscape(c byte, set encodeSet) bool {
	if c < 0x20 || c > 0x7E {
		return true
	}
	if set == encodeForm {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			return false
		}
		return c != '*' && c != '-' && c != '.' && c != '_'
	}
	switch c {
	case ' ', '"', '#', '<', '>':
		return set >= encodeQuery
	case '\'':
		return set == encodeSpecialQuery
	case '?', '^', '`', '{', '}':
		return set == encodePath
	}
	return false
}

const upperHex = "0123456789ABCDEF"

// appendPercentEncoded appends s, UTF-8 percent-encoded with set (§1.3
// "UTF-8 percent-encode"): each byte in set becomes "%" and two upper-case hex
// digits. A byte that is not part of valid UTF-8 is encoded on its own, as a
// byte-oriented parser does. With spaceAsPlus, U+0020 becomes "+".
func appendPercentEncoded(b []byte, s string, set encodeSet, spaceAsPlus bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case spaceAsPlus && c == ' ':
			b = append(b, '+')
		case shouldEscape(c, set):
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		default:
			b = append(b, c)
		}
	}
	return b
}

func percentEncode(s string, set encodeSet) string {
	return string(appendPercentEncoded(make([]byte, 0, len(s)), s, set, false))
}

func hexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// percentDecode is §1.3 "percent-decode" a byte sequence: "%" followed by two
// ASCII hex digits becomes that byte; any other "%" is kept as it is. With
// strict, such a "%" is an error instead (ok is false).
func percentDecode(s string, strict bool) (out string, ok bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 < len(s) {
				hi, ok1 := hexValue(s[i+1])
				lo, ok2 := hexValue(s[i+2])
				if ok1 && ok2 {
					b = append(b, hi<<4|lo)
					i += 2
					continue
				}
			}
			if strict {
				return "", false
			}
		}
		b = append(b, c)
	}
	return string(b), true
}

// utf8DecodeWithoutBOM is the Encoding Standard's "UTF-8 decode without BOM":
// valid UTF-8 passes unchanged (a leading U+FEFF included); each maximal
// subpart of an ill-formed sequence becomes one U+FFFD (Encoding Standard
// §8.1.1 UTF-8 decoder; Unicode §3.9 "U+FFFD Substitution of Maximal Subparts").
func utf8DecodeWithoutBOM(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(whatwgDecode(nil, s))
	whatwgDecode(&b, s)
	return b.String()
}

// isSingleDot: "A single-dot URL path segment is a URL path segment that is
// "." or an ASCII case-insensitive match for "%2e"." (§4.2)
func isSingleDot(seg string) bool {
	return seg == "." || strings.EqualFold(seg, "%2e")
}

// isDoubleDot: "A double-dot URL path segment is a URL path segment that is
// ".." or an ASCII case-insensitive match for ".%2e", "%2e.", or "%2e%2e"."
func isDoubleDot(seg string) bool {
	switch len(seg) {
	case 2:
		return seg == ".."
	case 4:
		return strings.EqualFold(seg, ".%2e") || strings.EqualFold(seg, "%2e.")
	case 6:
		return strings.EqualFold(seg, "%2e%2e")
	}
	return false
}

// normalizePath runs the path start state and the path state of the basic
// URL parser (§4.4) for a special URL (not file:) over input, which holds no
// "?" or "#", and returns the URL path serializer's output (§4.5).
func normalizePath(input string) string {
	// §4.4 path start state: "If url is special: … Set state to path state.
	// If c is neither U+002F (/) nor U+005C (\), decrease pointer by 1."
	if input != "" && (input[0] == '/' || input[0] == '\\') {
		input = input[1:]
	}
	var path []string
	buf := make([]byte, 0, len(input)+8)
	for {
		// §4.4 path state: a segment ends at EOF, "/", or (url is special)
		// "\"; every other code point is "UTF-8 percent-encode[d] … using the
		// path percent-encode set" into buffer ("%" not followed by two hex
		// digits is a validation error only, and stays).
		end := strings.IndexAny(input, `/\`)
		last := end < 0
		if last {
			end = len(input)
		}
		buf = appendPercentEncoded(buf[:0], input[:end], encodePath, false)
		seg := string(buf)
		switch {
		case isDoubleDot(seg):
			// "Shorten url's path. If neither c is U+002F (/), nor url is
			// special and c is U+005C (\), append the empty string to url's
			// path."
			if len(path) > 0 {
				path = path[:len(path)-1]
			}
			if last {
				path = append(path, "")
			}
		case isSingleDot(seg):
			// "Otherwise, if buffer is a single-dot URL path segment and if
			// neither c is U+002F (/), nor url is special and c is U+005C (\),
			// append the empty string to url's path."
			if last {
				path = append(path, "")
			}
		default:
			// "Otherwise, if buffer is not a single-dot URL path segment,
			// then: … Append buffer to url's path."
			path = append(path, seg)
		}
		if last {
			break
		}
		input = input[end+1:]
	}
	// §4.5 URL path serializer: "For each segment of url's path: append
	// U+002F (/) followed by segment to output."
	n := 0
	for _, seg := range path {
		n += 1 + len(seg)
	}
	out := make([]byte, 0, n)
	for _, seg := range path {
		out = append(out, '/')
		out = append(out, seg...)
	}
	return string(out)
}

// validSameOriginPath: "新路径须以单个 / 起首，拒绝 //、反斜线、控制字符、? 和 #".
func validSameOriginPath(p string) bool {
	if p[0] != '/' || strings.Contains(p, "//") || !utf8.ValidString(p) {
		return false
	}
	for _, c := range p {
		if c == '\\' || c == '?' || c == '#' || c <= 0x1F || (0x7F <= c && c <= 0x9F) {
			return false
		}
	}
	return true
}

// decodePathStrict percent-decodes a pathname once and requires the result
// to be UTF-8, both strictly (读取入站解码路径).
func decodePathStrict(p string) (string, bool) {
	p, ok := percentDecode(p, true)
	return p, ok && utf8.ValidString(p)
}
