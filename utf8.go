package hostbridge

import (
	"strings"
	"unicode/utf8"
)

// UTF-8 as the Encoding Standard decodes it (§8.1.1 UTF-8 decoder), on
// Unicode Table 3-7 "Well-Formed UTF-8 Byte Sequences": validated whole or
// chunk by chunk (strict, TextDecoder's fatal mode), or decoded leniently,
// each maximal subpart of an ill-formed sequence becoming one U+FFFD.

// utf8BOM is the UTF-8 byte order mark, U+FEFF.
const utf8BOM = "\xef\xbb\xbf"

// trimBOM strips one leading BOM: "只有整个正文开头的 BOM 被剥除". It is the
// one home of that rule for every reader that decodes text (strict, lenient
// and both JSON readers).
func trimBOM[T string | []byte](p T) T {
	if len(p) >= 3 && string(p[:3]) == utf8BOM {
		return p[3:]
	}
	return p
}

// validUTF8 reports whether p is valid UTF-8, as utf8.Valid does, by a
// shift DFA: each state is a bit offset, and utf8DFA[c] holds, at each
// state's offset, the state that byte c leads to from it, so a byte costs a
// load and a shift and no branch. JSON strings in mixed scripts (short runs
// of ASCII between 2-, 3- and 4-byte sequences) go several times faster so
// than by utf8.Valid, whose branches on each sequence's length such text
// defeats. Trick: the reference decodes each rune (utf8.DecodeRune); with
// utf8.Valid here the 1 MiB document ran 8% slower.
func validUTF8(p []byte) bool {
	var s uint64
	for _, c := range p {
		s = utf8DFA[c] >> (s & 63)
	}
	return s&63 == dfaAccept
}

// The DFA's states other than these two stand for what a sequence still
// needs (the rest of a row of Table 3-7).
const (
	dfaAccept = 0 // between sequences
	dfaError  = 6 // not valid, whatever follows
)

// utf8Rows is Unicode Table 3-7, "Well-Formed UTF-8 Byte Sequences": each
// row the ranges of a sequence's bytes, first to last. The DFA and the lead
// byte table below are built from it, and nothing else says what UTF-8 is.
var utf8Rows = [][][2]byte{
	{{0x00, 0x7f}},
	{{0xc2, 0xdf}, {0x80, 0xbf}},
	{{0xe0, 0xe0}, {0xa0, 0xbf}, {0x80, 0xbf}},
	{{0xe1, 0xec}, {0x80, 0xbf}, {0x80, 0xbf}},
	{{0xed, 0xed}, {0x80, 0x9f}, {0x80, 0xbf}},
	{{0xee, 0xef}, {0x80, 0xbf}, {0x80, 0xbf}},
	{{0xf0, 0xf0}, {0x90, 0xbf}, {0x80, 0xbf}, {0x80, 0xbf}},
	{{0xf1, 0xf3}, {0x80, 0xbf}, {0x80, 0xbf}, {0x80, 0xbf}},
	{{0xf4, 0xf4}, {0x80, 0x8f}, {0x80, 0xbf}, {0x80, 0xbf}},
}

// utf8Lead is, for each byte, the row of utf8Rows it starts: the length of
// the sequence (0 for a byte that starts none) and the range of the byte
// after it.
var utf8Lead = func() (t [256]struct{ n, lo, hi byte }) {
	for _, row := range utf8Rows {
		for c := int(row[0][0]); c <= int(row[0][1]); c++ {
			t[c].n = byte(len(row))
			if len(row) > 1 {
				t[c].lo, t[c].hi = row[1][0], row[1][1]
			}
		}
	}
	return t
}()

// utf8DFA is built from utf8Rows: from the start of a sequence, a byte in
// a row's first range leads to the state "the rest of that row", and so on
// to the end of the row, back at dfaAccept. Anything else leads to
// dfaError, which no byte leaves.
var utf8DFA = func() (t [256]uint64) {
	states := map[string]uint64{} // the rest of a row → its state
	state := func(rest [][2]byte) uint64 {
		if len(rest) == 0 {
			return dfaAccept
		}
		var key []byte
		for _, r := range rest {
			key = append(key, r[0], r[1])
		}
		s, ok := states[string(key)]
		if !ok {
			s = dfaError + 6*uint64(len(states)+1) // 9 states in all: the last at 48
			states[string(key)] = s
		}
		return s
	}
	for c := range t {
		for s := uint64(0); s < 64-6; s += 6 {
			t[c] |= dfaError << s
		}
	}
	for _, row := range utf8Rows {
		from := uint64(dfaAccept)
		for k, r := range row {
			to := state(row[k+1:])
			for c := int(r[0]); c <= int(r[1]); c++ {
				t[c] = t[c]&^(63<<from) | to<<from
			}
			from = to
		}
	}
	return t
}()

