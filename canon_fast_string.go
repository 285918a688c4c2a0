//go:build !hostbridge_ref

package hostbridge

// The fast path's strings, as JavaScript reads and writes them: RFC 8259 §7
// escapes decoded, UTF-8 validated, and JSON.stringify's QuoteJSONString,
// in one pass that copies runs of plain bytes as they are (the reference,
// canon_ref_string.go, decodes to UTF-16 and encodes again).

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// str parses the string at src[i:] (RFC 8259 §7) and writes it as
// JSON.stringify does: raw UTF-8 but for '"', '\\' and C0 controls, and a
// lone surrogate as a lower-case \udxxx escape (ECMA-262 QuoteJSONString).
func (p *parser) str(i int) (int, error) {
	src := p.src
	run := i // start of the bytes to copy as they are, the opening quote first
	for j := i + 1; ; {
		// What is copied as it is goes up to the next '"', '\\' or
		// control. No multi-byte sequence holds one of those, so that run is
		// whole sequences, validated in one go.
		k, wide := stringRun(src, j)
		if wide && !p.o.validUTF8 && !validUTF8(src[j:k]) {
			return j, &syntaxError{syntaxBadUTF8, j + firstInvalid(src[j:k])}
		}
		if j = k; j >= len(src) {
			return j, &syntaxError{syntaxUnterminated, len(src)}
		}
		switch src[j] {
		case '"':
			p.out = appendSource(p.out, src, run, j+1)
			return j + 1, nil
		case '\\':
			p.out = appendSource(p.out, src, run, j)
			n, err := p.escape(j)
			if err != nil {
				return n, err
			}
			j, run = n, n
		default: // a C0 control
			return j, &syntaxError{syntaxBadControl, j}
		}
	}
}

// stringRun returns the offset of the first byte from j on that is '"',
// '\\' or a C0 control (or len(src)), and whether a byte before it is 0x80
// or more. It looks at eight bytes at a time: x has a byte below 0x20 where
// (x - 0x20…20) &^ x has its high bit, and a byte equal to b where x ^ b…b
// has a zero byte (the bit tricks of Hacker's Delight §6-1). A borrow can
// mark bytes above a marked one, never below it, so the lowest mark is
// exact. Trick: the reference (refString) reads a byte at a time; so did
// this, 6–7% slower on the realistic documents read by the inbound
// functions (validUTF8 off).
func stringRun(src []byte, j int) (int, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var wide uint64
	for ; j+8 <= len(src); j += 8 {
		x := binary.LittleEndian.Uint64(src[j:])
		q, b := x^('"'*ones), x^('\\'*ones)
		if m := ((x-0x20*ones)&^x | (q-ones)&^q | (b-ones)&^b) & highs; m != 0 {
			n := bits.TrailingZeros64(m) / 8
			wide |= x & (1<<(8*n) - 1)
			return j + n, wide&highs != 0
		}
		wide |= x
	}
	for ; j < len(src); j++ {
		c := src[j]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		wide |= uint64(c)
	}
	return j, wide&highs != 0
}

// appendSource appends src[i:j] to out. Trick: append(out, src[i:j]...),
// which the reference uses, calls memmove, whose branches on the length
// mispredict on the short, varied strings of realistic documents; a run of
// at most 32 bytes, with 32 bytes readable at src[i:] and room for them in
// out, is copied as two fixed 16-byte blocks instead (the bytes past j land
// beyond len(out), in its spare capacity). That made the realistic
// documents 5–6% faster (best of ten runs; cachegrind counts 28% fewer
// mispredicted branches).
func appendSource(out, src []byte, i, j int) []byte {
	n := len(out)
	if j-i > 32 || i+32 > len(src) || n+32 > cap(out) {
		return append(out, src[i:j]...)
	}
	to, from := out[n:n+32], src[i:i+32]
	*(*[16]byte)(to) = *(*[16]byte)(from)
	*(*[16]byte)(to[16:]) = *(*[16]byte)(from[16:])
	return out[:n+j-i]
}

// escape decodes the escape at src[j:] (a backslash) into out and returns
// the offset after it.
func (p *parser) escape(j int) (int, error) {
	src := p.src
	if j+1 >= len(src) {
		return j, &syntaxError{syntaxUnterminated, len(src)}
	}
	switch src[j+1] {
	case '"', '\\':
		p.out = append(p.out, '\\', src[j+1])
	case '/':
		p.out = append(p.out, '/')
	case 'b':
		p.out = append(p.out, '\\', 'b')
	case 'f':
		p.out = append(p.out, '\\', 'f')
	case 'n':
		p.out = append(p.out, '\\', 'n')
	case 'r':
		p.out = append(p.out, '\\', 'r')
	case 't':
		p.out = append(p.out, '\\', 't')
	case 'u':
		u, bad := hex4(src, j+2)
		if bad >= 0 {
			return bad, &syntaxError{syntaxBadUnicode, bad}
		}
		j += 6
		switch {
		case u < 0x80:
			if u < 0x20 || u == '"' || u == '\\' {
				p.out = appendEscape(p.out, byte(u))
			} else {
				p.out = append(p.out, byte(u))
			}
		case utf16.IsSurrogate(rune(u)):
			if u < 0xdc00 && j+1 < len(src) && src[j] == '\\' && src[j+1] == 'u' {
				if lo, bad := hex4(src, j+2); bad < 0 && 0xdc00 <= lo && lo < 0xe000 {
					p.out = utf8.AppendRune(p.out, utf16.DecodeRune(rune(u), rune(lo)))
					return j + 6, nil
				}
			}
			p.out = append(p.out, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf])
		default:
			p.out = utf8.AppendRune(p.out, rune(u))
		}
		return j, nil
	default: // V8 reports the character after the backslash
		return j + 1, &syntaxError{syntaxBadEscape, j + 1}
	}
	return j + 2, nil
}

// hex4 reads the four hex digits at src[i:]. bad is the offset of the
// first that is not one (len(src) at the end), where V8 reports a bad
// Unicode escape, or -1.
func hex4(src []byte, i int) (u uint16, bad int) {
	for k := i; k < i+4; k++ {
		if k >= len(src) {
			return 0, len(src)
		}
		d, ok := hexValue(src[k])
		if !ok {
			return 0, k
		}
		u = u<<4 | uint16(d)
	}
	return u, -1
}
