package hostbridge

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Conformance tests of canonical JSON, on the build's canonical or on each
// of canonicalisers: the output must be exactly V8's
// JSON.stringify(JSON.parse(text)). The rows are data in testdata/ (see
// testdata/SOURCES.md); node computed every expected output.

func readTestJSON(tb testing.TB, name string, v any) {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
}

// checkSyntaxError checks that err is a *syntaxError worded as JavaScript
// hosts word it, at an offset inside src, and returns it.
func checkSyntaxError(t *testing.T, err error, src []byte) *syntaxError {
	t.Helper()
	var se *syntaxError
	if !errors.As(err, &se) {
		t.Errorf("error %T %v, want *syntaxError", err, err)
		return nil
	}
	msg := se.Error()
	if !strings.HasPrefix(msg, SyntaxPrefix) || !strings.HasSuffix(msg, syntaxPosition+strconv.Itoa(se.off)) {
		t.Errorf("error text %q", msg)
	}
	if se.reason == "" {
		t.Errorf("error %q has no reason", msg)
	}
	if se.off < 0 || se.off > len(src) {
		t.Errorf("error offset %d outside the text (%d bytes)", se.off, len(src))
	}
	return se
}

// textDepth is the nesting depth of a JSON text, counting brackets outside
// strings. For canonical output it is the depth of the parsed value.
func textDepth(b []byte) int {
	depth, most := 0, 0
	outsideStrings(b, func(c byte) {
		switch c {
		case '[', '{':
			depth++
			most = max(most, depth)
		case ']', '}':
			depth--
		}
	})
	return most
}

// outsideStrings calls f with each byte of the JSON text b that is not
// inside a string (quotes included in neither).
func outsideStrings(b []byte, f func(c byte)) {
	in, esc := false, false
	for _, c := range b {
		switch {
		case !in && c == '"':
			in = true
		case !in:
			f(c)
		case esc:
			esc = false
		case c == '\\':
			esc = true
		case c == '"':
			in = false
		}
	}
}

