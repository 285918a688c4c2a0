package hostbridge

// Clause tags: a home of a clause names a function (or a declared name),
// and a tag comment in it marks the enforcing statement: a line comment
// whose whole text is clause ids (`// Q36` or `// Q36 Q16`), trailing the
// statement or on the line just above it. TestClauseTags holds the tags
// and the homes of testdata/clauses.json to each other; CLAUSES.md
// excerpts the lines at each tag. proofProblems (called by TestClauses)
// checks what a clause's recorded mutants name.

import (
	"cmp"
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
