package hostbridge

// The reference canonicaliser, the normative version of the package's
// canonical JSON: JSON.stringify(JSON.parse(text)), written to be read
// rather than to be fast, each rule beside the ECMA-262 or RFC 8259
// sentence it implements. encoding/json's Decoder finds the tokens and
// checks the grammar; each string and number token is then read again from
// its raw bytes (canon_ref_string.go, canon_ref_number.go), because
// JSON.parse keeps what Go's decoder replaces (lone surrogates) and rejects
// what it lets through (invalid UTF-8). The value is built as JSON.parse
// builds it and written as JSON.stringify writes it; neither step recurses
// per nesting level (open containers are on a stack of their own), so deep
// nesting costs memory in proportion, never Go stack. When the Decoder
// stops, diagnose (below) says where, as JavaScript hosts say it.
//
// The reference stands alone: the canonicaliser is this file,
// canon_ref_string.go and canon_ref_number.go, with the shared canon.go and
// errors.go and nothing else (TestReferenceBuildTypeChecks); refScanBatch
// (canon_ref_batch.go) reads a batch with it. Built with -tags
// hostbridge_ref, the package compiles no fast-path file (canon_fast*.go) and
// canonicalises with this code. In the default build the fast path does
// the work, held equal to this code by the tests (output, depth, first
// problem and its offset, syntax error and its offset): a seeded corpus of
// 20,000 documents (TestReferenceRandomCorpus) and FuzzReference. Where the
// two could differ only by a promise (canonOptions.validUTF8: the caller
// checked the UTF-8), the reference checks anyway.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
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
	return refStringify(dst, v), valueReport{v.depth, v.problem}, nil // I93 I106
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
		v, err := p.token(tok, start) // I147
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
		if i := refSkipSpace(src, p.end); i < len(src) { // Q10
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
			p.top().key, p.top().keyOff = v.text, start // Q20
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
// D45); the queue reports nesting over 24 levels
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
	if k, ok := o.keys[string(o.key)]; ok { // I97
		o.members[k].value = v // I111
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
	if err != nil || n > maxArrayIndex || strconv.FormatUint(n, 10) != s { // I98
		return -1
	}
	return int64(n) // I112
}

// maxArrayIndex: "An array index is an integer index whose numeric value i
// is in the range +0𝔽 ≤ i < 𝔽(2^32 - 1)" (ECMA-262 §6.1.7).
const maxArrayIndex = 1<<32 - 2

// The reserved host-marker keys, as JSON.stringify writes them: the queue
// rejects them at any depth, "包括借 \u0024 之类转义拼出的键".
var markerKeys = [...]string{`"$句柄"`, `"$未定义"`, `"$大整数"`, `"$数字"`}

// isMarker reports whether key, quoted, is a host-marker key. Each starts
// "$, so most keys need no comparing; string(key) == m compares in place
// (string(key) as an argument would be a copy of every key).
func isMarker(key []byte) bool {
	return len(key) > 1 && key[1] == '$' && slices.ContainsFunc(markerKeys[:], func(m string) bool { return string(key) == m }) // Q19
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
	brackets := map[bool]string{false: "[]", true: "{}"} // I110
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
			dst = append(dst, ',') // I95
		}
		s.next++
		if s.v.object {
			dst = append(append(dst, m.key...), ':') // Q11
		}
		write(m.value)
	}
	return dst
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
