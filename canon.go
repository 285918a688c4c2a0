package hostbridge

// What the package asks of a canonicaliser and what it gets back, shared by
// the two: the reference (canon_ref*.go, the normative version) and the fast
// path (canon_fast*.go, left out of a build with -tags hostbridge_ref).
// canonical(dst, src, o) is the one the build chose (canon_fast_select.go or
// canon_ref_select.go): it appends JSON.stringify(JSON.parse(src)) to dst
// and reports the parsed value's depth and first problem, or a
// *syntaxError.

import "strconv"

// canonOptions say what canonical reports besides syntax errors.
type canonOptions struct {
	syntaxDepthLimit  int  // parser bound: opening a container deeper than this is a syntax error (0: none)
	problemDepthLimit int  // report problemDeep for a surviving container deeper than this (0: none)
	markers           bool // report problemMarker for a surviving reserved host-marker key
	infToNull         bool // write a number that parses to ±Infinity as null (JSON.stringify) instead of reporting problemInf
	validUTF8         bool // src is known to be valid UTF-8 (a strict read checked it): strings skip the check
}

// problemKind is what the queue rejects in a syntactically valid value.
type problemKind uint8

const (
	problemNone   problemKind = iota
	problemDeep               // nesting over canonOptions.problemDepthLimit
	problemMarker             // a reserved host-marker key
	problemInf                // a number that parses to ±Infinity
)

// valueProblem is the first problem, in text order, of the parsed value: a
// value a later duplicate key replaces does not count.
type valueProblem struct {
	kind problemKind
	off  int // byte offset in src
}

// valueReport is what canonical reports about the parsed value besides its
// text: its depth and its first problem.
type valueReport struct {
	depth   int // nesting depth of the parsed value: [] is 1, {"a":[1]} is 2, 1 is 0
	problem valueProblem
}

// syntaxError is invalid JSON: reason is one of the syntax* constants.
type syntaxError struct {
	reason string
	off    int
}

// Error words the error as JavaScript hosts do: "SyntaxError: Unexpected
// token 'x' in JSON at position 5".
func (e *syntaxError) Error() string {
	return SyntaxPrefix + e.reason + syntaxPosition + strconv.Itoa(e.off)
}
