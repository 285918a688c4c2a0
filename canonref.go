package hostbridge

// The normative canonicaliser: JSON.stringify(JSON.parse(text)), written to
// be read rather than to be fast. encoding/json's Decoder finds the tokens
// and checks the grammar (RFC 8259); each string and number token is then
// read again from its raw bytes, because JSON.parse keeps what Go's decoder
// replaces (lone surrogates) and rejects what it lets through (invalid
// UTF-8). The value is built as JSON.parse builds it and written as
// JSON.stringify writes it. canon.go, number.go and jsonstring.go are the
// fast path: the tests hold it equal to this file, byte for byte and error
// for error; build with -tags hostbridge_ref and the package uses this file
// instead.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// refValue is a value as JSON.parse builds it: a primitive's JSON.stringify
// text, or a container and its members.
type refValue struct {
	off, end int    // its span in the source
	text     []byte // a primitive's text; nil for a container
	object   bool
	members  []refMember // an array's elements or an object's properties, in the order written
	depth    int         // nesting: [] is 1, a primitive 0
	prob     problem     // the first of the queue's problems in it, in text order
}

// refMember is an element (no key) or a property of a container.
type refMember struct {
	key    []byte // the key as JSON.stringify writes it, quotes included
	keyOff int    // where the key first appears in the source
	index  int64  // the key as an array index, or -1
	value  *refValue
}

// refOpen is a container not yet closed.
type refOpen struct {
	v      *refValue
	keys   map[string]int // an object's keys so far → their member
	key    []byte         // an object's key read, its value not yet
	keyOff int
}

// refParser holds one canonicalisation.
type refParser struct {
	src  []byte
	o    *canonOptions
	open []refOpen // outermost first
	end  int       // offset after the last token read
}

// refCanonical does what canonical does, as the specs say it.
// o.validUTF8 changes nothing here: the strings are always checked.
func refCanonical(dst, src []byte, o *canonOptions) ([]byte, canonInfo, error) {
	v, err := refParse(src, o)
	if err != nil {
		return dst, canonInfo{}, err
	}
	return refStringify(dst, v), canonInfo{v.depth, v.prob}, nil
}

// refParse is JSON.parse: "Let script be ParseText(jsonString, Script) …
// it is a Syntax Error if the text is not a valid JSON text as defined in
// ECMA-404" (ECMA-262 §25.5.1), the only whitespace space, tab, LF and CR.
func refParse(src []byte, o *canonOptions) (*refValue, error) {
	p := &refParser{src: src, o: o}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, p.diagnose()
		}
		start := tokenStart(src, p.end)
		p.end = int(dec.InputOffset())
		v, err := p.token(tok, start)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue // a container opened, or a key
		}
		if len(p.open) > 0 {
			p.add(v)
			continue
		}
		// ECMA-404: a JSON text is one value; the Decoder would read on.
		if i := refSkipSpace(src, p.end); i < len(src) {
			return nil, &syntaxError{SyntaxAfterJSON, i}
		}
		return v, nil
	}
}

// refSkipSpace: RFC 8259 §2, ws = *( %x20 / %x09 / %x0A / %x0D ).
func refSkipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// tokenStart is where the token after offset end starts: Token passes
// whitespace and one ',' or ':' without returning them.
func tokenStart(src []byte, end int) int {
	i := refSkipSpace(src, end)
	if i < len(src) && (src[i] == ',' || src[i] == ':') {
		i = refSkipSpace(src, i+1)
	}
	return i
}

// token takes the token at src[start:p.end] and returns the value it
// completes, if any.
func (p *refParser) token(tok json.Token, start int) (*refValue, error) {
	raw := p.src[start:p.end]
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' || t == '{' {
			return nil, p.push(t == '{', start)
		}
		return p.pop(), nil
	case string:
		units, _, err := refString(p.src, start)
		if err != nil {
			return nil, err
		}
		if top := p.top(); top != nil && top.v.object && top.key == nil {
			top.key, top.keyOff = quoteJSONString(nil, units), start
			return nil, nil
		}
		return &refValue{off: start, end: p.end, text: quoteJSONString(nil, units)}, nil
	case json.Number:
		text, inf := refNumber(raw)
		v := &refValue{off: start, end: p.end, text: text}
		if inf && !p.o.infToNull {
			v.prob = problem{problemInf, start}
		}
		return v, nil
	}
	return &refValue{off: start, end: p.end, text: raw}, nil // true, false, null
}

func (p *refParser) top() *refOpen {
	if len(p.open) == 0 {
		return nil
	}
	return &p.open[len(p.open)-1]
}

