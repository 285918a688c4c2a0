package hostbridge

// The reference's numbers: a JSON number token read as JSON.parse reads it
// (refNumber) and written as Number::toString writes it (appendNumber),
// every number converted. The fast path (canon_fast_number.go) converts only the
// numbers whose spelling may not be their shortest form already, and writes
// those with appendNumber too.

import (
	"math"
	"strconv"
	"strings"
)

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
	// Q21
	case e > 400: // 0.D × 10^e ≥ 10^399, past the largest double
		return []byte("null"), true
	case e < -400: // below half the smallest double: rounds to 0
		return []byte("0"), false
	}
	f, _ := strconv.ParseFloat("0."+d+"e"+strconv.Itoa(e), 64) // Q12 I78
	if math.IsInf(f, 0) {                                      // I148
		return []byte("null"), true
	}
	if lit[0] == '-' { // rounding is symmetric: the sign goes on after
		f = -f
	}
	// I96 I114
	return appendNumber(nil, f), false // Number::toString
}

// appendNumber appends f as ECMAScript Number::toString does (ECMA-262
// §6.1.6.1.20, with the shortest round-trip digits as RFC 8785 §3.2.2.3
// describes): -0 is "0", exponent notation below 1e-6 and from 1e21 on.
// f must be finite. The reference writes every number so; the fast path
// those its number cannot lay out itself.
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
