//go:build linux

package lazyfs

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// FS is a FUSE mount that mirrors a backing directory, for tests of what
// survives a power loss.
//
// The data written to a regular file through the mount is held in memory,
// per file, until that file is fsynced: then what changed is written to
// the backing file, which is fsynced in turn. Reads, sizes, modification
// times and truncation see the data held; closing or flushing a file makes
// nothing durable. Directory operations (create, mkdir, rename, unlink,
// rmdir) and attribute changes other than the size go straight to the
// backing directory, as they do in LazyFS: a file created, or renamed over
// another, has its name in the backing directory at once, with only the
// data that was synced. Cut simulates the power loss.
//
// Not modelled, and refused: fallocate, O_TMPFILE, ioctl, copy_file_range
// (callers fall back to reads and writes) and statx (the kernel falls back
// to getattr).
type FS struct {
	mnt    string
	server *fuse.Server
	once   sync.Once
	err    error // Unmount's

	gate sync.RWMutex // held shared by every operation, exclusively by Cut
	cut  bool

	mu    sync.Mutex
	files map[fs.StableAttr]*file // the regular files opened, by inode
}

// Mount mounts at mnt (an empty directory) a lazy mirror of the directory
// backing. It calls mount(2) itself (no fusermount), so it needs /dev/fuse
// and root or CAP_SYS_ADMIN; without them it fails with the OS's reason.
func Mount(backing, mnt string) (*FS, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(backing, &st); err != nil {
		return nil, fmt.Errorf("lazyfs: %s: %w", backing, err)
	}
	f := &FS{mnt: mnt, files: map[fs.StableAttr]*file{}}
	data := &fs.LoopbackRoot{Path: backing, Dev: uint64(st.Dev)}
	root := &node{LoopbackNode: &fs.LoopbackNode{RootData: data}, fs: f}
	data.RootNode = root
	// The kernel keeps names and attributes for a second: every change goes
	// through this mount, and a write or truncation drops the size and
	// times it kept, so what it keeps is never stale.
	keep := time.Second
	server, err := fs.Mount(mnt, root, &fs.Options{EntryTimeout: &keep, AttrTimeout: &keep, NegativeTimeout: &keep,
		MountOptions: fuse.MountOptions{DirectMountStrict: true, FsName: backing, Name: "lazyfs"}})
	if err != nil {
		return nil, fmt.Errorf("lazyfs: mount %s: %w", mnt, err)
	}
	f.server = server
	return f, nil
}

// Cut simulates a power loss: from now on every operation fails with EIO,
// and what was written to each file since its last fsync is dropped, so
// the backing directory holds exactly what was synced. It waits for the
// operations under way, and returns how many files had data not synced.
func (f *FS) Cut() int {
	f.gate.Lock()
	defer f.gate.Unlock()
	f.cut = true
	f.mu.Lock()
	defer f.mu.Unlock()
	lost := 0
	for _, fl := range f.files {
		fl.mu.Lock()
		if fl.loaded && fl.changed() {
			lost++
		}
		fl.mu.Unlock()
	}
	f.files = map[fs.StableAttr]*file{}
	return lost
}

// Unmount unmounts the file system, or detaches it lazily if it is busy.
// Calling it again does nothing.
func (f *FS) Unmount() error {
	f.once.Do(func() {
		err := f.server.Unmount()
		if err == nil {
			return
		}
		if derr := syscall.Unmount(f.mnt, syscall.MNT_DETACH); derr != nil {
			f.err = fmt.Errorf("lazyfs: unmount %s: %v; detach: %w", f.mnt, err, derr)
		}
	})
	return f.err
}

// enter starts an operation: false once cut.
func (f *FS) enter() bool {
	f.gate.RLock()
	if f.cut {
		f.gate.RUnlock()
		return false
	}
	return true
}

func (f *FS) leave() { f.gate.RUnlock() }

// do runs op as one operation, or fails with EIO once cut.
func (f *FS) do(op func() syscall.Errno) syscall.Errno {
	if !f.enter() {
		return syscall.EIO
	}
	defer f.leave()
	return op()
}

