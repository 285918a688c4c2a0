package hostbridge

// JSON numbers as JavaScript reads and writes them: RFC 8259's grammar,
// IEEE 754 double values as JSON.parse takes them, and ECMAScript
// Number::toString, which JSON.stringify writes.

import (
	"math"
	"strconv"
)

// number parses the number at src[i:] (RFC 8259 §6: -? int frac? exp?),
// takes its IEEE 754 double value as JSON.parse does, and writes it as
// Number::toString does. A number beyond the double range is ±Infinity:
// written null with infToNull (JSON.stringify), else reported.
func (p *parser) number(i int) (int, problem, error) {
	src := p.src
	start := i
	if src[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i >= len(src):
		return i, problem{}, &syntaxError{SyntaxUnexpectedEnd, len(src)}
	case src[i] == '0':
		i++
	case '1' <= src[i] && src[i] <= '9':
		for i++; i < len(src) && '0' <= src[i] && src[i] <= '9'; i++ {
		}
	default:
		return i, problem{}, &syntaxError{SyntaxBadNumber, i}
	}
	intEnd := i
	fracStart := i
	if i < len(src) && src[i] == '.' {
		i++
		fracStart = i
		if i >= len(src) {
			return i, problem{}, &syntaxError{SyntaxUnexpectedEnd, len(src)}
		}
		if src[i] < '0' || src[i] > '9' {
			return i, problem{}, &syntaxError{SyntaxBadNumber, i}
		}
		for i++; i < len(src) && '0' <= src[i] && src[i] <= '9'; i++ {
		}
	}
	fracEnd := i
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) {
			return i, problem{}, &syntaxError{SyntaxUnexpectedEnd, len(src)}
		}
		if src[i] < '0' || src[i] > '9' {
			return i, problem{}, &syntaxError{SyntaxBadNumber, i}
		}
		for i++; i < len(src) && '0' <= src[i] && src[i] <= '9'; i++ {
		}
	}
	if verbatim(src[start:i], digits-start, intEnd-start, fracStart-start, fracEnd-start) {
		p.out = append(p.out, src[start:i]...)
		return i, problem{}, nil
	}
	var buf [15]byte
	if !mayBeShort(src[digits:i], intEnd-digits, fracStart-digits, fracEnd-digits) {
		// More than 15 significant digits: convert.
	} else if d, n, ok := shortDecimal(&buf, src[digits:i], intEnd-digits, fracStart-digits, fracEnd-digits); ok {
		if len(d) == 0 {
			p.out = append(p.out, '0')
		} else {
			if src[start] == '-' {
				p.out = append(p.out, '-')
			}
			p.out = appendDigits(p.out, d, n)
		}
		return i, problem{}, nil
	}
	f, err := strconv.ParseFloat(string(src[start:i]), 64)
	if err != nil { // only ErrRange can happen here: ±Inf
		p.out = append(p.out, "null"...)
		if p.o.infToNull {
			return i, problem{}, nil
		}
		return i, problem{problemInf, start}, nil
	}
	p.out = appendNumber(p.out, f)
	return i, problem{}, nil
}

// verbatim reports whether the JSON number t, whose digits start at digits,
// integer part ends at intEnd and fraction is t[fracStart:fracEnd], is
// already written as Number::toString writes its value: no exponent, at most
// 15 significant digits (so they are the shortest round-trip digits, see
// shortDecimal), no trailing zero in the fraction, fewer than 6 zeros after
// "0.", and not -0.
func verbatim(t []byte, digits, intEnd, fracStart, fracEnd int) bool {
	if fracEnd != len(t) {
		return false // an exponent
	}
	if fracStart == fracEnd { // an integer
		return intEnd-digits <= 15 && !(t[digits] == '0' && digits > 0)
	}
	if t[fracEnd-1] == '0' {
		return false
	}
	if intEnd-digits == 1 && t[digits] == '0' {
		z := fracStart
		for z < fracEnd && t[z] == '0' {
			z++
		}
		return z-fracStart <= 5 && fracEnd-z <= 15
	}
	return intEnd-digits+fracEnd-fracStart <= 15
}

// mayBeShort is a quick look at whether shortDecimal can succeed: at most 15
// significant digits, or trailing zeros it may strip.
func mayBeShort(t []byte, intEnd, fracStart, fracEnd int) bool {
	n, last := intEnd, intEnd-1 // digits, and the last one
	if fracStart < fracEnd {
		n, last = n+fracEnd-fracStart, fracEnd-1
	}
	if t[0] == '0' { // 0.000ddd: the zeros before the first significant digit do not count
		n--
		for z := fracStart; z < fracEnd && t[z] == '0'; z++ {
			n--
		}
	}
	return n <= 15 || t[last] == '0'
}

// shortDecimal returns the significant digits d and the exponent n of the
// number t = 0.d × 10^n, an unsigned JSON number whose integer part ends at
// intEnd and whose fraction is t[fracStart:fracEnd], when d has at most 15
// digits and n is well inside the double range. Such a d is the shortest
// round-trip form of the double t parses to: two decimals of at most 15
// digits never share a double (DBL_DIG is 15), so no shorter one can, and
// the number is written without converting it at all. d is empty for zero.
func shortDecimal(buf *[15]byte, t []byte, intEnd, fracStart, fracEnd int) (d []byte, n int, ok bool) {
	k, first, trail := 0, -1, 0 // digits kept; position of the first nonzero; zeros pending
	pos := 0                    // digit position, counting integer then fraction digits
	for i := 0; i < fracEnd; i++ {
		if i == intEnd {
			i = fracStart
			if i >= fracEnd {
				break
			}
		}
		c := t[i]
		if first < 0 {
			if c == '0' {
				pos++
				continue
			}
			first = pos
		}
		if c == '0' {
			trail++
		} else {
			if k+trail >= len(buf) {
				return nil, 0, false
			}
			for ; trail > 0; trail-- {
				buf[k] = '0'
				k++
			}
			buf[k] = c
			k++
		}
		pos++
	}
	if first < 0 {
		return nil, 0, true // zero, whatever its sign and exponent
	}
	exp := 0
	if fracEnd < len(t) { // an exponent: e, E, sign, digits
		e := t[fracEnd+1:]
		neg := e[0] == '-'
		if e[0] == '-' || e[0] == '+' {
			e = e[1:]
		}
		if len(e) > 4 {
			return nil, 0, false
		}
		for _, c := range e {
			exp = exp*10 + int(c-'0')
		}
		if neg {
			exp = -exp
		}
	}
	n = intEnd - first + exp
	if n < -290 || n > 290 {
		return nil, 0, false
	}
	return buf[:k], n, true
}

// appendNumber appends f as ECMAScript Number::toString does (ECMA-262
// 6.1.6.1.20, with the shortest round-trip digits as RFC 8785 §3.2.2.3
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

// appendDigits lays out the value 0.d × 10^n, d being the shortest
// round-trip digits (no leading or trailing zero), as Number::toString does.
func appendDigits(dst, d []byte, n int) []byte {
	k := len(d)
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
