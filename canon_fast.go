//go:build !hostbridge_ref

package hostbridge

// The fast path of canonical JSON, the default build's: one pass over the
// text that writes the canonical form as it parses, with no tree and, for a
// small message, no allocation but the output. It never recurses per
// nesting level: open containers are frames on an explicit stack and the
// members of open objects sit in one slice, so 10^6 nested brackets cost
// memory in proportion, never Go stack. An object is rewritten at its close
// only when it needs it (a repeated key, or a key that may be an array
// index). Strings are in canon_fast_string.go, numbers in canon_fast_number.go, the
// batch scan in canon_fast_batch.go.
//
// The reference (canon_ref.go) is the normative version; the tests hold this
// code equal to it, output, depth, first problem and syntax error, offsets
// included (canon_fast_test.go). With -tags hostbridge_ref no
// canon_fast*.go file is compiled.

import (
	"cmp"
	"slices"
	"sync"
)

// fastCanonical appends to dst the canonical form of the JSON text src,
// JSON.stringify(JSON.parse(src)), and describes the parsed value. src must
// be valid UTF-8 and strict RFC 8259 JSON, as JSON.parse takes it: no BOM,
// no comments, no trailing commas, whitespace only space, tab, LF and CR. An
// error is a *syntaxError.
func fastCanonical(dst, src []byte, o *canonOptions) ([]byte, valueReport, error) {
	p := newParser(src, dst, o)
	defer p.release()
	if need := len(dst) + len(src) + 16; cap(dst) < need {
		p.out = make([]byte, len(dst), need)
		copy(p.out, dst)
	}
	i := skipSpace(src, 0)
	end, info, err := p.value(i)
	if err != nil {
		return dst, valueReport{}, err
	}
	if end = skipSpace(src, end); end < len(src) {
		return dst, valueReport{}, &syntaxError{syntaxAfterJSON, end}
	}
	return p.out, info, nil
}

// parsers keeps parsers' stacks and buffers between calls, so a small
// message costs no allocation but its output. Trick: the reference
// allocates its tree afresh; the pool bought 1–6% on the realistic
// documents (kept for small messages, where allocation weighs most).
var parsers = sync.Pool{New: func() any { return new(parser) }}

func newParser(src, out []byte, o *canonOptions) *parser {
	p := parsers.Get().(*parser)
	p.src, p.out, p.o = src, out, o
	return p
}

// release returns p to the pool, keeping its scratch unless a large
// document made it big.
func (p *parser) release() {
	const keep = 1 << 12
	p.src, p.out, p.o = nil, nil, nil
	if cap(p.stack) > keep || cap(p.members) > keep || cap(p.order) > keep || cap(p.scratch) > keep*16 || len(p.keyMaps) > 64 {
		return
	}
	for _, m := range p.keyMaps {
		clear(m) // an error may leave entries behind
	}
	p.stack, p.members, p.order, p.scratch = p.stack[:0], p.members[:0], p.order[:0], p.scratch[:0]
	parsers.Put(p)
}

// parser is one canonicalisation. It never recurses: open containers live on
// stack, the members of open objects on members, so 10^6 nested brackets
// cost memory in proportion, never Go stack.
type parser struct {
	src     []byte
	out     []byte
	o       *canonOptions
	stack   []frame
	members []member
	order   []int
	scratch []byte
	keyMaps []map[uint64]int // by stack level: a key's hash → its first member, for the open objects with many keys
}

// frame is an open array or object.
//
// Frames and members hold no pointers and are written in place: they are
// made once per container and key, the parser's most frequent stores.
type frame struct {
	start   int          // offset of '[' or '{' in out
	memBase int          // this object's first entry in parser.members
	seen    uint64       // the keyBit of every key so far (all bits once the object is mapped)
	problem valueProblem // first problem so far: its own nesting (when deep), then its children's
	depth   int32        // deepest child so far
	object  bool
	closer  byte // ']' or '}'
	reorder bool // a duplicate, or a key that may be an array index: rewrite at close
	deep    bool // deeper than canonOptions.problemDepthLimit: problem is that
	mapped  bool // many keys: parser.keyMaps at this frame's level indexes them
}

// member is one key and value of an open object, as written to out.
type member struct {
	keyStart int          // offset of the key's opening quote in out
	keyEnd   int          // offset after its closing quote
	valEnd   int          // offset after the value
	keyOff   int          // offset of the key in src
	index    int64        // the key as an array index, or -1 (rewrite's to write)
	first    int          // the member whose key this repeats, or -1
	last     int          // for a first occurrence: the member holding the last value
	problem  valueProblem // of the value
	depth    int32        // of the value
}