// push opens a container. DESIGN.md: the inbound functions bound nesting
// (maxDepth); the queue reports nesting over 24 levels
// ("嵌套不得超过 24 层（数组或对象各算一层）") at the container that passes it.
func (p *refParser) push(object bool, off int) error {
	level := len(p.open) + 1
	if p.o.maxDepth > 0 && level > p.o.maxDepth {
		return &syntaxError{SyntaxTooDeep, off}
	}
	v := &refValue{off: off, object: object}
	if p.o.deepOver > 0 && level > p.o.deepOver {
		v.prob = problem{problemDeep, off}
	}
	o := refOpen{v: v}
	if object {
		o.keys = map[string]int{}
	}
	p.open = append(p.open, o)
	return nil
}

// add puts a complete value into the innermost open container. For an
// object, JSON.parse calls CreateDataProperty(obj, key, value) (ECMA-262
// §25.5.1.1 InternalizeJSONProperty's source, the object literal): a key
// already there gets the new value and keeps its place.
func (p *refParser) add(v *refValue) {
	o := p.top()
	if !o.v.object {
		o.v.members = append(o.v.members, refMember{index: -1, value: v})
		return
	}
	if k, ok := o.keys[string(o.key)]; ok {
		o.v.members[k].value = v
	} else {
		o.keys[string(o.key)] = len(o.v.members)
		o.v.members = append(o.v.members, refMember{o.key, o.keyOff, refArrayIndex(o.key), v})
	}
	o.key = nil
}

// pop closes the innermost container and returns it, its properties in
// OrdinaryOwnPropertyKeys order (ECMA-262 §10.1.11.1): "for each own
// property key P of O such that P is an array index, in ascending numeric
// index order … for each own property key P of O such that P is a String
// and P is not an array index, in ascending chronological order of property
// creation". Its depth and problems are those of what survives.
func (p *refParser) pop() *refValue {
	v := p.top().v
	p.open = p.open[:len(p.open)-1]
	v.end = p.end
	slices.SortStableFunc(v.members, func(a, b refMember) int {
		switch {
		case a.index >= 0 && b.index >= 0:
			return cmp.Compare(a.index, b.index)
		case a.index >= 0 || b.index >= 0:
			return cmp.Compare(b.index, a.index) // the index first
		}
		return 0
	})
	for _, m := range v.members {
		v.depth = max(v.depth, m.value.depth)
		if p.o.markers && v.object && isMarker(m.key) {
			v.prob = earlier(v.prob, problem{problemMarker, m.keyOff})
		}
		v.prob = earlier(v.prob, m.value.prob)
	}
	v.depth++
	return v
}

// refArrayIndex is the key (a JSON string, quoted) as an array index, or
// -1. ECMA-262 §6.1.7: "An array index is an integer index n such that
// CanonicalNumericIndexString(n) returns an integral Number in the
// inclusive interval from +0𝔽 to 𝔽(2^32 - 2)"; canonical: ToString of the
// number is the key itself.
func refArrayIndex(key []byte) int64 {
	s := string(key[1 : len(key)-1])
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > maxArrayIndex || strconv.FormatUint(n, 10) != s {
		return -1
	}
	return int64(n)
}

// The reserved host-marker keys, as JSON.stringify writes them: the queue
// rejects them at any depth, "包括借 \u0024 之类转义拼出的键".
var markerKeys = [...]string{`"$句柄"`, `"$未定义"`, `"$大整数"`, `"$数字"`}

// isMarker reports whether key, quoted, is a host-marker key.
func isMarker(key []byte) bool {
	return slices.Contains(markerKeys[:], string(key))
}

// earlier returns whichever of a and b comes first in the text.
func earlier(a, b problem) problem {
	if a.kind == problemNone || b.kind != problemNone && b.off < a.off {
		return b
	}
	return a
}

