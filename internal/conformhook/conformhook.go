// Package conformhook lets the Go conformance adapter (cmd/conform/goadapter)
// reach the one function of hostbridge it scores that is not exported: the
// canonicaliser with its options, which the canonical JSON vectors pin.
// hostbridge sets Canonical when it is initialised; nothing else may.
package conformhook

// Options are the canonicaliser's options (testdata/README.md, "Canonical
// JSON"): 0 or false is off.
type Options struct {
	MaxDepth  int  // opening a container deeper than this is a syntax error
	DeepOver  int  // a surviving container deeper than this is the problem deep
	Markers   bool // a surviving reserved key is the problem marker
	InfToNull bool // a surviving ±Infinity is written null, else the problem inf
}

// Report is what the canonicaliser says of a text.
type Report struct {
	Canonical  []byte // JSON.stringify(JSON.parse(text)), when Problem is "none"
	Depth      int    // nesting of the parsed value
	Problem    string // none, deep, marker or inf: the first in text order
	ProblemOff int    // its byte offset
	Syntax     bool   // the text is not JSON: Reason at Off
	Reason     string
	Off        int
}

// Canonical is hostbridge's canonicaliser, set by hostbridge's init.
var Canonical func(text []byte, o Options) Report
