package hostbridge

// The clause matrix: testdata/clauses.json numbers every normative
// statement of 消息队列 0.1.0 (Q1…) and 网页入站 0.8.0 (I1…), names the one
// function that enforces it and the tests and vector rows that pin it.
// TestClauses checks it against the sources on disk (so both builds see the
// same files) and TestClausesMarkdown keeps CLAUSES.md, its rendering, in
// step: `go test -run TestClausesMarkdown -update .` rewrites it.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateClauses = flag.Bool("update", false, "rewrite CLAUSES.md from testdata/clauses.json")

// A clause is one row of testdata/clauses.json.
type clause struct {
	ID        string         `json:"id"`
	Spec      string         `json:"spec"`
	Section   string         `json:"section"`
	Kind      string         `json:"kind"`
	Text      string         `json:"text"`
	Note      string         `json:"note,omitempty"`
	Decisions []string       `json:"decisions,omitempty"`
	Home      []clauseHome   `json:"home"`
	Tests     []string       `json:"tests"`
	Vectors   []clauseVector `json:"vectors"`
	Proofs    []clauseProof  `json:"proofs,omitempty"`
}

// clauseHome is a function (or Type.Method) of a file of the root package,
// or a declared name (a constant, a variable); a tag comment naming the
// clause marks the enforcing statement in it (clauses_tags_test.go). Role
// "message" is a place where the clause's message text is attached to the
// error, not where the rule is judged.
type clauseHome struct {
	File string `json:"file"`
	Func string `json:"func"`
	Role string `json:"role,omitempty"`
}

// clauseProof is a recorded mutant of a clause's home: in File, the text
// Old (occurring once) replaced by New makes at least one of Tests fail in
// Build ("default", "ref": -tags hostbridge_ref, or "both").
// internal/clauseproof applies every one in CI.
type clauseProof struct {
	File  string   `json:"file"`
	Old   string   `json:"old"`
	New   string   `json:"new"`
	Build string   `json:"build"`
	Tests []string `json:"tests"`
}

// clauseVector is a vector file of testdata/ and the rows of it, named by
// their 情境, that pin the clause; no rows: the whole file.
type clauseVector struct {
	File string   `json:"file"`
	Rows []string `json:"rows,omitempty"`
}

// The specs of the matrix: id prefix, title as CLAUSES.md gives it.
var clauseSpecs = []struct{ name, prefix, title string }{
	{"queue-0.1.0", "Q", "消息队列 0.1.0"},
	{"inbound-0.8.0", "I", "网页入站 0.8.0"},
}

// clauseKinds: the kinds a clause may have, and whether it needs a home.
var clauseKinds = map[string]bool{
	"rule": true, "limit": true, "message": true, "row": true,
	"boundary": false, "informative": false,
}

func loadClauses(t *testing.T) []clause {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "clauses.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var cs []clause
	if err := dec.Decode(&cs); err != nil {
		t.Fatalf("testdata/clauses.json: %v", err)
	}
	return cs
}

// sourceIndex is what the checker knows of the sources: every top-level
// name declared in each file of the root package (functions, Type.Method,
// types, vars, consts), and the text (doc comment and body) of every test,
// fuzz test, example and benchmark of the root package's _test.go files
// and, prefixed "natsqueue/", of natsqueue's.
type sourceIndex struct {
	decls map[string]map[string]bool // file → names
	tests map[string]string          // test name → its doc comment and body
}

func indexSources(t *testing.T) sourceIndex {
	t.Helper()
	ix := sourceIndex{decls: map[string]map[string]bool{}, tests: map[string]string{}}
	for _, dir := range []string{".", "natsqueue"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if dir == "natsqueue" && !strings.HasSuffix(path, "_test.go") {
				continue
			}
			ix.add(t, dir, path)
		}
	}
	return ix
}

