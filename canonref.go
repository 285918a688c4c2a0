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
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// refValue is a value as JSON.parse builds it: a primitive's JSON.stringify
// text, or a container and its members.
type refValue struct {
	off, end int    // its span in the source
	text     []byte // a primitive's text; nil for a container
	object   bool
	members  []refMember  // an array's elements or an object's properties
	depth    int          // nesting: [] is 1, a primitive 0
	problem  valueProblem // the first of the queue's problems in it, in text order

	// While the object is open: its keys so far (→ their member), and a
	// key read whose value is not yet.
	keys   map[string]int
	key    []byte
	keyOff int
}

// refMember is an element (no key) or a property of a container.
type refMember struct {
	key    []byte // the key as JSON.stringify writes it, quotes included
	keyOff int    // where the key first appears in the source
	index  int64  // the key as an array index, or -1
	value  *refValue
}

// refParser holds one canonicalisation.
type refParser struct {
	src  []byte
	o    *canonOptions
	open []*refValue // the containers not yet closed, outermost first
	end  int         // offset after the last token read
}

// refCanonical does what canonical does, as the specs say it.
// o.validUTF8 changes nothing here: the strings are always checked.
func refCanonical(dst, src []byte, o *canonOptions) ([]byte, valueReport, error) {
	v, err := refParse(src, o)
	if err != nil {
		return dst, valueReport{}, err
	}
	return refStringify(dst, v), valueReport{v.depth, v.problem}, nil
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
		// The token starts after whitespace and the one ',' or ':' that
		// Token passes without returning it.
		start := len(src) - len(bytes.TrimLeft(src[p.end:], " \t\n\r,:"))
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
			return nil, &syntaxError{syntaxAfterJSON, i}
		}
		return v, nil
	}
}

// refSkipSpace: RFC 8259 §2, ws = *( %x20 / %x09 / %x0A / %x0D ).
func refSkipSpace(src []byte, i int) int { return len(src) - len(bytes.TrimLeft(src[i:], " \t\n\r")) }

// token takes the token at src[start:p.end] and returns the value it
// completes, if any.
func (p *refParser) token(tok json.Token, start int) (*refValue, error) {
	v := &refValue{off: start, end: p.end, text: p.src[start:p.end]} // true, false, null
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
		if v.text = quoteJSONString(nil, units); len(p.open) > 0 && p.top().object && p.top().key == nil {
			p.top().key, p.top().keyOff = v.text, start
			return nil, nil
		}
	case json.Number:
		var inf bool
		if v.text, inf = refNumber(v.text); inf && !p.o.infToNull {
			v.problem = valueProblem{problemInf, start}
		}
	}
	return v, nil
}

func (p *refParser) top() *refValue { return p.open[len(p.open)-1] }

// push opens a container. The inbound functions bound nesting (syntaxDepthLimit,
// a decision doc.go records); the queue reports nesting over 24 levels
// ("嵌套不得超过 24 层（数组或对象各算一层）") at the container that passes it.
func (p *refParser) push(object bool, off int) error {
	level := len(p.open) + 1
	if p.o.syntaxDepthLimit > 0 && level > p.o.syntaxDepthLimit {
		return &syntaxError{syntaxTooDeep, off}
	}
	v := &refValue{off: off, object: object}
	if p.o.problemDepthLimit > 0 && level > p.o.problemDepthLimit {
		v.problem = valueProblem{problemDeep, off}
	}
	p.open = append(p.open, v)
	return nil
}

