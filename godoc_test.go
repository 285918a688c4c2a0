package hostbridge

import (
	"go/ast"
	"go/doc"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

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
