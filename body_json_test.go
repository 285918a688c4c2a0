package hostbridge

import (
	"strings"
	"testing"
)

// jsonTestSuite is testdata/jsontestsuite.json (nst/JSONTestSuite, with
// node's verdicts).
type jsonTestSuite []struct {
	Name        string
	Set         string
	Expectation string
	InputHex    string `json:"input_hex"`
	UTF8Valid   bool   `json:"utf8_valid"`
	JSAccepts   bool   `json:"js_accepts"`
	Canonical   string
}

// TestJSONTestSuiteBoundedJSON sends every JSONTestSuite file as a request
// body through ReadInboundBoundedJSON (8 MiB limit): bytes that are not UTF-8
// are status 4; otherwise what node's JSON.parse accepts is status 0 with
// JSON.stringify's text, and the rest status 5 with a SyntaxError reason.
// So y files are 0, n files 4 or 5, i files whatever node does. A leading
// BOM is stripped, as TextDecoder strips it (i_structure_UTF-8_BOM_empty_object
// is accepted; n_structure_UTF8_BOM_no_data is an empty text, status 5).
// Pins D7, D9.
func TestJSONTestSuiteBoundedJSON(t *testing.T) {
	// Pins I93, I106.
	var suite jsonTestSuite
	readTestJSON(t, "jsontestsuite.json", &suite)
	if len(suite) != 340 {
		t.Fatalf("%d files, want 340", len(suite))
	}
	count := map[string]int{}
	for _, c := range suite {
		body := mustHex(t, c.InputHex)
		// Two chunkings: whole, and cut in the middle.
		for _, chunks := range [][][]byte{{body}, {body[:len(body)/2], body[len(body)/2:]}} {
			fb := &FakeBody{Chunks: chunks}
			ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, fb)
			st, s, err := ReadInboundBoundedJSON(ev, MaxBoundedJSONLimit)
			if err != nil {
				t.Errorf("%s: error %v", c.Name, err)
				continue
			}
			switch {
			case !c.UTF8Valid:
				if st != BodyInvalidUTF8 || s != "" {
					t.Errorf("%s: (%d, %.60q), want (4, \"\")", c.Name, st, s)
				}
			case c.JSAccepts:
				if st != BodyOK || s != c.Canonical {
					t.Errorf("%s: (%d, %.60q), want (0, %.60q)", c.Name, st, s, c.Canonical)
				}
			default:
				if st != BodyInvalidJSON || !strings.HasPrefix(s, SyntaxPrefix) || len(s) <= len(SyntaxPrefix) {
					t.Errorf("%s: (%d, %.60q), want 5 with a SyntaxError reason", c.Name, st, s)
				}
			}
			if c.Expectation == "y" && st != BodyOK || c.Expectation == "n" && st != BodyInvalidUTF8 && st != BodyInvalidJSON {
				t.Errorf("%s: status %d for an %s file", c.Name, st, c.Expectation)
			}
		}
		count[c.Set+" "+c.Expectation]++
	}
	t.Logf("JSONTestSuite files: %v", count)
}

// TestBoundedJSONNoCanonicalCap: the bounded JSON reader has no cap of its
// own on the canonical text (文字长度不再单独限制为 2 MiB): a body of
// 8388608 bytes, the highest limit, whose canonical text is as long, and
// one under 2 MiB whose canonical text passes 2 MiB by the e+ its numbers
// gain, are status 0 with that text.
func TestBoundedJSONNoCanonicalCap(t *testing.T) {
	// Pins I107.
	str := `"` + strings.Repeat("a", 8388608-2) + `"`
	nums := "[" + strings.Repeat("1e21,", 2097152/5-1) + "1]" // under 2 MiB raw, over it canonical
	for _, c := range []struct{ name, body, canon string }{
		{"a string of 8 MiB", str, str},
		{"numbers gaining e+", nums, strings.ReplaceAll(nums, "1e21", "1e+21")},
	} {
		ev, _ := post(nil, c.body)
		st, got, err := ReadInboundBoundedJSON(ev, 8388608)
		if st != 0 || got != c.canon || err != nil {
			t.Errorf("%s (%d bytes): (%d, %d bytes, %v), want (0, the %d bytes of its canonical text)", c.name, len(c.body), st, len(got), err, len(c.canon))
		}
	}
}
