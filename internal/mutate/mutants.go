package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"strconv"
	"strings"
)

// A mutant is one change to one file: src[start:end] replaced by repl.
type mutant struct {
	file       string
	start, end int
	repl       string
	// A schema mutant is built with all the others of its file, each
	// switched on at run time (see schema.go): a comparison, && or ||,
	// true or false, or a statement removed. The others (+ and -, whose
	// types only the compiler knows, and constants) are built one by one.
	schema, stmt bool
	wrap         wrapKind // how a schema mutant that is not a boolean switches
	// key names the mutant by file, function, the line's text and the
	// change, so that it survives edits elsewhere in the file:
	//   outcome.go Settle `case deliveries > s.MaxRetries:` > → >= #1
	key string
}

// The operators. Each changes one token or removes one statement:
//   - a comparison's boundary (< and <=, > and >=), == and != (not beside
//     nil), && and ||;
//   - + and - beside an integer literal (an offset, a count);
//   - true and false;
//   - a constant's first integer literal n becomes n+1, and n-1 when n > 0
//     (every limit);
//   - a statement of a block removed: a call, an assignment other than :=,
//     an increment or decrement;
//   - and the typed operators of ops.go.
var swaps = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL, token.LAND: token.LOR, token.LOR: token.LAND,
	token.ADD: token.SUB, token.SUB: token.ADD,
}

// mutantsOf returns the mutants of file, in source order; c (nil: none) is
// the checked package in the file's build, for the typed operators.
func mutantsOf(file string, c *checked) ([]mutant, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	g := gen{file: file, src: src, fset: fset, seen: map[string]int{}}
	if tf, ok := c.file(file); ok {
		f, g.fset, g.info, g.pkg, g.ast = tf, c.fset, c.info, c.pkg, tf
		g.starts, g.defined = scopeStarts(tf, c.info), definedIdents(tf)
	}
	for _, d := range f.Decls {
		g.fn = "(top)"
		if fd, ok := d.(*ast.FuncDecl); ok {
			g.fn = fd.Name.Name
		}
		ast.Inspect(d, g.visit)
	}
	return g.out, nil
}

// gen collects the mutants of one file.
type gen struct {
	file string
	src  []byte
	fset *token.FileSet
	fn   string // the declaration being walked
	seen map[string]int
	out  []mutant
	// For the typed operators (info nil: none): the file's checked syntax,
	// where each local variable's scope starts, and the identifiers on the
	// left of :=.
	info    *types.Info
	pkg     *types.Package
	ast     *ast.File
	starts  map[types.Object]token.Pos
	defined map[*ast.Ident]bool
}

func (g *gen) visit(n ast.Node) bool {
	g.typedVisit(n)
	switch n := n.(type) {
	case *ast.BinaryExpr:
		to, ok := swaps[n.Op]
		if ok && g.worth(n) {
			g.binary(n, to)
		}
	case *ast.Ident:
		if n.Name == "true" || n.Name == "false" {
			to := map[string]string{"true": "false", "false": "true"}[n.Name]
			m := g.add(n.Pos(), len(n.Name), to, n.Name+" → "+to)
			m.schema = true
		}
	case *ast.GenDecl:
		if n.Tok == token.CONST {
			g.constants(n)
			return false // a constant's expression cannot switch at run time
		}
	case *ast.BlockStmt:
		g.removals(n.List)
	case *ast.CaseClause:
		g.removals(n.Body)
	case *ast.CommClause:
		g.removals(n.Body)
	}
	return true
}

// worth reports whether the operator of n is worth changing: + and - only
// beside an integer literal (on strings they would not compile), == and !=
// not beside nil (an error check flipped is killed by any test that sees
// an error or none).
func (g *gen) worth(n *ast.BinaryExpr) bool {
	switch n.Op {
	case token.ADD, token.SUB:
		return isInt(n.X) || isInt(n.Y)
	case token.EQL, token.NEQ:
		return !isNil(n.X) && !isNil(n.Y)
	}
	return true
}

func isNil(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "nil"
}

func isInt(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.INT
}

// binary adds the change of n's operator to to: for + and -, of the
// operator alone; otherwise of the whole expression, as a schema mutant.
func (g *gen) binary(n *ast.BinaryExpr, to token.Token) {
	op := n.Op.String()
	m := g.add(n.OpPos, len(op), to.String(), op+" → "+to.String())
	if n.Op == token.ADD || n.Op == token.SUB {
		return
	}
	start, end := g.offset(n.Pos()), g.offset(n.End())
	m.repl = string(g.src[start:m.start]) + to.String() + string(g.src[m.end:end])
	m.start, m.end, m.schema = start, end, true
}

func (g *gen) offset(p token.Pos) int { return g.fset.Position(p).Offset }

// constants adds n+1 (and n-1 when n > 0) for the first integer literal of each constant's value.
func (g *gen) constants(d *ast.GenDecl) {
	for _, s := range d.Specs {
		for _, v := range s.(*ast.ValueSpec).Values {
			var lit *ast.BasicLit
			ast.Inspect(v, func(n ast.Node) bool {
				if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.INT && lit == nil {
					lit = l
				}
				return lit == nil
			})
			if lit == nil {
				continue
			}
			n, err := strconv.ParseInt(lit.Value, 0, 64)
			if err != nil {
				continue
			}
			to := strconv.FormatInt(n+1, 10)
			g.add(lit.Pos(), len(lit.Value), to, lit.Value+" → "+to)
			if n > 0 {
				to = strconv.FormatInt(n-1, 10)
				g.add(lit.Pos(), len(lit.Value), to, lit.Value+" → "+to)
			}
		}
	}
}

// removals adds the removal of each call, assignment (not :=), increment and
// decrement in list.
func (g *gen) removals(list []ast.Stmt) {
	for _, s := range list {
		switch s := s.(type) {
		case *ast.ExprStmt:
			c, ok := s.X.(*ast.CallExpr)
			if !ok {
				continue
			}
			if id, isIdent := c.Fun.(*ast.Ident); isIdent && id.Name == "panic" {
				continue // panic ends a function: without it, one may not compile
			}
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				continue
			}
		case *ast.IncDecStmt:
		default:
			continue
		}
		m := g.add(s.Pos(), g.offset(s.End())-g.offset(s.Pos()), "", "removed")
		m.schema, m.stmt = true, true
	}
}

// add records the mutant replacing size bytes at pos by repl, and returns it.
func (g *gen) add(pos token.Pos, size int, repl, change string) *mutant {
	p := g.fset.Position(pos)
	line := g.src[p.Offset-p.Column+1:]
	if i := strings.IndexByte(string(line), '\n'); i >= 0 {
		line = line[:i]
	}
	base := fmt.Sprintf("%s %s `%s` %s", g.file, g.fn, strings.TrimSpace(string(line)), change)
	g.seen[base]++
	g.out = append(g.out, mutant{
		file: g.file, start: p.Offset, end: p.Offset + size, repl: repl,
		key: fmt.Sprintf("%s #%d", base, g.seen[base]),
	})
	return &g.out[len(g.out)-1]
}
