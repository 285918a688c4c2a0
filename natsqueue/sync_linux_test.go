package natsqueue

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"hostbridge/natsqueue/internal/lazyfs"
)

// TestStoreSyncer: on a file system that loses at a power cut what was not
// fsynced (internal/lazyfs), once sync returns every file written under the
// store's directory is durable: a cut right after it loses nothing. That
// holds for files in it and in a directory below, a file appended to, a
// file rewritten in place with the same size and modification time (a
// rewrite within one tick of the clock: nothing in its inode, size or
// times tells), a file renamed over another and a directory made after
// the syncer started, with a file in it. A sync fsyncs only what was
// written: after a sync nothing is pending, and a write to one file makes
// that file alone pending.
func TestStoreSyncer(t *testing.T) {
	lfs, backing, mnt := lazyfs.MountForTest(t)
	if err := os.Mkdir(filepath.Join(mnt, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := range 32 {
		name := fmt.Sprint("f", i)
		if i%2 == 1 {
			name = filepath.Join("sub", name)
		}
		want[name] = fmt.Sprint("data ", i)
		writeFile(t, filepath.Join(mnt, name), want[name])
	}
	s := newStoreSyncer(mnt)
	defer s.close()
	syncStore(t, s)
	wantPending(t, s, nil)
	appendFile(t, filepath.Join(mnt, "sub/f3"), " more")
	want["sub/f3"] += " more"
	wantPending(t, s, []string{filepath.Join(mnt, "sub/f3")})
	syncStore(t, s)
	rewriteInPlace(t, filepath.Join(mnt, "f4"), "DATA 4")
	want["f4"] = "DATA 4"
	if err := os.Mkdir(filepath.Join(mnt, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	want["new/g"] = "made after the syncer"
	writeFile(t, filepath.Join(mnt, "new/g"), want["new/g"])
	want["f6"] = "renamed over f6"
	writeFile(t, filepath.Join(mnt, "f6.tmp"), want["f6"])
	if err := os.Rename(filepath.Join(mnt, "f6.tmp"), filepath.Join(mnt, "f6")); err != nil {
		t.Fatal(err)
	}
	syncStore(t, s)
	if n := lfs.Cut(); n != 0 {
		t.Errorf("%d files held data not synced after sync returned", n)
	}
	for name, w := range want {
		if b, err := os.ReadFile(filepath.Join(backing, name)); err != nil || string(b) != w {
			t.Errorf("%s after the cut: %q %v, want %q", name, b, err, w)
		}
	}
}

// rewriteInPlace writes data over path's content, of the same length, and
// gives it back its modification time: its inode, size and mtime are what
// they were, which a sync that compares them fails (t.Fatal otherwise).
func rewriteInPlace(t *testing.T, path, data string) {
	t.Helper()
	before := stampOf(t, path)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(data), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(before.Mtim.Unix())
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if after := stampOf(t, path); after.Ino != before.Ino || after.Size != before.Size || after.Mtim != before.Mtim {
		t.Fatalf("%s changed its inode, size or mtime", path)
	}
}

func stampOf(t *testing.T, path string) syscall.Stat_t {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

func syncStore(t *testing.T, s *storeSyncer) {
	t.Helper()
	if err := s.sync(); err != nil {
		t.Fatal(err)
	}
}

// wantPending fails unless what s would sync next is want (sorted).
func wantPending(t *testing.T, s *storeSyncer, want []string) {
	t.Helper()
	if got := pendingSorted(t, s); !slices.Equal(got, want) {
		t.Errorf("pending %v, want %v", got, want)
	}
}

// pendingSorted is what s would sync next, sorted.
func pendingSorted(t *testing.T, s *storeSyncer) []string {
	t.Helper()
	got, err := s.pending()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// TestStoreSyncerEvents: what each change makes the next sync fsync, on
// its own after a sync: a file removed, its directory; the store
// directory's own attributes changed, that directory; a subdirectory's
// attributes, that directory and not its files; an empty directory
// removed, its parent (and its watch is forgotten); a directory moved, its
// new parent and everything in it, and a write in it afterwards, the file
// under its new name. Events lost to an overflow of the kernel's queue,
// everything.
func TestStoreSyncerEvents(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"sub", "empty"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a", "b", "sub/c"} {
		writeFile(t, filepath.Join(dir, name), name)
	}
	s := newStoreSyncer(dir)
	defer s.close()
	in := func(names ...string) []string {
		var paths []string
		for _, n := range names {
			paths = append(paths, filepath.Join(dir, n))
		}
		return paths
	}
	step := func(what string, change func() error, want []string) {
		t.Helper()
		syncStore(t, s)
		if err := change(); err != nil {
			t.Fatal(err)
		}
		if got := pendingSorted(t, s); !slices.Equal(got, want) {
			t.Errorf("%s: pending %v, want %v", what, got, want)
		}
	}
	step("a file removed", func() error { return os.Remove(filepath.Join(dir, "a")) }, in(""))
	step("the store's attributes", func() error { return os.Chmod(dir, 0o700) }, in(""))
	step("a directory's attributes", func() error { return os.Chmod(filepath.Join(dir, "sub"), 0o700) }, in("sub"))
	watched := len(s.dirs)
	step("an empty directory removed", func() error { return os.Remove(filepath.Join(dir, "empty")) }, in(""))
	if len(s.dirs) != watched-1 {
		t.Errorf("%d directories watched once one of %d was removed", len(s.dirs), watched)
	}
	step("a directory moved", func() error { return os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "moved")) },
		in("", "moved", "moved/c"))
	step("a write in it", func() error { appendFile(t, filepath.Join(dir, "moved/c"), "+"); return nil }, in("moved/c"))
	step("events lost", func() error { s.note(-1, syscall.IN_Q_OVERFLOW, ""); return nil }, in("", "b", "moved", "moved/c"))
}

// TestStoreSyncerBlind: a syncer with no inotify instance (none to be had)
// fsyncs every file and directory under the store at every sync, those
// made after it started too.
func TestStoreSyncerBlind(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a"), "a")
	s := syncerOn(dir, -1)
	syncStore(t, s)
	wantPending(t, s, []string{dir, filepath.Join(dir, "a")})
	writeFile(t, filepath.Join(dir, "b"), "b")
	syncStore(t, s)
	wantPending(t, s, []string{dir, filepath.Join(dir, "a"), filepath.Join(dir, "b")})
}

// TestStoreSyncerFailed: a sync that fails (the file system fails every
// operation after a power cut) returns the error, and what it did not
// sync (a file made and the directory it was made in) is still to be
// synced.
func TestStoreSyncerFailed(t *testing.T) {
	lfs, _, mnt := lazyfs.MountForTest(t)
	s := newStoreSyncer(mnt)
	defer s.close()
	syncStore(t, s)
	writeFile(t, filepath.Join(mnt, "a"), "a")
	lfs.Cut()
	if err := s.sync(); err == nil {
		t.Error("a sync after the cut succeeded")
	}
	wantPending(t, s, []string{mnt, filepath.Join(mnt, "a")}) // a made in mnt
}

// TestStoreSyncerClose: close releases the syncer's inotify instance.
func TestStoreSyncerClose(t *testing.T) {
	s := newStoreSyncer(t.TempDir())
	fd := s.fd
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); errno != 0 {
		t.Fatalf("the syncer's inotify instance: %v", errno)
	}
	s.close()
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); errno != syscall.EBADF {
		t.Errorf("after close, its descriptor: %v, want EBADF", errno)
	}
}