// value parses the one JSON value at src[i:] and returns the offset after it.
func (p *parser) value(i int) (int, valueReport, error) {
	src, base := p.src, len(p.stack)
	var depth int
	var problem valueProblem
	var err error
	for {
		// Parse one value at i; a container is pushed and its first member
		// or element parsed next.
		if i >= len(src) {
			return i, valueReport{}, &syntaxError{syntaxUnexpectedEnd, len(src)}
		}
		depth, problem = 0, valueProblem{}
		switch c := src[i]; {
		case c == '"': // the most frequent value, parsed without a detour
			i, err = p.str(i)
		case c == '{' || c == '[':
			var closed bool
			if i, closed, depth, problem, err = p.open(i, base); err == nil && !closed {
				continue
			}
		case c == '-' || c-'0' <= 9: // the next most frequent
			i, problem, err = p.number(i)
		default:
			i, err = p.literalName(i)
		}
		if err != nil {
			return i, valueReport{}, err
		}
		// A value is complete: hand it to f, its container, which may
		// complete in turn.
		var f *frame
		for {
			if len(p.stack) == base {
				return i, valueReport{depth, problem}, nil
			}
			f = &p.stack[len(p.stack)-1]
			p.attach(f, depth, problem)
			if i = skipSpace(src, i); i >= len(src) {
				return i, valueReport{}, &syntaxError{syntaxUnexpectedEnd, len(src)}
			}
			if src[i] == f.closer {
				i++
				depth, problem = p.close()
				continue
			}
			break
		}
		// Then a ',' and the next element, or member's key.
		if src[i] != ',' {
			return i, valueReport{}, p.unexpected(i)
		}
		p.out = append(p.out, ',')
		if i = skipSpace(src, i+1); f.object {
			if i, err = p.key(f, i); err != nil {
				return i, valueReport{}, err
			}
		}
	}
}

// open pushes the container at src[i:] and parses up to its first element
// or member's value; closed reports an empty container, parsed whole, of
// the depth and problem returned.
func (p *parser) open(i, base int) (int, bool, int, valueProblem, error) {
	src, c := p.src, p.src[i]
	level := len(p.stack) - base + 1
	if p.o.syntaxDepthLimit > 0 && level > p.o.syntaxDepthLimit {
		return i, false, 0, valueProblem{}, &syntaxError{syntaxTooDeep, i}
	}
	f := p.push()
	f.object, f.closer, f.start, f.memBase = c == '{', c+2, len(p.out), len(p.members) // ']' is '[' + 2, '}' is '{' + 2
	if p.o.problemDepthLimit > 0 && level > p.o.problemDepthLimit {
		f.deep, f.problem = true, valueProblem{problemDeep, i}
	}
	p.out = append(p.out, c)
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == f.closer {
		depth, problem := p.close()
		return i + 1, true, depth, problem, nil
	}
	var err error
	if c == '{' {
		i, err = p.key(f, i)
	}
	return i, false, 0, valueProblem{}, err
}

// push opens a container: its frame, zero, on top of the stack.
func (p *parser) push() *frame {
	p.stack = growDoubling(p.stack)
	f := &p.stack[len(p.stack)-1]
	*f = frame{}
	return f
}

// appendDoubling appends v, doubling the capacity when it is full: append
// grows a large slice by a quarter, which over a deep or wide document
// allocates five times its final size.
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		n := make([]T, len(s), 2*cap(s)+16)
		copy(n, s)
		s = n
	}
	return append(s, v)
}

// growDoubling lengthens s by one element, left as it was (not zeroed),
// doubling the capacity when it is full.
func growDoubling[T any](s []T) []T {
	if len(s) == cap(s) {
		n := make([]T, len(s), 2*cap(s)+16)
		copy(n, s)
		s = n
	}
	return s[:len(s)+1]
}

// attach records a complete value in f, the innermost open container.
func (p *parser) attach(f *frame, depth int, problem valueProblem) {
	if d := int32(depth); d > f.depth {
		f.depth = d
	}
	if f.object {
		m := &p.members[len(p.members)-1]
		m.valEnd = len(p.out)
		m.depth = int32(depth)
		m.problem = problem
	}
	if f.problem.kind == problemNone {
		f.problem = problem
	}
}

