package hostbridge

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// punycodeEncode is the encoding procedure of RFC 3492 §6.3, for the tests:
// decoding its output must give the input back. It takes any int code
// points (past U+10FFFF too), so the tests can build what the decoder must
// refuse.
func punycodeEncode(cps []int) string {
	var out []byte
	for _, c := range cps {
		if c < 0x80 {
			out = append(out, byte(c))
		}
	}
	b := len(out)
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	n, delta, bias := punyInitialN, 0, punyInitialBias
	for h < len(cps) {
		m := int(^uint(0) >> 1)
		for _, c := range cps {
			if c >= n && c < m {
				m = c
			}
		}
		delta += (m - n) * (h + 1)
		n = m
		for _, c := range cps {
			if c < n {
				delta++
			}
			if c == n {
				q := delta
				for k := punyBase; ; k += punyBase {
					t := min(max(k-bias, punyTMin), punyTMax)
					if q < t {
						break
					}
					out = append(out, punyDigitChar(t+(q-t)%(punyBase-t)))
					q = (q - t) / (punyBase - t)
				}
				out = append(out, punyDigitChar(q))
				bias = punyAdapt(delta, h+1, h == b)
				delta = 0
				h++
			}
		}
		delta++
		n++
	}
	return string(out)
}

func punyDigitChar(d int) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}

func codePoints(s string) []int {
	var cps []int
	for _, r := range s {
		cps = append(cps, int(r))
	}
	return cps
}

// TestPunycode: RFC 3492 decoding, against encodings computed by Node.js
// v20.20.2's punycode module, and its failures.
func TestPunycode(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"tda", "ü"}, {"bcher-kva", "bücher"}, {"zca", "ß"}, {"ls8h", "💩"},
		{"nxasmq6b", "βόλοσ"}, {"55qx5d", "公司"}, {"tckwe", "コム"}, {"ab-m1t", "a\u200db"},
		{"a-tda", "¾a"}, {"a", "\u0080"}, {"wca", "Ü"}, {"ph7cc", "ＡＢ"}, {"kba", "\u00ad"},
		{"a-", "a"}, {"--", "-"}, {"", ""}, {"dn32g", "\U0010FFFF"},
		{"pokxncvks", "㉓㋎㋍㋓㋕㋘"}, {"ab--tda", "\u009fab-"}, {"xn---3ra", "xn--ü"},
		{"mgbh0fb", "مثال"}, {"4dbrk0ce", "ישראל"},
	} {
		got, ok := punycodeDecode(c.in)
		if !ok || string(got) != c.want {
			t.Errorf("punycodeDecode(%q) = %q, %v; want %q", c.in, string(got), ok, c.want)
		}
		if enc := punycodeEncode(codePoints(c.want)); enc != c.in && c.in != "--" && c.in != "a-" {
			t.Errorf("punycodeEncode(%q) = %q, want %q", c.want, enc, c.in)
		}
	}
	for _, in := range []string{
		"zz", "1", "-tda", "tda!", "ü-tda", "99999999999a",
		punycodeEncode([]int{0x110000}), punycodeEncode([]int{0xD800}), punycodeEncode([]int{'a', 0xDFFF}),
	} {
		if got, ok := punycodeDecode(in); ok {
			t.Errorf("punycodeDecode(%q) = %q, want failure", in, string(got))
		}
	}
}

// TestInsertLayout: the Fenwick layout gives what inserting one by one
// gives, for every order of insertions into a short string.
func TestInsertLayout(t *testing.T) {
	for size := 0; size <= 6; size++ {
		basic := "abcdef"[:size/2]
		m := size - len(basic)
		// every sequence of positions: the k-th insertion has len(basic)+k+1 choices
		var walk func(pos []int)
		walk = func(pos []int) {
			if len(pos) == m {
				want := []rune(basic)
				cps := make([]rune, m)
				for k, p := range pos {
					cps[k] = rune('0' + k)
					want = slices.Insert(want, p, cps[k])
				}
				if got := insertLayout(basic, pos, cps); !slices.Equal(got, want) {
					t.Errorf("insertLayout(%q, %v) = %q, want %q", basic, pos, string(got), string(want))
				}
				return
			}
			for p := 0; p <= len(basic)+len(pos); p++ {
				walk(append(slices.Clone(pos), p))
			}
		}
		walk(nil)
	}
}

// FuzzPunycode: decoding the encoding of any code points gives them back.
func FuzzPunycode(f *testing.F) {
	f.Add("bücher")
	f.Add("a\u200db-公司")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) {
			return
		}
		enc := punycodeEncode(codePoints(s))
		got, ok := punycodeDecode(enc)
		if !ok || string(got) != s {
			t.Fatalf("decode(encode(%q)) = decode(%q) = %q, %v", s, enc, string(got), ok)
		}
	})
}

// BenchmarkPunycodeLong: a label of 100 000 code points, as a Host header
// can carry, decodes in time that grows as n log n.
func BenchmarkPunycodeLong(b *testing.B) {
	cps := make([]int, 100000)
	for i := range cps {
		cps[i] = 0x4E00 + (i*7919)%20000
	}
	enc := punycodeEncode(cps)
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if _, ok := punycodeDecode(enc); !ok {
			b.Fatal("decode failed")
		}
	}
}
