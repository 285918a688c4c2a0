package pagehost

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// flagRow is a row of cmd/pagequeue/README.md's flag table: its first cell
// names one flag or several ("`-tls-cert`, `-tls-key`").
var flagRow = regexp.MustCompile("(?m)^\\| (`-[a-z-]+`(?:, `-[a-z-]+`)*) \\|")

// TestFlagsDocumented: cmd/pagequeue/README.md's flag table has a row for
// every flag the host takes, and no row for a flag it does not, so the
// document an operator reads and -h never part.
func TestFlagsDocumented(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "cmd", "pagequeue", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range flagRow.FindAllStringSubmatch(string(src), -1) {
		for _, name := range strings.Split(m[1], ", ") {
			documented[strings.Trim(name, "`-")] = true
		}
	}
	fs, _ := Program{Name: "pagequeue"}.flagSet()
	taken := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) {
		taken[f.Name] = true
		if !documented[f.Name] {
			t.Errorf("-%s has no row in cmd/pagequeue/README.md's flag table", f.Name)
		}
	})
	if len(taken) < 20 {
		t.Errorf("the host takes %d flags, want at least 20", len(taken))
	}
	for name := range documented {
		if !taken[name] {
			t.Errorf("cmd/pagequeue/README.md documents -%s, which the host does not take", name)
		}
	}
}