// key parses an object key at src[i:], then the colon, and opens a member
// of f, the innermost open object.
func (p *parser) key(f *frame, i int) (int, error) {
	src := p.src
	if i >= len(src) || src[i] != '"' {
		return i, p.errorAt(i)
	}
	keyStart := len(p.out)
	j, err := p.str(i)
	if err != nil {
		return j, err
	}
	if j = skipSpace(src, j); j >= len(src) || src[j] != ':' {
		return j, p.errorAt(j)
	}
	keyEnd := len(p.out)
	key := p.out[keyStart:keyEnd]
	p.out = append(p.out, ':')
	if p.o.markers && isMarker(key) && f.problem.kind == problemNone { // Q20
		f.problem = valueProblem{problemMarker, i}
	}
	k := len(p.members) // this member
	// Does the key repeat one? A key whose keyBit no earlier key set is
	// new without a look; any other is looked up (every key, once the
	// object is mapped: all its bits are set).
	first := -1
	if bit := keyBit(key); f.seen&bit == 0 {
		f.seen |= bit
	} else if first = p.repeats(f, key, k); first >= 0 {
		p.members[first].last = k
		f.reorder = true
	}
	if key[1]-'0' <= 9 { // it may be an array index: rewrite finds out
		f.reorder = true
	}
	// Written field by field: a member literal would be built on the stack
	// and then copied, its wide loads stalling on the narrow stores just
	// made. valEnd, depth and problem are attach's to write.
	p.members = growDoubling(p.members)
	m := &p.members[k]
	m.keyStart, m.keyEnd, m.keyOff, m.first, m.last = keyStart, keyEnd, i, first, k
	return skipSpace(src, j+1), nil
}

// repeats returns the member of f, the innermost open object, whose key is
// key, or -1; k is the member key opens. An object of 16 keys or more is
// mapped first: its keys fill the 64 bits of seen, so by its 65th key at
// the latest every key is looked up, and the map keeps that linear.
func (p *parser) repeats(f *frame, key []byte, k int) int {
	if !f.mapped && k-f.memBase >= 16 {
		p.mapKeys(f)
	}
	first := p.lookup(f, key)
	if f.mapped && first < 0 {
		p.index(f, key, k)
	}
	return first
}

// mapKeys gives f, an object with many keys, a map from its keys' hashes
// to their first members, so that looking a key up no longer scans them:
// not for speed on common objects (the reference maps every object) but so
// that an object of n keys costs n, not n².
func (p *parser) mapKeys(f *frame) {
	level := len(p.stack) - 1
	for len(p.keyMaps) <= level {
		p.keyMaps = append(p.keyMaps, nil)
	}
	if p.keyMaps[level] == nil {
		p.keyMaps[level] = make(map[uint64]int, 32)
	}
	f.mapped, f.seen = true, ^uint64(0)
	for k := f.memBase; k < len(p.members); k++ {
		if m := &p.members[k]; m.first < 0 {
			p.index(f, p.out[m.keyStart:m.keyEnd], k)
		}
	}
}

// keyMap is the key map of the innermost open object, which is mapped.
func (p *parser) keyMap() map[uint64]int { return p.keyMaps[len(p.stack)-1] }

// lookup returns the member of f, the innermost open object, whose key is
// key, or -1.
func (p *parser) lookup(f *frame, key []byte) int {
	if f.mapped {
		k, ok := p.keyMap()[keyHash(key)]
		if !ok {
			return -1
		}
		if m := &p.members[k]; string(p.out[m.keyStart:m.keyEnd]) == string(key) {
			return k
		}
		// Two keys share a hash: look at every one.
	}
	for k := f.memBase; k < len(p.members); k++ {
		m := &p.members[k]
		if m.first < 0 && string(p.out[m.keyStart:m.keyEnd]) == string(key) {
			return k
		}
	}
	return -1
}

// index notes member k, the first with key, in the key map of f, the
// innermost open object. A key whose hash is taken keeps the earlier entry;
// lookup then falls back to a scan.
func (p *parser) index(f *frame, key []byte, k int) {
	keys, h := p.keyMap(), keyHash(key)
	if _, taken := keys[h]; !taken {
		keys[h] = k
	}
}

// keyBit is a cheap hash of key (its length, first and last character) as
// one bit of 64, by Fibonacci hashing (Knuth, TAOCP §6.4): the frame's seen
// bits are a one-word Bloom filter, so most new keys of a small object are
// known new without comparing them with the others. Trick: the reference
// looks every key up in a map; without the filter (every key compared) the
// 1 MiB document ran 14% slower.
func keyBit(key []byte) uint64 {
	x := uint64(len(key))<<16 | uint64(key[1])<<8 | uint64(key[len(key)-2])
	return 1 << (x * 0x9e3779b97f4a7c15 >> 58)
}

