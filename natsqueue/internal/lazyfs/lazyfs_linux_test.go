//go:build linux

package lazyfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// wantFile fails unless the file at path holds want.
func wantFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s: %q, want %q", path, got, want)
	}
}

// writeFile writes data to the file at path (created or truncated) and
// closes it, syncing it first if sync.
func writeFile(t *testing.T, path, data string, sync bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHeldUntilSync: what is written is read back through the mount at
// once, but reaches the backing file only when fsynced; closing makes
// nothing durable; a cut drops what was not synced and fails everything
// after it with EIO.
func TestHeldUntilSync(t *testing.T) {
	lfs, backing, mnt := MountForTest(t)
	writeFile(t, filepath.Join(mnt, "a"), "synced", true)
	writeFile(t, filepath.Join(mnt, "b"), "closed only", false)
	f, err := os.OpenFile(filepath.Join(mnt, "a"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(" and more"); err != nil {
		t.Fatal(err)
	}
	wantFile(t, filepath.Join(mnt, "a"), "synced and more")
	if info, err := os.Stat(filepath.Join(mnt, "b")); err != nil || info.Size() != 11 {
		t.Errorf("b through the mount: %v, %v", info, err)
	}
	wantFile(t, filepath.Join(backing, "a"), "synced")
	wantFile(t, filepath.Join(backing, "b"), "")
	if n := lfs.Cut(); n != 2 {
		t.Errorf("%d files with data not synced at the cut, want 2", n)
	}
	if _, err := f.WriteString("!"); !errors.Is(err, syscall.EIO) {
		t.Errorf("a write after the cut: %v", err)
	}
	_ = f.Close()
	if _, err := os.Stat(filepath.Join(mnt, "a")); !errors.Is(err, syscall.EIO) {
		t.Errorf("a stat after the cut: %v", err)
	}
	wantFile(t, filepath.Join(backing, "a"), "synced")
	wantFile(t, filepath.Join(backing, "b"), "")
}

// TestTruncateHeld: a truncation (and O_TRUNC) is held like a write; at
// the sync the backing file gets exactly the data the mount showed, zeros
// where the file was cut and extended again.
func TestTruncateHeld(t *testing.T) {
	_, backing, mnt := MountForTest(t)
	path := filepath.Join(mnt, "t")
	writeFile(t, path, "0123456789", true)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(3); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("x"), 6); err != nil {
		t.Fatal(err)
	}
	want := "012\x00\x00\x00x"
	wantFile(t, path, want)
	wantFile(t, filepath.Join(backing, "t"), "0123456789")
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	wantFile(t, filepath.Join(backing, "t"), want)
	writeFile(t, path, "", false) // O_TRUNC, held too
	wantFile(t, path, "")
	wantFile(t, filepath.Join(backing, "t"), want)
}

// TestRenameOverSynced: as in LazyFS, a rename reaches the backing
// directory at once and the data follows the file: a file written and
// renamed over a synced one, with no sync, leaves the name empty after a
// cut.
func TestRenameOverSynced(t *testing.T) {
	lfs, backing, mnt := MountForTest(t)
	writeFile(t, filepath.Join(mnt, "meta"), "old", true)
	writeFile(t, filepath.Join(mnt, "meta.tmp"), "new", false)
	if err := os.Rename(filepath.Join(mnt, "meta.tmp"), filepath.Join(mnt, "meta")); err != nil {
		t.Fatal(err)
	}
	wantFile(t, filepath.Join(mnt, "meta"), "new")
	lfs.Cut()
	wantFile(t, filepath.Join(backing, "meta"), "")
}