// add parses one file (whatever its build tags) into the index.
func (ix sourceIndex) add(t *testing.T, dir, path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := goparser.ParseFile(fset, path, src, goparser.ParseComments|goparser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	if dir == "." {
		ix.decls[filepath.Base(path)] = names
	}
	text := func(from, to token.Pos) string {
		return string(src[fset.Position(from).Offset:fset.Position(to).Offset])
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			names[funcName(d)] = true
			if d.Recv == nil && strings.HasSuffix(path, "_test.go") && isTestName(d.Name.Name) {
				key := d.Name.Name
				if dir != "." {
					key = dir + "/" + key
				}
				from := d.Pos()
				if d.Doc != nil {
					from = d.Doc.Pos()
				}
				ix.tests[key] = text(from, d.End())
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
}

// funcName is a function's name, or Type.Method for a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	typ := d.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + d.Name.Name
		}
		return d.Name.Name
	}
}

func isTestName(name string) bool {
	for _, p := range []string{"Test", "Fuzz", "Example", "Benchmark"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// vectorRows returns every 情境 in a vector file (at any depth), and
// whether the file exists.
func vectorRows(t *testing.T, cache map[string]map[string]bool, file string) (map[string]bool, bool) {
	if rows, ok := cache[file]; ok {
		return rows, rows != nil
	}
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		cache[file] = nil
		return nil, false
	}
	rows := map[string]bool{}
	if strings.HasSuffix(file, ".json") {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("testdata/%s: %v", file, err)
		}
		collectRows(v, rows)
	}
	cache[file] = rows
	return rows, true
}

func collectRows(v any, rows map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "情境" {
				rows[s] = true
			}
			collectRows(x, rows)
		}
	case []any:
		for _, x := range v {
			collectRows(x, rows)
		}
	}
}

// TestClauses checks the clause matrix: ids unique and consecutive per
// spec, each clause of kind rule, limit, message or row with a home and a
// test, boundary and informative clauses without a home only with a note,
// every home, test and vector row named existing, every test named
// mentioning the clause's id as a whole word; and the other way round,
// every id of a test's Pins comment listing that test, and every row of the
// spec's tables (specTables) cited by a clause of kind row.
func TestClauses(t *testing.T) {
	cs := loadClauses(t)
	ix := indexSources(t)
	next := map[string]int{}
	seen := map[string]bool{}
	rows := map[string]map[string]bool{}
	for _, c := range cs {
		checkClauseID(t, c, next, seen)
		for _, msg := range slices.Concat(clauseProblems(t, c, ix, rows), roleProblems(c), proofProblems(t, c)) {
			t.Errorf("%s: %s", c.ID, msg)
		}
	}
	if len(cs) == 0 {
		t.Fatal("testdata/clauses.json has no clause")
	}
	checkPinsListed(t, cs, ix)
	checkTableRowsCited(t, cs, rows)
}

// pinsRE finds a test's Pins comment (its first line and the indented
// lines that continue it); idRE the clause ids in it.
var (
	pinsRE = regexp.MustCompile(`// Pins ([^\n]*)((?:\n\s*//   [^\n]*)*)`)
	idsRE  = regexp.MustCompile(`\b[QI][0-9]+\b`)
)

// checkPinsListed: every id a test's Pins comment names is a clause that
// lists the test, so no citation outlives its clause.
func checkPinsListed(t *testing.T, cs []clause, ix sourceIndex) {
	t.Helper()
	byID := map[string]clause{}
	for _, c := range cs {
		byID[c.ID] = c
	}
	for name, src := range ix.tests {
		for _, m := range pinsRE.FindAllString(src, -1) {
			for _, id := range idsRE.FindAllString(m, -1) {
				c, ok := byID[id]
				switch {
				case !ok:
					t.Errorf("%s pins %s, which testdata/clauses.json does not have", name, id)
				case !slices.Contains(c.Tests, name):
					t.Errorf("%s pins %s, but %s does not list %s in its tests", name, id, id, name)
				}
			}
		}
	}
}

// specTables are the vector files that hold the spec's own tables: each of
// their rows must be cited by a clause of kind row.
var specTables = []string{"queue-producer.json", "queue-consumer.json", "inbound-conformance.json"}

func checkTableRowsCited(t *testing.T, cs []clause, rows map[string]map[string]bool) {
	t.Helper()
	cited := map[string]bool{}
	for _, c := range cs {
		for _, v := range c.Vectors {
			for _, r := range v.Rows {
				if c.Kind == "row" {
					cited[v.File+"\x00"+r] = true
				}
			}
		}
	}
	for _, f := range specTables {
		have, _ := vectorRows(t, rows, f)
		for r := range have {
			if !cited[f+"\x00"+r] {
				t.Errorf("testdata/%s: the spec's row %q is cited by no clause of kind row", f, r)
			}
		}
	}
}

