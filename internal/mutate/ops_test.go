package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// snippet is a program whose mutants the tests below know: every typed
// operator has a site in it (a sibling call, min, a literal bound in a
// comparison and in a slice bound, variables and fields of one type, a
// switch with no tag and one with, a slice literal and a struct literal).
const snippet = `package main

import (
	"fmt"
	"strings"
)

type pair struct{ a, b, c int }

func f(s string, n, m int, p pair) int {
	i := strings.Index(s, "x")
	if n < 3 {
		return min(n, m)
	}
	switch {
	case i > m, n == 9:
		return p.a
	}
	xs := []int{1, 2}
	q := pair{a: n, b: 4}
	return len(s[1:]) + xs[1] + q.a + q.b
}

func g(k string) string {
	switch k {
	case "a", "b":
		return "x"
	default:
		return k
	}
}

func main() {
	for _, s := range []string{"axbx", "", "xyz"} {
		for _, n := range []int{1, 2, 3, 5, 9} {
			fmt.Println(f(s+"pad", n, 4, pair{1, 2, 3}), g(s[:min(1, len(s))]))
		}
	}
}
`

// loadSnippet writes snippet into a module of its own in a new directory,
// makes that the working directory, and returns its mutants.
func loadSnippet(t *testing.T) []mutant {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module snippet\n\ngo 1.23\n")
	write(t, filepath.Join(dir, "a.go"), snippet)
	t.Chdir(dir)
	c := checkPackage("")
	if c == nil {
		t.Fatal("the snippet does not type-check")
	}
	ms, err := mutantsOf("a.go", c)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTypedOperators checks the typed operators' mutants of the snippet
// (a few of each kind, with how each switches), and that none is made
// where it could not compile or would change nothing.
func TestTypedOperators(t *testing.T) {
	ms := loadSnippet(t)
	got := map[string]mutant{}
	for _, m := range ms {
		got[m.key] = m
	}
	want := []struct {
		key, repl string
		schema    bool
		wrap      wrapKind
	}{
		{"a.go f `i := strings.Index(s, \"x\")` strings.Index → strings.LastIndex #1", "strings.LastIndex", true, wrapPick},
		{"a.go f `if n < 3 {` 3 → 4 (bound) #1", "n < 4", true, wrapBool},
		{"a.go f `if n < 3 {` 3 → 2 (bound) #1", "n < 2", true, wrapBool},
		{"a.go f `if n < 3 {` n → i #1", "i", true, wrapPointer},
		{"a.go f `if n < 3 {` n → m #1", "m", true, wrapPointer},
		{"a.go f `return min(n, m)` min → max #1", "max(n, m)", true, wrapPick},
		{"a.go f `case i > m, n == 9:` case value dropped #1", "false", true, wrapBool},
		{"a.go f `case i > m, n == 9:` case value dropped #2", "false", true, wrapBool},
		{"a.go f `return p.a` .a → .b #1", "p.b", true, wrapPointer},
		{"a.go f `return p.a` .a → .c #1", "p.c", true, wrapPointer},
		{"a.go f `xs := []int{1, 2}` element removed #1", "", false, wrapBool},
		{"a.go f `xs := []int{1, 2}` element removed #2", "", false, wrapBool},
		{"a.go f `q := pair{a: n, b: 4}` a: removed #1", "", true, wrapZero},
		{"a.go f `q := pair{a: n, b: 4}` b: removed #1", "", false, wrapBool},
		{"a.go f `return len(s[1:]) + xs[1] + q.a + q.b` 1 → 2 (bound) #1", "2", true, wrapPick},
		{"a.go f `return len(s[1:]) + xs[1] + q.a + q.b` 1 → 0 (bound) #1", "0", true, wrapPick},
		{"a.go f `return len(s[1:]) + xs[1] + q.a + q.b` q → p #1", "p", true, wrapPointer},
		{"a.go g `case \"a\", \"b\":` case value dropped #1", "", false, wrapBool},
		{"a.go g `default:` default removed #1", "", false, wrapBool},
	}
	for _, w := range want {
		m, ok := got[w.key]
		if !ok {
			t.Errorf("no mutant %s", w.key)
			continue
		}
		if m.repl != w.repl || m.schema != w.schema || m.wrap != w.wrap {
			t.Errorf("%s: repl %q schema %v wrap %d, want %q %v %d", w.key, m.repl, m.schema, m.wrap, w.repl, w.schema, w.wrap)
		}
	}
	for key := range got {
		for _, bad := range []string{
			"i → xs", "i → q", // not declared yet at that point
			"n → s", "q → xs", // another type
			"`return p.a` p → q",                 // q is declared after the switch
			"`i := strings.Index(s, \"x\")` i →", // the left of :=
			"xs[1]` 1 → 2 (bound)",               // an index is not a bound
		} {
			if strings.Contains(key, bad) {
				t.Errorf("unexpected mutant %s", key)
			}
		}
	}
	subs := 0
	for key := range got {
		if strings.Contains(key, "`for _, n := range []int{1, 2, 3, 5, 9} {`") && strings.Contains(key, "element removed") {
			subs++
		}
	}
	if subs != 5 {
		t.Errorf("%d removals of the five elements of main's list", subs)
	}
}

// TestSubstitutesBounded checks that no identifier gets more than
// maxSubstitutes substitutes.
func TestSubstitutesBounded(t *testing.T) {
	per := map[string]int{}
	for _, m := range loadSnippet(t) {
		if m.wrap == wrapPointer {
			per[m.file+"@"+string(rune(m.start))]++
		}
	}
	for site, n := range per {
		if n > maxSubstitutes {
			t.Errorf("%s: %d substitutes", site, n)
		}
	}
}

// TestSchemaMatchesText builds the snippet's schema once and checks that
// each schema mutant, switched on at run time, prints what the same change
// made to the text prints: the schema is the mutant.
func TestSchemaMatchesText(t *testing.T) {
	if testing.Short() {
		t.Skip("builds one program per mutant")
	}
	ms := loadSnippet(t)
	var schema []mutant
	for _, m := range ms {
		if m.schema {
			schema = append(schema, m)
		}
	}
	src := []byte(snippet)
	sdir := t.TempDir()
	write(t, filepath.Join(sdir, "go.mod"), "module snippet\n\ngo 1.23\n")
	write(t, filepath.Join(sdir, "a.go"), schemaSource(src, schema))
	write(t, filepath.Join(sdir, "zz_mutant_active.go"), strings.Replace(activeVar, "%s", "main", 1))
	bin := filepath.Join(sdir, "schema")
	if !buildIn(sdir, bin) {
		t.Fatal("the schema does not build")
	}
	compared := 0
	for k, m := range schema {
		repl := m.repl
		if m.wrap == wrapZero {
			repl = "0" // the snippet's struct fields are ints
		}
		tdir := t.TempDir()
		write(t, filepath.Join(tdir, "go.mod"), "module snippet\n\ngo 1.23\n")
		write(t, filepath.Join(tdir, "a.go"), string(src[:m.start])+repl+string(src[m.end:]))
		tbin := filepath.Join(tdir, "text")
		if !buildIn(tdir, tbin) {
			continue // the text does not compile (a variable left unused): the schema's is still a mutant
		}
		compared++
		if got, want := run(bin, k+1), run(tbin, 0); got != want {
			t.Errorf("%s: the schema prints\n%s\nthe text\n%s", m.key, got, want)
		}
	}
	if compared < len(schema)*3/4 {
		t.Errorf("only %d of %d schema mutants compared", compared, len(schema))
	}
}

func buildIn(dir, bin string) bool {
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	return cmd.Run() == nil
}

// run returns what bin prints with mutant k on, up to a panic's first line
// (the trace names files and lines, which differ).
func run(bin string, k int) string {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "MUTATE_ACTIVE="+strconv.Itoa(k))
	out, _ := cmd.CombinedOutput() // a panic is an output like another
	s := string(out)
	if i := strings.Index(s, "panic: "); i >= 0 {
		s = s[:i] + strings.SplitN(s[i:], "\n", 2)[0]
	}
	return s
}
