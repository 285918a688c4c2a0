package main

import (
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
)

// A checked package is the package of the working directory parsed and
// type-checked in one build (its tags), for the operators that need types:
// an identifier or field swapped for another of the same type, a literal
// bound moved where its type allows a switch at run time.
type checked struct {
	fset  *token.FileSet
	files map[string]*ast.File // by base name
	info  *types.Info
	pkg   *types.Package
}

// checkPackage type-checks the package in the working directory in the
// build with tags (comma-separated). It returns nil when the package does
// not load or check (the typed operators are then not applied).
func checkPackage(tags string) *checked {
	ctx := build.Default
	if tags != "" {
		ctx.BuildTags = strings.Split(tags, ",")
	}
	bp, err := ctx.ImportDir(".", 0)
	if err != nil {
		return nil
	}
	c := &checked{fset: token.NewFileSet(), files: map[string]*ast.File{}, info: &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
	}}
	var list []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(c.fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		c.files[filepath.Base(name)] = f
		list = append(list, f)
	}
	conf := types.Config{Importer: importer.Default()}
	if c.pkg, err = conf.Check(bp.ImportPath, c.fset, list, c.info); err != nil {
		return nil
	}
	return c
}

// checkedCache holds one checked package per build.
var checkedCache = map[string]*checked{}

func checkedFor(tags string) *checked {
	c, ok := checkedCache[tags]
	if !ok {
		c = checkPackage(tags)
		checkedCache[tags] = c
	}
	return c
}

// scopeStarts maps each local variable of f to where its scope begins: the
// end of the statement or spec that declares it (Go's rule), so that a
// substitute is never named before it is declared.
func scopeStarts(f *ast.File, info *types.Info) map[types.Object]token.Pos {
	starts := map[types.Object]token.Pos{}
	mark := func(ids []ast.Expr, end token.Pos) {
		for _, e := range ids {
			if id, ok := e.(*ast.Ident); ok && info.Defs[id] != nil {
				starts[info.Defs[id]] = end
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				mark(n.Lhs, n.End())
			}
		case *ast.ValueSpec:
			ids := make([]ast.Expr, len(n.Names))
			for i, id := range n.Names {
				ids[i] = id
			}
			mark(ids, n.End())
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				mark([]ast.Expr{n.Key, n.Value}, n.X.End())
			}
		}
		return true
	})
	return starts
}

// file returns the checked syntax of file (nil c, or a file not in its
// build: none).
func (c *checked) file(name string) (*ast.File, bool) {
	if c == nil {
		return nil, false
	}
	f, ok := c.files[filepath.Base(name)]
	return f, ok
}

// definedIdents are the identifiers on the left of := in f (a redeclared
// one is a use that cannot be replaced by an expression).
func definedIdents(f *ast.File) map[*ast.Ident]bool {
	def := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				lhs = n.Lhs
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				lhs = []ast.Expr{n.Key, n.Value}
			}
		}
		for _, e := range lhs {
			if id, ok := e.(*ast.Ident); ok {
				def[id] = true
			}
		}
		return true
	})
	return def
}
