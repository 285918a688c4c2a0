package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"hostbridge/internal/conform"
)

// The canonicalJSON options the Go tests run each canonical JSON file with
// (testdata/README.md, "Canonical JSON").
// maxBoundedJSONLimit is the largest limit of 读取入站有限癸象正文文 (8 MiB).
const maxBoundedJSONLimit = 8 << 20

var (
	plainOptions   = conform.CanonOptions{InfToNull: true}
	boundedOptions = conform.CanonOptions{InfToNull: true, MaxDepth: 1000}
	queueOptions   = conform.CanonOptions{MaxDepth: 1000, DeepOver: 24, Markers: true}
)

// canonWant is what canonicalJSON must answer; a nil field is not
// compared.
type canonWant struct {
	syntax    bool
	reason    *string
	off       *int // of the syntax error, or of the problem
	canonical []byte
	depth     *int
	problems  []string // the problem must be one of these
}

// check compares canonicalJSON's value with w: "" when it holds.
func (w canonWant) check(raw json.RawMessage) string {
	var r conform.CanonResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return "not a canonicalJSON value: " + err.Error()
	}
	if w.syntax {
		switch {
		case r.SyntaxError == nil:
			return "accepted"
		case w.reason != nil && r.SyntaxError.Reason != *w.reason:
			return "another reason"
		case w.off != nil && r.SyntaxError.Off != *w.off:
			return "another offset"
		}
		return ""
	}
	switch {
	case r.SyntaxError != nil:
		return "a syntax error"
	case w.depth != nil && (r.Depth == nil || *r.Depth != *w.depth):
		return "another depth"
	case !slices.Contains(w.problems, r.Problem):
		return "another problem"
	case w.off != nil && (r.Off == nil || *r.Off != *w.off):
		return "another offset"
	case w.canonical != nil && (r.Canonical == nil || !bytes.Equal(r.Canonical.Bytes(), w.canonical)):
		return "another canonical text"
	}
	return ""
}

// String describes w.
func (w canonWant) String() string {
	if w.syntax {
		s := "a syntax error"
		if w.reason != nil {
			s += fmt.Sprintf(" %q", *w.reason)
		}
		if w.off != nil {
			s += fmt.Sprintf(" at %d", *w.off)
		}
		return s
	}
	s := fmt.Sprintf("problem %s", strings.Join(w.problems, " or "))
	if w.off != nil {
		s += fmt.Sprintf(" at %d", *w.off)
	}
	if w.depth != nil {
		s += fmt.Sprintf(", depth %d", *w.depth)
	}
	if w.canonical != nil {
		s += ", canonical " + showBytes(w.canonical)
	}
	return s
}

// canonCall adds a canonicalJSON call of text with o.
func (c *tcase) canonCall(text conform.Bytes, o conform.CanonOptions, w canonWant) *tcase {
	v := valueWant{kind: vCustom, custom: w.check, desc: w.String()}
	return c.call(want{val: v}, conform.CanonicalJSON, text, o)
}

// validCanon wants valid JSON without a problem: canonical, at depth.
func validCanon(canonical []byte, depth int) canonWant {
	return canonWant{canonical: canonical, depth: &depth, problems: []string{"none"}}
}

// textDepth is the nesting of a canonical JSON text: brackets outside
// strings.
func textDepth(b []byte) int {
	depth, most, str := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case str && c == '\\':
			i++
		case c == '"':
			str = !str
		case !str && (c == '[' || c == '{'):
			depth++
			most = max(most, depth)
		case !str && (c == ']' || c == '}'):
			depth--
		}
	}
	return most
}

// canonOptionRows: canon-options.json, each row with its own options.
func canonOptionRows(file string, data []byte) ([]*row, error) {
	return fileRows(file, data, levelDecision, func(r *struct {
		Situation string               `json:"情境"`
		Text      json.RawMessage      `json:"text"`
		Options   conform.CanonOptions `json:"options"`
		Error     bool                 `json:"error"`
		Reason    *string              `json:"reason"`
		ErrorOff  *int                 `json:"error_off"`
		Canonical json.RawMessage      `json:"canonical"`
		Depth     int                  `json:"depth"`
		Problem   string               `json:"problem"`
		Off       *int                 `json:"off"`
	}) (*row, error) {
		text, err := conform.Builder(r.Text)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.Situation, err)
		}
		w := canonWant{syntax: true, reason: r.Reason, off: r.ErrorOff}
		if !r.Error {
			w = canonWant{depth: &r.Depth, problems: []string{r.Problem}, off: r.Off}
			if r.Canonical != nil {
				if w.canonical, err = conform.Expand(r.Canonical); err != nil {
					return nil, fmt.Errorf("%s: %v", r.Situation, err)
				}
			}
		}
		return oneCase(r.Situation, newCase(nil).canonCall(text, r.Options, w))
	})
}

