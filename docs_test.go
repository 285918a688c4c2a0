package hostbridge

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	gobuild "go/build"
	"go/doc"
	"go/importer"
	goparser "go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Checks on the repository itself rather than on the package's behaviour:
// the decisions numbered and each pinned by a test, the two builds' files
// (the reference build compiles no fast-path file), README.md's Getting
// started built and tested as printed, exported constants explained in
// English, the exported docs as go doc shows them, and the module's
// imports; then the clause matrix: testdata/clauses.json against the
// specs, the source and its tags, and CLAUSES.md.

// decisionItem is how doc.go states a decision: a list item "  - D<n> …".
var decisionItem = regexp.MustCompile(`(?m)^//   - D([0-9]+) `)

// decisionHeading is how DECISIONS.md gives its reason: "## D<n> — title".
var decisionHeading = regexp.MustCompile(`(?m)^## D([0-9]+) — \S`)

// ids returns the numbers re's first group matches in text, in order.
func ids(re *regexp.Regexp, text string) []int {
	var out []int
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// testSources returns the text of every _test.go file of the package, of
// natsqueue (whose fault tests pin what durable platforms keep) and of
// cmd/conform (whose tests pin how other hosts are scored). This
// file's checkers name no decision, so only its tests' citations count.
func testSources(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, pattern := range []string{"*_test.go", filepath.Join("natsqueue", "*_test.go"), filepath.Join("cmd", "conform", "*_test.go")} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(src)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestDecisionsNumbered checks the numbering of the decisions: doc.go's
// are numbered from 1 without gap or repeat; every heading of
// DECISIONS.md names one of them, once; and each is named, as a whole
// word, by some test.
func TestDecisionsNumbered(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	decided := ids(decisionItem, string(doc))
	if len(decided) == 0 {
		t.Fatal("doc.go states no decision")
	}
	for i, n := range decided {
		if n != i+1 {
			t.Fatalf("doc.go's decision %d is numbered D%d", i+1, n)
		}
	}
	reasons, err := os.ReadFile("DECISIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, n := range ids(decisionHeading, string(reasons)) {
		if n < 1 || n > len(decided) {
			t.Errorf("DECISIONS.md gives a reason for D%d, which doc.go does not state", n)
		}
		if seen[n] {
			t.Errorf("DECISIONS.md has two headings for D%d", n)
		}
		seen[n] = true
	}
	tests := testSources(t)
	for _, n := range decided {
		id := regexp.MustCompile(`\bD` + strconv.Itoa(n) + `\b`)
		if !id.MatchString(tests) {
			t.Errorf("no test names D%d", n)
		}
	}
}

// refTag is the build tag of the reference build.
const refTag = "hostbridge_ref"

// packageFiles returns the root package's files (and its test files) in
// the build with tags.
func packageFiles(t *testing.T, tags ...string) (files, tests []string) {
	t.Helper()
	ctx := gobuild.Default
	ctx.BuildTags = tags
	bp, err := ctx.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	return bp.GoFiles, append(bp.TestGoFiles, bp.XTestGoFiles...)
}

// isFastFile reports whether a file's name says it is the fast path's
// (canon_fast*.go, its tests canon_fast*_test.go).
func isFastFile(name string) bool {
	return strings.HasPrefix(name, "canon_fast")
}

// TestReferenceBuildFiles: built with -tags hostbridge_ref the package
// compiles no fast-path file, and the names say which build a file is in:
// a file only the default build compiles starts with canon_fast (as its
// tests, canon_fast*_test.go, do), a file only the reference build compiles
// starts with canon_ref.
func TestReferenceBuildFiles(t *testing.T) {
	defFiles, defTests := packageFiles(t)
	refFiles, refTests := packageFiles(t, refTag)
	inDefault, inRef := map[string]bool{}, map[string]bool{}
	for _, f := range append(defFiles, defTests...) {
		inDefault[f] = true
	}
	for _, f := range append(refFiles, refTests...) {
		inRef[f] = true
		if isFastFile(f) {
			t.Errorf("the reference build compiles %s, a fast-path file", f)
		}
		if !inDefault[f] && !strings.HasPrefix(f, "canon_ref") {
			t.Errorf("%s is compiled only in the reference build, and its name does not start with canon_ref", f)
		}
	}
	for f := range inDefault {
		if !inRef[f] && !isFastFile(f) {
			t.Errorf("%s is left out of the reference build, and its name does not say it is the fast path's (canon_fast*.go)", f)
		}
		if inRef[f] && isFastFile(f) {
			t.Errorf("%s is named as the fast path's but is in both builds", f)
		}
	}
	for _, want := range []string{"canon_fast.go", "canon_fast_number.go", "canon_fast_string.go", "canon_fast_batch.go", "canon_fast_select.go"} {
		if !inDefault[want] {
			t.Errorf("the default build lacks %s", want)
		}
	}
}

// canonicaliserFiles are the files an auditor of the reference
// canonicaliser reads: it needs nothing else.
var canonicaliserFiles = []string{"canon.go", "canon_ref.go", "canon_ref_number.go", "canon_ref_string.go", "errors.go"}

// TestReferenceBuildTypeChecks: the files the reference build compiles
// type-check on their own, so the reference needs nothing from a fast-path
// file (the default build's tests would not notice otherwise); and the
// reference canonicaliser's files type-check alone.
func TestReferenceBuildTypeChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package against the standard library's export data")
	}
	files, _ := packageFiles(t, refTag)
	typeCheck(t, "reference build", files)
	typeCheck(t, "reference canonicaliser", canonicaliserFiles)
}

