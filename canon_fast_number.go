//go:build !hostbridge_ref

package hostbridge

// The fast path's numbers: RFC 8259's grammar, IEEE 754 double values as
// JSON.parse takes them, and ECMAScript Number::toString, which
// JSON.stringify writes. A number is converted (strconv.ParseFloat, then
// appendNumber's shortest digits) only when its spelling may not be
// Number::toString's digits already. A number of at most 15 significant
// digits is its own shortest form, and so is one of 16 to 19 digits that
// exact integer arithmetic shows to be the shortest digits nearest its
// double (alreadyShortest); either is laid out without converting it. The
// reference (canon_ref_number.go) converts every number.

import (
	"math/bits"
	"strconv"
)

// number parses the number at src[i:] (RFC 8259 §6: -? int frac? exp?),
// takes its IEEE 754 double value as JSON.parse does, and writes it as
// Number::toString does. A number beyond the double range is ±Infinity:
// written null with infToNull (JSON.stringify), else reported.
//
// Most numbers are written without converting them, where refNumber
// converts every one. One of at most 15 significant digits,
// or of up to 19 that alreadyShortest vouches for, has its own digits as
// its shortest: it is copied when it is spelt as Number::toString lays
// them out (laidOut), else its digits are laid out again. Only the rest go
// through strconv.
func (p *parser) number(i int) (int, valueProblem, error) {
	src, start := p.src, i
	if src[i] == '-' {
		i++
	}
	digits := i
	var m uint64 // the digits as an integer, while there are at most 19 significant ones
	switch {
	case i >= len(src):
		return i, valueProblem{}, &syntaxError{syntaxUnexpectedEnd, len(src)}
	case src[i] == '0':
		i++
	case '1' <= src[i] && src[i] <= '9':
		i, m = digitRun(src, i, 0)
	default:
		return i, valueProblem{}, &syntaxError{syntaxBadNumber, i}
	}
	intEnd, fracStart := i, i
	if i < len(src) && src[i] == '.' {
		if i++; i >= len(src) || src[i] < '0' || src[i] > '9' {
			return i, valueProblem{}, digitsError(src, i)
		}
		fracStart = i
		i, m = digitRun(src, i, m)
	}
	fracEnd, exp := i, 0
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		var err error
		if i, exp, err = exponent(src, i+1); err != nil {
			return i, valueProblem{}, err
		}
	}
	var text []byte // the number as it is spelt, when that is Number::toString's layout
	if laidOut(src[start:i], digits-start, intEnd-start, fracStart-start, fracEnd-start) {
		text = src[start:i]
		if intEnd-digits+fracEnd-fracStart <= 15 {
			p.out = appendSource(p.out, src, start, i)
			return i, valueProblem{}, nil
		}
	}
	// The value is m × 10^-q, m having sig significant digits.
	sig := intEnd - digits + fracEnd - fracStart
	if src[digits] == '0' { // 0.000ddd: the zeros before the first significant digit do not count
		sig--
		for z := fracStart; z < fracEnd && src[z] == '0'; z++ {
			sig--
		}
	}
	if sig == 0 {
		p.out = append(p.out, '0') // zero, whatever its sign and exponent
		return i, valueProblem{}, nil
	}
	if sig <= 19 && p.layOut(src[start] == '-', m, sig, fracEnd-fracStart-exp, text) {
		return i, valueProblem{}, nil
	}
	return i, p.convert(&numberSpan{start, digits, intEnd, fracStart, fracEnd, i, exp}), nil
}

// layOut writes the number -m × 10^-q (neg) or m × 10^-q, m of sig ≤ 19
// significant digits, from its own digits when they are its double's
// shortest, and reports whether it did: as text, its spelling, when that is
// not nil (laidOut said the layout is Number::toString's). Trick: the
// reference converts every number (strconv.ParseFloat, appendNumber);
// converting these too made the realistic documents 15% slower.
func (p *parser) layOut(neg bool, m uint64, sig, q int, text []byte) bool {
	for m%10 == 0 {
		m /= 10
		q--
		sig--
	}
	// At most 15 digits are the shortest round-trip form of the double
	// they read as: two decimals of at most 15 digits never share a double
	// (DBL_DIG is 15), so no shorter one can. Well inside the double range,
	// they are laid out as they are.
	if !(sig <= 15 && -290 <= sig-q && sig-q <= 290 || alreadyShortest(m, q)) {
		return false
	}
	if text != nil {
		p.out = append(p.out, text...)
		return true
	}
	if neg {
		p.out = append(p.out, '-')
	}
	var buf [20]byte
	p.out = appendDigits(p.out, strconv.AppendUint(buf[:0], m, 10), sig-q)
	return true
}