// utf8Validator validates a body chunk by chunk, carrying across chunks
// only a sequence that the end of a chunk cut off. Validity is that of
// TextDecoder's fatal mode and of utf8.Valid: no overlong forms, no
// surrogates, nothing over U+10FFFF. A prefix that no continuation could
// complete (E0 80, ED A0, F4 90, a stray lead) is bad as soon as it is
// seen, as a fatal TextDecoder in stream mode throws when that byte arrives.
type utf8Validator struct {
	pos   int     // offset of the first byte not known valid: the carried sequence's start
	carry [4]byte // the carried sequence, a valid prefix
	nc    int     // its length
}

// feed validates the next bytes of the body. On false, the first bad
// sequence starts at v.pos.
func (v *utf8Validator) feed(p []byte) bool {
	if v.nc > 0 {
		need := seqLen(v.carry[0])
		for v.nc < need && len(p) > 0 {
			v.carry[v.nc] = p[0]
			v.nc++
			p = p[1:]
		}
		if v.nc < need {
			return validPrefix(v.carry[:v.nc])
		}
		if !utf8.Valid(v.carry[:need]) {
			return false
		}
		v.pos += need
		v.nc = 0
	}
	// In bulk: utf8.Valid runs 8 ASCII bytes at a time.
	t := incompleteTail(p)
	if !utf8.Valid(p[:t]) { // I70
		v.pos += firstInvalid(p[:t])
		return false
	}
	if t < len(p) && !validPrefix(p[t:]) {
		v.pos += t
		return false
	}
	v.nc = copy(v.carry[:], p[t:])
	v.pos += t
	return true
}

// incompleteTail returns where a sequence starts that is cut off by the end
// of p, or len(p). It looks no further back than 3 bytes.
func incompleteTail(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-3; i-- {
		c := p[i]
		if c < 0x80 {
			return len(p)
		}
		if c >= 0xc0 { // a lead byte (or an invalid one: let utf8.Valid judge it)
			if need := seqLen(c); need > len(p)-i {
				return i
			}
			return len(p)
		}
	}
	return len(p)
}

// seqLen is the length of the sequence lead byte c starts, 0 for a byte that
// starts none.
func seqLen(c byte) int { return int(utf8Lead[c].n) }

// secondRange is the range of the byte after lead byte c, which starts a
// sequence of two bytes or more.
func secondRange(c byte) (lo, hi byte) { return utf8Lead[c].lo, utf8Lead[c].hi }

// validPrefix reports whether the incomplete sequence p, shorter than its
// lead byte says, can still become valid.
func validPrefix(p []byte) bool {
	if seqLen(p[0]) <= len(p) {
		return false
	}
	lo, hi := secondRange(p[0])
	for _, c := range p[1:] {
		if c < lo || c > hi {
			return false
		}
		lo, hi = 0x80, 0xbf
	}
	return true
}

// firstInvalid returns the offset of the first invalid or truncated
// sequence of p.
func firstInvalid(p []byte) int {
	for i := 0; i < len(p); {
		if p[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(p)
}

// whatwgDecode writes the lenient decoding of p to sb, if not nil, and
// returns its length in bytes.
func whatwgDecode(sb *strings.Builder, p string) int {
	const replacement = "\uFFFD" // I64
	n := 0
	run := 0 // start of the run of well-formed bytes not yet written
	i := 0
	for i < len(p) {
		c := p[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		need := seqLen(c) - 1
		j := i + 1
		if need > 0 {
			lo, hi := secondRange(c)
			for ; need > 0 && j < len(p) && lo <= p[j] && p[j] <= hi; need-- {
				j++
				lo, hi = 0x80, 0xbf
			}
		}
		if need == 0 {
			i = j
			continue
		}
		// p[i:j] is a maximal subpart: a byte that starts no sequence, or a
		// prefix cut off by a byte that cannot continue it (left for the
		// next round) or by the end.
		n += i - run + len(replacement)
		if sb != nil {
			sb.WriteString(p[run:i])
			sb.WriteString(replacement)
		}
		i, run = j, j
	}
	n += len(p) - run
	if sb != nil {
		sb.WriteString(p[run:])
	}
	return n
}