// typeCheck reports the type errors of the package made of files alone.
func typeCheck(t *testing.T, what string, files []string) {
	t.Helper()
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range files {
		f, err := goparser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
	}
	n := 0
	conf := types.Config{Importer: moduleImporter{fset, importer.Default()}, Error: func(err error) {
		if n++; n <= 10 {
			t.Errorf("%s: %v", what, err)
		}
	}}
	conf.Check("hostbridge", fset, parsed, nil)
}

// moduleImporter imports the standard library from its export data, and
// the module's own packages (internal/conformhook, which imports nothing)
// by type-checking their source.
type moduleImporter struct {
	fset *token.FileSet
	std  types.Importer
}

func (m moduleImporter) Import(path string) (*types.Package, error) {
	dir, ok := strings.CutPrefix(path, "hostbridge/")
	if !ok {
		return m.std.Import(path)
	}
	bp, err := gobuild.Default.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := goparser.ParseFile(m.fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: m}
	return conf.Check(path, m.fset, files, nil)
}

// TestStandardLibraryOnly pins D2: go.mod has no require, and no file of
// the package (tests aside) imports a package outside the standard library,
// unsafe or os, or starts a goroutine.
func TestStandardLibraryOnly(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "require") {
			t.Errorf("go.mod: %q", line)
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, goparser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") || path == "unsafe" || path == "os" {
				t.Errorf("%s imports %s", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s: a go statement at %s", name, fset.Position(g.Pos()))
			}
			return true
		})
	}
}

// readmeFiles returns the fenced blocks of a Markdown text whose first line
// is "// file: NAME", by NAME, without that line.
func readmeFiles(md string) map[string]string {
	files := map[string]string{}
	in, first, name := false, false, ""
	var body []string
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			if in && name != "" {
				files[name] = strings.Join(body, "\n") + "\n"
			}
			in, first, name, body = !in, !in, "", nil
		case first:
			first = false
			if n, ok := strings.CutPrefix(line, "// file: "); ok {
				name = n
			}
		case name != "":
			body = append(body, line)
		}
	}
	return files
}

