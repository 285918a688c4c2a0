package hostbridge

import (
	"iter"
	"net/netip"
	"strconv"
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
//     the pathname setter (§6.1) and by requestURL: normalizePath;
//   - percent-encoding (§1.3) with the sets the readers use: percentEncode;
//   - application/x-www-form-urlencoded parsing and serialising (§5), which
//     is URLSearchParams: parseForm, serializeForm.
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
	// greater than U+007E (~).
	encodeC0Control encodeSet = iota
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

// formPair is one name-value pair of a URLSearchParams list.
type formPair struct{ name, value string }

// parseForm is §5.1 application/x-www-form-urlencoded parsing of input (a
// URL's query, without "?": unlike the URLSearchParams constructor, a URL's
// searchParams does not strip a leading "?").
func parseForm(input string) []formPair {
	var list []formPair
	for name, value := range formSequences(input) {
		list = append(list, formPair{formDecode(name), formDecode(value)})
	}
	return list
}

// formGet is URLSearchParams.get(name) and has(name) over parseForm(input),
// without building the list: the first pair named name.
func formGet(input, name string) (value string, ok bool) {
	for n, v := range formSequences(input) {
		if formDecode(n) == name {
			return formDecode(v), true
		}
	}
	return "", false
}

// formSequences yields the name and value bytes of each sequence of input,
// not yet decoded (§5.1 steps 1–3).
func formSequences(input string) iter.Seq2[string, string] {
	return func(yield func(name, value string) bool) {
		// "Let sequences be the result of splitting input on 0x26 (&)."
		for seq := range strings.SplitSeq(input, "&") {
			// "If bytes is the empty byte sequence, then continue."
			if seq == "" {
				continue
			}
			// "If bytes contains a 0x3D (=), then let name be the bytes from
			// the start of bytes up to but excluding its first 0x3D (=), and
			// let value be the bytes, if any, after the first 0x3D (=) …
			// Otherwise, let name have the value of bytes and let value be
			// the empty byte sequence."
			name, value, _ := strings.Cut(seq, "=")
			if !yield(name, value) {
				return
			}
		}
	}
}

// formDecode: "Replace any 0x2B (+) in name and value with 0x20 (SP)." and
// "Let nameString and valueString be the result of running UTF-8 decode
// without BOM on the percent-decoding of name and value, respectively."
func formDecode(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	s, _ = percentDecode(s, false)
	return utf8DecodeWithoutBOM(s)
}

// serializeForm is §5.2 application/x-www-form-urlencoded serializing, what
// URLSearchParams.toString gives: each name and value "percent-encode[d] after
// encoding with encoding … using the application/x-www-form-urlencoded
// percent-encode set, and spaceAsPlus set to true", joined by "=" and "&".
// Names and values must be valid UTF-8 (scalar values, as USVStrings are).
func serializeForm(list []formPair) string {
	var b []byte
	for i, p := range list {
		if i > 0 {
			b = append(b, '&')
		}
		b = appendPercentEncoded(b, p.name, encodeForm, true)
		b = append(b, '=')
		b = appendPercentEncoded(b, p.value, encodeForm, true)
	}
	return string(b)
}

// formDelete is URLSearchParams.delete(name) (§6.2): "Remove all tuples whose
// name is name from this's list".
func formDelete(list []formPair, name string) []formPair {
	out := list[:0]
	for _, p := range list {
		if p.name != name {
			out = append(out, p)
		}
	}
	return out
}

// formSet is URLSearchParams.set(name, value) (§6.2): "If this's list
// contains any tuples whose name is name, then set the value of the first such
// tuple to value and remove the others. Otherwise, append (name, value)".
func formSet(list []formPair, name, value string) []formPair {
	out := list[:0]
	found := false
	for _, p := range list {
		if p.name != name {
			out = append(out, p)
		} else if !found {
			found = true
			out = append(out, formPair{name, value})
		}
	}
	if !found {
		out = append(out, formPair{name, value})
	}
	return out
}

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
//     query state); the fragment is dropped (a request-target has none).
//
// An absolute-form request-target (RFC 9112 §3.2.2, "http://h/p") gives its
// own host instead of host; its scheme is ignored for tls. An asterisk-form or
// other target not starting with "/" is resolved against "/". The target is
// never read as an authority: "//evil/p" is the path "//evil/p" of host.
//
// A host that is not a valid URL host (IDNA, forbidden code points, a bad
// port) is passed on lower-cased as it is: requestURL does not fail.
func requestURL(tls bool, host, requestURI string) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	// §4.4 basic URL parser: "Remove any leading and trailing C0 control or
	// space from input." (the input starts with the scheme, so only trailing
	// ones go) and "Remove all ASCII tab or newline from input."
	target := strings.TrimRight(removeTabNewline(requestURI), "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	host = removeTabNewline(host)
	if h, rest, ok := absoluteForm(target); ok {
		host, target = h, rest
	} else if target != "" && target[0] != '/' && target[0] != '\\' {
		target = "/" + target
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
	if strings.IndexAny(s, "\t\n\r") < 0 {
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
