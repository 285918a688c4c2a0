package hostbridge

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// decisionItem is how doc.go states a decision: a list item "  - D7 …".
var decisionItem = regexp.MustCompile(`(?m)^//   - D([0-9]+) `)

// decisionHeading is how DECISIONS.md gives its reason: "## D7 — title".
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

// testSources returns the text of every _test.go file of the package and
// of natsqueue (whose fault tests pin what durable platforms keep), but
// this one's.
func testSources(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, pattern := range []string{"*_test.go", filepath.Join("natsqueue", "*_test.go")} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if name == "decisions_test.go" {
				continue
			}
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
// are D1, D2, … without gap or repeat; every heading of DECISIONS.md names
// one of them, once; and each is named, as a whole word, by some test.
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