func short(b []byte) string {
	const n = 200
	if len(b) > n {
		return fmt.Sprintf("%q… (%d bytes)", b[:n], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// canonicalisers are the implementations the rule tests below run on by
// name: the reference, and in the default build the fast path too
// (canon_fast_test.go adds it).
var canonicalisers = map[string]func(dst, src []byte, o *canonOptions) ([]byte, valueReport, error){
	"reference": refCanonical,
}

// ---- appendNumber: ECMAScript Number::toString ------------------------------

// TestNumberToString pins D8.
func TestNumberToString(t *testing.T) {
	// Pins Q12, I78, I96, I148.
	for _, file := range []struct {
		name  string
		lines int
	}{
		{"es-numbers.txt", 20000},
		{"es-numbers-edge.txt", 10972},
	} {
		t.Run(file.name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", file.name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			n, bad := 0, 0
			var buf []byte
			for sc.Scan() {
				n++
				line := sc.Text()
				h, want, ok := strings.Cut(line, ",")
				if !ok {
					t.Fatalf("line %d: %q", n, line)
				}
				bits, err := strconv.ParseUint(h, 16, 64)
				if err != nil {
					t.Fatalf("line %d: %v", n, err)
				}
				v := math.Float64frombits(bits)
				buf = appendNumber(buf[:0], v)
				if string(buf) != want {
					if bad++; bad <= 20 {
						t.Errorf("line %d: appendNumber(%#016x = %v) = %q, want %q", n, bits, v, buf, want)
					}
				}
				// Read as JSON, Number::toString's form is its own canonical
				// form (most of these by alreadyShortest, converting nothing).
				if out, _, err := canonical(buf[:0], []byte(want), &canonOptions{}); err != nil || string(out) != want {
					if bad++; bad <= 20 {
						t.Errorf("line %d: canonical(%s) = %s, %v", n, want, out, err)
					}
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if n != file.lines {
				t.Errorf("%d lines, want %d", n, file.lines)
			}
			if bad > 0 {
				t.Errorf("%d of %d numbers differ", bad, n)
			}
		})
	}
}

func TestNumberToStringAppends(t *testing.T) {
	got := appendNumber([]byte("x:"), -1e21)
	if string(got) != "x:-1e+21" {
		t.Errorf("got %q", got)
	}
}

// ---- appendQuoted: JSON.stringify of a string --------------------------------

// TestStringQuoteJSONString pins D8.
func TestStringQuoteJSONString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x07\x0b\x0e\x1f", `"\u0000\u0001\u0007\u000b\u000e\u001f"`},
		{" \x7f", "\" \x7f\""},                     // DEL is raw
		{"\u0080\u009f", "\"\u0080\u009f\""},       // C1 controls are raw
		{"\u2028\u2029", "\"\u2028\u2029\""},       // line and paragraph separators are raw
		{"</script>&'`", "\"</script>&'`\""},       // no HTML escaping
		{"/", `"/"`},                               // slash is raw
		{"é中😀\ufeff\uffff", "\"é中😀\ufeff\uffff\""}, // non-ASCII is raw
		{"a\xffb", "\"a\ufffdb\""},                 // not UTF-8: U+FFFD per maximal subpart
		{"\xed\xa0\x80", "\"\ufffd\ufffd\ufffd\""}, // an encoded surrogate is not UTF-8
		{"\xe4\xb8", "\"\ufffd\""},                 // truncated: one maximal subpart
		{"a\xf0\x90\x80b", "\"a\ufffdb\""},         // one, as TextDecoder and the query readers
	} {
		got := appendQuoted([]byte("<"), c.in)
		if string(got) != "<"+c.want {
			t.Errorf("appendQuoted(%q) = %q, want %q", c.in, got[1:], c.want)
		}
	}
}

// TestStringInvalidUTF8AsTextDecoder: appendQuoted decodes as TextDecoder does
// with ignoreBOM (a Go string keeps its BOM), on every case of
// testdata/utf8-decoding.json.
func TestStringInvalidUTF8AsTextDecoder(t *testing.T) {
	var d struct {
		Cases []struct {
			Name, Bytes, Lenient string
			IgnoreBOM            *string `json:"ignore_bom_lenient"`
		}
	}
	readTestJSON(t, "utf8-decoding.json", &d)
	for _, c := range d.Cases {
		want := c.Lenient
		if c.IgnoreBOM != nil {
			want = *c.IgnoreBOM
		}
		got := appendQuoted(nil, string(mustHex(t, c.Bytes)))
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != want {
			t.Errorf("%s: appendQuoted(%s) = %q, want the JSON string of %q (%v)", c.Name, c.Bytes, got, want, err)
		}
	}
}

// TestStringEscapesEveryASCIIByte: every one-byte string, against encoding/json for
// what both escape the same way.
func TestStringEscapesEveryASCIIByte(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		s := string(rune(c))
		got := string(appendQuoted(nil, s))
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != s {
			t.Errorf("appendQuoted(%q) = %q does not read back: %v", s, got, err)
		}
		escaped := c < 0x20 || c == '"' || c == '\\'
		if raw := got == `"`+s+`"`; raw == escaped {
			t.Errorf("appendQuoted(%q) = %q", s, got)
		}
	}
}

// TestCanonicalEscapeBounds: the bounds of the string rules, each at the
// code point on either side, through the fast path and the reference alike
// (in both builds). V8's JSON.stringify(JSON.parse(text)) gave every row:
// U+0020 is the first character written raw; a lead surrogate is U+D800 to
// U+DBFF, so U+DC00 never leads a pair; a trail is U+DC00 to U+DFFF, so
// U+E000 after a lead is a character of its own; a raw byte below 0x20 in
// a string is a syntax error at its offset, 0x1f included.
// Pins D7, D8.
func TestCanonicalEscapeBounds(t *testing.T) {
	for _, c := range []struct{ in, want, reason string }{
		{`"\u001f"`, `"\u001f"`, ""},
		{`"\u0020"`, `" "`, ""},
		{`"\udbff\udc00"`, "\"\U0010FC00\"", ""},
		{`"\udc00\udc00"`, `"\udc00\udc00"`, ""},
		{`"\ud800\udfff"`, "\"\U000103FF\"", ""},
		{`"\ud800\ue000"`, "\"\\ud800\ue000\"", ""},
		{"\"\x1f\"", "", syntaxBadControl},
		{"\"\x20\"", `" "`, ""},
	} {
		for name, f := range canonicalisers {
			got, _, err := f(nil, []byte(c.in), &canonOptions{})
			var se *syntaxError
			switch {
			case c.reason == "" && (err != nil || string(got) != c.want):
				t.Errorf("%s(%q) = %q, %v; want %q", name, c.in, got, err, c.want)
			case c.reason != "" && (!errors.As(err, &se) || se.reason != c.reason || se.off != 1):
				t.Errorf("%s(%q): error %v, want %q at 1", name, c.in, err, c.reason)
			}
		}
	}
}

// ---- JSONTestSuite -----------------------------------------------------------

type suiteRow struct {
	Name             string  `json:"name"`
	Set              string  `json:"set"`
	Expectation      string  `json:"expectation"`
	InputHex         string  `json:"input_hex"`
	UTF8Valid        bool    `json:"utf8_valid"`
	UTF8BOM          bool    `json:"utf8_bom"`
	JSAccepts        bool    `json:"js_accepts"`
	Canonical        *string `json:"canonical"`
	JSAcceptsBOMKept *bool   `json:"js_accepts_bom_kept"`
}

func loadSuite(tb testing.TB) []suiteRow {
	var rows []suiteRow
	readTestJSON(tb, "jsontestsuite.json", &rows)
	return rows
}

// TestCanonicalJSONTestSuite runs every nst/JSONTestSuite file. node's
// expectations are for "TextDecoder (fatal), then JSON.parse"; canonical
// takes the bytes as the text, so:
//   - invalid UTF-8 is a syntax error (TextDecoder would throw);
//   - a leading BOM is a syntax error: canonical does not strip it, and
//     JSON.parse of a text that starts with U+FEFF throws
//     (js_accepts_bom_kept, false for both BOM files);
//   - otherwise canonical accepts exactly what JSON.parse accepts, and its
//     output is node's JSON.stringify byte for byte (±Infinity as null).
//
// Pins D8, D9.
func TestCanonicalJSONTestSuite(t *testing.T) {
	// Pins I78, I93.
	rows := loadSuite(t)
	if len(rows) != 340 {
		t.Fatalf("%d rows, want 340", len(rows))
	}
	for _, o := range []canonOptions{{infToNull: true}, {infToNull: true, syntaxDepthLimit: MaxJSONDepth}} {
		for _, r := range rows {
			src, err := hex.DecodeString(r.InputHex)
			if err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			accept := r.JSAccepts
			switch {
			case !r.UTF8Valid:
				accept = false
			case r.UTF8BOM:
				if r.JSAcceptsBOMKept == nil {
					t.Fatalf("%s: BOM row without js_accepts_bom_kept", r.Name)
				}
				accept = *r.JSAcceptsBOMKept
			}
			out, info, err := canonical(nil, src, &o)
			name := fmt.Sprintf("%s %s (options %+v)", r.Set, r.Name, o)
			if !accept {
				if err == nil {
					t.Errorf("%s: accepted %s as %s, want a syntax error", name, short(src), short(out))
					continue
				}
				checkSyntaxError(t, err, src)
				continue
			}
			if err != nil {
				t.Errorf("%s: %s: %v", name, short(src), err)
				continue
			}
			if r.Canonical == nil {
				t.Fatalf("%s: accepted row without canonical", r.Name)
			}
			if string(out) != *r.Canonical {
				t.Errorf("%s: %s\n got %s\nwant %q", name, short(src), short(out), *r.Canonical)
			}
			if d := textDepth(out); info.depth != d {
				t.Errorf("%s: depth %d, want %d", name, info.depth, d)
			}
			if info.problem.kind != problemNone {
				t.Errorf("%s: problem %+v with no options asking for one", name, info.problem)
			}
		}
	}
}

// ---- JavaScript key order ------------------------------------------------------

// TestKeyOrder pins D8.
func TestKeyOrder(t *testing.T) {
	// Pins I97, I98.
	var rows []struct {
		Text, Canonical, Note string
	}
	readTestJSON(t, "js-key-order.json", &rows)
	if len(rows) != 67 {
		t.Fatalf("%d rows, want 67", len(rows))
	}
	for _, r := range rows {
		// canonical appends: the prefix stays.
		out, info, err := canonical([]byte("pre"), []byte(r.Text), &canonOptions{infToNull: true})
		if err != nil {
			t.Errorf("%s: %q: %v", r.Note, r.Text, err)
			continue
		}
		if !bytes.HasPrefix(out, []byte("pre")) {
			t.Errorf("%s: %q: output %q lost the dst prefix", r.Note, r.Text, out)
			continue
		}
		out = out[3:]
		if string(out) != r.Canonical {
			t.Errorf("%s: %q\n got %q\nwant %q", r.Note, r.Text, out, r.Canonical)
		}
		if d := textDepth(out); info.depth != d {
			t.Errorf("%s: %q: depth %d, want %d", r.Note, r.Text, info.depth, d)
		}
	}
}

// TestCanonicalJCS: the json-canonicalization inputs. RFC 8785 sorts keys by
// UTF-16 code units and JavaScript does not, so the target is js_canonical;
// jcs_output differs from it only in key order.
func TestCanonicalJCS(t *testing.T) {
	var rows []struct {
		Name        string `json:"name"`
		Input       string `json:"input"`
		JCSOutput   string `json:"jcs_output"`
		JSCanonical string `json:"js_canonical"`
		Same        bool   `json:"same"`
	}
	readTestJSON(t, "jcs-testdata.json", &rows)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	for _, r := range rows {
		out, _, err := canonical(nil, []byte(r.Input), &canonOptions{infToNull: true})
		if err != nil {
			t.Errorf("%s: %v", r.Name, err)
			continue
		}
		if string(out) != r.JSCanonical {
			t.Errorf("%s:\n got %q\nwant %q", r.Name, out, r.JSCanonical)
		}
		if (string(out) == r.JCSOutput) != r.Same {
			t.Errorf("%s: equal to jcs_output is %v, row says same=%v", r.Name, !r.Same, r.Same)
		}
	}
}

// ---- seeded random documents ---------------------------------------------------

type randomDoc struct {
	Text      string   `json:"text"`
	Valid     bool     `json:"valid"`
	Canonical string   `json:"canonical"`
	Depth     int      `json:"depth"`
	Problems  []string `json:"problems"`
}

func loadRandom(tb testing.TB) []randomDoc {
	var f struct {
		Valid, Invalid int
		Docs           []randomDoc
	}
	readTestJSON(tb, "canon-random.json", &f)
	nv, ni := 0, 0
	for _, d := range f.Docs {
		if d.Valid {
			nv++
		} else {
			ni++
		}
	}
	if nv != f.Valid || ni != f.Invalid || nv < 5000 || ni*100 < 15*(nv+ni) {
		tb.Fatalf("canon-random.json: %d valid, %d invalid (header %d, %d)", nv, ni, f.Valid, f.Invalid)
	}
	return f.Docs
}

// TestIsMarker: every reserved key is a marker, whatever isMarker's
// shortcuts assume of them; a key one byte off is not.
// Pins D12.
func TestIsMarker(t *testing.T) {
	// Pins Q19.
	for _, m := range markerKeys {
		if !isMarker([]byte(m)) {
			t.Errorf("isMarker(%s) = false", m)
		}
		for _, near := range []string{m[:len(m)-2] + `"`, m[:len(m)-1] + `x"`, `"` + m[2:]} {
			if isMarker([]byte(near)) {
				t.Errorf("isMarker(%s) = true", near)
			}
		}
	}
}

var problemNames = map[problemKind]string{
	problemNone:   "none",
	problemDeep:   "deep",
	problemMarker: "marker",
	problemInf:    "inf",
}

// TestCanonicalRandom: node's JSON.stringify(JSON.parse(text)) for every valid
// document, a syntax error for every invalid one; with the queue producer's
// options, the problem reported is one that node found in the parsed value.
// Pins D8, D13.
func TestCanonicalRandom(t *testing.T) {
	// Pins Q11, I93.
	docs := loadRandom(t)
	plain := &canonOptions{infToNull: true}
	queue := &canonOptions{syntaxDepthLimit: MaxJSONDepth, problemDepthLimit: MaxMessageDepth, markers: true}
	var dst []byte
	for i, d := range docs {
		src := []byte(d.Text)
		keep := bytes.Clone(src)
		out, info, err := canonical(dst[:0], src, plain)
		dst = out
		if !bytes.Equal(src, keep) {
			t.Fatalf("doc %d: canonical changed its input", i)
		}
		if !d.Valid {
			if err == nil {
				t.Errorf("doc %d: invalid text %q accepted as %q", i, d.Text, out)
			} else {
				checkSyntaxError(t, err, src)
			}
			if _, _, err := canonical(nil, src, queue); err == nil {
				t.Errorf("doc %d: invalid text %q accepted with the queue options", i, d.Text)
			}
			continue
		}
		if err != nil {
			t.Errorf("doc %d: %q: %v", i, d.Text, err)
			continue
		}
		if string(out) != d.Canonical {
			t.Errorf("doc %d: %q\n got %q\nwant %q", i, d.Text, out, d.Canonical)
		}
		if info.depth != d.Depth {
			t.Errorf("doc %d: %q: depth %d, want %d", i, d.Text, info.depth, d.Depth)
		}
		out, info, err = canonical(nil, src, queue)
		if err != nil {
			t.Errorf("doc %d: %q with the queue options: %v", i, d.Text, err)
			continue
		}
		got := problemNames[info.problem.kind]
		if len(d.Problems) == 0 {
			if got != "none" {
				t.Errorf("doc %d: %q: problem %s at %d, node finds none", i, d.Text, got, info.problem.off)
			} else if string(out) != d.Canonical {
				t.Errorf("doc %d: %q: queue options changed the output\n got %q\nwant %q", i, d.Text, out, d.Canonical)
			}
		} else if !contains(d.Problems, got) {
			t.Errorf("doc %d: %q: problem %s, node finds %v", i, d.Text, got, d.Problems)
		} else if len(d.Problems) == 1 && info.problem.off >= 0 && info.problem.off < len(src) {
			// The offset points at what the kind names.
			c := src[info.problem.off]
			ok := map[string]bool{"deep": c == '[' || c == '{', "marker": c == '"', "inf": c == '-' || c >= '0' && c <= '9'}[got]
			if !ok {
				t.Errorf("doc %d: %q: problem %s at offset %d, which is %q", i, d.Text, got, info.problem.off, c)
			}
		}
		if info.depth != d.Depth {
			t.Errorf("doc %d: %q: depth %d with the queue options, want %d", i, d.Text, info.depth, d.Depth)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ---- canonOptions semantics ------------------------------------------------------

type optionsRow struct {
	Name    string          `json:"情境"`
	Text    json.RawMessage // a string or a byte builder (see build)
	Options struct {
		MaxDepth  int  `json:"maxDepth"`
		DeepOver  int  `json:"deepOver"`
		Markers   bool `json:"markers"`
		InfToNull bool `json:"infToNull"`
	}
	Error     bool
	Reason    string
	ErrorOff  *int            `json:"error_off"`
	Canonical json.RawMessage // a string or a byte builder
	Depth     int
	Problem   string
	Off       *int
}

func loadOptionsRows(tb testing.TB) []optionsRow {
	var f struct {
		Table, Source string
		Rows          []optionsRow
	}
	readTestJSON(tb, "canon-options.json", &f)
	if len(f.Rows) == 0 {
		tb.Fatal("canon-options.json: no rows")
	}
	return f.Rows
}

func TestCanonicalOptions(t *testing.T) {
	// Pins Q16, Q19, Q20, Q21.
	rows := loadOptionsRows(t)
	for _, r := range rows {
		src := build(t, r.Text)
		o := &canonOptions{syntaxDepthLimit: r.Options.MaxDepth, problemDepthLimit: r.Options.DeepOver, markers: r.Options.Markers, infToNull: r.Options.InfToNull}
		out, info, err := canonical(nil, src, o)
		if r.Error {
			if err == nil {
				t.Errorf("%s: %s accepted as %s (info %+v), want a syntax error", r.Name, short(src), short(out), info)
				continue
			}
			se := checkSyntaxError(t, err, src)
			if se == nil {
				continue
			}
			if r.Reason != "" && se.reason != r.Reason {
				t.Errorf("%s: %s: reason %q, want %q", r.Name, short(src), se.reason, r.Reason)
			}
			if r.ErrorOff != nil && se.off != *r.ErrorOff {
				t.Errorf("%s: %s: %v: offset %d, want %d", r.Name, short(src), err, se.off, *r.ErrorOff)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %s: %v", r.Name, short(src), err)
			continue
		}
		if got := problemNames[info.problem.kind]; got != r.Problem {
			t.Errorf("%s: %s: problem %s at %d, want %s", r.Name, short(src), got, info.problem.off, r.Problem)
		} else if r.Off != nil && info.problem.off != *r.Off {
			t.Errorf("%s: %s: %s at offset %d, want %d", r.Name, short(src), got, info.problem.off, *r.Off)
		}
		if info.depth != r.Depth {
			t.Errorf("%s: %s: depth %d, want %d", r.Name, short(src), info.depth, r.Depth)
		}
		if r.Canonical != nil {
			if want := build(t, r.Canonical); !bytes.Equal(out, want) {
				t.Errorf("%s: %s\n got %s\nwant %s", r.Name, short(src), short(out), short(want))
			}
		}
	}
}

// TestDepthMillionLevels: 10^6 nested arrays (10^5 with -short)
// neither crash nor recurse per level, with and without the parser bound.
// Pins D9.
func TestDepthMillionLevels(t *testing.T) {
	// Pins I147.
	n := 1000000
	if testing.Short() {
		n = 100000
	}
	open := bytes.Repeat([]byte("["), n)
	closed := append(bytes.Repeat([]byte("["), n), bytes.Repeat([]byte("]"), n)...)
	objects := []byte(strings.Repeat(`{"a":`, n/5) + "1" + strings.Repeat("}", n/5))
	for _, c := range []struct {
		name    string
		src     []byte
		o       canonOptions
		reason  string // "" : accepted
		off     int
		depth   int
		problem valueProblem
	}{
		{"unclosed, syntaxDepthLimit 1000", open, canonOptions{syntaxDepthLimit: MaxJSONDepth}, syntaxTooDeep, MaxJSONDepth, 0, valueProblem{}},
		{"closed, syntaxDepthLimit 1000", closed, canonOptions{syntaxDepthLimit: MaxJSONDepth}, syntaxTooDeep, MaxJSONDepth, 0, valueProblem{}},
		{"unclosed, unbounded", open, canonOptions{}, syntaxUnexpectedEnd, n, 0, valueProblem{}},
		{"closed, unbounded", closed, canonOptions{}, "", 0, n, valueProblem{}},
		{"closed, unbounded, queue checks", closed, canonOptions{problemDepthLimit: MaxMessageDepth, markers: true}, "", 0, n, valueProblem{problemDeep, MaxMessageDepth}},
		{"n/5 objects, unbounded", objects, canonOptions{}, "", 0, n / 5, valueProblem{}},
		{"n/5 objects, syntaxDepthLimit 1000", objects, canonOptions{syntaxDepthLimit: MaxJSONDepth}, syntaxTooDeep, 5 * MaxJSONDepth, 0, valueProblem{}},
	} {
		out, info, err := canonical(nil, c.src, &c.o)
		if c.reason != "" {
			if err == nil {
				t.Errorf("%s: accepted", c.name)
				continue
			}
			if se := checkSyntaxError(t, err, c.src); se != nil && (se.reason != c.reason || se.off != c.off) {
				t.Errorf("%s: %v, want %q at %d", c.name, err, c.reason, c.off)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !bytes.Equal(out, c.src) {
			t.Errorf("%s: output differs from the input (%d bytes, want %d)", c.name, len(out), len(c.src))
		}
		if info.depth != c.depth || info.problem != c.problem {
			t.Errorf("%s: info %+v, want depth %d, problem %+v", c.name, info, c.depth, c.problem)
		}
	}
}

// TestCanonicalAppendsToDst: canonical appends to dst and leaves dst[:len(dst)] alone.
func TestCanonicalAppendsToDst(t *testing.T) {
	dst := make([]byte, 3, 64)
	copy(dst, "abc")
	out, _, err := canonical(dst, []byte(` { "b" : [ 1.0 , -0 ] , "1" : "\u00e9" } `), &canonOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `abc{"1":"é","b":[1,0]}` {
		t.Errorf("got %q", out)
	}
	_, _, err = canonical(dst, []byte(`{"b":[1,`), &canonOptions{})
	if err == nil || string(dst) != "abc" {
		t.Errorf("error case: dst %q, %v", dst, err)
	}
}

// randomBytes calls f with n byte strings of up to maxLen bytes drawn from
// alphabet, seeded by seed; f must not keep them.
func randomBytes(seed uint64, n, maxLen int, alphabet []byte, f func([]byte)) {
	r := rand.New(rand.NewPCG(seed, uint64(maxLen)))
	p := make([]byte, 0, maxLen)
	for ; n > 0; n-- {
		p = p[:r.IntN(maxLen+1)]
		for i := range p {
			p[i] = alphabet[r.IntN(len(alphabet))]
		}
		f(p)
	}
}

// shortestDigits returns strconv's shortest round-trip digits of f > 0 and
// their exponent: f is 0.digits × 10^exp.
func shortestDigits(f float64) (string, int) {
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, e, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(e)
	return strings.Replace(mant, ".", "", 1), exp + 1
}

// TestNumberForms: a number reads as its double and is written as
// Number::toString writes it, whichever way the JSON text spells it: the
// shortest digits of random doubles, one digit more or fewer, with leading
// and trailing zeros, as a plain decimal or with an exponent (e or E, with
// or without a sign, moved by a few places), negative or not. The want is
// strconv's reading and appendNumber's writing.
// Pins D8.
func TestNumberForms(t *testing.T) {
	// Pins Q12.
	r := rand.New(rand.NewPCG(23, 29))
	var out []byte
	for n := 0; n < 200000; n++ {
		f := math.Pow(10, -25+60*r.Float64())
		digits, exp := shortestDigits(f) // f = 0.digits × 10^exp
		switch r.IntN(4) {
		case 0:
			digits += strconv.Itoa(r.IntN(10)) // one digit more
		case 1:
			if len(digits) > 1 {
				digits = digits[:len(digits)-1] // one fewer
			}
		}
		digits += strings.Repeat("0", r.IntN(3))
		text := numberForm(r, digits, exp)
		if r.IntN(2) == 0 {
			text = "-" + text
		}
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		want := appendNumber(nil, v)
		var err2 error
		out, _, err2 = canonical(out[:0], []byte(text), &canonOptions{})
		if err2 != nil || string(out) != string(want) {
			t.Fatalf("canonical(%s) = %s, %v; want %s", text, out, err2, want)
		}
	}
}

// numberForm spells 0.digits × 10^exp as a JSON number: a plain decimal
// (perhaps with zeros before it) or digits with a point after k of them
// and an exponent.
func numberForm(r *rand.Rand, digits string, exp int) string {
	if r.IntN(3) == 0 && -8 < exp && exp < 25 {
		switch {
		case exp <= 0:
			return "0." + strings.Repeat("0", -exp) + digits
		case exp >= len(digits):
			return digits + strings.Repeat("0", exp-len(digits))
		default:
			return digits[:exp] + "." + digits[exp:]
		}
	}
	k := r.IntN(len(digits)) + 1 // digits before the point
	text := digits[:k]
	if k < len(digits) {
		text += "." + digits[k:]
	}
	e := exp - k
	text += [...]string{"e", "E"}[r.IntN(2)]
	switch {
	case e < 0:
		text += "-" + strconv.Itoa(-e)
	case r.IntN(2) == 0:
		text += "+" + strconv.Itoa(e)
	default:
		text += strconv.Itoa(e)
	}
	return text
}

// TestNumberLongLiterals: a literal of over 2^20 digits whose exponent
// outweighs them reads as its double all the same: the exponent is held at
// 2^40 while it is read, past any count of digits a text can have, and
// only then offset by where the digits lie. n is 2^20 + 10 zeros.
func TestNumberLongLiterals(t *testing.T) {
	zeros := strings.Repeat("0", 1<<20+10)
	n := strconv.Itoa(1<<20 + 10)
	for _, c := range []struct{ in, want string }{
		{"0." + zeros + "1e2000000", "null"},     // 10^(2000000-n-1): +Infinity
		{"1" + zeros + "e-2000000", "0"},         // 10^(n-2000000)
		{"-0." + zeros + "1e" + n + "1", "null"}, // 10^(10n+1-n-1): -Infinity
		{"0." + zeros + "12e" + strconv.Itoa(1<<20+11), "1.2"},
		{"1" + zeros + "e-" + n, "1"},
		{"0." + zeros + "1e99999999999999999999", "null"}, // the exponent itself past 2^64
		{"1e99999999999999999999", "null"},                // an exponent held at its bound, plus the digits'
		{"-12.5e99999999999999999999", "null"},
		{"0.0001e-99999999999999999999", "0"},
		{"1e-99999999999999999999", "0"},
	} {
		for name, f := range canonicalisers {
			got, _, err := f(nil, []byte(c.in), &canonOptions{infToNull: true})
			if err != nil || string(got) != c.want {
				t.Errorf("%s(%.12s…%s) = %q, %v; want %q", name, c.in, c.in[len(c.in)-12:], got, err, c.want)
			}
		}
	}
}

// TestSyntaxErrorReasons: which reason an unexpected byte gets, fast path
// and reference alike: a printable character is quoted, a C0 control or
// DEL is named by its code point, a byte that starts no UTF-8 sequence is
// Invalid UTF-8; a character of several bytes is quoted whole; each at
// the byte's own offset, also past the text's start, the last C0 control
// (U+001F) included. Every printable ASCII character that starts no JSON
// value (RFC 8259 §3: value = false / null / true / object / array /
// number / string) is reported where a value is due as the unexpected
// token it is, quoted, at its own offset, as V8 reports it: ':' and ';'
// just above the digits no less than '!' or '~'. An object key not
// followed by its colon (RFC 8259 §4: member = string name-separator
// value) fails at the byte where the colon is due, after any whitespace,
// or at the end of the text.
// Pins D7.
func TestSyntaxErrorReasons(t *testing.T) {
	// Pins I103.
	cases := []struct{ in, want string }{
		{"[1 x]", syntaxUnexpectedToken + " 'x'" + syntaxPosition + "3"},
		{"[\x01]", syntaxUnexpectedToken + " U+0001" + syntaxPosition + "1"},
		{"[\x7f]", syntaxUnexpectedToken + " U+007f" + syntaxPosition + "1"},
		{"[\xff]", syntaxBadUTF8 + syntaxPosition + "1"},
		{"[é]", syntaxUnexpectedToken + " 'é'" + syntaxPosition + "1"},
		{"[\ufffd]", syntaxUnexpectedToken + " '\ufffd'" + syntaxPosition + "1"},
		{"[0,\x01]", syntaxUnexpectedToken + " U+0001" + syntaxPosition + "3"},
		{"[0,\x1f]", syntaxUnexpectedToken + " U+001f" + syntaxPosition + "3"},
		{"[0,\x7f]", syntaxUnexpectedToken + " U+007f" + syntaxPosition + "3"},
		{"[\x1f]", syntaxUnexpectedToken + " U+001f" + syntaxPosition + "1"},
		{"[0,\xff]", syntaxBadUTF8 + syntaxPosition + "3"},
		{"[0,é]", syntaxUnexpectedToken + " 'é'" + syntaxPosition + "3"},
		{"[0,!]", syntaxUnexpectedToken + " '!'" + syntaxPosition + "3"},
		// The colon missing after a key.
		{`{"a" 1}`, "Unexpected token '1' in JSON at position 5"},
		{`{"a"}`, "Unexpected token '}' in JSON at position 4"},
		{`{"a",`, "Unexpected token ',' in JSON at position 4"},
		{`[1,{"bcd"  x}]`, "Unexpected token 'x' in JSON at position 11"},
		{`{"a":1,"b" "c"}`, "Unexpected token '\"' in JSON at position 11"},
		{`{"a"`, "Unexpected end of input in JSON at position 4"},
		{`{"a":{"b":0,"c" `, "Unexpected end of input in JSON at position 16"},
	}
	for c := byte('!'); c <= '~'; c++ {
		if strings.IndexByte(`"{[]-0123456789tfn`, c) >= 0 {
			continue
		}
		for src, off := range map[string]string{"[" + string(c) + "]": "1", `{"a":` + string(c) + "}": "5", "[1," + string(c): "3"} {
			cases = append(cases, struct{ in, want string }{src, "Unexpected token '" + string(c) + "' in JSON at position " + off})
		}
	}
	for _, c := range cases {
		for name, f := range canonicalisers {
			if _, _, err := f(nil, []byte(c.in), &canonOptions{}); err == nil || err.Error() != SyntaxPrefix+c.want {
				t.Errorf("%s(%q): %v, want %s", name, c.in, err, SyntaxPrefix+c.want)
			}
		}
	}
}

// TestSyntaxScalarOffsets pins where a syntax error inside a number or a
// literal is reported, fast path and reference alike: at the offset V8's
// JSON.parse gives (node v20.20.2, the position in its message), which is
// the first byte the grammar refuses — the byte after a minus sign, a
// decimal point or an exponent's e and sign; the text's length when the
// text ends there. A number (RFC 8259 §6: -? int frac? exp?) that stops
// where a digit must be is Unexpected end of input at the text's length
// when the text ends there, else Invalid number at the byte that is not a
// digit; a digit after a leading zero is what follows a complete number.
// For a literal cut short ("[tru]"), V8 names the unexpected token without
// a position; the offset is that token's; a literal name (RFC 8259 §3:
// false, null, true) cut short by the end of the text, alone or after
// other values, is Unexpected end of input at the text's length, wherever
// the output stands. The text is errors.go's, compared to the byte: a
// number the grammar refuses is syntaxBadNumber, a text that ends first
// syntaxUnexpectedEnd, any other byte syntaxUnexpectedToken with that
// byte.
// Pins D7.
func TestSyntaxScalarOffsets(t *testing.T) {
	// Pins I103.
	const bad, end, token = syntaxBadNumber, syntaxUnexpectedEnd, syntaxUnexpectedToken
	type offset struct {
		in, reason string
		off        int
	}
	cases := []offset{
		// V8: "No number after minus sign in JSON at position n"
		{"-x", bad, 1}, {"-", end, 1}, {"[-]", bad, 2}, {"[-", end, 2}, {"[-a]", bad, 2},
		{`{"a":-}`, bad, 6}, {"[1,-x]", bad, 4}, {"- 1", bad, 1}, {"-.5", bad, 1}, {"[0,-a]", bad, 4},
		// "Unterminated fractional number in JSON at position n"
		{"[1.x]", bad, 3}, {"[1.]", bad, 3}, {"[1.", end, 3}, {"[0.x]", bad, 3}, {"[-0.]", bad, 4},
		{"[10.]", bad, 4}, {"[19.]", bad, 4}, {"[90.x]", bad, 4},
		{"1.", end, 2}, {"-12.", end, 4}, {"1.x", bad, 2}, {"[-1.]", bad, 4}, {"[0,10.e5]", bad, 6},
		{"[1.,2]", bad, 3}, {"1. ", bad, 2},
		// "Exponent part is missing a number in JSON at position n"
		{"[1e]", bad, 3}, {"[1e", end, 3}, {"[1e+]", bad, 4}, {"[1ex]", bad, 3}, {"[1E-x]", bad, 4},
		{"[1e+x", bad, 4}, {"[0e]", bad, 3}, {"[0e+]", bad, 4}, {"[0.5e]", bad, 5}, {"[-0e-]", bad, 5},
		{"[1.5e+x]", bad, 6}, {"[1.0e]", bad, 5}, {"[1.9e]", bad, 5}, {"[9.5e]", bad, 5},
		{"1e", end, 2}, {"-0.5E", end, 5}, {"1e+", end, 3}, {"25E-", end, 4}, {"1ex", bad, 2},
		{"[1e,2]", bad, 3}, {"-2.5E+ ", bad, 6}, {"[1E-]", bad, 4}, {"-1.5e+x", bad, 6}, {"[0,1e+-1]", bad, 6},
		// "Unexpected number in JSON at position n", or the text after a
		// complete number
		{"[01]", token + " '1'", 2}, {"[-01]", token + " '1'", 3},
		{"01", syntaxAfterJSON, 1}, {"-01", syntaxAfterJSON, 2},
		// "Unexpected token ']'" / "'x'", and "Unexpected end of JSON input"
		{"[tru]", token + " ']'", 4}, {"[trux]", token + " 'x'", 4}, {"[fals]", token + " ']'", 5},
		{"[nul", end, 4}, {"[0, tru]", token + " ']'", 7}, {"[0,0,0,fals]", token + " ']'", 11},
		{"[0, nul", end, 7},
	}
	for _, word := range []string{"true", "false", "null"} {
		for n := 1; n < len(word); n++ {
			for _, head := range []string{"", "[", `["abcdefgh",1e20,`, "   "} {
				src := head + word[:n]
				cases = append(cases, offset{src, end, len(src)})
			}
		}
	}
	for _, c := range cases {
		text := SyntaxPrefix + c.reason + syntaxPosition + strconv.Itoa(c.off)
		for name, f := range canonicalisers {
			_, _, err := f(nil, []byte(c.in), &canonOptions{})
			var se *syntaxError
			if !errors.As(err, &se) || se.off != c.off || err.Error() != text {
				t.Errorf("%s(%q): %v, want %s", name, c.in, err, text)
			}
		}
	}
}
