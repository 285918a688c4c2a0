package natsqueue

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"
)

// canSyncStore: on Linux, natsqueue syncs the store's files itself, once
// for every send waiting.
const canSyncStore = true

// watchMask is what the kernel reports about a store's directories: a
// file written, truncated or changed in its attributes (IN_MODIFY,
// IN_ATTRIB), and an entry created, removed or renamed.
const watchMask = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CREATE | syscall.IN_DELETE |
	syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_EXCL_UNLINK | syscall.IN_ONLYDIR

// storeSyncer syncs what was written under a store directory since its
// last sync, as the kernel tells it (inotify(7)): every file written and
// every directory whose entries changed. The kernel queues a write's event
// before the write returns, so a sync that starts after a write returned
// reads its event and fsyncs its file: nothing is inferred from sizes or
// times, and nothing unchanged is looked at. Where the kernel cannot tell
// (no inotify instance or watch to be had: blind) every sync fsyncs every
// file and directory; when its queue overflowed, the next one does. Only
// one goroutine calls sync.
type storeSyncer struct {
	dir   string
	fd    int                 // the inotify instance, nonblocking
	dirs  map[int32]string    // the watched directories, by watch descriptor
	dirty map[string]struct{} // what the next sync fsyncs
	buf   [1 << 16]byte       // events read
	blind bool                // every sync fsyncs everything
}

func newStoreSyncer(dir string) *storeSyncer {
	// Without an instance fd is negative, so no watch is had: blind.
	fd, _ := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	return syncerOn(dir, fd)
}

// syncerOn is the syncer of dir that watches it with the inotify instance
// fd. What an earlier process wrote may not be on disk: its first sync
// fsyncs everything.
func syncerOn(dir string, fd int) *storeSyncer {
	s := &storeSyncer{dir: dir, fd: fd, dirs: map[int32]string{}, dirty: map[string]struct{}{}}
	s.addTree(dir)
	return s
}

// close releases the inotify instance.
func (s *storeSyncer) close() {
	if s != nil {
		_ = syscall.Close(s.fd) // an inotify instance holds nothing to flush
	}
}

// sync fsyncs every file and directory written under the store since the
// last sync, and returns their errors (a file removed meanwhile is no
// error; what failed is synced again next time). Several are synced at
// once, each in its own goroutine, so that the disk has their writes
// together; one (a single producer's block file), in the caller.
func (s *storeSyncer) sync() error {
	paths, err := s.pending()
	if err != nil {
		return err
	}
	clear(s.dirty)
	errs := make([]error, len(paths))
	if len(paths) == 1 {
		errs[0] = ignoreGone(fsync(paths[0]))
	} else {
		var wg sync.WaitGroup
		for i, path := range paths {
			wg.Go(func() { errs[i] = ignoreGone(fsync(path)) })
		}
		wg.Wait()
	}
	for i, err := range errs {
		if err != nil {
			s.dirty[paths[i]] = struct{}{}
		}
	}
	return errors.Join(errs...)
}

// pending reads the events queued and returns what the next sync fsyncs.
func (s *storeSyncer) pending() ([]string, error) {
	if s.blind {
		s.addTree(s.dir)
	} else if err := s.drain(); err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(s.dirty))
	for p := range s.dirty {
		paths = append(paths, p)
	}
	return paths, nil
}

// drain reads every event queued, until none is left.
func (s *storeSyncer) drain() error {
	for {
		n, err := syscall.Read(s.fd, s.buf[:])
		if errors.Is(err, syscall.EAGAIN) {
			return nil
		} else if err != nil {
			return err
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&s.buf[off]))
			name := s.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			s.note(ev.Wd, ev.Mask, string(bytes.TrimRight(name, "\x00")))
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// note records one event: name in the directory of watch wd changed.
func (s *storeSyncer) note(wd int32, mask uint32, name string) {
	if mask&syscall.IN_Q_OVERFLOW != 0 {
		s.addTree(s.dir) // events lost: everything, once
		return
	}
	dir, ok := s.dirs[wd]
	switch {
	case !ok:
		return
	case mask&syscall.IN_IGNORED != 0:
		delete(s.dirs, wd) // the directory is gone
		return
	case name == "":
		s.dirty[dir] = struct{}{} // its own attributes
		return
	}
	path := filepath.Join(dir, name)
	if mask&(syscall.IN_CREATE|syscall.IN_DELETE|syscall.IN_MOVED_FROM|syscall.IN_MOVED_TO) != 0 {
		s.dirty[dir] = struct{}{}
	}
	switch {
	case mask&syscall.IN_ISDIR != 0 && mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0:
		// A directory new here: watched from now on, and what was written
		// in it before is synced. A directory moved keeps its watches,
		// which now name it here.
		s.addTree(path)
	case mask&(syscall.IN_DELETE|syscall.IN_MOVED_FROM) == 0:
		s.dirty[path] = struct{}{} // written, or renamed here with what it holds
	}
}

// addTree watches every directory under root (unless blind) and marks
// every file and directory there to be synced. A directory is watched
// before its entries are read, so a file created in it meanwhile is either
// read or reported.
func (s *storeSyncer) addTree(root string) {
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error { // never fails: the function returns nil
		if err != nil {
			return nil // gone meanwhile: nothing to sync
		}
		if d.IsDir() && !s.blind {
			wd, err := syscall.InotifyAddWatch(s.fd, path, watchMask)
			if err != nil {
				s.blind = true // no watch to be had: fsync everything, always
			} else {
				s.dirs[int32(wd)] = path
			}
		}
		if d.IsDir() || d.Type().IsRegular() {
			s.dirty[path] = struct{}{}
		}
		return nil
	})
}

// fsync writes path's data and metadata to disk and waits for it.
func fsync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func ignoreGone(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
