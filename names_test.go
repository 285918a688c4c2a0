package hostbridge

import (
	"go/ast"
	gobuild "go/build"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestEventKindsIsACopy: EventKinds returns a fresh slice each call, so a
// caller that modifies one changes neither the package's list nor the next
// call's result.
func TestEventKindsIsACopy(t *testing.T) {
	first := EventKinds()
	if len(first) != 29 || first[0] != "fetch" || first[3] != "queue" {
		t.Fatalf("EventKinds() = %q", first)
	}
	want := slices.Clone(first)
	first[0] = "changed"
	_ = append(first[:1], "appended")
	if got := EventKinds(); !slices.Equal(got, want) {
		t.Errorf("after modifying a result, EventKinds() = %q, want %q", got, want)
	}
}

// TestBodyStatusString: each status prints as its constant's name, and a
// value that is none of them as BodyStatus(n).
func TestBodyStatusString(t *testing.T) {
	for _, c := range []struct {
		st   BodyStatus
		want string
	}{
		{0, "BodyOK"}, {1, "BodyTooLarge"}, {2, "BodyNone"}, {3, "BodyUsed"},
		{4, "BodyInvalidUTF8"}, {5, "BodyInvalidJSON"},
		{6, "BodyStatus(6)"}, {9, "BodyStatus(9)"}, {-1, "BodyStatus(-1)"},
	} {
		if got := c.st.String(); got != c.want {
			t.Errorf("BodyStatus(%d).String() = %q, want %q", int(c.st), got, c.want)
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
