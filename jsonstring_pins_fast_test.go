//go:build !hostbridge_ref

package hostbridge

import (
	"bytes"
	"strings"
	"testing"
)

// TestStringSurrogateEscapeFollowers: a high-surrogate escape (\ud800,
// \udbff) followed by each thing that can come after it — the end of the
// text, a lone backslash at the end, "\u" cut short, a second escape whose
// value is just below, at, inside, at the top of and just above the low
// surrogates (U+DBFF, U+DC00, U+DFFF, U+E000), another high surrogate, a
// bad hex digit, another escape, the closing quote — is read by the fast
// path as by the reference: a pair becomes its code point, anything else
// leaves the lone surrogate as a \udxxx escape, and a text cut short fails
// with the same reason at the same offset (D7, D8).
func TestStringSurrogateEscapeFollowers(t *testing.T) {
	followers := []string{
		``, `\`, `\u`, `\ud`, `\udc0`, `\udbff`, `\udc00`, `\udfff`, `\ue000`,
		`\ud800`, `\udcg0`, `\n`, `\"`, `x`, `"`,
	}
	for _, high := range []string{`\ud800`, `\udbff`, `\udc00`} {
		for _, f := range followers {
			for _, tail := range []string{``, `"`, `"]`} {
				for _, wrap := range []string{"", "["} {
					src := wrap + `"` + high + f + tail
					for _, set := range refOptionSets {
						if d := sameAsReference([]byte(src), set.o); d != "" {
							t.Errorf("%q (%s): %s", src, set.name, d)
						}
					}
				}
			}
		}
	}
	// Two results pinned as literals: a pair, and a high surrogate
	// followed by another high one (U+DBFF is not a low surrogate).
	for src, want := range map[string]string{
		`"\ud800\udc00"`: "\"\U00010000\"",
		`"\ud800\udbff"`: `"\ud800\udbff"`,
	} {
		out, _, err := fastCanonical(nil, []byte(src), &canonOptions{})
		if err != nil || string(out) != want {
			t.Errorf("%s: %q, %v; want %q", src, out, err, want)
		}
	}
}

// TestStringCopyBesideOutputOffset: a string's plain bytes are copied as
// they are whatever the output's length and spare capacity, and wherever
// the string sits in the text: after values whose canonical form is longer
// than their source (1e20 is 21 digits) or shorter (whitespace, \u00e9),
// appended to a prefix of several lengths with no, exact or extra spare
// capacity, with runs of every length from 0 to 72 before and after an
// escape, and a padding of every length after the string. The result is
// the prefix then the reference's output (D8).
func TestStringCopyBesideOutputOffset(t *testing.T) {
	heads := []string{"", "1e20,", "1e20,1e20,", "1e20,1e20,1e20,", "  1  ,  ", `"\u00e9\u00e9\u00e9\u00e9",`}
	for _, head := range heads {
		for n := 0; n <= 72; n++ {
			run := strings.Repeat("abcdefgh", 10)[:n]
			for _, body := range []string{run, run + `\n` + run, `\t` + run} {
				for pad := 0; pad <= 72; pad += 3 {
					src := "[" + head + `"` + body + `","` + strings.Repeat("z", pad) + `"]`
					checkAppendedAsReference(t, []byte(src))
				}
			}
		}
	}
}

// checkAppendedAsReference canonicalises src after prefixes of 0, 40 and
// 200 bytes with no, exact and extra spare capacity, and compares each
// result with the prefix followed by the reference's output.
func checkAppendedAsReference(t *testing.T, src []byte) {
	t.Helper()
	want, _, werr := refCanonical(nil, src, &canonOptions{})
	for _, size := range []int{0, 40, 200} {
		for _, spare := range []int{0, len(src) + 16, len(src) + 80} {
			dst := make([]byte, size, size+spare)
			for k := range dst {
				dst[k] = '#'
			}
			got, _, err := fastCanonical(dst, src, &canonOptions{})
			if (err == nil) != (werr == nil) {
				t.Fatalf("%q after %d (+%d): error %v, reference %v", src, size, spare, err, werr)
			}
			if err == nil && !bytes.Equal(got, append(bytes.Repeat([]byte("#"), size), want...)) {
				t.Fatalf("%q after %d (+%d): %q, reference %q", src, size, spare, got, want)
			}
		}
	}
}
