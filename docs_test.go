package hostbridge

import (
	"bufio"
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
	"strconv"
	"strings"
	"testing"
)

// Checks on the repository itself rather than on the package's behaviour:
// the decisions numbered and each pinned by a test, the two builds' files
// (the reference build compiles no fast-path file), README.md's Getting
// started built and tested as printed, exported constants explained in
// English, the exported docs as go doc shows them, and the module's
// imports. The clause matrix has its own checker, clauses_test.go.

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
