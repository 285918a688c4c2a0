package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
)

// The typed operators (they need go/types; without a checked package only
// the untyped ones apply):
//   - an identifier of a variable replaced by another variable of the
//     function of identical type in scope there (innermost first, then by
//     name), and a field x.f by another field x.g of the same struct and
//     type (nearest in the struct first): at most maxSubstitutes each;
//   - a call replaced by its sibling (strings.Index and LastIndex, HasPrefix
//     and HasSuffix, min and max, … in siblings);
//   - a case removed from a switch, or one value of a case with several;
//   - an element removed from a composite literal (a slice, array or map
//     literal's element, a struct literal's keyed field);
//   - an integer literal n that is a bound becomes n+1 and n-1: an operand
//     of <, <=, > or >=, a slice bound (or an operand of + or - there), the
//     length of a made slice or channel.
//
// Those that can switch at run time are schema mutants: a variable or field
// through mutantPtr (it also stands on the left of =), a sibling function
// or a literal through mutantPick, a comparison or case as a boolean, a
// struct field's value through mutantZero. The others are built one by one.

// maxSubstitutes bounds the substitutes of one identifier or field.
const maxSubstitutes = 3

// siblings are the calls replaced by each other, by package path.
var siblings = map[string]map[string]string{
	"strings":      pairs("Index", "LastIndex", "IndexByte", "LastIndexByte", "IndexAny", "LastIndexAny", "IndexFunc", "LastIndexFunc", "HasPrefix", "HasSuffix", "TrimLeft", "TrimRight", "TrimPrefix", "TrimSuffix", "TrimLeftFunc", "TrimRightFunc", "CutPrefix", "CutSuffix", "ToLower", "ToUpper"),
	"bytes":        pairs("Index", "LastIndex", "IndexByte", "LastIndexByte", "IndexAny", "LastIndexAny", "IndexFunc", "LastIndexFunc", "HasPrefix", "HasSuffix", "TrimLeft", "TrimRight", "TrimPrefix", "TrimSuffix", "TrimLeftFunc", "TrimRightFunc", "CutPrefix", "CutSuffix", "ToLower", "ToUpper"),
	"unicode/utf8": pairs("DecodeRune", "DecodeLastRune", "DecodeRuneInString", "DecodeLastRuneInString"),
}

func pairs(names ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(names); i += 2 {
		m[names[i]], m[names[i+1]] = names[i+1], names[i]
	}
	return m
}

// typedVisit adds the typed operators' mutants of n: in a function, all of
// them; at the top (a table's literal) only removed elements.
func (g *gen) typedVisit(n ast.Node) {
	if g.info == nil {
		return
	}
	inFunc := g.fn != "(top)"
	if c, ok := n.(*ast.CompositeLit); ok {
		g.literalElements(c, inFunc)
	}
	if !inFunc {
		return
	}
	switch n := n.(type) {
	case *ast.Ident:
		g.identSwaps(n)
	case *ast.SelectorExpr:
		g.fieldSwaps(n)
	case *ast.CallExpr:
		g.siblingCall(n)
		g.makeBound(n)
	case *ast.BinaryExpr:
		g.comparisonBound(n)
	case *ast.SliceExpr:
		for _, b := range []ast.Expr{n.Low, n.High, n.Max} {
			g.boundOperand(b)
		}
	case *ast.SwitchStmt:
		g.switchCases(n.Tag == nil, n.Body)
	case *ast.TypeSwitchStmt:
		g.switchCases(false, n.Body)
	}
}

// identSwaps replaces a use of a local variable by other local variables
// of identical type in scope at that point.
func (g *gen) identSwaps(id *ast.Ident) {
	v, ok := g.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || id.Name == "_" || g.defined[id] || v.Parent() == nil || isPackageScope(v.Parent()) {
		return
	}
	s := g.info.Scopes[g.ast].Innermost(id.Pos())
	taken := map[string]bool{id.Name: true}
	var subs []string
	for ; s != nil && !isPackageScope(s) && !isPackageScope(s.Parent()); s = s.Parent() {
		for _, name := range s.Names() {
			o := s.Lookup(name)
			if start, ok := g.starts[o]; (ok && start > id.Pos()) || (!ok && o.Pos() > id.Pos()) || taken[name] {
				continue
			}
			taken[name] = true
			if w, ok := o.(*types.Var); ok && name != "_" && types.Identical(w.Type(), v.Type()) && len(subs) < maxSubstitutes {
				subs = append(subs, name)
			}
		}
	}
	for _, sub := range subs {
		g.pointerSwap(id, sub, id.Name+" → "+sub)
	}
}

func isPackageScope(s *types.Scope) bool { return s == nil || s.Parent() == types.Universe }