// convert writes the number n by strconv: its double's shortest digits, or
// null for ±Infinity.
func (p *parser) convert(n *numberSpan) valueProblem {
	src := p.src
	text := src[n.start:n.end]
	if n.intEnd-n.digits+n.fracEnd-n.fracStart > 700 {
		// strconv misreads some long numbers: it keeps 800 digits and then
		// loses count of where the point is, and it holds exponents at
		// 10000, which many zeros can bring back into range. Give it the
		// significant digits after the point and the exponent they need.
		// (With fewer digits, an exponent past 10000 is ±Infinity or 0
		// either way.)
		text = p.pointFirst(src[n.start] == '-', src[n.digits:n.fracEnd], n.intEnd-n.digits, n.exp)
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil { // only ErrRange can happen here: ±Inf
		p.out = append(p.out, "null"...)
		if p.o.infToNull {
			return valueProblem{}
		}
		return valueProblem{problemInf, n.start}
	}
	p.out = appendNumber(p.out, f)
	return valueProblem{}
}

// numberSpan is where the parts of a JSON number lie in the source, and
// its exponent.
type numberSpan struct {
	start, digits, intEnd, fracStart, fracEnd, end int
	exp                                            int // held at ±2^40 (past any count of digits)
}

// exponent reads the exponent's sign and digits at src[i:], after the 'e'.
func exponent(src []byte, i int) (int, int, error) {
	neg := i < len(src) && src[i] == '-'
	if i < len(src) && (src[i] == '+' || src[i] == '-') {
		i++
	}
	if i >= len(src) || src[i] < '0' || src[i] > '9' {
		return i, 0, digitsError(src, i)
	}
	exp := 0
	for ; i < len(src) && '0' <= src[i] && src[i] <= '9'; i++ {
		exp = min(exp*10+int(src[i]-'0'), 1<<40)
	}
	if neg {
		exp = -exp
	}
	return i, exp, nil
}

// digitRun reads the digits at src[i:] on after m, and returns the offset
// after them and m with them.
func digitRun(src []byte, i int, m uint64) (int, uint64) {
	for ; i < len(src); i++ {
		d := src[i] - '0' // a byte below '0' wraps round, above 9
		if d > 9 {
			break
		}
		m = m*10 + uint64(d)
	}
	return i, m
}

// digitsError is the error where a digit must be, at src[i].
func digitsError(src []byte, i int) error {
	if i >= len(src) {
		return &syntaxError{syntaxUnexpectedEnd, len(src)}
	}
	return &syntaxError{syntaxBadNumber, i}
}

// pointFirst spells the number whose digits (a '.' among them, after
// intDigits of them) are d, times 10^exp, as "0.digits" and an exponent
// held within ±99999: the same double, to strconv. It writes to p.scratch.
func (p *parser) pointFirst(neg bool, d []byte, intDigits, exp int) []byte {
	buf := p.scratch[:0]
	if neg {
		buf = append(buf, '-')
	}
	buf = append(buf, '0', '.')
	shift, seen := intDigits, false // 0.digits × 10^(shift+exp); a digit other than 0 seen
	for _, c := range d {
		switch {
		case c == '.':
		case c == '0' && !seen:
			shift-- // a leading zero: the digits after it move up a place
		default:
			seen = true
			buf = append(buf, c)
		}
	}
	buf = append(buf, 'e')
	buf = strconv.AppendInt(buf, int64(min(max(shift+exp, -99999), 99999)), 10)
	p.scratch = buf
	return buf
}

// laidOut reports whether the JSON number t, whose digits start at digits,
// integer part ends at intEnd and fraction is t[fracStart:fracEnd], is laid
// out as Number::toString lays out its digits (appendDigits): no exponent,
// no trailing zero in the fraction, fewer than 6 zeros after "0.", and not
// -0. When its value's shortest digits are its own, of at most 19 in all
// (so it is below 10^21), it is written as it is spelt. Trick: the
// reference converts every number; without copying those of at most 15
// significant digits the realistic documents ran 6–8% slower (inbound
// options), and laying out again the 16 to 19 digits that alreadyShortest
// vouches for, rather than copying them, cost another 4%.
func laidOut(t []byte, digits, intEnd, fracStart, fracEnd int) bool {
	if fracEnd != len(t) {
		return false // an exponent
	}
	if fracStart == fracEnd { // an integer
		return !(t[digits] == '0' && digits > 0)
	}
	if t[fracEnd-1] == '0' {
		return false
	}
	if intEnd-digits == 1 && t[digits] == '0' {
		z := fracStart
		for z < fracEnd && t[z] == '0' {
			z++
		}
		return z-fracStart <= 5
	}
	return true
}

// maxPow5 bounds alreadyShortest's exponents: its sums of 2Δ and 5^q reach
// 2 × 5^q, and 2 × 5^26 < 2^63.
const maxPow5 = 26

// alreadyShortest reports whether the digits of m (16 to 19 significant
// digits, the last not 0) are the ones Number::toString writes for the
// double nearest m × 10^-q: the fewest that read back as that double, and
// of those the nearest to it (ECMA-262 6.1.6.1.20, note 2, as V8 and
// strconv do). Numbers that other programs wrote as they write doubles are
// so; reporting it saves converting them twice. Everything here is exact
// integer arithmetic; false means "convert", never "not so". Trick: the
// reference converts with strconv; without this the realistic documents
// (floats printed by other programs) ran 9–14% slower.
//
// The double nearest v = m / (5^q·2^q) is m2 × 2^-(s+q), m2 in [2^52,
// 2^53), where m·2^s = Q·5^q + R and m2 is Q rounded by R. Measured in
// units of 2^-(s+q)/5^q, v is m·2^s; the double m2·5^q; their difference
// Δ = R - c·5^q (c = m2 - Q, 0 or 1); half the double's gap to either
// neighbour (the part of the line that reads back as it) h = 5^q/2; and a
// step of m's last digit 2^s. Then:
//
//   - No shorter decimal reads back as the double when the nearest ones
//     with one digit fewer, m - d and m + 10 - d steps away (d the last
//     digit), are both farther than h from it: d·2^s - Δ > h and
//     (10-d)·2^s + Δ > h. Any shorter decimal lies beyond one of them,
//     and what reads back as a double is an interval.
//   - Of the decimals with as many digits as m, m is the nearest when
//     |Δ| < 2^s/2.
//
// Both are asked strictly. At a power of two the gap below the double is
// half the gap above, so h below is p/4: asking for more than p/2 there is
// stricter than need be, never wrong. When m2 rounds up to 2^53, a power of
// two, the gap above is 2p, so h above is p and asking for more than p/2 is
// looser than need be; but no decimal of 16 to 19 digits with q ≤ maxPow5
// has the shorter one above it that far away (TestFastAlreadyShortestPowersOfTwo
// tries every decimal that rounds to a power of two).
func alreadyShortest(m uint64, q int) bool {
	if m < 1e15 || m%10 == 0 || q < 0 || q > maxPow5 {
		return false
	}
	p := pow5(q)
	s := 53 + bits.Len64(p) - bits.Len64(m) // m·2^s/p is in (2^52, 2^54)
	quo, rem, ok := shiftDiv(m, s, p)
	if ok && quo >= 1<<53 {
		s--
		quo, rem, ok = shiftDiv(m, s, p)
	}
	if !ok || quo < 1<<52 {
		return false
	}
	// Round to nearest (p is odd but for q = 0, when rem is 0: no tie);
	// when rem > p-rem the double's mantissa is quo + 1.
	var delta int64 = int64(rem) // Δ, |Δ| ≤ p/2
	if rem > p-rem {
		delta = -int64(p - rem)
	}
	d := m % 10
	twiceAbs := uint64(2 * delta)
	if delta < 0 {
		twiceAbs = uint64(-2 * delta)
	}
	nearest := s >= 63 || twiceAbs < 1<<s // |Δ| < 2^s/2 (2^s > 2^62 > |2Δ|)
	return nearest &&
		moreThan(d, s+1, uint64(2*delta+int64(p))) && // d·2^s - Δ > p/2
		moreThan(10-d, s+1, uint64(int64(p)-2*delta)) // (10-d)·2^s + Δ > p/2
}

// moreThan reports whether k·2^sh > r (sh ≥ 0).
func moreThan(k uint64, sh int, r uint64) bool {
	if sh >= 64 {
		return true // k·2^sh ≥ 2^64
	}
	hi, lo := bits.Mul64(k, 1<<sh)
	return hi > 0 || lo > r
}

// shiftDiv returns m·2^s divided by p, quotient and remainder, when s is
// 0 to 127 and the quotient fits 64 bits.
func shiftDiv(m uint64, s int, p uint64) (quo, rem uint64, ok bool) {
	var hi, lo uint64
	switch {
	case s < 0 || s > 127:
		return 0, 0, false
	case s >= 64:
		hi = m << (s - 64)
		if hi>>(s-64) != m {
			return 0, 0, false
		}
	default:
		hi, lo = m>>(64-s), m<<s
	}
	if hi >= p {
		return 0, 0, false
	}
	quo, rem = bits.Div64(hi, lo, p)
	return quo, rem, true
}

// pow5 returns 5^q, 0 ≤ q ≤ maxPow5, from a table (computing it took q
// dependent multiplications, 1% of all instructions on the realistic
// documents).
func pow5(q int) uint64 { return pow5s[q] }

var pow5s = func() (t [maxPow5 + 1]uint64) {
	t[0] = 1
	for q := 1; q < len(t); q++ {
		t[q] = 5 * t[q-1]
	}
	return t
}()

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