// checkClauseID: the spec is known and the id is its next one.
func checkClauseID(t *testing.T, c clause, next map[string]int, seen map[string]bool) {
	t.Helper()
	if seen[c.ID] {
		t.Errorf("%s: id used twice", c.ID)
	}
	seen[c.ID] = true
	i := slices.IndexFunc(clauseSpecs, func(s struct{ name, prefix, title string }) bool { return s.name == c.Spec })
	if i < 0 {
		t.Errorf("%s: spec %q is none of queue-0.1.0, inbound-0.8.0", c.ID, c.Spec)
		return
	}
	next[c.Spec]++
	if want := clauseSpecs[i].prefix + strconv.Itoa(next[c.Spec]); c.ID != want {
		t.Errorf("%s: not consecutive: clause %d of %s must be %s", c.ID, next[c.Spec], c.Spec, want)
		next[c.Spec], _ = strconv.Atoi(strings.TrimPrefix(c.ID, clauseSpecs[i].prefix))
	}
}

// clauseProblems lists what is wrong with one clause's kind, home, tests
// and vectors.
func clauseProblems(t *testing.T, c clause, ix sourceIndex, rows map[string]map[string]bool) []string {
	var bad []string
	needsHome, ok := clauseKinds[c.Kind]
	switch {
	case !ok:
		bad = append(bad, fmt.Sprintf("kind %q is none of rule, limit, message, row, boundary, informative", c.Kind))
	case c.Text == "" || c.Section == "":
		bad = append(bad, "no text or no section")
	case needsHome && len(c.Home) == 0:
		bad = append(bad, "a "+c.Kind+" clause has no home (the function that enforces it)")
	case needsHome && len(c.Tests) == 0:
		bad = append(bad, "a "+c.Kind+" clause has no test that pins it")
	case len(c.Home) == 0 && c.Note == "":
		bad = append(bad, "a "+c.Kind+" clause without a home needs a note saying why")
	}
	for _, h := range c.Home {
		names, ok := ix.decls[h.File]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("home file %s is not a file of the root package", h.File))
		case !names[h.Func]:
			bad = append(bad, fmt.Sprintf("home %s: %s declares no %s", h.Func, h.File, h.Func))
		}
	}
	idRE := regexp.MustCompile(`\b` + regexp.QuoteMeta(c.ID) + `\b`)
	for _, name := range c.Tests {
		src, ok := ix.tests[name]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("test %s does not exist in the root package's _test.go files", name))
		case !idRE.MatchString(src):
			bad = append(bad, fmt.Sprintf("test %s does not mention %s (add it to the comment on the first line of its body: // Pins %s.)", name, c.ID, c.ID))
		}
	}
	for _, v := range c.Vectors {
		have, ok := vectorRows(t, rows, v.File)
		if !ok {
			bad = append(bad, fmt.Sprintf("vector file testdata/%s does not exist", v.File))
			continue
		}
		for _, r := range v.Rows {
			if !have[r] {
				bad = append(bad, fmt.Sprintf("vector testdata/%s has no row whose 情境 is %q", v.File, r))
			}
		}
	}
	return bad
}

// writeClauseCounts writes the number of clauses per spec and kind.
func writeClauseCounts(b *bytes.Buffer, cs []clause) {
	kinds := []string{"rule", "limit", "message", "row", "boundary", "informative"}
	b.WriteString("| spec | " + strings.Join(kinds, " | ") + " | all |\n|" + strings.Repeat(" --- |", len(kinds)+2) + "\n")
	for _, s := range clauseSpecs {
		n, all := map[string]int{}, 0
		for _, c := range cs {
			if c.Spec == s.name {
				n[c.Kind]++
				all++
			}
		}
		b.WriteString("| " + s.title)
		for _, k := range kinds {
			fmt.Fprintf(b, " | %d", n[k])
		}
		fmt.Fprintf(b, " | %d |\n", all)
	}
}
