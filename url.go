package hostbridge

import (
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The WHATWG URL pieces the 入站 readers need, cited from the URL Standard
// (https://url.spec.whatwg.org/, the living standard since whatwg/url#846 of
// March 2025, whose path percent-encode set includes U+005E (^)):
//
//   - the basic URL parser (§4.4) without a base, for an absolute URL of a
//     special scheme other than file: parseURL, with the host parser (§3.5)
//     and serializer (§3.6); the readers parse Request.URL with it, and
//     requestURL (httpevent.go) serialises with it;
//   - the path state of the basic URL parser for a special URL, used by the
//     pathname setter (§6.1) too: normalizePath;
//   - percent-encoding and -decoding (§1.3) with the sets the readers use.
//
// application/x-www-form-urlencoded (§5, URLSearchParams) is in form.go.
//
// It is not a full URL parser: no relative URLs, no other schemes, and no
// IDNA (a host that is not ASCII after percent-decoding is refused; a host
// on the wire is ASCII: workerd and net/http refuse any other).

// urlParts is a URL record as the readers need it: what the basic URL
// parser gives for an absolute URL of a special scheme (other than file),
// already serialised part by part. Userinfo and fragment are not kept: no
// reader answers them.
type urlParts struct {
	scheme   string // ASCII lower case, without ":"
	host     string // serialised host: IPv6 in brackets
	port     string // "" when the port is null (none, or the default)
	path     string // serialised path, starting with "/"
	query    string // without "?", percent-encoded
	hasQuery bool   // the query is non-null (it may be "")
}

// c0OrSpace is every C0 control and U+0020 SPACE.
const c0OrSpace = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f" +
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "

// parseURL is the basic URL parser (§4.4) without a base, for the URLs a
// request can have: an absolute URL of a special scheme other than file
// (ftp, http, https, ws, wss). It answers what new URL(s) gives, whatever
// the spelling of s ("HTTP://Example.COM:80/a/%2e%2e/b" is
// "http://example.com/b"). ok is false where the parser returns failure
// (no host, a bad port or host), for any other scheme, and for a host that
// is not ASCII after percent-decoding, which needs IDNA (not done here).
// Bytes of s that are not UTF-8 are first decoded the lenient way, as
// s would be as a USVString.
func parseURL(s string) (u urlParts, ok bool) {
	// "Remove any leading and trailing C0 control or space from input."
	// "Remove all ASCII tab or newline from input."
	s = removeTabNewline(strings.Trim(utf8DecodeWithoutBOM(s), c0OrSpace))
	i := strings.IndexByte(s, ':')
	if i <= 0 || !isScheme(s[:i]) {
		return u, false
	}
	u.scheme = asciiLower(s[:i])
	if !isSpecialScheme(u.scheme) || u.scheme == "file" {
		return u, false
	}
	// Special authority slashes and special authority ignore slashes
	// states: any run of "/" and "\" (none included) leads to the authority,
	// which ends at "/", "\", "?" or "#" (authority state); the host starts
	// after its last "@".
	rest := strings.TrimLeft(s[i+1:], `/\`)
	end := strings.IndexAny(rest, `/\?#`)
	if end < 0 {
		end = len(rest)
	}
	auth := rest[:end]
	if j := strings.LastIndexByte(auth, '@'); j >= 0 {
		auth = auth[j+1:]
	}
	if u.host, u.port, ok = parseHostPort(u.scheme, auth); !ok {
		return u, false
	}
	rest, _, _ = strings.Cut(rest[end:], "#")
	path, query, hasQuery := strings.Cut(rest, "?")
	u.path = normalizePath(path)
	if hasQuery {
		u.query = string(appendPercentEncoded(make([]byte, 0, len(query)), query, encodeSpecialQuery, false))
		u.hasQuery = true
	}
	return u, true
}

// parseHostPort is the host state and port state (§4.4) of a special URL
// over its authority without userinfo: the host ends at the first ":"
// outside brackets; it must not be empty ("host-missing"); the port is ASCII
// digits up to 65535, leading zeros dropped, null when empty or the
// scheme's default.
func parseHostPort(scheme, auth string) (host, port string, ok bool) {
	inBrackets := false
	host = auth
	for i := 0; i < len(auth); i++ {
		switch auth[i] {
		case '[':
			inBrackets = true
		case ']':
			inBrackets = false
		case ':':
			if !inBrackets {
				host, port = auth[:i], auth[i+1:]
				i = len(auth)
			}
		}
	}
	if host == "" {
		return "", "", false
	}
	if host, ok = parseHost(host); !ok {
		return "", "", false
	}
	if port != "" {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || !asciiDigits(port) {
			return "", "", false
		}
		if port = strconv.FormatUint(n, 10); port == defaultPort(scheme) {
			port = ""
		}
	}
	return host, port, true
}

// parseHost is the host parser (§3.5) of a special URL, serialised (§3.6):
// an IPv6 address in brackets, an IPv4 address in any form the IPv4 parser
// accepts, or an ASCII domain, percent-decoded and lower-cased (domain to
// ASCII of an ASCII domain). ok is false where the parser fails, and for a
// domain that is not ASCII after percent-decoding (it needs IDNA). A label
// starting "xn--" is lower-cased and not checked: URL Standard, domain to
// ASCII, returns an ASCII domain lower-cased when beStrict is false,
// whatever Unicode ToASCII says of it (a failure there is only a
// validation error).
func parseHost(input string) (string, bool) {
	if strings.HasPrefix(input, "[") {
		if !strings.HasSuffix(input, "]") {
			return "", false
		}
		a, err := netip.ParseAddr(input[1 : len(input)-1])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", false
		}
		return "[" + serializeIPv6(a.As16()) + "]", true
	}
	domain, _ := percentDecode(input, false)
	for i := 0; i < len(domain); i++ {
		// Forbidden domain code points (§3.2): C0 controls, space, # % / :
		// < > ? @ [ \ ] ^ |, and DEL; bytes 0x80 and up are not ASCII.
		if c := domain[i]; c <= 0x20 || c >= 0x7F || strings.IndexByte("#%/:<>?@[\\]^|", c) >= 0 {
			return "", false
		}
	}
	domain = asciiLower(domain) // I35
	if !endsInANumber(domain) {
		return domain, true
	}
	v4, ok := parseIPv4(domain)
	if !ok {
		return "", false
	}
	return strconv.Itoa(int(v4>>24)) + "." + strconv.Itoa(int(v4>>16&255)) + "." +
		strconv.Itoa(int(v4>>8&255)) + "." + strconv.Itoa(int(v4&255)), true
}

// endsInANumber is the ends-in-a-number checker (§3.5): the last label (a
// trailing empty one dropped) is all ASCII digits, or "0x" and hex digits.
func endsInANumber(host string) bool {
	parts := strings.Split(host, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if asciiDigits(last) {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok && strings.HasPrefix(last, "0x")
}

// href is the URL serializer (§4.5) of the parts: scheme "://" host
// [":" port] path ["?" query].
func (u urlParts) href() string {
	s := u.scheme + "://" + u.hostPort() + u.path // I29
	if u.hasQuery {
		s += "?" + u.query
	}
	return s
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

// pathname is URL.pathname (§6.1): the URL path serializer's output.
func (u urlParts) pathname() string { return u.path } // I3

// search is URL.search (§6.1): "If this's URL's query is either null or the
// empty string, return the empty string. Return U+003F (?), followed by this's
// URL's query."
func (u urlParts) search() string {
	if u.query == "" {
		return ""
	}
	return "?" + u.query // I36 I37
}

// hostPort is the host, then ":" and the port when it is not null.
func (u urlParts) hostPort() string {
	if u.port == "" {
		return u.host
	}
	return u.host + ":" + u.port
}

// origin is URL.origin (§4.7 origin, §6.1): a special scheme other than
// file has a tuple origin, serialised scheme "://" host [":" port].
func (u urlParts) origin() string { return u.scheme + "://" + u.hostPort() } // I23

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
// digits. s is valid UTF-8 (the callers decode it first, as a USVString is);
// a stray byte would be encoded on its own. With spaceAsPlus, U+0020
// becomes "+".
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
	if len(path) == 0 {
		return ""
	}
	return "/" + strings.Join(path, "/")
}

// validSameOriginPath is the path rule of 构造入站同源网址 (I31, I32):
// "新路径须以单个 / 起首，拒绝 //、反斜线、控制字符、? 和 #". A control
// character is Unicode Cc (U+0000–U+001F, U+007F–U+009F); the path must
// also be valid UTF-8.
func validSameOriginPath(p string) bool {
	if p[0] != '/' || strings.Contains(p, "//") || !utf8.ValidString(p) { // I31 I32
		return false
	}
	for _, c := range p {
		if c == '\\' || c == '?' || c == '#' || c <= 0x1F || (0x7F <= c && c <= 0x9F) { // I32
			return false
		}
	}
	return true
}

// decodePathStrict percent-decodes a pathname once and requires the result
// to be UTF-8, both strictly (读取入站解码路径).
func decodePathStrict(p string) (string, bool) {
	p, ok := percentDecode(p, true)
	return p, ok && utf8.ValidString(p) // I4
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

// parseIPv4 is the IPv4 parser (§3.5) for a host that ends in a number:
// one to four dot-separated numbers, each decimal, octal (leading 0) or hex
// (0x), the last filling the remaining bytes. ok is false for an invalid
// address, which the host parser rejects.
func parseIPv4(host string) (uint32, bool) {
	parts := strings.Split(host, ".")
	// "If the last item in parts is the empty string, … remove the last item
	// from parts."
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
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