// canonRandomRows: canon-random.json: each document plain, and with the
// queue producer's options (the problem one that node found).
func canonRandomRows(file string, data []byte) ([]*row, error) {
	var f struct {
		Docs []json.RawMessage `json:"docs"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	return decodeRows(file, "", f.Docs, levelDecision, func(d *struct {
		Text      string   `json:"text"`
		Valid     bool     `json:"valid"`
		Canonical string   `json:"canonical"`
		Depth     int      `json:"depth"`
		Problems  []string `json:"problems"`
	}) (*row, error) {
		text := conform.Text(d.Text)
		tc := newCase(nil)
		if !d.Valid {
			return oneCase(d.Text, tc.canonCall(text, plainOptions, canonWant{syntax: true}).canonCall(text, queueOptions, canonWant{syntax: true}))
		}
		queue := validCanon([]byte(d.Canonical), d.Depth)
		if len(d.Problems) > 0 {
			queue.canonical, queue.problems = nil, d.Problems
		}
		return oneCase(d.Text, tc.canonCall(text, plainOptions, validCanon([]byte(d.Canonical), d.Depth)).canonCall(text, queueOptions, queue))
	})
}

// jsonTestSuiteRows: jsontestsuite.json through canonicalJSON (plain and
// bounded), and as a body through 读取入站有限癸象正文文, whole and cut in
// two (which strips a BOM, as TextDecoder does).
func jsonTestSuiteRows(file string, data []byte) ([]*row, error) {
	return listRows(file, data, levelSpec, func(s *struct {
		Name             string  `json:"name"`
		InputHex         string  `json:"input_hex"`
		UTF8Valid        bool    `json:"utf8_valid"`
		UTF8BOM          bool    `json:"utf8_bom"`
		JSAccepts        bool    `json:"js_accepts"`
		JSAcceptsBOMKept *bool   `json:"js_accepts_bom_kept"`
		Canonical        *string `json:"canonical"`
	}) (*row, error) {
		src, err := hex.DecodeString(s.InputHex)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.Name, err)
		}
		accept := s.UTF8Valid && s.JSAccepts && (!s.UTF8BOM || s.JSAcceptsBOMKept != nil && *s.JSAcceptsBOMKept)
		w := canonWant{syntax: true}
		if accept && s.Canonical != nil {
			w = validCanon([]byte(*s.Canonical), textDepth([]byte(*s.Canonical)))
		}
		r, _ := oneCase(s.Name, newCase(nil).canonCall(conform.Of(src), plainOptions, w).canonCall(conform.Of(src), boundedOptions, w))
		read := wantText("").withStatus(4)
		switch {
		case s.UTF8Valid && s.JSAccepts && s.Canonical != nil:
			read = wantText(*s.Canonical).withStatus(0)
		case s.UTF8Valid:
			read = want{val: valueWant{kind: vPrefix, b: []byte("SyntaxError: ")}}.withStatus(5)
		}
		for _, chunks := range [][][]byte{{src}, {src[:len(src)/2], src[len(src)/2:]}} {
			r.cases = append(r.cases, textRead("读取入站有限癸象正文文", maxBoundedJSONLimit, chunks, read, nil))
		}
		return r, nil
	})
}

// canonicalRows: a file of texts and their canonical texts (js-key-order.json,
// jcs-testdata.json), each through canonicalJSON.
func canonicalRows(file string, data []byte) ([]*row, error) {
	return listRows(file, data, levelSpec, func(r *struct {
		Text        string `json:"text"`
		Canonical   string `json:"canonical"`
		Note        string `json:"note"`
		Name        string `json:"name"`
		Input       string `json:"input"`
		JSCanonical string `json:"js_canonical"`
	}) (*row, error) {
		if r.Input != "" { // jcs-testdata.json: the target is js_canonical
			r.Text, r.Canonical, r.Note = r.Input, r.JSCanonical, r.Name
		}
		w := validCanon([]byte(r.Canonical), textDepth([]byte(r.Canonical)))
		return oneCase(r.Note, newCase(nil).canonCall(conform.Text(r.Text), plainOptions, w))
	})
}

// esNumberRows: es-numbers*.txt, a line "<hex of IEEE-754 bits>,<Number::toString>"
// a row: the number written with 17 significant digits canonicalises to
// the line's text, and so does that text itself.
func esNumberRows(file string, data []byte) ([]*row, error) {
	var rows []*row
	for n, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		h, want, ok := strings.Cut(line, ",")
		bits, err := strconv.ParseUint(h, 16, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("line %d: %q", n+1, line)
		}
		digits := strconv.FormatFloat(math.Float64frombits(bits), 'e', 16, 64)
		w := validCanon([]byte(want), 0)
		tc := newCase(nil).canonCall(conform.Text(digits), conform.CanonOptions{}, w).canonCall(conform.Text(want), conform.CanonOptions{}, w)
		rows = append(rows, &row{label: line, level: levelSpec, cases: []*tcase{tc}})
	}
	return named(file, "line", rows), nil
}