// refStringify is JSON.stringify(value) with no replacer and no indent
// (ECMA-262 §25.5.2.2 SerializeJSONProperty, SerializeJSONObject,
// SerializeJSONArray): "{" key ":" value "," … "}", "[" value "," … "]",
// nothing between. It keeps its place on a stack of its own, not Go's,
// so a million nested arrays cost memory in proportion.
func refStringify(dst []byte, root *refValue) []byte {
	type place struct {
		v    *refValue
		next int // the next member to write; -1 before the opening bracket
	}
	stack := []place{{root, -1}}
	for len(stack) > 0 {
		s := &stack[len(stack)-1]
		v := s.v
		switch {
		case v.text != nil:
			dst = append(dst, v.text...)
			stack = stack[:len(stack)-1]
			continue
		case s.next < 0 && v.object:
			dst = append(dst, '{')
		case s.next < 0:
			dst = append(dst, '[')
		case s.next == len(v.members) && v.object:
			dst = append(dst, '}')
			stack = stack[:len(stack)-1]
			continue
		case s.next == len(v.members):
			dst = append(dst, ']')
			stack = stack[:len(stack)-1]
			continue
		case s.next > 0:
			dst = append(dst, ',')
		}
		if s.next < 0 {
			s.next = 0
			continue
		}
		m := v.members[s.next]
		s.next++
		if v.object {
			dst = append(append(dst, m.key...), ':')
		}
		stack = append(stack, place{m.value, -1})
	}
	return dst
}

// ---- Strings -----------------------------------------------------------

// refString reads the JSON string at src[i] (RFC 8259 §7) into what
// JSON.parse makes of it, a String of UTF-16 code units, and returns the
// offset after it. The text is UTF-8 ("JSON text exchanged between systems
// … MUST be encoded using UTF-8", RFC 8259 §8.1), decoded strictly as a
// fatal TextDecoder does before JSON.parse sees it.
func refString(src []byte, i int) ([]uint16, int, error) {
	var s []uint16
	for j := i + 1; ; {
		if j >= len(src) {
			return nil, j, &syntaxError{SyntaxUnterminated, len(src)}
		}
		switch c := src[j]; {
		case c == '"':
			return s, j + 1, nil
		case c == '\\':
			u, next, err := refEscape(src, j)
			if err != nil {
				return nil, next, err
			}
			s, j = append(s, u), next
		case c < 0x20: // "All Unicode characters may be placed within the quotation marks, except for … the control characters (U+0000 through U+001F)."
			return nil, j, &syntaxError{SyntaxBadControl, j}
		default:
			r, size := utf8.DecodeRune(src[j:])
			if r == utf8.RuneError && size == 1 {
				return nil, j, &syntaxError{SyntaxBadUTF8, j}
			}
			s, j = utf16.AppendRune(s, r), j+size
		}
	}
}

// refEscapes are RFC 8259 §7's two-character escapes: escape = %x5C ( %x22
// / %x5C / %x2F / %x62 / %x66 / %x6E / %x72 / %x74 / %x75 4HEXDIG ).
var refEscapes = map[byte]uint16{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// refEscape reads the escape at src[j] (a backslash) as one UTF-16 code
// unit: "\uD834\uDD1E" is two, as the RFC says, paired only when written.
// Errors are where V8 reports them: a bad escape at the character after
// the backslash, a bad \u escape at its first character that is not a hex
// digit.
func refEscape(src []byte, j int) (uint16, int, error) {
	if j+1 >= len(src) {
		return 0, j, &syntaxError{SyntaxUnterminated, len(src)}
	}
	if u, ok := refEscapes[src[j+1]]; ok {
		return u, j + 2, nil
	}
	if src[j+1] != 'u' {
		return 0, j + 1, &syntaxError{SyntaxBadEscape, j + 1}
	}
	var u uint16
	for k := j + 2; k < j+6; k++ {
		if k >= len(src) {
			return 0, k, &syntaxError{SyntaxBadUnicode, len(src)}
		}
		d, ok := hexValue(src[k])
		if !ok {
			return 0, k, &syntaxError{SyntaxBadUnicode, k}
		}
		u = u<<4 | uint16(d)
	}
	return u, j + 6, nil
}

// quoteJSONString appends the String s as JSON.stringify writes it
// (ECMA-262 §25.5.2.3 QuoteJSONString): "For each code point C of
// StringToCodePoints(value)": the escapes of Table 74 (\b \t \n \f \r \"
// \\); else "if C has a numeric value less than 0x0020 (SPACE) or C has
// the same numeric value as a leading surrogate or trailing surrogate",
// UnicodeEscape(C), lower-case hex; else C itself (in UTF-8 here).
func quoteJSONString(dst []byte, s []uint16) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		if utf16.IsSurrogate(c) && c < 0xdc00 && i+1 < len(s) {
			if r := utf16.DecodeRune(c, rune(s[i+1])); r != utf8.RuneError {
				c = r // a leading surrogate then a trailing one: one code point
				i++
			}
		}
		switch {
		case c == '"' || c == '\\' || c < 0x20:
			dst = appendEscape(dst, byte(c))
		case utf16.IsSurrogate(c):
			dst = append(dst, '\\', 'u', hexDigits[c>>12], hexDigits[c>>8&0xf], hexDigits[c>>4&0xf], hexDigits[c&0xf])
		default:
			dst = utf8.AppendRune(dst, c)
		}
	}
	return append(dst, '"')
}

