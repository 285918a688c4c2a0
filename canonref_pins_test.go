package hostbridge

import (
	"errors"
	"strconv"
	"testing"
)

// TestSyntaxScalarOffsets pins where a syntax error inside a number or a
// literal is reported, fast path and reference alike: at the offset V8's
// JSON.parse gives (node v20.20.2, the position in its message), which is
// the first byte the grammar refuses — the byte after a minus sign, a
// decimal point or an exponent's e and sign; the text's length when the
// text ends there. For a literal cut short ("[tru]"), V8 names the
// unexpected token without a position; the offset is that token's. The
// text is errors.go's, compared to the byte: a number the grammar refuses
// is syntaxBadNumber, a text that ends first syntaxUnexpectedEnd, any
// other byte syntaxUnexpectedToken with that byte.
// Pins D7.
func TestSyntaxScalarOffsets(t *testing.T) {
	// Pins I103.
	const bad, end, token = syntaxBadNumber, syntaxUnexpectedEnd, syntaxUnexpectedToken
	for in, want := range map[string]struct {
		reason string
		off    int
	}{
		// V8: "No number after minus sign in JSON at position n"
		"-x": {bad, 1}, "-": {end, 1}, "[-]": {bad, 2}, "[-": {end, 2}, "[-a]": {bad, 2},
		`{"a":-}`: {bad, 6}, "[1,-x]": {bad, 4},
		// "Unterminated fractional number in JSON at position n"
		"[1.x]": {bad, 3}, "[1.]": {bad, 3}, "[1.": {end, 3}, "[0.x]": {bad, 3}, "[-0.]": {bad, 4},
		"[10.]": {bad, 4}, "[19.]": {bad, 4}, "[90.x]": {bad, 4},
		// "Exponent part is missing a number in JSON at position n"
		"[1e]": {bad, 3}, "[1e": {end, 3}, "[1e+]": {bad, 4}, "[1ex]": {bad, 3}, "[1E-x]": {bad, 4},
		"[1e+x": {bad, 4}, "[0e]": {bad, 3}, "[0e+]": {bad, 4}, "[0.5e]": {bad, 5}, "[-0e-]": {bad, 5},
		"[1.5e+x]": {bad, 6}, "[1.0e]": {bad, 5}, "[1.9e]": {bad, 5}, "[9.5e]": {bad, 5},
		// "Unexpected number in JSON at position n"
		"[01]": {token + " '1'", 2}, "[-01]": {token + " '1'", 3},
		// "Unexpected token ']'" / "'x'", and "Unexpected end of JSON input"
		"[tru]": {token + " ']'", 4}, "[trux]": {token + " 'x'", 4}, "[fals]": {token + " ']'", 5},
		"[nul": {end, 4}, "[0, tru]": {token + " ']'", 7}, "[0,0,0,fals]": {token + " ']'", 11},
		"[0, nul": {end, 7},
	} {
		text := SyntaxPrefix + want.reason + syntaxPosition + strconv.Itoa(want.off)
		for name, f := range canonicalisers {
			_, _, err := f(nil, []byte(in), &canonOptions{})
			var se *syntaxError
			if !errors.As(err, &se) || se.off != want.off || err.Error() != text {
				t.Errorf("%s(%q): %v, want %s", name, in, err, text)
			}
		}
	}
}
