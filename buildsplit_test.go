package hostbridge

import (
	"go/ast"
	gobuild "go/build"
	"go/importer"
	goparser "go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

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
	conf := types.Config{Importer: importer.Default(), Error: func(err error) {
		if n++; n <= 10 {
			t.Errorf("%s: %v", what, err)
		}
	}}
	conf.Check("hostbridge", fset, parsed, nil)
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
