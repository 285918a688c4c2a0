//go:build !hostbridge_ref

package hostbridge

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestNumberSyntaxErrorReasons: a number (RFC 8259 §6: -? int frac? exp?)
// that stops where a digit must be fails with the package's reason and at
// V8's position (canon-options.json's rows check the positions against
// V8): Unexpected end of input at the text's length when the text ends
// there, else Invalid number at the byte that is not a digit; a digit
// after a leading zero is what follows a complete number. Fast path and
// reference alike.
// Pins D7.
func TestNumberSyntaxErrorReasons(t *testing.T) {
	end, bad := syntaxUnexpectedEnd, syntaxBadNumber
	for _, c := range []struct {
		in     string
		reason string
		off    int
	}{
		{"-", end, 1},
		{"-x", bad, 1},
		{"- 1", bad, 1},
		{"-.5", bad, 1},
		{"[-]", bad, 2},
		{"[0,-a]", bad, 4},
		{"1.", end, 2},
		{"-12.", end, 4},
		{"1.x", bad, 2},
		{"[-1.]", bad, 4},
		{"[0,10.e5]", bad, 6},
		{"[1.,2]", bad, 3},
		{"1. ", bad, 2},
		{"1e", end, 2},
		{"-0.5E", end, 5},
		{"1e+", end, 3},
		{"25E-", end, 4},
		{"1ex", bad, 2},
		{"[1e,2]", bad, 3},
		{"-2.5E+ ", bad, 6},
		{"[1E-]", bad, 4},
		{"-1.5e+x", bad, 6},
		{"[0,1e+-1]", bad, 6},
		{"01", syntaxAfterJSON, 1},
		{"-01", syntaxAfterJSON, 2},
		{"[-01]", syntaxUnexpectedToken + " '1'", 3},
	} {
		want := SyntaxPrefix + c.reason + syntaxPosition + strconv.Itoa(c.off)
		for name, f := range canonicalisers {
			if _, _, err := f(nil, []byte(c.in), &canonOptions{}); err == nil || err.Error() != want {
				t.Errorf("%s(%q): %v, want %s", name, c.in, err, want)
			}
		}
	}
}

// TestNumberLongLeavesTextAlone: numbers of over 700 digits are spelt
// again for strconv in the parser's own buffer, never in the text: after
// two of them and an object whose index key makes it be rewritten, the
// text is byte for byte as it was, and the output is the reference's
// (D8: the canonical form of the text as given).
// Pins D8.
func TestNumberLongLeavesTextAlone(t *testing.T) {
	long := "1" + strings.Repeat("0", 800) + "e-800"
	src := []byte("[" + long + ",-" + strings.Repeat("12345678", 120) + "e-950," + long + `,{"b":1,"1":[true]},"abc"]`)
	orig := bytes.Clone(src)
	want, _, werr := refCanonical(nil, orig, &canonOptions{})
	got, _, err := fastCanonical(nil, src, &canonOptions{})
	if !bytes.Equal(src, orig) {
		t.Errorf("the text changed while it was read")
	}
	if err != nil || werr != nil || !bytes.Equal(got, want) {
		t.Errorf("%q, %v; reference %q, %v", got, err, want, werr)
	}
}
