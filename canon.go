package hostbridge

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// canonOptions say what canonical reports besides syntax errors.
type canonOptions struct {
	maxDepth  int  // parser bound: opening a container deeper than this is a syntax error (0: none)
	deepOver  int  // report problemDeep for a surviving container deeper than this (0: none)
	markers   bool // report problemMarker for a surviving reserved host-marker key
	infToNull bool // write a number that parses to ±Infinity as null (JSON.stringify) instead of reporting problemInf
}

// problemKind is what the queue rejects in a syntactically valid value.
type problemKind uint8

const (
	problemNone   problemKind = iota
	problemDeep               // nesting over canonOptions.deepOver
	problemMarker             // a reserved host-marker key
	problemInf                // a number that parses to ±Infinity
)

// problem is the first problem, in text order, of the parsed value: a value
// a later duplicate key replaces does not count.
type problem struct {
	kind problemKind
	off  int // byte offset in src
}

// canonInfo describes the parsed value.
type canonInfo struct {
	depth int // nesting depth of the parsed value: [] is 1, {"a":[1]} is 2, 1 is 0
	prob  problem
}

// syntaxError is invalid JSON: reason is one of the Syntax* constants.
type syntaxError struct {
	reason string
	off    int
}

// canonical appends to dst the canonical form of the JSON text src,
// JSON.stringify(JSON.parse(src)), and describes the value. An error is a
// *syntaxError.
func canonical(dst, src []byte, o *canonOptions) ([]byte, canonInfo, error) {
	return dst, canonInfo{}, errors.New("canonical: not implemented yet")
}

// Error words the error as JavaScript hosts do: "SyntaxError: Unexpected
// token 'x' in JSON at position 5".
func (e *syntaxError) Error() string {
	return SyntaxPrefix + e.reason + SyntaxPosition + strconv.Itoa(e.off)
}

// appendNumber appends f as ECMAScript Number::toString does (ECMA-262
// 6.1.6.1.20, with the shortest round-trip digits as RFC 8785 §3.2.2.3
// describes): -0 is "0", exponent notation below 1e-6 and from 1e21 on.
// f must be finite.
func appendNumber(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest digits: "d.ddde±xx" from strconv, then laid out as ECMA-262 says.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	mant, exp := e, 0
	for i, c := range e {
		if c == 'e' {
			mant = e[:i]
			x, _ := strconv.Atoi(string(e[i+1:]))
			exp = x
			break
		}
	}
	var digits [24]byte
	k := 0
	for _, c := range mant {
		if c != '.' {
			digits[k] = c
			k++
		}
	}
	d := digits[:k]
	n := exp + 1 // the value is 0.d × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, d...)
		for i := k; i < n; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := n; i < 0; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s as a JSON string the way JSON.stringify writes it:
// only '"', '\\' and C0 controls are escaped (\b \f \n \r \t, others as
// \u00xx); everything else, U+2028 and DEL included, is written raw. A byte
// that is not valid UTF-8 is written as U+FFFD.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = utf8.AppendRune(dst, utf8.RuneError)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscape(dst, c)
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendEscape appends the JSON.stringify escape of the ASCII byte c, which
// is '"', '\\' or a C0 control.
func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}
