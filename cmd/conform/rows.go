package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"hostbridge/internal/conform"
)

// The levels of a row (CONFORMANCE.md, section 9; decision D53).
const (
	levelSpec     = "spec"
	levelDecision = "decision"
)

// A row is one vector row: its cases, or why it has none.
type row struct {
	name  string // FILE#N, FILE:SECTION#N
	label string // its 情境, or what names it in its file
	level string
	skip  string // not empty: the row has no case, for this reason
	cases []*tcase
	// hello, when set, checks the adapter's handshake: "" when it holds.
	hello func(conform.Hello) string
}

// A tcase is one case and what its answer must be.
type tcase struct {
	msg         conform.Case
	wants       []want                  // one per call
	platform    *[]conform.PlatformCall // every platform call, in order (nil: not compared)
	outcome     *string
	redelivered *[]conform.Redelivery
}

// call adds a call and what it must answer.
func (c *tcase) call(w want, function string, args ...any) *tcase {
	raw := make([]json.RawMessage, len(args))
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			panic(fmt.Sprintf("argument %d of %s: %v", i, function, err)) // the runner's own values
		}
		raw[i] = b
	}
	c.msg.Calls = append(c.msg.Calls, conform.Call{Function: function, Args: raw})
	c.wants = append(c.wants, w)
	return c
}

// newCase is a case on an event (nil: none).
func newCase(ev *conform.Event) *tcase {
	return &tcase{msg: conform.Case{Type: conform.TypeCase, Event: ev}}
}

// fetchEvent is a fetch event of a GET request of url, without headers or
// body.
func fetchEvent(url string) *conform.Event {
	u := conform.Text(url)
	return &conform.Event{Kind: "fetch", Request: &conform.Request{Method: conform.Text("GET"), URL: &u, Headers: [][2]conform.Bytes{}}}
}

// loaders make the rows of each vector file; a file in testdata/ missing
// here fails the run, so no file goes unscored.
var loaders = map[string]func(file string, data []byte) ([]*row, error){
	"canon-options.json":         canonOptionRows,
	"canon-random.json":          canonRandomRows,
	"clauses.json":               func(string, []byte) ([]*row, error) { return nil, nil }, // not vectors
	"es-numbers.txt":             esNumberRows,
	"es-numbers-edge.txt":        esNumberRows,
	"inbound-body.json":          inboundBodyRows,
	"inbound-conformance.json":   inboundBodyRows,
	"inbound-headers.json":       headerRows,
	"inbound-same-origin.json":   sameOriginRows,
	"inbound-url-parse.json":     urlParseRows,
	"inbound-url.json":           urlReaderRows,
	"jcs-testdata.json":          canonicalRows,
	"js-key-order.json":          canonicalRows,
	"jsontestsuite.json":         jsonTestSuiteRows,
	"queue-consumer.json":        consumerRows,
	"queue-producer-limits.json": producerRows,
	"queue-producer.json":        producerRows,
	"request-url.json":           requestURLRows,
	"urlsearchparams.json":       searchParamsRows,
	"urltestdata.json":           urlTestDataRows,
	"utf8-decoding.json":         utf8Rows,
}

// loadRows reads every vector file of dir, in name order.
func loadRows(dir string) ([]*row, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var rows []*row
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".txt") {
			continue
		}
		load, ok := loaders[name]
		if !ok {
			return nil, fmt.Errorf("%s: a vector file this runner does not know", name)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		rs, err := load(name, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		rows = append(rows, rs...)
	}
	for _, r := range rows {
		for _, tc := range r.cases {
			tc.msg.Row = r.name
		}
	}
	return rows, nil
}

// rowLevel is a row's level: its own "level", else "decision" when it has
// "decision": true, else def.
func rowLevel(raw json.RawMessage, def string) string {
	var r struct {
		Level    string `json:"level"`
		Decision bool   `json:"decision"`
	}
	_ = json.Unmarshal(raw, &r) // a row that is not an object has the file's level
	switch {
	case r.Level == levelSpec || r.Level == levelDecision:
		return r.Level
	case r.Decision:
		return levelDecision
	}
	return def
}

// named gives rows their names: FILE#N or FILE:SECTION#N, N from 1.
func named(file, section string, rows []*row) []*row {
	prefix := file
	if section != "" {
		prefix += ":" + section
	}
	for i, r := range rows {
		r.name = fmt.Sprintf("%s#%d", prefix, i+1)
	}
	return rows
}

// normalCalls writes platform calls in one form, so that two lists compare
// as strings: bodies as the protocol writes bytes, an empty error as none.
func normalCalls(calls []conform.PlatformCall) string {
	out := slices.Clone(nonNil(calls))
	for i := range out {
		c := &out[i]
		c.Messages = slices.Clone(c.Messages)
		for j := range c.Messages {
			c.Messages[j].Body = conform.Of(c.Messages[j].Body.Bytes())
		}
		if c.Error != nil && *c.Error == "" {
			c.Error = nil
		}
	}
	b, _ := json.Marshal(out) // the runner's own values: cannot fail
	return string(b)
}

// decodeRows decodes each raw row into a T and makes its row with mk; a row
// mk leaves without a level gets rowLevel(raw, def). The rows are named by
// file and section.
func decodeRows[T any](file, section string, raws []json.RawMessage, def string, mk func(*T) (*row, error)) ([]*row, error) {
	rows := make([]*row, 0, len(raws))
	for i, raw := range raws {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("row %d: %v", i+1, err)
		}
		r, err := mk(&v)
		if err != nil {
			return nil, fmt.Errorf("row %d: %v", i+1, err)
		}
		if r.level == "" {
			r.level = rowLevel(raw, def)
		}
		rows = append(rows, r)
	}
	return named(file, section, rows), nil
}

// fileRows decodes the rows of a file whose rows are its "rows" list.
func fileRows[T any](file string, data []byte, def string, mk func(*T) (*row, error)) ([]*row, error) {
	var f struct {
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	return decodeRows(file, "", f.Rows, def, mk)
}

// listRows decodes the rows of a file that is a list of rows.
func listRows[T any](file string, data []byte, def string, mk func(*T) (*row, error)) ([]*row, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, err
	}
	return decodeRows(file, "", raws, def, mk)
}

// oneCase is a row of one case.
func oneCase(label string, tc *tcase) (*row, error) {
	return &row{label: label, cases: []*tcase{tc}}, nil
}