// fieldSwaps replaces x.f by x.g, g another field of x's struct of identical
// type, when x is a variable or a chain of fields (evaluated twice).
func (g *gen) fieldSwaps(sel *ast.SelectorExpr) {
	s, ok := g.info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal || len(s.Index()) != 1 || !g.pure(sel.X) {
		return
	}
	t := s.Recv()
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return
	}
	at := s.Index()[0]
	var idx []int
	for i := range st.NumFields() {
		f := st.Field(i)
		if i != at && f.Name() != "_" && (f.Exported() || f.Pkg() == g.pkg) && types.Identical(f.Type(), s.Obj().Type()) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return abs(a-at) - abs(b-at) })
	for _, i := range idx[:min(len(idx), maxSubstitutes)] {
		name := st.Field(i).Name()
		x := string(g.src[g.offset(sel.X.Pos()):g.offset(sel.X.End())])
		g.pointerSwap(sel, x+"."+name, "."+sel.Sel.Name+" → ."+name)
	}
}

func abs(n int) int { return max(n, -n) }

// pure reports whether e is a variable or a chain of its fields.
func (g *gen) pure(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		_, ok := g.info.Uses[e].(*types.Var)
		return ok
	case *ast.SelectorExpr:
		s, ok := g.info.Selections[e]
		return ok && s.Kind() == types.FieldVal && g.pure(e.X)
	}
	return false
}

// pointerSwap adds the schema mutant reading (or writing) alt in place of
// the variable or field e.
func (g *gen) pointerSwap(e ast.Expr, alt, change string) {
	m := g.add(e.Pos(), g.offset(e.End())-g.offset(e.Pos()), alt, change)
	m.schema, m.wrap = true, wrapPointer
}

// siblingCall replaces a call's function by its sibling.
func (g *gen) siblingCall(c *ast.CallExpr) {
	switch fun := c.Fun.(type) {
	case *ast.SelectorExpr:
		x, ok := fun.X.(*ast.Ident)
		if !ok {
			return
		}
		pn, ok := g.info.Uses[x].(*types.PkgName)
		if !ok {
			return
		}
		to, ok := siblings[pn.Imported().Path()][fun.Sel.Name]
		if !ok {
			return
		}
		m := g.add(fun.Pos(), g.offset(fun.End())-g.offset(fun.Pos()), x.Name+"."+to, x.Name+"."+fun.Sel.Name+" → "+x.Name+"."+to)
		m.schema, m.wrap = true, wrapPick
	case *ast.Ident:
		b, ok := g.info.Uses[fun].(*types.Builtin)
		if !ok || (b.Name() != "min" && b.Name() != "max") {
			return
		}
		to := map[string]string{"min": "max", "max": "min"}[fun.Name]
		m := g.add(fun.Pos(), len(fun.Name), to, fun.Name+" → "+to)
		if tv := g.info.Types[c]; tv.Value == nil && !hasCall(c.Args) {
			start, end := g.offset(c.Pos()), g.offset(c.End())
			m.repl = to + string(g.src[m.end:end])
			m.start, m.end, m.schema, m.wrap = start, end, true, wrapPick
		}
	}
}

func hasCall(es []ast.Expr) bool {
	found := false
	for _, e := range es {
		ast.Inspect(e, func(n ast.Node) bool {
			_, ok := n.(*ast.CallExpr)
			found = found || ok
			return !found
		})
	}
	return found
}

// comparisonBound moves an integer literal operand of <, <=, > or >= by
// one each way (the whole comparison switches at run time).
func (g *gen) comparisonBound(b *ast.BinaryExpr) {
	switch b.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
	default:
		return
	}
	start, end := g.offset(b.Pos()), g.offset(b.End())
	for _, side := range []ast.Expr{b.X, b.Y} {
		g.bounds(side, func(m *mutant) {
			m.repl = string(g.src[start:m.start]) + m.repl + string(g.src[m.end:end])
			m.start, m.end, m.schema = start, end, true
		})
	}
}

// bounds adds lit+1 and lit-1 for an integer literal e (when its type
// holds them), each then adjusted by adjust.
func (g *gen) bounds(e ast.Expr, adjust func(*mutant)) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return
	}
	for _, d := range []int64{1, -1} {
		if to, ok := g.moved(lit, d); ok {
			adjust(g.add(lit.Pos(), len(lit.Value), to, lit.Value+" → "+to+" (bound)"))
		}
	}
}

// makeBound moves the literal length of a made slice or channel.
func (g *gen) makeBound(c *ast.CallExpr) {
	id, ok := c.Fun.(*ast.Ident)
	if !ok || len(c.Args) < 2 {
		return
	}
	if b, ok := g.info.Uses[id].(*types.Builtin); !ok || b.Name() != "make" {
		return
	}
	switch g.info.Types[c.Args[0]].Type.Underlying().(type) {
	case *types.Slice, *types.Chan:
		g.boundOperand(c.Args[1])
	}
}

// boundOperand moves an integer literal that is the bound e, or an operand
// of + or - that is e, by one each way.
func (g *gen) boundOperand(e ast.Expr) {
	sides := []ast.Expr{e}
	if b, ok := e.(*ast.BinaryExpr); ok && (b.Op == token.ADD || b.Op == token.SUB) {
		sides = []ast.Expr{b.X, b.Y}
	}
	for _, side := range sides {
		g.bounds(side, func(m *mutant) {
			if types.Identical(g.info.Types[side].Type, types.Typ[types.Int]) {
				m.schema, m.wrap = true, wrapPick
			}
		})
	}
}

