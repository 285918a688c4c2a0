//go:build linux

package lazyfs

import (
	"context"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a file or directory of the mount: go-fuse's loopback node, with
// every operation refused once cut and regular files' data held in memory
// (FS.file). Its own methods take precedence over the loopback's and its
// file handles', so no read or write reaches the backing file directly.
type node struct {
	*fs.LoopbackNode
	fs *FS
}

// handle is an open regular file: all it does goes through its node.
type handle struct{}

// WrapChild makes every node the loopback creates a node of the mount.
func (n *node) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*fs.LoopbackNode), fs: n.fs}
}

// backingPath is where n is in the backing directory.
func (n *node) backingPath() string {
	return filepath.Join(n.RootData.Path, n.Path(n.Root()))
}

// file is n's data (a regular file's).
func (n *node) file() (*file, syscall.Errno) {
	fl, err := n.fs.file(n.StableAttr(), n.backingPath())
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	return fl, 0
}

// withFile runs op on n's data, locked.
func (n *node) withFile(op func(*file) syscall.Errno) syscall.Errno {
	return n.fs.do(func() syscall.Errno {
		fl, errno := n.file()
		if errno != 0 {
			return errno
		}
		fl.mu.Lock()
		defer fl.mu.Unlock()
		return op(fl)
	})
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (ch *fs.Inode, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno {
		if ch, errno = n.LoopbackNode.Lookup(ctx, name, out); errno == 0 {
			n.fs.patch(ch.StableAttr(), &out.Attr)
		}
		return errno
	})
	return ch, errno
}

func (n *node) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.fs.do(func() syscall.Errno {
		if errno := n.LoopbackNode.Getattr(ctx, nil, out); errno != 0 {
			return errno
		}
		n.fs.patch(n.StableAttr(), &out.Attr)
		return 0
	})
}

// Setattr truncates the data held; every other change goes to the
// backing file.
func (n *node) Setattr(ctx context.Context, _ fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return n.fs.do(func() syscall.Errno {
		mtime, setMtime := in.GetMTime()
		if size, ok := in.GetSize(); ok {
			fl, errno := n.file()
			if errno != 0 {
				return errno
			}
			fl.mu.Lock()
			fl.truncate(int64(size))
			fl.mu.Unlock()
			in.Valid &^= fuse.FATTR_SIZE
		}
		if errno := n.LoopbackNode.Setattr(ctx, nil, in, out); errno != 0 {
			return errno
		}
		if fl := n.fs.held(n.StableAttr()); fl != nil && setMtime {
			fl.mu.Lock()
			fl.mtime = mtime
			fl.mu.Unlock()
		}
		n.fs.patch(n.StableAttr(), &out.Attr)
		return 0
	})
}

// Open reads the backing file's data, if it was not held yet, and
// truncates what is held for O_TRUNC.
func (n *node) Open(_ context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	errno := n.withFile(func(fl *file) syscall.Errno {
		if flags&syscall.O_TRUNC != 0 {
			fl.truncate(0)
		}
		return 0
	})
	if errno != 0 {
		return nil, 0, errno
	}
	return &handle{}, 0, 0
}

// Create creates the file in the backing directory; its data is held.
func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (ch *fs.Inode, fh fs.FileHandle, fuseFlags uint32, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno {
		var lf fs.FileHandle
		ch, lf, _, errno = n.LoopbackNode.Create(ctx, name, flags&^syscall.O_TRUNC, mode, out)
		if errno != 0 {
			return errno
		}
		if r, ok := lf.(fs.FileReleaser); ok {
			r.Release(ctx)
		}
		// Not in the tree until Create returns: its path is the name.
		fl, err := n.fs.file(ch.StableAttr(), filepath.Join(n.backingPath(), name))
		if err != nil {
			return fs.ToErrno(err)
		}
		if flags&syscall.O_TRUNC != 0 {
			fl.mu.Lock()
			fl.truncate(0)
			fl.mu.Unlock()
		}
		n.fs.patch(ch.StableAttr(), &out.Attr)
		return 0
	})
	if errno != 0 {
		return nil, nil, 0, errno
	}
	return ch, &handle{}, 0, 0
}

func (n *node) Read(_ context.Context, _ fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	var got int
	errno := n.withFile(func(fl *file) syscall.Errno {
		if off < int64(len(fl.data)) {
			got = copy(dest, fl.data[off:])
		}
		return 0
	})
	return fuse.ReadResultData(dest[:got]), errno
}

func (n *node) Write(_ context.Context, _ fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	errno := n.withFile(func(fl *file) syscall.Errno {
		fl.write(data, off)
		return 0
	})
	if errno != 0 {
		return 0, errno
	}
	return uint32(len(data)), 0
}

func (n *node) Writev(ctx context.Context, fh fs.FileHandle, data [][]byte, off int64) (uint32, syscall.Errno) {
	var all []byte
	for _, b := range data {
		all = append(all, b...)
	}
	return n.Write(ctx, fh, all, off)
}

// Fsync writes a file's data to the backing file and syncs it. A
// directory's entries are in the backing directory already.
func (n *node) Fsync(context.Context, fs.FileHandle, uint32) syscall.Errno {
	if n.IsDir() {
		return n.fs.do(func() syscall.Errno { return 0 })
	}
	return n.withFile(func(fl *file) syscall.Errno {
		if _, parent := n.Parent(); parent == nil {
			return 0 // unlinked: nothing of it survives
		}
		return fs.ToErrno(fl.sync(n.backingPath()))
	})
}

// Flush (at every close) makes nothing durable.
func (n *node) Flush(context.Context, fs.FileHandle) syscall.Errno {
	return n.fs.do(func() syscall.Errno { return 0 })
}

// Lseek finds data and holes in the data held: one extent of data.
func (n *node) Lseek(_ context.Context, _ fs.FileHandle, off uint64, whence uint32) (pos uint64, errno syscall.Errno) {
	errno = n.withFile(func(fl *file) syscall.Errno {
		size := uint64(len(fl.data))
		if off >= size {
			return syscall.ENXIO
		}
		pos = off
		if whence == unixSeekHole {
			pos = size
		}
		return 0
	})
	return pos, errno
}

// lseek's whence for the next hole (SEEK_HOLE); for SEEK_DATA Lseek
// answers the offset itself.
const unixSeekHole = 4

func (n *node) Allocate(context.Context, fs.FileHandle, uint64, uint64, uint32) syscall.Errno {
	return syscall.ENOTSUP
}

func (n *node) Tmpfile(context.Context, uint32, uint32, *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.ENOTSUP
}

func (n *node) Ioctl(context.Context, fs.FileHandle, uint32, uint64, []byte, []byte) (int32, syscall.Errno) {
	return 0, syscall.ENOTTY
}

func (n *node) Statx(context.Context, fs.FileHandle, uint32, uint32, *fuse.StatxOut) syscall.Errno {
	return syscall.ENOSYS
}

func (n *node) CopyFileRange(context.Context, fs.FileHandle, uint64, *fs.Inode, fs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, syscall.ENOTSUP
}
