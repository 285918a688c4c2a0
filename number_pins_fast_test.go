//go:build !hostbridge_ref

package hostbridge

import (
	"strconv"
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
