package hostbridge

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// goMaxNesting is encoding/json's own nesting bound (scanner.go,
// maxNestingDepth): json.Valid rejects deeper texts, JSON.parse does not.
const goMaxNesting = 10000

// FuzzCanonical checks the invariants of canonical on any bytes:
//   - it never panics;
//   - invalid UTF-8 is always a syntax error (JSON.parse takes text);
//   - on valid UTF-8 it accepts exactly what encoding/json's json.Valid
//     accepts. The one legitimate difference: json.Valid rejects nesting
//     deeper than 10000 levels, and canonical without syntaxDepthLimit has no bound.
//     (json.Valid also accepts invalid UTF-8 inside strings, which canonical
//     rejects; that is covered by the rule above.)
//   - accepted output is valid UTF-8 and valid JSON, has no whitespace
//     outside strings, and is a fixed point: canonical(canonical(x)) ==
//     canonical(x), with the same depth;
//   - info.depth is the depth of the output text;
//   - the queue options (problemDepthLimit, markers, no infToNull) never change
//     acceptance, and with no problem reported they leave the output as is;
//   - syntaxDepthLimit 1000 rejects exactly the accepted texts whose brackets nest
//     deeper than 1000, counting values a duplicate key replaces.
//
// Pins D3, D9.
func FuzzCanonical(f *testing.F) {
	for _, r := range loadSuite(f) {
		b, err := hex.DecodeString(r.InputHex)
		if err == nil && len(b) < 4096 {
			f.Add(b)
		}
	}
	var keyOrder []struct{ Text string }
	readTestJSON(f, "js-key-order.json", &keyOrder)
	for _, r := range keyOrder {
		f.Add([]byte(r.Text))
	}
	for _, r := range loadOptionsRows(f) {
		if b := build(f, r.Text); len(b) < 4096 {
			f.Add(b)
		}
	}
	for i, d := range loadRandom(f) {
		if i%50 == 0 {
			f.Add([]byte(d.Text))
		}
	}
	plain := &canonOptions{infToNull: true}
	queue := &canonOptions{problemDepthLimit: MaxMessageDepth, markers: true}
	bounded := &canonOptions{infToNull: true, syntaxDepthLimit: MaxJSONDepth}
	f.Fuzz(func(t *testing.T, src []byte) {
		keep := bytes.Clone(src)
		out, info, err := canonical(nil, src, plain)
		if !bytes.Equal(src, keep) {
			t.Fatalf("canonical changed its input")
		}
		if !utf8.Valid(src) {
			if err == nil {
				t.Fatalf("invalid UTF-8 %q accepted as %q", src, out)
			}
		} else if valid := json.Valid(src); valid != (err == nil) {
			if !(err == nil && textDepth(src) > goMaxNesting) {
				t.Fatalf("%q: json.Valid %v, canonical error %v", src, valid, err)
			}
		}
		_, qinfo, qerr := canonical(nil, src, queue)
		if (qerr == nil) != (err == nil) {
			t.Fatalf("%q: error %v without options, %v with the queue options", src, err, qerr)
		}
		_, _, berr := canonical(nil, src, bounded)
		if err != nil {
			checkSyntaxError(t, err, src)
			if berr == nil {
				t.Fatalf("%q: rejected (%v) but accepted with syntaxDepthLimit", src, err)
			}
			return
		}
		// The bound counts everything the parser reads, replaced values too.
		if (berr == nil) != (textDepth(src) <= MaxJSONDepth) {
			t.Fatalf("%q: text depth %d, syntaxDepthLimit %d gives %v", src, textDepth(src), MaxJSONDepth, berr)
		}
		if !utf8.Valid(out) || !json.Valid(out) && textDepth(out) <= goMaxNesting {
			t.Fatalf("%q: output %q is not valid JSON", src, out)
		}
		if d := textDepth(out); d != info.depth {
			t.Fatalf("%q: depth %d, output %q has depth %d", src, info.depth, out, d)
		}
		if info.problem.kind != problemNone {
			t.Fatalf("%q: problem %+v with no options asking for one", src, info.problem)
		}
		if hasOutsideSpace(out) {
			t.Fatalf("%q: output %q has whitespace", src, out)
		}
		out2, info2, err2 := canonical(nil, out, plain)
		if err2 != nil || !bytes.Equal(out2, out) || info2.depth != info.depth {
			t.Fatalf("not a fixed point: %q → %q → %q (%v)", src, out, out2, err2)
		}
		if qinfo.depth != info.depth {
			t.Fatalf("%q: depth %d, %d with the queue options", src, info.depth, qinfo.depth)
		}
		if qinfo.problem.kind != problemNone {
			if qinfo.problem.off < 0 || qinfo.problem.off >= len(src) {
				t.Fatalf("%q: problem %+v outside the text", src, qinfo.problem)
			}
		} else {
			qout, _, _ := canonical(nil, src, queue)
			if !bytes.Equal(qout, out) {
				t.Fatalf("%q: %q, %q with the queue options", src, out, qout)
			}
		}
	})
}

// hasOutsideSpace reports JSON whitespace outside strings.
func hasOutsideSpace(b []byte) bool {
	space := false
	outsideStrings(b, func(c byte) {
		space = space || c == ' ' || c == '\t' || c == '\n' || c == '\r'
	})
	return space
}

// FuzzNumber: any JSON number is written as strconv reads it and
// appendNumber writes it (±Infinity as null), whatever path number takes.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1e21", "0.1", "-0.09183982717003658", "6.039832600274913e-10",
		"12345678901234567", "9007199254740993", "1.7976931348623157e308", "2.2250738585072014e-308",
		"4.9e-324", "1e400", "0.30000000000000004", "1.0000000000000002", "123456789012345678901234567890"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !json.Valid([]byte(text)) || text == "" || !strings.ContainsAny(text[:1], "-0123456789") {
			return
		}
		out, _, err := canonical(nil, []byte(text), &canonOptions{infToNull: true})
		if err != nil {
			t.Fatalf("canonical(%s): %v", text, err)
		}
		want := []byte("null")
		if v, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil {
			want = appendNumber(nil, v)
		}
		if string(out) != string(want) {
			t.Fatalf("canonical(%s) = %s, want %s", text, out, want)
		}
	})
}
