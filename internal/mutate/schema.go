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
//   - a statement s becomes if mutantActive != k { s };
//   - a variable or field v with the alternative w becomes
//     (*mutantPtr(k, &(v), &(w))), which also stands on the left of =;
//   - a value e of another type (a function, an int literal, a min or max
//     call) becomes mutantPick(k, (e), (a)), which evaluates both;
//   - a struct literal field's value e becomes mutantZero(k, (e)).
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

func mutantPtr[T any](k int, v, w *T) *T {
	if mutantActive == k {
		return w
	}
	return v
}

func mutantPick[T any](k int, e, a T) T {
	if mutantActive == k {
		return a
	}
	return e
}

func mutantZero[T any](k int, e T) T {
	if mutantActive == k {
		var zero T
		return zero
	}
	return e
}
`

// A wrapKind is how a schema mutant that is not a boolean expression or a
// statement switches at run time.
type wrapKind int

const (
	wrapBool    wrapKind = iota // a boolean expression (or, with stmt, a statement)
	wrapPointer                 // a variable or field, through mutantPtr
	wrapPick                    // a value, through mutantPick
	wrapZero                    // a struct field's value, through mutantZero
)

// wrapping returns the texts put before and after mutant m (number k).
func wrapping(m mutant, k int) (open, close string) {
	switch {
	case m.stmt:
		return fmt.Sprintf("if mutantActive != %d {", k), "}"
	case m.wrap == wrapPointer:
		return fmt.Sprintf("(*mutantPtr(%d, &(", k), fmt.Sprintf("), &(%s)))", m.repl)
	case m.wrap == wrapPick:
		return fmt.Sprintf("mutantPick(%d, (", k), fmt.Sprintf("), (%s))", m.repl)
	case m.wrap == wrapZero:
		return fmt.Sprintf("mutantZero(%d, (", k), "))"
	}
	return fmt.Sprintf("(mutantActive != %d && (", k), fmt.Sprintf(") || mutantActive == %d && (%s))", k, m.repl)
}

// insertion is text put before src[at]; span orders insertions at one
// offset: a node's opening goes before the openings of nodes inside it, and
// its closing after theirs.
type insertion struct {
	at, span, order int
	closing         bool
	text            string
}

// schemaSource returns src with the mutants ms (all schema mutants of the
// file) built in; ms[i] is switched on by mutantActive == i+1.
func schemaSource(src []byte, ms []mutant) string {
	var ins []insertion
	for i, m := range ms {
		k, span := i+1, m.end-m.start
		open, close := wrapping(m, k)
		ins = append(ins, insertion{m.start, span, i, false, open}, insertion{m.end, span, i, true, close})
	}
	sort.SliceStable(ins, func(i, j int) bool {
		a, b := ins[i], ins[j]
		switch {
		case a.at != b.at:
			return a.at < b.at
		case a.closing != b.closing:
			return a.closing // closings first: a node that ends where another begins
		case a.span != b.span:
			return a.closing == (a.span < b.span)
		}
		return a.closing == (a.order > b.order) // two on one span: the last opened closes first
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