// add puts a complete value into the innermost open container. JSON.parse
// evaluates an object as an object literal, whose PropertyDefinition-
// Evaluation calls CreateDataPropertyOrThrow(object, key, value) for each
// member in turn (ECMA-262 §13.2.5.5): a key already there gets the new
// value and keeps its place ("a repeated key keeps its first position and
// its last value").
func (p *refParser) add(v *refValue) {
	o := p.top()
	if !o.object {
		o.members = append(o.members, refMember{index: -1, value: v})
		return
	}
	if k, ok := o.keys[string(o.key)]; ok {
		o.members[k].value = v
	} else {
		if o.keys == nil {
			o.keys = map[string]int{}
		}
		o.keys[string(o.key)] = len(o.members)
		o.members = append(o.members, refMember{o.key, o.keyOff, refArrayIndex(o.key), v})
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
	v := p.top()
	p.open, v.end, v.keys = p.open[:len(p.open)-1], p.end, nil
	slices.SortStableFunc(v.members, func(a, b refMember) int {
		switch {
		case a.index >= 0 && b.index >= 0:
			return cmp.Compare(a.index, b.index)
		case a.index >= 0: // an array index before any other key
			return -1
		case b.index >= 0:
			return 1
		}
		return 0
	})
	for _, m := range v.members {
		v.depth = max(v.depth, m.value.depth)
		if p.o.markers && v.object && isMarker(m.key) {
			v.problem = earlier(v.problem, valueProblem{problemMarker, m.keyOff})
		}
		v.problem = earlier(v.problem, m.value.problem)
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

// isMarker reports whether key, quoted, is a host-marker key. Each starts
// "$, so most keys need no comparing; string(key) == m compares in place
// (string(key) as an argument would be a copy of every key).
func isMarker(key []byte) bool {
	return len(key) > 1 && key[1] == '$' && slices.ContainsFunc(markerKeys[:], func(m string) bool { return string(key) == m })
}

// earlier returns whichever of a and b comes first in the text.
func earlier(a, b valueProblem) valueProblem {
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
		v    *refValue // an open container
		next int       // its next member to write
	}
	brackets := map[bool]string{false: "[]", true: "{}"}
	var stack []place
	write := func(v *refValue) {
		if v.text != nil {
			dst = append(dst, v.text...)
			return
		}
		dst = append(dst, brackets[v.object][0])
		stack = append(stack, place{v, 0})
	}
	write(root)
	for len(stack) > 0 {
		s := &stack[len(stack)-1]
		if s.next == len(s.v.members) {
			dst = append(dst, brackets[s.v.object][1])
			stack = stack[:len(stack)-1]
			continue
		}
		m := s.v.members[s.next]
		if s.next > 0 {
			dst = append(dst, ',')
		}
		s.next++
		if s.v.object {
			dst = append(append(dst, m.key...), ':')
		}
		write(m.value)
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
			return nil, j, &syntaxError{syntaxUnterminated, len(src)}
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
			return nil, j, &syntaxError{syntaxBadControl, j}
		default:
			r, size := utf8.DecodeRune(src[j:])
			if r == utf8.RuneError && size == 1 {
				return nil, j, &syntaxError{syntaxBadUTF8, j}
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
		return 0, j, &syntaxError{syntaxUnterminated, len(src)}
	}
	if u, ok := refEscapes[src[j+1]]; ok {
		return u, j + 2, nil
	}
	if src[j+1] != 'u' {
		return 0, j + 1, &syntaxError{syntaxBadEscape, j + 1}
	}
	var u uint16
	for k := j + 2; k < j+6; k++ {
		if k >= len(src) {
			return 0, k, &syntaxError{syntaxBadUnicode, len(src)}
		}
		d, ok := hexValue(src[k])
		if !ok {
			return 0, k, &syntaxError{syntaxBadUnicode, k}
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
	mant, exp := strings.TrimPrefix(string(lit), "-"), ""
	if k := strings.IndexAny(mant, "eE"); k >= 0 {
		mant, exp = mant[:k], mant[k+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	d := strings.TrimRight(all[lead:], "0")
	x, _ := strconv.Atoi(exp)  // "+5" and "-5" too; held at ±2^63 when longer
	x = max(min(x, 1e9), -1e9) // far past ±400 plus any count of digits a text here holds
	e := len(intPart) - lead + x
	switch {
	case len(d) == 0: // ±0: "If m is +0𝔽 or -0𝔽, return "0""
		return []byte("0"), false
	case e > 400: // 0.D × 10^e ≥ 10^399, past the largest double
		return []byte("null"), true
	case e < -400: // below half the smallest double: rounds to 0
		return []byte("0"), false
	}
	f, _ := strconv.ParseFloat("0."+d+"e"+strconv.Itoa(e), 64)
	if math.IsInf(f, 0) {
		return []byte("null"), true
	}
	if lit[0] == '-' { // rounding is symmetric: the sign goes on after
		f = -f
	}
	return appendNumber(nil, f), false // Number::toString, in number.go
}

// ---- Syntax errors -----------------------------------------------------

// expected is what the grammar (RFC 8259 §2–§5) allows after the last good
// token: a separator (':' or ','; 0 for none), then a key or a value.
func (p *refParser) expected() (sep byte, key bool) {
	switch {
	case len(p.open) == 0:
		return 0, false
	case p.top().object && p.top().key != nil:
		return ':', false
	case len(p.top().members) > 0:
		return ',', p.top().object
	}
	return 0, p.top().object
}

// diagnose finds the syntax error the Decoder stopped at. The Decoder says
// that a text is not JSON but not where as JavaScript hosts say it, so
// diagnose reads again from the end of the last good token what one Token
// call reads, a separator and a token, by the grammar.
func (p *refParser) diagnose() error {
	src, i := p.src, refSkipSpace(p.src, p.end)
	sep, key := p.expected()
	if sep != 0 && i < len(src) && src[i] == sep {
		i, sep = refSkipSpace(src, i+1), 0
	}
	switch {
	case i >= len(src):
		return &syntaxError{syntaxUnexpectedEnd, len(src)}
	case sep == 0 && (src[i] == '"' || !key && strings.IndexByte("-0123456789tfn", src[i]) >= 0):
		if _, err := refScanScalar(src, i); err != nil {
			return err
		}
	}
	return unexpectedAt(src, i) // a ']' after ',', a '1' after a key …
}

// refScanScalar reads the string, number or literal at src[i] and returns
// the offset after it.
func refScanScalar(src []byte, i int) (int, error) {
	if src[i] == '"' {
		_, end, err := refString(src, i)
		return end, err
	}
	if word, ok := map[byte]string{'t': "true", 'f': "false", 'n': "null"}[src[i]]; ok {
		return refLiteral(src, i, word)
	}
	return refScanNumber(src, i)
}

// refScanNumber reads number = [ minus ] int [ frac ] [ exp ] (RFC 8259 §6)
// at src[i]: int = zero / ( digit1-9 *DIGIT ), frac = decimal-point
// 1*DIGIT, exp = e [ minus / plus ] 1*DIGIT.
func refScanNumber(src []byte, i int) (end int, err error) {
	at := func(chars string) bool { return i < len(src) && strings.IndexByte(chars, src[i]) >= 0 }
	if at("-") {
		i++
	}
	if at("0") {
		i++
	} else if i, err = refDigits(src, i); err != nil {
		return i, err
	}
	if at(".") {
		if i, err = refDigits(src, i+1); err != nil {
			return i, err
		}
	}
	if at("eE") {
		if i++; at("-+") {
			i++
		}
		return refDigits(src, i)
	}
	return i, nil
}

// refDigits reads 1*DIGIT at src[i].
func refDigits(src []byte, i int) (int, error) {
	switch {
	case i >= len(src):
		return i, &syntaxError{syntaxUnexpectedEnd, len(src)}
	case src[i] < '0' || src[i] > '9':
		return i, &syntaxError{syntaxBadNumber, i}
	}
	for i < len(src) && '0' <= src[i] && src[i] <= '9' {
		i++
	}
	return i, nil
}

// refLiteral reads the literal name word (RFC 8259 §3) at src[i].
func refLiteral(src []byte, i int, word string) (int, error) {
	k := 0
	for k < len(word) && i+k < len(src) && src[i+k] == word[k] {
		k++
	}
	switch {
	case k == len(word):
		return i + k, nil
	case i+k == len(src):
		return i + k, &syntaxError{syntaxUnexpectedEnd, len(src)}
	}
	return i + k, unexpectedAt(src, i+k)
}

// unexpectedAt is the error for the byte at src[i], which cannot start or
// continue anything there: named as V8 names it, a control character by
// its code point, a byte that is not UTF-8 as such.
func unexpectedAt(src []byte, i int) error {
	r, size := utf8.DecodeRune(src[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return &syntaxError{syntaxBadUTF8, i}
	case r < 0x20 || r == 0x7f:
		return &syntaxError{syntaxUnexpectedToken + " U+00" + string(hexDigits[r>>4]) + string(hexDigits[r&0xf]), i}
	}
	return &syntaxError{syntaxUnexpectedToken + " '" + string(r) + "'", i}
}