// TestReadmeGettingStarted writes README.md's Getting started files (the
// blocks marked "// file: NAME") into a scratch module that uses this
// checkout through its replace line, and runs go vet and go test there, so
// the page's code compiles and passes as printed.
func TestReadmeGettingStarted(t *testing.T) {
	if testing.Short() {
		t.Skip("shells out to the go command (go vet, go test on a scratch module); runs without -short, as CI does")
	}
	md, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	files := readmeFiles(string(md))
	for _, name := range []string{"go.mod", "main.go", "main_test.go"} {
		if files[name] == "" {
			t.Fatalf("README.md has no block starting // file: %s (have %d files)", name, len(files))
		}
	}
	checkout, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	replace := regexp.MustCompile(`(?m)^replace hostbridge => \.\./hostbridge$`)
	if !replace.MatchString(files["go.mod"]) {
		t.Fatalf("README's go.mod has no line replace hostbridge => ../hostbridge:\n%s", files["go.mod"])
	}
	files["go.mod"] = replace.ReplaceAllLiteralString(files["go.mod"], "replace hostbridge => "+checkout)
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in README's module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestExportedConstantsCommented: every exported constant of the package
// (either build) has a comment with English words beside it (its own, or
// its declaration's when it is declared alone), so go doc explains it to a
// reader without Chinese.
func TestExportedConstantsCommented(t *testing.T) {
	english := regexp.MustCompile(`[A-Za-z]{3,}`)
	for _, tags := range [][]string{nil, {"hostbridge_ref"}} {
		ctx := gobuild.Default
		ctx.BuildTags = tags
		bp, err := ctx.ImportDir(".", 0)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, name := range bp.GoFiles {
			f, err := goparser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, goparser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, s := range g.Specs {
					v := s.(*ast.ValueSpec)
					text := v.Doc.Text() + v.Comment.Text()
					if len(g.Specs) == 1 {
						text += g.Doc.Text()
					}
					for _, id := range v.Names {
						if id.IsExported() && !english.MatchString(text) {
							t.Errorf("%s: constant %s has no English comment", name, id.Name)
						}
					}
				}
			}
		}
	}
}

// TestExportedDocs holds what go doc shows to what a Go developer reads:
// every exported function and method has a doc comment that starts with its
// name, so that it opens with a sentence saying what it does; and no doc go
// doc shows (the package's, a declaration's, a field's or an interface
// method's) names an unexported camel-case identifier of the package, such
// as readBody or blockMin, which the reader cannot look up. It reads every
// non-test file, whatever its build tags.
func TestExportedDocs(t *testing.T) {
	unexported := map[string]bool{}
	for _, name := range declaredNames(packageDoc(t, doc.AllDecls)) {
		if !ast.IsExported(name) {
			unexported[name] = true
		}
	}
	camel := regexp.MustCompile(`\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b`)
	check := func(what, text string) {
		for _, w := range camel.FindAllString(text, -1) {
			if unexported[w] {
				t.Errorf("the doc of %s names %s, which go doc does not show", what, w)
			}
		}
	}
	p := packageDoc(t, 0)
	check("the package", p.Doc)
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			if !strings.HasPrefix(f.Doc, f.Name+" ") {
				t.Errorf("the doc of %s does not start with its name", f.Name)
			}
			check(f.Name, f.Doc)
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			check(v.Names[0], v.Doc)
			checkComments(v.Decl, v.Names[0], check)
		}
	}
	funcs(p.Funcs)
	values(p.Consts)
	values(p.Vars)
	for _, typ := range p.Types {
		check(typ.Name, typ.Doc)
		checkComments(typ.Decl, typ.Name, check)
		values(typ.Consts)
		values(typ.Vars)
		funcs(typ.Funcs)
		funcs(typ.Methods)
	}
}

// packageDoc returns the go doc of the package's non-test files, all of
// them whatever their build tags, with mode.
func packageDoc(t *testing.T, mode doc.Mode) *doc.Package {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(fset, name, nil, goparser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "hostbridge", mode)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// declaredNames returns every name p declares: constants, variables,
// functions, types and their methods.
func declaredNames(p *doc.Package) []string {
	var out []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			out = append(out, v.Names...)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			out = append(out, f.Name)
		}
	}
	values(p.Consts)
	values(p.Vars)
	funcs(p.Funcs)
	for _, typ := range p.Types {
		out = append(out, typ.Name)
		values(typ.Consts)
		values(typ.Vars)
		funcs(typ.Funcs)
		funcs(typ.Methods)
	}
	return out
}

// checkComments calls check with every comment inside decl (a field's, an
// interface method's, a constant's in a group), as go doc shows them.
func checkComments(decl *ast.GenDecl, what string, check func(what, text string)) {
	ast.Inspect(decl, func(n ast.Node) bool {
		if c, ok := n.(*ast.CommentGroup); ok {
			check(what, c.Text())
		}
		return true
	})
}

