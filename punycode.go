package hostbridge

// Punycode (RFC 3492) decoding, for the labels starting "xn--" that the host
// parser meets (idna.go).

// Bootstring parameters for Punycode (RFC 3492 §5).
const (
	punyBase        = 36
	punyTMin        = 1
	punyTMax        = 26
	punySkew        = 38
	punyDamp        = 700
	punyInitialBias = 72
	punyInitialN    = 0x80
	punyMaxInt      = 1<<31 - 1 // RFC 3492 §6.4: "maxint … at least 2^26 - 1"
)

// punyDigit is the digit value of an ASCII code point (RFC 3492 §5):
// A–Z and a–z are 0–25, 0–9 are 26–35; ok is false for any other.
func punyDigit(c byte) (int, bool) {
	switch {
	case 'a' <= c && c <= 'z':
		return int(c - 'a'), true
	case 'A' <= c && c <= 'Z':
		return int(c - 'A'), true
	case '0' <= c && c <= '9':
		return int(c-'0') + 26, true
	}
	return 0, false
}

// punyAdapt is the bias adaptation function (RFC 3492 §6.1).
func punyAdapt(delta, numPoints int, firstTime bool) int {
	if firstTime {
		delta /= punyDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := 0
	for delta > (punyBase-punyTMin)*punyTMax/2 {
		delta /= punyBase - punyTMin
		k += punyBase
	}
	return k + (punyBase-punyTMin+1)*delta/(delta+punySkew)
}

// punycodeDecode is the decoding procedure of RFC 3492 §6.2 over s, the
// label without its "xn--": ok is false where the procedure fails ("bad
// input", "overflow") and for a code point that is not a Unicode scalar
// value (a surrogate, or past U+10FFFF). The code points before the last
// "-" are copied as they are and must be ASCII; when there are none, that
// "-" is not consumed (so "-a" fails: "-" is not a digit).
//
// The procedure inserts each decoded code point at a position in the output
// so far; the positions depend only on the output's length, not its
// contents, so they are collected first and the output is laid out once
// (insertLayout): the cost grows as n log n with the label's length, never
// as n², whatever a client sends in a Host header.
func punycodeDecode(s string) ([]rune, bool) {
	b := 0
	for j := 0; j < len(s); j++ {
		if s[j] == '-' {
			b = j
		}
	}
	basic := s[:b]
	for j := 0; j < b; j++ {
		if s[j] >= 0x80 {
			return nil, false
		}
	}
	in := 0
	if b > 0 {
		in = b + 1
	}
	var pos []int
	var cps []rune
	n, i, bias := punyInitialN, 0, punyInitialBias
	for in < len(s) {
		oldi, w := i, 1
		for k := punyBase; ; k += punyBase {
			if in == len(s) {
				return nil, false
			}
			digit, ok := punyDigit(s[in])
			in++
			if !ok || digit > (punyMaxInt-i)/w {
				return nil, false
			}
			i += digit * w
			t := min(max(k-bias, punyTMin), punyTMax)
			if digit < t {
				break
			}
			if w > punyMaxInt/(punyBase-t) {
				return nil, false
			}
			w *= punyBase - t
		}
		out := len(basic) + len(cps) + 1
		bias = punyAdapt(i-oldi, out, oldi == 0)
		if i/out > punyMaxInt-n {
			return nil, false
		}
		n += i / out
		i %= out
		if n > 0x10FFFF || 0xD800 <= n && n <= 0xDFFF {
			return nil, false
		}
		pos, cps = append(pos, i), append(cps, rune(n))
		i++
	}
	return insertLayout(basic, pos, cps), true
}

// insertLayout is the output of starting from the ASCII string basic and
// inserting cps[k] at index pos[k], in order. It places the insertions last
// to first, each in the pos[k]-th slot still free (an insertion made later
// only moves it right), then fills the slots left with basic, in order.
// A Fenwick tree over the free slots finds each in log n steps.
func insertLayout(basic string, pos []int, cps []rune) []rune {
	size := len(basic) + len(cps)
	out := make([]rune, size)
	taken := make([]bool, size)
	tree := make([]int, size+1) // tree[j]: free slots in (j - lowbit(j), j]
	for j := 1; j <= size; j++ {
		tree[j] = j & -j
	}
	top := 1
	for top*2 <= size {
		top *= 2
	}
	for k := len(cps) - 1; k >= 0; k-- {
		// Descend to the last index whose prefix holds pos[k] free slots:
		// the slot after it is the (pos[k]+1)-th free one.
		j, rest := 0, pos[k]
		for step := top; step > 0; step /= 2 {
			if j+step <= size && tree[j+step] <= rest {
				j += step
				rest -= tree[j]
			}
		}
		out[j], taken[j] = cps[k], true
		for x := j + 1; x <= size; x += x & -x {
			tree[x]--
		}
	}
	next := 0
	for j := range out {
		if !taken[j] {
			out[j] = rune(basic[next])
			next++
		}
	}
	return out
}