// ---- Numbers -----------------------------------------------------------

// refNumber reads a JSON number (RFC 8259 §6, checked by the Decoder) as
// JSON.parse does, the IEEE 754 double nearest its mathematical value
// (ECMA-262 §6.1.6.1, "round to nearest, ties to even"), and writes it as
// Number::toString does. inf: the value is beyond the double range and
// reads as ±Infinity, which JSON.stringify writes "null".
//
// strconv.ParseFloat reads "0.ddd…e±x" right whatever the number of
// digits, but misplaces the point after more than 800 integer digits, so
// the literal is first spelt so: its significant digits D and the
// exponent e that make its value 0.D × 10^e.
func refNumber(lit []byte) (text []byte, inf bool) {
	neg := lit[0] == '-'
	mant, exp, _ := bytes.Cut(bytes.TrimPrefix(lit, []byte("-")), []byte("e"))
	if m, x, ok := bytes.Cut(mant, []byte("E")); ok {
		mant, exp = m, x
	}
	intPart, frac, _ := bytes.Cut(mant, []byte("."))
	all := append(append([]byte{}, intPart...), frac...)
	lead := len(all) - len(bytes.TrimLeft(all, "0"))
	d := bytes.TrimRight(all[lead:], "0")
	if len(d) == 0 {
		return []byte("0"), false // ±0: "If m is +0𝔽 or -0𝔽, return "0""
	}
	e := len(intPart) - lead + refExponent(exp)
	switch {
	case e > 400: // 0.D × 10^e ≥ 10^399, past the largest double
		return []byte("null"), true
	case e < -400: // below half the smallest: rounds to 0
		return []byte("0"), false
	}
	s := "0." + string(d) + "e" + strconv.Itoa(e)
	if neg {
		s = "-" + s
	}
	f, _ := strconv.ParseFloat(s, 64)
	if math.IsInf(f, 0) {
		return []byte("null"), true
	}
	return appendNumber(nil, f), false
}

// refExponent reads an exponent's optional sign and digits, held within
// ±10^9: far past ±400 plus any count of digits a text here can hold.
func refExponent(x []byte) int {
	neg := len(x) > 0 && x[0] == '-'
	e := 0
	for _, c := range bytes.TrimLeft(x, "+-") {
		e = min(e*10+int(c-'0'), 1e9)
	}
	if neg {
		return -e
	}
	return e
}

// appendNumber appends f as ECMAScript Number::toString does (ECMA-262
// §6.1.6.1.20, with the shortest round-trip digits as RFC 8785 §3.2.2.3
// describes): -0 is "0", exponent notation below 1e-6 and from 1e21 on.
// f must be finite.
//
// strconv's shortest digits ('f' or 'e' with precision -1) are the digits s
// of Number::toString, and its 'f' layout is the spec's for -6 < n ≤ 21
// (10^(n-1) ≤ |x| < 10^n): digits then zeros, digits with a point, or "0."
// then zeros then digits. The float comparisons pick that range exactly: 1e21
// is a double, so no other double's shortest digits are 10^21, and the
// double nearest 10^-6 is the only one whose shortest digits are 10^-6, so
// |f| ≥ 1e-6 and |f| < 1e21 say -6 < n ≤ 21. encoding/json's float encoder
// rests on the same reading. Outside it, 'e' writes "d.ddde-07", and
// Number::toString "d.ddde-7": the exponent loses its leading zero (an
// exponent from 21 on has none).
func appendNumber(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if a := math.Abs(f); 1e-6 <= a && a < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	if n := len(dst); dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1] // e-07 → e-7
		dst = dst[:n-1]
	}
	return dst
}

// ---- Syntax errors -----------------------------------------------------

// wantToken is what the grammar allows next (RFC 8259 §2–§5).
type wantToken uint8

const (
	wantValue     wantToken = iota // a value (or, first in an array, "]")
	wantKey                        // a string (or, first in an object, "}")
	wantColon                      // name-separator
	wantSeparator                  // value-separator, or the container's end
	wantEnd                        // nothing but whitespace: the text is one value
)