// The clause matrix: testdata/clauses.json numbers every normative
// statement of 消息队列 0.1.0 (Q1…) and 网页入站 0.8.0 (I1…), names the one
// function that enforces it and the tests and vector rows that pin it.
// TestClauses checks it against the sources on disk (so both builds see the
// same files) and TestClausesMarkdown keeps CLAUSES.md, its rendering, in
// step: `go test -run TestClausesMarkdown -update .` rewrites it.

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
// clause marks the enforcing statement in it (TestClauseTags). Role
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

// CLAUSES.md, the certification sheet: for each clause of
// testdata/clauses.json in the spec's order, the spec's words, the
// decisions of doc.go that refine it, the lines at its tags, its tests and
// vector rows, and its recorded mutants with what killed them
// (testdata/clauseproof/kills.json, written by internal/clauseproof).
// TestClausesMarkdown keeps it in step with all of these:
// `go test -run TestClausesMarkdown -update .` rewrites it.

// A decision is one item of doc.go's list: its text on one line and the
// clauses it cites (a range Q53–Q56 counts each).
type decision struct {
	text  string
	cites []string
}

// citeRE is a clause id or a range of them, as doc.go cites them.
var citeRE = regexp.MustCompile(`\b([QI])([0-9]+)(?:–[QI]?([0-9]+))?\b`)

// docDecisions reads doc.go's decisions: "//   - D7 text" and the lines
// indented under it.
func docDecisions(t *testing.T) map[string]decision {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	ds := map[string]decision{}
	id := ""
	for _, line := range strings.Split(string(src), "\n") {
		if m := decisionItem.FindStringSubmatchIndex(line); m != nil {
			id = "D" + line[m[2]:m[3]]
			ds[id] = decision{text: line[m[1]:]}
			continue
		}
		rest, ok := strings.CutPrefix(line, "//     ")
		if !ok || id == "" {
			id = ""
			continue
		}
		d := ds[id]
		d.text += " " + strings.TrimSpace(rest)
		ds[id] = d
	}
	for id, d := range ds {
		d.cites = citedClauses(d.text)
		ds[id] = d
	}
	return ds
}

// citedClauses returns the clause ids a decision's text cites.
func citedClauses(text string) []string {
	var ids []string
	for _, m := range citeRE.FindAllStringSubmatch(text, -1) {
		from, _ := strconv.Atoi(m[2])
		to := from
		if m[3] != "" {
			to, _ = strconv.Atoi(m[3])
		}
		for n := from; n <= to; n++ {
			ids = append(ids, m[1]+strconv.Itoa(n))
		}
	}
	return ids
}

// TestClauseDecisions: every decision a clause lists is one of doc.go's,
// and every clause a decision cites lists it.
func TestClauseDecisions(t *testing.T) {
	// Pins D1…: the decisions each clause rests on, as CLAUSES.md shows them.
	ds := docDecisions(t)
	for _, c := range loadClauses(t) {
		for _, d := range c.Decisions {
			if _, ok := ds[d]; !ok {
				t.Errorf("%s lists %s, which doc.go does not state", c.ID, d)
			}
		}
		for id, d := range ds {
			if slices.Contains(d.cites, c.ID) && !slices.Contains(c.Decisions, id) {
				t.Errorf("doc.go's %s cites %s, which does not list it in its decisions", id, c.ID)
			}
		}
	}
}

// A clauseKill is internal/clauseproof's record of one proof (its number
// from 0, file and old text) in one build: the named tests that failed.
type clauseKill struct {
	ID       string   `json:"id"`
	Proof    int      `json:"proof"`
	File     string   `json:"file"`
	Old      string   `json:"old"`
	Build    string   `json:"build"`
	KilledBy []string `json:"killedBy"`
}

// loadKills reads testdata/clauseproof/kills.json (none yet: no record).
func loadKills(t *testing.T) map[string][]clauseKill {
	t.Helper()
	data, err := os.ReadFile("testdata/clauseproof/kills.json")
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var ks []clauseKill
	if err := json.Unmarshal(data, &ks); err != nil {
		t.Fatalf("testdata/clauseproof/kills.json: %v", err)
	}
	byProof := map[string][]clauseKill{}
	for _, k := range ks {
		key := k.ID + "/" + strconv.Itoa(k.Proof)
		byProof[key] = append(byProof[key], k)
	}
	return byProof
}