// keyHash is 64-bit FNV-1a.
func keyHash(key []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range key {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// close ends the innermost container and returns its depth and problem.
func (p *parser) close() (int, valueProblem) {
	f := &p.stack[len(p.stack)-1]
	if f.mapped {
		clear(p.keyMap()) // for the next object at this level
	}
	p.stack = p.stack[:len(p.stack)-1] // f stays valid: nothing is pushed before it is read
	if !f.object {
		p.out = append(p.out, ']')
		return int(f.depth) + 1, f.problem
	}
	if !f.reorder {
		p.out = append(p.out, '}')
		p.members = p.members[:f.memBase]
		return int(f.depth) + 1, f.problem
	}
	depth, problem := p.rewrite(f)
	p.members = p.members[:f.memBase]
	return depth, problem
}

// rewrite writes the object of f again in JavaScript's order: "array index"
// keys ascending, then the other keys in order of first appearance, each
// with its last value (ECMA-262 OrdinaryOwnPropertyKeys; JSON.parse's
// CreateDataProperty keeps a repeated key's first position). Only the
// members that survive count for depth and problems.
func (p *parser) rewrite(f *frame) (int, valueProblem) {
	// The surviving keys: the index keys first, ascending (unique by now),
	// then the others as they first appeared.
	ms := p.members[f.memBase:]
	ord := p.order[:0]
	for k := range ms {
		if m := &ms[k]; m.first < 0 {
			if m.index = arrayIndex(p.out[m.keyStart:m.keyEnd]); m.index >= 0 {
				ord = append(ord, f.memBase+k)
			}
		}
	}
	slices.SortFunc(ord, func(a, b int) int { return cmp.Compare(p.members[a].index, p.members[b].index) })
	for k := range ms {
		if m := &ms[k]; m.first < 0 && m.index < 0 {
			ord = append(ord, f.memBase+k)
		}
	}
	p.order = ord
	buf := append(p.scratch[:0], '{')
	depth := 0
	var problem valueProblem
	if f.deep {
		problem = f.problem // the object's own nesting problem comes first
	}
	for n, k := range ord {
		m := &p.members[k]
		last := &p.members[m.last]
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, p.out[m.keyStart:m.keyEnd+1]...)
		buf = append(buf, p.out[last.keyEnd+1:last.valEnd]...)
		depth = max(depth, int(last.depth))
		if p.o.markers && isMarker(p.out[m.keyStart:m.keyEnd]) {
			// The surviving key is a marker, and it precedes any value it had.
			problem = earlier(problem, valueProblem{problemMarker, m.keyOff})
		} else {
			problem = earlier(problem, last.problem)
		}
	}
	buf = append(buf, '}')
	p.out = append(p.out[:f.start], buf...)
	p.scratch = buf
	return depth + 1, problem
}

// skipSpace returns the offset of the first byte from i on that is not
// whitespace: RFC 8259 §2, ws = *( %x20 / %x09 / %x0A / %x0D ).
func skipSpace(src []byte, i int) int {
	for i < len(src) && src[i] <= ' ' { // any other byte is not space
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	return i
}

// arrayIndex returns the canonical JSON string key as an ECMAScript array
// index (a canonical numeric string of 0 … 2^32−2), or -1.
func arrayIndex(key []byte) int64 {
	d := key[1 : len(key)-1]
	if len(d) == 0 || len(d) > 10 || len(d) > 1 && d[0] == '0' {
		return -1
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int64(c-'0')
	}
	if n > maxArrayIndex {
		return -1
	}
	return n
}

// literalName parses the literal name (RFC 8259 §3: false, null, true) at
// src[i:], or reports the byte there, which starts no value.
func (p *parser) literalName(i int) (int, error) {
	switch p.src[i] {
	case 't':
		return p.literal(i, "true")
	case 'f':
		return p.literal(i, "false")
	case 'n':
		return p.literal(i, "null")
	}
	return i, p.unexpected(i)
}

// literal parses the literal name word at src[i:].
func (p *parser) literal(i int, word string) (int, error) {
	for k := 0; k < len(word); k++ {
		if i+k >= len(p.src) {
			return i + k, &syntaxError{syntaxUnexpectedEnd, len(p.src)}
		}
		if p.src[i+k] != word[k] {
			return i + k, p.unexpected(i + k)
		}
	}
	p.out = append(p.out, word...)
	return i + len(word), nil
}

// unexpected is the error for the byte at src[i], which cannot start or
// continue anything here.
func (p *parser) unexpected(i int) error { return unexpectedAt(p.src, i) }