// expected is what may follow the last good token.
func (p *refParser) expected() wantToken {
	o := p.top()
	switch {
	case o == nil:
		return wantValue
	case o.v.object && o.key != nil:
		return wantColon
	case len(o.v.members) > 0:
		return wantSeparator
	case o.v.object:
		return wantKey
	}
	return wantValue
}

// diagnose finds the syntax error the Decoder stopped at. The Decoder says
// that a text is not JSON but not where as JavaScript hosts say it, so
// diagnose reads the text again from the end of the last good token, by
// the grammar, expecting what the open container expects: the error is at
// most a separator, a scalar and a separator on.
func (p *refParser) diagnose() error {
	src, i, want := p.src, p.end, p.expected()
	for {
		if i = refSkipSpace(src, i); i >= len(src) {
			return &syntaxError{SyntaxUnexpectedEnd, len(src)}
		}
		c := src[i]
		switch {
		case want == wantEnd:
			return &syntaxError{SyntaxAfterJSON, i}
		case want == wantColon && c == ':':
			i, want = i+1, wantValue
		case want == wantSeparator && c == ',':
			i, want = i+1, wantValue
			if p.top().v.object {
				want = wantKey
			}
		case want == wantKey && c == '"', want == wantValue && bytes.IndexByte([]byte(`"-0123456789tfn`), c) >= 0:
			end, err := refScanScalar(src, i)
			if err != nil {
				return err
			}
			i, want = end, nextAfterScalar(want, len(p.open))
		default:
			return unexpectedAt(src, i)
		}
	}
}

// nextAfterScalar is what may follow a key (want is wantKey) or a value.
func nextAfterScalar(want wantToken, open int) wantToken {
	switch {
	case want == wantKey:
		return wantColon
	case open == 0:
		return wantEnd
	}
	return wantSeparator
}

// refScanScalar reads the string, number or literal at src[i] and returns
// the offset after it.
func refScanScalar(src []byte, i int) (int, error) {
	switch c := src[i]; {
	case c == '"':
		_, end, err := refString(src, i)
		return end, err
	case c == 't':
		return refLiteral(src, i, "true")
	case c == 'f':
		return refLiteral(src, i, "false")
	case c == 'n':
		return refLiteral(src, i, "null")
	}
	return refScanNumber(src, i)
}

// refScanNumber reads number = [ minus ] int [ frac ] [ exp ] (RFC 8259 §6)
// at src[i], where int = zero / ( digit1-9 *DIGIT ).
func refScanNumber(src []byte, i int) (int, error) {
	if src[i] == '-' {
		i++
	}
	if i < len(src) && src[i] == '0' {
		i++
	} else if end, err := refDigits(src, i); err != nil {
		return end, err
	} else {
		i = end
	}
	if i < len(src) && src[i] == '.' { // frac = decimal-point 1*DIGIT
		end, err := refDigits(src, i+1)
		if err != nil {
			return end, err
		}
		i = end
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') { // exp = e [ minus / plus ] 1*DIGIT
		i++
		if i < len(src) && (src[i] == '-' || src[i] == '+') {
			i++
		}
		return refDigits(src, i)
	}
	return i, nil
}

// refDigits reads 1*DIGIT at src[i].
func refDigits(src []byte, i int) (int, error) {
	if i >= len(src) {
		return i, &syntaxError{SyntaxUnexpectedEnd, len(src)}
	}
	if src[i] < '0' || src[i] > '9' {
		return i, &syntaxError{SyntaxBadNumber, i}
	}
	for i < len(src) && '0' <= src[i] && src[i] <= '9' {
		i++
	}
	return i, nil
}

// refLiteral reads the literal name word (RFC 8259 §3) at src[i].
func refLiteral(src []byte, i int, word string) (int, error) {
	for k := range len(word) {
		if i+k >= len(src) {
			return i + k, &syntaxError{SyntaxUnexpectedEnd, len(src)}
		}
		if src[i+k] != word[k] {
			return i + k, unexpectedAt(src, i+k)
		}
	}
	return i + len(word), nil
}

// unexpectedAt is the error for the byte at src[i], which cannot start or
// continue anything there: named as V8 names it, a control character by
// its code point, a byte that is not UTF-8 as such.
func unexpectedAt(src []byte, i int) error {
	r, size := utf8.DecodeRune(src[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return &syntaxError{SyntaxBadUTF8, i}
	case r < 0x20 || r == 0x7f:
		return &syntaxError{SyntaxUnexpectedToken + " U+00" + string(hexDigits[r>>4]) + string(hexDigits[r&0xf]), i}
	}
	return &syntaxError{SyntaxUnexpectedToken + " '" + string(r) + "'", i}
}