// TestClausesMarkdown: CLAUSES.md is what renderClauses writes now; with
// -update it is rewritten.
func TestClausesMarkdown(t *testing.T) {
	// Pins CLAUSES.md to testdata/clauses.json and the source (no clause of a spec).
	tags, lines := sourceTags(t)
	sheet := clauseSheet{decisions: docDecisions(t), tags: tags, lines: lines, kills: loadKills(t)}
	want := sheet.render(loadClauses(t))
	if *updateClauses {
		if err := os.WriteFile("CLAUSES.md", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("CLAUSES.md")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("CLAUSES.md is not what testdata/clauses.json and the source give (%v): run go test -run TestClausesMarkdown -update .", err)
	}
}

// clauseSheet is what CLAUSES.md is made of besides the clauses.
type clauseSheet struct {
	decisions map[string]decision
	tags      []clauseTag
	lines     map[string][]string // file → its lines
	kills     map[string][]clauseKill
}

const sheetIntro = `# Certification sheet

<!-- Generated by docs_test.go from testdata/clauses.json, doc.go, the source and testdata/clauseproof/kills.json: edit those, then run ` + "`go test -run TestClausesMarkdown -update .`" + `. -->

Every normative statement of the two specs, in the spec's order: ` + "`Q1…`" + ` for 消息队列 0.1.0, ` + "`I1…`" + ` for 网页入站 0.8.0. For each clause: the spec's own words (a compound sentence split into one checkable statement each); the decisions of doc.go that refine it, with their text; where it is enforced (its home, a function of the root package, and the lines at the tag comment ` + "`// Q36`" + ` that marks the enforcing statement, quoted from the source); the tests and vector rows (files of testdata/, rows by their 情境) that pin it; and the mutants recorded for it: a change of the home that the named tests must notice, with the tests that failed when CI last applied it.

**Build.** The sheet describes the package as ` + "`go test .`" + ` builds it (the default build) and, where a line says so, as ` + "`go test -tags hostbridge_ref .`" + ` builds it (the reference build). Canonical JSON is homed in the reference (canon_ref*.go), the normative canonicaliser: in the default build the package runs the fast path (canon_fast*.go) instead, held equal to the reference by FuzzReference and a seeded corpus, so a mutant of the reference is proved in the reference build ("ref") or by a test that calls the reference directly. A mutant's build is where its tests ran: default, ref, or both.

**Checks.** ` + "`go test -run 'TestClause' .`" + ` checks every name, tag, decision and excerpt here against the source; ` + "`go run ./internal/clauseproof`" + ` (in CI) applies every recorded mutant and fails when its tests all pass, or when the result differs from the one shown here.

Kinds: *rule*; *limit*; *message* (an exception text); *row* (a row of a spec table); *boundary* (what the package does not do); *informative* (reasons, advice to apps). A boundary or informative clause may have no home; its note says why.

`

// render writes CLAUSES.md.
func (s clauseSheet) render(cs []clause) []byte {
	var b bytes.Buffer
	b.WriteString(sheetIntro)
	writeClauseCounts(&b, cs)
	s.writeProofCounts(&b, cs)
	for _, sp := range clauseSpecs {
		fmt.Fprintf(&b, "\n## %s\n", sp.title)
		section := ""
		for _, c := range cs {
			if c.Spec != sp.name {
				continue
			}
			if c.Section != section {
				section = c.Section
				fmt.Fprintf(&b, "\n### %s\n", section)
			}
			s.writeClause(&b, c)
		}
	}
	return b.Bytes()
}

// writeProofCounts writes how many clauses have a mutant, and how many of
// those CI's last run killed.
func (s clauseSheet) writeProofCounts(b *bytes.Buffer, cs []clause) {
	checkable, proved, killed := 0, 0, 0
	for _, c := range cs {
		if clauseKinds[c.Kind] {
			checkable++
		}
		if len(c.Proofs) == 0 {
			continue
		}
		proved++
		if s.allKilled(c) {
			killed++
		}
	}
	fmt.Fprintf(b, "\n%d clauses of kind rule, limit, message or row; %d clauses have a recorded mutant, every mutant of %d of them killed in its build(s).\n", checkable, proved, killed)
}

// allKilled reports whether every proof of c has a record in each of its
// builds and was killed there.
func (s clauseSheet) allKilled(c clause) bool {
	for i, p := range c.Proofs {
		ks := s.killsOf(c.ID, i, p)
		if len(ks) != len(proofBuilds(p.Build)) {
			return false
		}
		for _, k := range ks {
			if len(k.KilledBy) == 0 {
				return false
			}
		}
	}
	return true
}

// killsOf returns the records of a clause's proof i, p: none when the
// record is of another mutant (the proofs changed since CI's last run).
func (s clauseSheet) killsOf(id string, i int, p clauseProof) []clauseKill {
	var ks []clauseKill
	for _, k := range s.kills[id+"/"+strconv.Itoa(i)] {
		if k.File == p.File && k.Old == p.Old {
			ks = append(ks, k)
		}
	}
	return ks
}

// proofBuilds are the builds a proof's build names.
func proofBuilds(build string) []string {
	if build == "both" {
		return []string{"default", "ref"}
	}
	return []string{build}
}

// writeClause writes one clause's entry.
func (s clauseSheet) writeClause(b *bytes.Buffer, c clause) {
	fmt.Fprintf(b, "\n#### %s · %s\n\n%s\n", c.ID, c.Kind, quote(c.Text))
	if c.Note != "" {
		fmt.Fprintf(b, "\n*%s*\n", c.Note)
	}
	if len(c.Decisions) > 0 {
		b.WriteString("\nDecisions:\n\n")
		for _, d := range c.Decisions {
			fmt.Fprintf(b, "- **%s** %s\n", d, s.decisions[d].text)
		}
	}
	for _, h := range c.Home {
		s.writeHome(b, c.ID, h)
	}
	if pins := clausePins(c); pins != "" {
		fmt.Fprintf(b, "\nPinned by %s\n", pins)
	}
	for i, p := range c.Proofs {
		s.writeProof(b, c.ID, i, p)
	}
	if len(c.Proofs) == 0 && clauseKinds[c.Kind] {
		b.WriteString("\nNo mutant recorded yet.\n")
	}
}

// quote writes the spec's words as a block quote.
func quote(text string) string {
	return "> " + strings.ReplaceAll(text, "\n", "\n> ")
}

// writeHome writes a home and the lines at each of its tags naming id.
func (s clauseSheet) writeHome(b *bytes.Buffer, id string, h clauseHome) {
	what := "Enforced in"
	if h.Role == "message" {
		what = "Its text attached in"
	}
	fmt.Fprintf(b, "\n%s %s `%s`%s", what, h.File, h.Func, buildOnly(s.lines[h.File]))
	n := 0
	for _, g := range s.tags {
		if g.file == h.File && g.decl == h.Func && slices.Contains(g.ids, id) {
			if n == 0 {
				b.WriteString(":\n")
			}
			n++
			fmt.Fprintf(b, "\n```go\n%s```\n", excerpt(s.lines[g.file], g.line))
		}
	}
	if n == 0 {
		b.WriteString(" (no tag yet).\n")
	}
}

// buildOnly says which build alone compiles a file, from its //go:build
// line ("" for both).
func buildOnly(lines []string) string {
	for _, l := range lines {
		switch l {
		case "//go:build !hostbridge_ref":
			return " (default build only)"
		case "//go:build hostbridge_ref":
			return " (reference build only)"
		case "package hostbridge":
			return ""
		}
	}
	return ""
}

// excerpt returns the lines around a tag on line n (1-based): the line
// before it (unless blank or a lone brace) to the second after it, without
// their common indentation.
func excerpt(lines []string, n int) string {
	from, to := max(n-2, 0), min(n+2, len(lines))
	if t := strings.TrimSpace(lines[from]); from < n-1 && (t == "" || t == "}" || t == "{") {
		from++
	}
	ex := slices.Clone(lines[from:to])
	indent := -1
	for _, l := range ex {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if w := len(l) - len(strings.TrimLeft(l, "\t")); indent < 0 || w < indent {
			indent = w
		}
	}
	var out strings.Builder
	for _, l := range ex {
		out.WriteString(strings.TrimPrefix(l, strings.Repeat("\t", max(indent, 0))) + "\n")
	}
	return out.String()
}

// clausePins writes a clause's tests and vector rows.
func clausePins(c clause) string {
	var ps []string
	if len(c.Tests) > 0 {
		ps = append(ps, strings.Join(c.Tests, ", "))
	}
	for _, v := range c.Vectors {
		p := "testdata/" + v.File
		if len(v.Rows) > 0 {
			p += " «" + strings.Join(v.Rows, "», «") + "»"
		}
		ps = append(ps, p)
	}
	return strings.Join(ps, "; ")
}

// writeProof writes one recorded mutant and what killed it.
func (s clauseSheet) writeProof(b *bytes.Buffer, id string, i int, p clauseProof) {
	fmt.Fprintf(b, "\nMutant %d, in %s (%s build", i+1, p.File, p.Build)
	if p.Build == "both" {
		b.WriteString("s")
	}
	fmt.Fprintf(b, "), must fail %s:\n\n```diff\n%s%s```\n\n", strings.Join(p.Tests, " or "), diffLines("-", p.Old), diffLines("+", p.New))
	ks := s.killsOf(id, i, p)
	if len(ks) == 0 {
		b.WriteString("Not yet run by CI.\n")
		return
	}
	var fates []string
	for _, k := range ks {
		f := "survived"
		if len(k.KilledBy) > 0 {
			f = "killed by " + strings.Join(k.KilledBy, ", ")
		}
		fates = append(fates, fmt.Sprintf("%s in the %s build", f, k.Build))
	}
	fmt.Fprintf(b, "Result: %s.\n", strings.Join(fates, "; "))
}

// diffLines prefixes each line of text with sign.
func diffLines(sign, text string) string {
	var out strings.Builder
	for _, l := range strings.Split(text, "\n") {
		out.WriteString(sign + " " + l + "\n")
	}
	return out.String()
}

// Clause tags: a home of a clause names a function (or a declared name),
// and a tag comment in it marks the enforcing statement: a line comment
// whose whole text is clause ids (`// Q36` or `// Q36 Q16`), trailing the
// statement or on the line just above it. TestClauseTags holds the tags
// and the homes of testdata/clauses.json to each other; CLAUSES.md
// excerpts the lines at each tag. proofProblems (called by TestClauses)
// checks what a clause's recorded mutants name.

// tagRE is a clause tag: the comment's whole text is clause ids.
var tagRE = regexp.MustCompile(`^//\s*([QI][0-9]+(?:[ ,]+[QI][0-9]+)*)\s*$`)

// A clauseTag is one tag comment: its file, the declaration it is in (a
// function or Type.Method, or a constant, variable or type), its line and
// the ids it names.
type clauseTag struct {
	file, decl string
	line       int
	ids        []string
}

// sourceTags returns every tag of the root package's non-test files (every
// build), and each file's lines.
func sourceTags(t *testing.T) ([]clauseTag, map[string][]string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var tags []clauseTag
	lines := map[string][]string{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines[path] = strings.Split(string(src), "\n")
		fset := token.NewFileSet()
		f, err := goparser.ParseFile(fset, path, src, goparser.ParseComments|goparser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				m := tagRE.FindStringSubmatch(c.Text)
				if m == nil {
					continue
				}
				line := fset.Position(c.Pos()).Line
				tags = append(tags, clauseTag{path, declAt(fset, f, c.Pos(), line), line, idsRE.FindAllString(m[1], -1)})
			}
		}
	}
	return tags, lines
}

