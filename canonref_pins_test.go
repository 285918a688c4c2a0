package hostbridge

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestSyntaxScalarOffsets pins where a syntax error inside a number or a
// literal is reported, fast path and reference alike: at the offset V8's
// JSON.parse gives (node v20.20.2, the position in its message), which is
// the first byte the grammar refuses — the byte after a minus sign, a
// decimal point or an exponent's e and sign; the text's length when the
// text ends there. For a literal cut short ("[tru]"), V8 names the
// unexpected token without a position; the offset is that token's. Only
// the prefix and the offset are pinned, not the words between.
// Pins D7.
func TestSyntaxScalarOffsets(t *testing.T) {
	// Pins I103.
	for in, off := range map[string]int{
		// "No number after minus sign in JSON at position n"
		"-x": 1, "-": 1, "[-]": 2, "[-": 2, "[-a]": 2, `{"a":-}`: 6, "[1,-x]": 4,
		// "Unterminated fractional number in JSON at position n"
		"[1.x]": 3, "[1.]": 3, "[1.": 3, "[0.x]": 3, "[-0.]": 4,
		// "Exponent part is missing a number in JSON at position n"
		"[1e]": 3, "[1e": 3, "[1e+]": 4, "[1ex]": 3, "[1E-x]": 4, "[1e+x": 4,
		"[0e]": 3, "[0e+]": 4, "[0.5e]": 5, "[-0e-]": 5, "[1.5e+x]": 6,
		// "Unexpected number in JSON at position n"
		"[01]": 2, "[-01]": 3,
		// "Unexpected token ']'" / "'x'", and "Unexpected end of JSON input"
		"[tru]": 4, "[trux]": 4, "[fals]": 5, "[nul": 4,
	} {
		for name, f := range canonicalisers {
			_, _, err := f(nil, []byte(in), &canonOptions{})
			var se *syntaxError
			if !errors.As(err, &se) || se.off != off || !strings.HasPrefix(err.Error(), SyntaxPrefix) ||
				!strings.HasSuffix(err.Error(), syntaxPosition+strconv.Itoa(off)) {
				t.Errorf("%s(%q): %v, want a syntax error at position %d", name, in, err, off)
			}
		}
	}
}