// file is the file of inode id, read from the backing file at path when
// first needed.
func (f *FS) file(id fs.StableAttr, path string) (*file, error) {
	f.mu.Lock()
	fl := f.files[id]
	if fl == nil {
		fl = &file{}
		f.files[id] = fl
	}
	f.mu.Unlock()
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if !fl.loaded {
		if err := fl.load(path); err != nil {
			return nil, err
		}
	}
	return fl, nil
}

// held is the file of inode id if it was read, else nil: the backing file
// is all there is.
func (f *FS) held(id fs.StableAttr) *file {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.files[id]
}

// patch makes a's size and modification time those of inode id's data
// held, if any.
func (f *FS) patch(id fs.StableAttr, a *fuse.Attr) {
	fl := f.held(id)
	if fl == nil {
		return
	}
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if !fl.loaded {
		return
	}
	a.Size = uint64(len(fl.data))
	a.Blocks = (a.Size + 511) / 512
	a.SetTimes(nil, &fl.mtime, nil)
}

// file is one regular file as the mount shows it: its whole content, of
// which the backing file holds what the last fsync wrote.
type file struct {
	mu     sync.Mutex
	loaded bool
	data   []byte
	mtime  time.Time
	synced int64 // the backing file's size
	keep   int64 // the backing file's bytes before keep are data's, but for [lo, hi)
	lo, hi int64 // the span written since the last fsync (lo == hi: none)
}

func (fl *file) load(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	fl.loaded, fl.data, fl.mtime = true, b, info.ModTime()
	fl.synced, fl.keep = int64(len(b)), int64(len(b))
	return nil
}

// changed says whether the data differ from the backing file's.
func (fl *file) changed() bool {
	return fl.lo < fl.hi || fl.keep < fl.synced || int64(len(fl.data)) != fl.synced
}

func (fl *file) write(b []byte, off int64) {
	end := off + int64(len(b))
	if end > int64(len(fl.data)) {
		fl.resize(end)
	}
	copy(fl.data[off:], b)
	if fl.lo == fl.hi {
		fl.lo, fl.hi = off, end
	}
	fl.lo, fl.hi = min(fl.lo, off), max(fl.hi, end)
	fl.mtime = time.Now()
}

func (fl *file) truncate(size int64) {
	fl.resize(size)
	fl.mtime = time.Now()
}

// resize cuts the data to size or extends it with zeros.
func (fl *file) resize(size int64) {
	n := int64(len(fl.data))
	if size >= n {
		fl.data = append(fl.data, make([]byte, size-n)...)
		return
	}
	fl.data = fl.data[:size]
	fl.keep = min(fl.keep, size)
	fl.hi = min(fl.hi, size)
	fl.lo = min(fl.lo, fl.hi)
}

// sync makes the backing file at path hold the data, durably: it drops
// what was cut off, writes what was written and fsyncs it.
func (fl *file) sync(path string) error {
	if !fl.changed() {
		return nil
	}
	b, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer b.Close()
	if fl.keep < fl.synced {
		if err := b.Truncate(fl.keep); err != nil {
			return err
		}
	}
	if _, err := b.WriteAt(fl.data[fl.lo:fl.hi], fl.lo); err != nil {
		return err
	}
	if err := b.Truncate(int64(len(fl.data))); err != nil {
		return err
	}
	if err := b.Sync(); err != nil {
		return err
	}
	fl.synced, fl.keep = int64(len(fl.data)), int64(len(fl.data))
	fl.lo, fl.hi = 0, 0
	return b.Close()
}

// MountForTest mounts a lazy mirror of a fresh directory at another, and
// unmounts it when the test ends, however it ends. Where the mount cannot
// be made (no /dev/fuse, no permission) it skips the test with the OS's
// reason.
func MountForTest(t testing.TB) (f *FS, backing, mnt string) {
	t.Helper()
	backing, mnt = t.TempDir(), t.TempDir()
	f, err := Mount(backing, mnt)
	if err != nil {
		t.Skipf("no lazy file system here: %v", err)
	}
	t.Cleanup(func() {
		if err := f.Unmount(); err != nil {
			t.Error(err)
		}
	})
	return f, backing, mnt
}