// declAt is the name of the declaration a tag at pos (on line) is in: the
// function whose body holds it (or whose closing brace it trails), or the constant, variable or type whose
// lines it trails or stands just above; "" for none.
func declAt(fset *token.FileSet, f *ast.File, pos token.Pos, line int) string {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			// In the body, or trailing its closing brace (a one-line function).
			if d.Body.Lbrace < pos && (pos < d.Body.Rbrace || fset.Position(d.Body.Rbrace).Line == line) {
				return funcName(d)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				from, to := fset.Position(s.Pos()).Line, fset.Position(s.End()).Line
				if line < from-1 || line > to {
					continue
				}
				switch s := s.(type) {
				case *ast.ValueSpec:
					return s.Names[0].Name
				case *ast.TypeSpec:
					return s.Name.Name
				}
			}
		}
	}
	return ""
}

// TestClauseTags: every home of a clause holds a tag naming the clause,
// and every tag names clauses that have its function among their homes.
func TestClauseTags(t *testing.T) {
	// Pins the clause matrix's homes to the source (no clause of a spec).
	cs := loadClauses(t)
	tags, _ := sourceTags(t)
	for _, msg := range tagProblems(cs, tags) {
		t.Error(msg)
	}
}

// tagProblems lists the homes without a tag and the tags outside their
// clauses' homes.
func tagProblems(cs []clause, tags []clauseTag) []string {
	byID := map[string]clause{}
	for _, c := range cs {
		byID[c.ID] = c
	}
	var bad []string
	for _, c := range cs {
		for _, h := range c.Home {
			if !slices.ContainsFunc(tags, func(g clauseTag) bool {
				return g.file == h.File && g.decl == h.Func && slices.Contains(g.ids, c.ID)
			}) {
				bad = append(bad, c.ID+": home "+h.File+" "+h.Func+" has no tag // "+c.ID+" at its enforcing statement")
			}
		}
	}
	for _, g := range tags {
		where := g.file + ":" + strconv.Itoa(g.line)
		for _, id := range g.ids {
			c, ok := byID[id]
			switch {
			case !ok:
				bad = append(bad, where+": the tag names "+id+", which testdata/clauses.json does not have")
			case !slices.ContainsFunc(c.Home, func(h clauseHome) bool { return h.File == g.file && h.Func == g.decl }):
				bad = append(bad, where+": the tag "+id+" is in "+cmp.Or(g.decl, "no declaration")+", which is not a home of "+id)
			}
		}
	}
	return bad
}

