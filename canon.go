package hostbridge

import "errors"

// canonOptions say what canonical reports besides syntax errors.
type canonOptions struct {
	maxDepth  int  // parser bound: opening a container deeper than this is a syntax error (0: none)
	deepOver  int  // report problemDeep for a surviving container deeper than this (0: none)
	markers   bool // report problemMarker for a surviving reserved host-marker key
	infToNull bool // write a number that parses to ±Infinity as null (JSON.stringify) instead of reporting problemInf
}

// problemKind is what the queue rejects in a syntactically valid value.
type problemKind uint8

const (
	problemNone   problemKind = iota
	problemDeep               // nesting over canonOptions.deepOver
	problemMarker             // a reserved host-marker key
	problemInf                // a number that parses to ±Infinity
)

// problem is the first problem, in text order, of the parsed value: a value
// a later duplicate key replaces does not count.
type problem struct {
	kind problemKind
	off  int // byte offset in src
}

// canonInfo describes the parsed value.
type canonInfo struct {
	depth int // nesting depth of the parsed value: [] is 1, {"a":[1]} is 2, 1 is 0
	prob  problem
}

// syntaxError is invalid JSON: reason is one of the Syntax* constants.
type syntaxError struct {
	reason string
	off    int
}

// canonical appends to dst the canonical form of the JSON text src,
// JSON.stringify(JSON.parse(src)), and describes the value. An error is a
// *syntaxError.
func canonical(dst, src []byte, o *canonOptions) ([]byte, canonInfo, error) {
	return dst, canonInfo{}, errors.New("canonical: not implemented yet")
}
