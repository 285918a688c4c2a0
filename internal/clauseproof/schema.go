package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
)

// The schema: every mutant whose old text lies inside one function body
// is built into that function, switched on when clauseproofActive (from
// CLAUSEPROOF_MUTANT; 0: none) is its number. A function body B with
// mutants k1, k2 (mutated bodies B1, B2) becomes
//
//	{ if clauseproofActive == k1 { B1 }; if clauseproofActive == k2 { B2 }; B }
//
// (with a return after Bi when the function has no results). Bi is the
// mutated file's own body, so the mutant behaves exactly as the mutated
// file would. A body with labels (function-wide in Go) is left alone: its
// mutants are built one by one, as are mutants outside any body.

// activeFile is the file added to the package beside the schema.
const activeFile = "zz_clauseproof_active.go"

const activeVar = `package %s

import (
	"os"
	"strconv"
)

var clauseproofActive = func() int {
	n, _ := strconv.Atoi(os.Getenv("CLAUSEPROOF_MUTANT"))
	return n
}()
`

// A body is a function body of a file: the offsets of its braces, whether
// the function has results, and whether its mutants may join the schema.
type body struct {
	lbrace, rbrace int
	results        bool
	labels         bool
}

// bodiesOf returns the function bodies of a file, and its package name.
func bodiesOf(file string, src []byte) ([]body, string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		fail(err)
	}
	var bs []body
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		b := body{
			lbrace:  fset.Position(fd.Body.Lbrace).Offset,
			rbrace:  fset.Position(fd.Body.Rbrace).Offset,
			results: fd.Type.Results != nil && len(fd.Type.Results.List) > 0,
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			_, isLabel := n.(*ast.LabeledStmt)
			b.labels = b.labels || isLabel
			return !b.labels
		})
		bs = append(bs, b)
	}
	return bs, f.Name.Name
}

// schemaSources marks the mutants that join the schema and returns the
// overlay: each file with such mutants, rewritten, and activeFile.
func schemaSources(ms []mutant) map[string]string {
	byFile := map[string][]int{}
	for i, m := range ms {
		byFile[m.proof.File] = append(byFile[m.proof.File], i)
	}
	overlay := map[string]string{}
	pkg := ""
	for file, idx := range byFile {
		src, err := os.ReadFile(file)
		if err != nil {
			fail(err)
		}
		bs, name := bodiesOf(file, src)
		pkg = name
		inBody := map[int][]mutant{} // body index → its mutants
		for _, i := range idx {
			m := ms[i]
			j := sort.Search(len(bs), func(j int) bool { return bs[j].rbrace >= m.end-1 })
			if j < len(bs) && bs[j].lbrace <= m.start && !bs[j].labels && bracedBody(src, bs[j], m) != "" {
				ms[i].schema = true
				inBody[j] = append(inBody[j], m)
			}
		}
		if len(inBody) > 0 {
			overlay[file] = rewrite(src, bs, inBody)
		}
	}
	if pkg == "" {
		pkg = "hostbridge"
	}
	overlay[activeFile] = fmt.Sprintf(activeVar, pkg)
	return overlay
}

// bracedBody returns the inside of the body b with mutant m applied (m may
// span the braces themselves, as in a one-line function), or "" when the
// mutated text is no longer one braced block.
func bracedBody(src []byte, b body, m mutant) string {
	mutated := string(src[b.lbrace:m.start]) + m.proof.New + string(src[m.end:b.rbrace+1])
	inner, ok := strings.CutPrefix(strings.TrimSpace(mutated), "{")
	if inner, ok2 := strings.CutSuffix(inner, "}"); ok && ok2 {
		return inner + "\n"
	}
	return ""
}

// rewrite returns src with each body of inBody preceded by its mutants.
func rewrite(src []byte, bs []body, inBody map[int][]mutant) string {
	var out strings.Builder
	last := 0
	for j, b := range bs {
		muts := inBody[j]
		if len(muts) == 0 {
			continue
		}
		out.Write(src[last : b.lbrace+1])
		for _, m := range muts {
			fmt.Fprintf(&out, "\nif clauseproofActive == %d {%s\n", m.k, bracedBody(src, b, m))
			if !b.results {
				out.WriteString("return\n")
			}
			out.WriteString("}\n")
		}
		last = b.lbrace + 1
	}
	out.Write(src[last:])
	return out.String()
}
