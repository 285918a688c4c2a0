package natsqueue

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestJournalFiles: a journal opened on a store reads the last process's
// lines (the highest count of a message; a line cut short left out) and
// carries them into its older file, so that a second crash soon after
// keeps them; the current file is renamed over the older one once
// journalSpan old. Pins D31.
func TestJournalFiles(t *testing.T) {
	dir := t.TempDir()
	cur, old := filepath.Join(dir, journalName), filepath.Join(dir, journalName+".old")
	if err := os.WriteFile(old, []byte("S 7 1\nS 9 4\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cur, []byte("S 7 2\nS 8 3\nS 9 2\nS 10"), 0o640); err != nil {
		t.Fatal(err)
	}
	j, err := openJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	want := map[journalKey]uint64{{"S", 7}: 2, {"S", 8}: 3, {"S", 9}: 4}
	if fmt.Sprint(j.before) != fmt.Sprint(want) {
		t.Errorf("read %v, want %v", j.before, want)
	}
	again, err := openJournal(dir) // a second crash before any line was written
	if err != nil {
		t.Fatal(err)
	}
	defer again.close()
	if fmt.Sprint(again.before) != fmt.Sprint(want) {
		t.Errorf("read again %v, want %v", again.before, want)
	}
	if b, _ := os.ReadFile(cur); len(b) != 0 {
		t.Errorf("the current file starts with %q, want nothing", b)
	}
	again.started = time.Now().Add(-journalSpan - time.Second)
	if err := again.record(nil, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(old); len(b) != 0 {
		t.Errorf("after a rotation the older file holds %q, want the empty current one", b)
	}
}