// moved is lit+d, when its type can hold it.
func (g *gen) moved(lit *ast.BasicLit, d int64) (string, bool) {
	n, err := strconv.ParseInt(lit.Value, 0, 64)
	if err != nil {
		return "", false
	}
	n += d
	lo, hi := intRange(g.info.Types[lit].Type)
	if n < lo || n > hi {
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// intRange is the range of the integer type t (int64's for untyped or
// non-integer types).
func intRange(t types.Type) (lo, hi int64) {
	b, ok := t.(*types.Basic)
	if ok {
		b, _ = b.Underlying().(*types.Basic)
	} else if t != nil {
		b, _ = t.Underlying().(*types.Basic)
	}
	if b == nil {
		return -1 << 63, 1<<63 - 1
	}
	switch b.Kind() {
	case types.Int8:
		return -128, 127
	case types.Int16:
		return -1 << 15, 1<<15 - 1
	case types.Int32:
		return -1 << 31, 1<<31 - 1
	case types.Uint8:
		return 0, 255
	case types.Uint16:
		return 0, 1<<16 - 1
	case types.Uint32:
		return 0, 1<<32 - 1
	case types.Uint, types.Uint64, types.Uintptr:
		return 0, 1<<63 - 1
	}
	return -1 << 63, 1<<63 - 1
}

// switchCases removes each case of a switch (each value of a case with
// several): in a switch with no tag each case value is a boolean, made
// false at run time; in the others the text is removed.
func (g *gen) switchCases(tagless bool, body *ast.BlockStmt) {
	for _, s := range body.List {
		cc, ok := s.(*ast.CaseClause)
		if !ok {
			continue
		}
		if len(cc.List) == 0 {
			g.remove(cc.Pos(), cc.End(), "default removed")
			continue
		}
		change := "case removed"
		if len(cc.List) > 1 {
			change = "case value dropped"
		}
		for i, e := range cc.List {
			if tagless {
				m := g.add(e.Pos(), g.offset(e.End())-g.offset(e.Pos()), "false", change)
				m.schema = true
				continue
			}
			if len(cc.List) == 1 {
				g.remove(cc.Pos(), cc.End(), change)
				continue
			}
			g.removeElement(cc.List, i, change)
		}
	}
}

// literalElements removes each element of a slice, array or map literal,
// and each keyed field of a struct literal (not one set to nil, zero or
// "", the field's zero value anyway).
func (g *gen) literalElements(c *ast.CompositeLit, inFunc bool) {
	tv, ok := g.info.Types[c]
	if !ok || len(c.Elts) == 0 {
		return
	}
	_, isStruct := tv.Type.Underlying().(*types.Struct)
	for i, e := range c.Elts {
		if !isStruct {
			g.removeElement(c.Elts, i, "element removed")
			continue
		}
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return // an unkeyed struct literal needs all its fields
		}
		if isZero(kv.Value) {
			continue
		}
		key := kv.Key.(*ast.Ident).Name
		vt := g.info.Types[kv.Value]
		if inFunc && vt.Value == nil && types.Identical(vt.Type, fieldType(tv.Type, key)) {
			m := g.add(kv.Value.Pos(), g.offset(kv.Value.End())-g.offset(kv.Value.Pos()), "", key+": removed")
			m.schema, m.wrap = true, wrapZero
			continue
		}
		g.removeElement(c.Elts, i, key+": removed")
	}
}

// fieldType is the type of struct t's field name.
func fieldType(t types.Type, name string) types.Type {
	st := t.Underlying().(*types.Struct)
	for i := range st.NumFields() {
		if st.Field(i).Name() == name {
			return st.Field(i).Type()
		}
	}
	return nil
}

func isZero(e ast.Expr) bool {
	if isNil(e) {
		return true
	}
	if id, ok := e.(*ast.Ident); ok && id.Name == "false" {
		return true
	}
	l, ok := e.(*ast.BasicLit)
	return ok && (l.Value == "0" || l.Value == `""` || l.Value == "``")
}

// removeElement removes list[i] with the comma beside it.
func (g *gen) removeElement(list []ast.Expr, i int, change string) {
	switch {
	case len(list) == 1:
		g.remove(list[0].Pos(), list[0].End(), change)
	case i < len(list)-1:
		g.removeAt(list[i].Pos(), list[i].Pos(), list[i+1].Pos(), change)
	default:
		g.removeAt(list[i].Pos(), list[i-1].End(), list[i].End(), change)
	}
}

// remove adds the mutant removing the source from start to end, built on
// its own.
func (g *gen) remove(start, end token.Pos, change string) { g.removeAt(start, start, end, change) }

// removeAt is remove named by the line of at.
func (g *gen) removeAt(at, start, end token.Pos, change string) {
	m := g.add(at, 0, "", change)
	m.start, m.end = g.offset(start), g.offset(end)
}
