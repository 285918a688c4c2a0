package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const schemaSrc = `package p

const limit = 3

func over(n int) bool { return n > limit }

func clamp(n *int) {
	if *n > limit {
		*n = limit
	}
}

func loop(xs []int) int {
outer:
	for _, x := range xs {
		if x > limit {
			break outer
		}
	}
	return 0
}
`

// TestSchemaSources: mutants inside a body, or spanning a one-line
// function's braces, join the schema, each behind its own switch ahead of
// the original body (a return after it where the function has no
// results); a mutant outside any body, or in a body with labels, is built
// alone; the rewritten file parses.
func TestSchemaSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.go")
	if err := os.WriteFile(file, []byte(schemaSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, problems := locate([]mutant{
		{id: "A", proof: proof{File: file, Old: "{ return n > limit }", New: "{ return n >= limit }", Build: "default", Tests: []string{"T"}}},
		{id: "B", proof: proof{File: file, Old: "*n = limit", New: "*n = 0", Build: "default", Tests: []string{"T"}}},
		{id: "C", proof: proof{File: file, Old: "limit = 3", New: "limit = 4", Build: "default", Tests: []string{"T"}}},
		{id: "D", proof: proof{File: file, Old: "break outer", New: "continue outer", Build: "default", Tests: []string{"T"}}},
		{id: "E", proof: proof{File: file, Old: "limit", New: "0", Build: "default", Tests: []string{"T"}}},
	})
	if len(problems) != 1 || !strings.Contains(problems[0], "E proof 1") {
		t.Errorf("problems %q, want E's old text found more than once", problems)
	}
	overlay := schemaSources(ms)
	for _, m := range ms {
		if want := m.id == "A" || m.id == "B"; m.schema != want {
			t.Errorf("%s: in the schema %v, want %v", m.id, m.schema, want)
		}
	}
	got := overlay[file]
	squeeze := strings.NewReplacer(" ", "", "\t", "", "\n", "")
	for _, want := range []string{
		"func over(n int) bool { if clauseproofActive == 1 { return n >= limit } return n > limit }",
		"func clamp(n *int) { if clauseproofActive == 2 { if *n > limit { *n = 0 } return } if *n > limit {",
	} {
		if !strings.Contains(squeeze.Replace(got), squeeze.Replace(want)) {
			t.Errorf("the schema lacks %q:\n%s", want, got)
		}
	}
	if _, err := parser.ParseFile(token.NewFileSet(), file, got, 0); err != nil {
		t.Errorf("the schema does not parse: %v\n%s", err, got)
	}
	if !strings.Contains(overlay[activeFile], "package p\n") {
		t.Errorf("the switch's file is not of package p:\n%s", overlay[activeFile])
	}
}
