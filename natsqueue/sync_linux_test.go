package natsqueue

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"hostbridge/natsqueue/internal/lazyfs"
)

// TestStoreSyncer: on a file system that loses at a power cut what was not
// fsynced (internal/lazyfs), once sync returns every file written under the
// store's directory, in it and in a directory below, is durable: a cut
// right after it loses nothing. A file is synced again only once it
// changed: after a sync nothing has changed, and a write to one file
// changes that file alone.
func TestStoreSyncer(t *testing.T) {
	lfs, backing, mnt := lazyfs.MountForTest(t)
	if err := os.Mkdir(filepath.Join(mnt, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	for i := range 32 {
		name := filepath.Join(mnt, fmt.Sprint("f", i))
		if i%2 == 1 {
			name = filepath.Join(mnt, "sub", fmt.Sprint("f", i))
		}
		files = append(files, name)
		if err := os.WriteFile(name, []byte(fmt.Sprint("data ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := newStoreSyncer(mnt)
	if err := s.sync(); err != nil {
		t.Fatal(err)
	}
	wantChanged(t, s, nil)
	f, err := os.OpenFile(files[3], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(" more"); err != nil {
		t.Fatal(err)
	}
	wantChanged(t, s, files[3:4])
	if err := s.sync(); err != nil {
		t.Fatal(err)
	}
	if n := lfs.Cut(); n != 0 {
		t.Errorf("%d files held data not synced after sync returned", n)
	}
	for i, name := range files {
		want := fmt.Sprint("data ", i)
		if i == 3 {
			want += " more"
		}
		rel, _ := filepath.Rel(mnt, name)
		if b, err := os.ReadFile(filepath.Join(backing, rel)); err != nil || string(b) != want {
			t.Errorf("%s after the cut: %q %v, want %q", rel, b, err, want)
		}
	}
}

// wantChanged fails unless s's changed files are want.
func wantChanged(t *testing.T, s *storeSyncer, want []string) {
	t.Helper()
	changed, err := s.changed()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changed {
		got = append(got, c.path)
	}
	if !slices.Equal(got, want) {
		t.Errorf("changed %v, want %v", got, want)
	}
}
