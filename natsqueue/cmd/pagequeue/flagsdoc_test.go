package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreFlagsDocumented: natsqueue/README.md names every flag the
// durable host adds to the in-memory host's (whose own are in
// cmd/pagequeue/README.md's table, checked by pagehost's
// TestFlagsDocumented), so an operator finds each one there.
func TestStoreFlagsDocumented(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("pagequeue", flag.ContinueOnError)
	program().Flags(fs)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if !strings.Contains(string(src), "`-"+f.Name+"`") && !strings.Contains(string(src), "`-"+f.Name+" ") {
			t.Errorf("natsqueue/README.md does not name -%s", f.Name)
		}
	})
	if n < 15 {
		t.Errorf("the durable host adds %d flags, want at least 15", n)
	}
}
