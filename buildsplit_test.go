package hostbridge

import (
	"go/ast"
	gobuild "go/build"
	"go/importer"
	goparser "go/parser"
	"go/token"
	"go/types"
	"path/filepath"
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

// isFastFile reports whether a file's name says it is the fast path's.
func isFastFile(name string) bool {
	return strings.HasSuffix(name, "_fast.go") || strings.HasSuffix(name, "_fast_test.go")
}

// TestReferenceBuildFiles: built with -tags hostbridge_ref the package
// compiles no fast-path file, and the names say which build a file is in:
// a file only the default build compiles is named *_fast.go (or
// *_fast_test.go), a file only the reference build compiles starts with
// canonref.
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
		if !inDefault[f] && !strings.HasPrefix(f, "canonref") {
			t.Errorf("%s is compiled only in the reference build, and its name does not start with canonref", f)
		}
	}
	for f := range inDefault {
		if !inRef[f] && !isFastFile(f) {
			t.Errorf("%s is left out of the reference build, and its name does not say it is the fast path's (*_fast.go)", f)
		}
		if inRef[f] && isFastFile(f) {
			t.Errorf("%s is named as the fast path's but is in both builds", f)
		}
	}
	for _, want := range []string{"canon_fast.go", "number_fast.go", "jsonstring_fast.go", "batch_fast.go", "select_fast.go"} {
		if !inDefault[want] {
			t.Errorf("the default build lacks %s", want)
		}
	}
}

// canonicaliserFiles are the files an auditor of the reference
// canonicaliser reads: it needs nothing else.
var canonicaliserFiles = []string{"canon.go", "canonref.go", "canonref_number.go", "canonref_string.go", "errors.go"}

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
