package main

import (
	"fmt"
	"sort"
	"strings"
)

// A schema is a file with all its schema mutants built in, each switched on
// when the variable mutantActive holds its number (from the environment
// variable MUTATE_ACTIVE; 0: none), so that one build serves them all:
//   - an expression e with the alternative a becomes
//     (mutantActive != k && (e) || mutantActive == k && (a)), which
//     evaluates exactly one of them;
//   - a statement s becomes if mutantActive != k { s }.
//
// Mutants nest (a comparison inside an && inside a removed statement): the
// alternative is the original text, with the nested ones off.

// activeVar is the file added to the package, beside the schema.
const activeVar = `package %s

import (
	"os"
	"strconv"
)

var mutantActive = func() int {
	n, _ := strconv.Atoi(os.Getenv("MUTATE_ACTIVE"))
	return n
}()
`

// insertion is text put before src[at]; span orders insertions at one
// offset: a node's opening goes before the openings of nodes inside it, and
// its closing after theirs.
type insertion struct {
	at, span int
	closing  bool
	text     string
}

// schemaSource returns src with the mutants ms (all schema mutants of the
// file) built in; ms[i] is switched on by mutantActive == i+1.
func schemaSource(src []byte, ms []mutant) string {
	var ins []insertion
	for i, m := range ms {
		k, span := i+1, m.end-m.start
		open, close := fmt.Sprintf("(mutantActive != %d && (", k), fmt.Sprintf(") || mutantActive == %d && (%s))", k, m.repl)
		if m.stmt {
			open, close = fmt.Sprintf("if mutantActive != %d {", k), "}"
		}
		ins = append(ins, insertion{m.start, span, false, open}, insertion{m.end, span, true, close})
	}
	sort.SliceStable(ins, func(i, j int) bool {
		a, b := ins[i], ins[j]
		switch {
		case a.at != b.at:
			return a.at < b.at
		case a.closing != b.closing:
			return a.closing // closings first: a node that ends where another begins
		case a.closing:
			return a.span < b.span
		}
		return a.span > b.span
	})
	var out strings.Builder
	last := 0
	for _, in := range ins {
		out.Write(src[last:in.at])
		out.WriteString(in.text)
		last = in.at
	}
	out.Write(src[last:])
	return out.String()
}