// proofProblems lists what is wrong with a clause's recorded mutants, as
// far as the sources show it without a build (internal/clauseproof
// applies them): a rule, limit, message or row has one at least; each is
// in a file of the clause's homes, its old text occurs there once, its
// build is known and its tests are the clause's.
func proofProblems(t *testing.T, c clause) []string {
	t.Helper()
	var bad []string
	if clauseKinds[c.Kind] && len(c.Proofs) == 0 {
		bad = append(bad, "a "+c.Kind+" clause has no recorded mutant (proofs)")
	}
	for i, p := range c.Proofs {
		name := "proof " + strconv.Itoa(i+1)
		src, err := os.ReadFile(p.File)
		switch {
		case !slices.ContainsFunc(c.Home, func(h clauseHome) bool { return h.File == p.File }):
			bad = append(bad, name+": "+p.File+" is not a file of the clause's homes")
		case err != nil:
			bad = append(bad, name+": "+err.Error())
		case strings.Count(string(src), p.Old) != 1 || p.Old == "":
			bad = append(bad, name+": its old text does not occur exactly once in "+p.File+": "+strconv.Quote(p.Old))
		case p.Build != "default" && p.Build != "ref" && p.Build != "both":
			bad = append(bad, name+": build "+strconv.Quote(p.Build)+" is none of default, ref, both")
		case len(p.Tests) == 0:
			bad = append(bad, name+": names no test")
		}
		for _, test := range p.Tests {
			if !slices.Contains(c.Tests, test) {
				bad = append(bad, name+": "+test+" is not one of the clause's tests")
			}
		}
	}
	return bad
}

// roleProblems: a home's role is "" (the rule is judged there) or
// "message" (a place that attaches the clause's message text); every home
// of a message clause is of the second kind, so that a rule judged
// elsewhere (a predicate) is another clause's home.
func roleProblems(c clause) []string {
	var bad []string
	for _, h := range c.Home {
		switch {
		case h.Role != "" && h.Role != "message":
			bad = append(bad, "home "+h.Func+": role "+strconv.Quote(h.Role)+" is neither \"\" nor \"message\"")
		case c.Kind == "message" && h.Role != "message":
			bad = append(bad, "home "+h.Func+": a message clause's home is where its text is attached (role \"message\")")
		}
	}
	return bad
}
