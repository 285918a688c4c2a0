//go:build linux

package lazyfs

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// The operations below go straight to the backing directory, or fail with
// EIO once cut.

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (ch *fs.Inode, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno { ch, errno = n.LoopbackNode.Mkdir(ctx, name, mode, out); return errno })
	return ch, errno
}

func (n *node) Mknod(ctx context.Context, name string, mode, dev uint32, out *fuse.EntryOut) (ch *fs.Inode, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno { ch, errno = n.LoopbackNode.Mknod(ctx, name, mode, dev, out); return errno })
	return ch, errno
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (ch *fs.Inode, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno { ch, errno = n.LoopbackNode.Link(ctx, target, name, out); return errno })
	return ch, errno
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (ch *fs.Inode, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno { ch, errno = n.LoopbackNode.Symlink(ctx, target, name, out); return errno })
	return ch, errno
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	return n.fs.do(func() syscall.Errno { return n.LoopbackNode.Rmdir(ctx, name) })
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	return n.fs.do(func() syscall.Errno { return n.LoopbackNode.Unlink(ctx, name) })
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	return n.fs.do(func() syscall.Errno { return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags) })
}

func (n *node) Readlink(ctx context.Context) (target []byte, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno { target, errno = n.LoopbackNode.Readlink(ctx); return errno })
	return target, errno
}

func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fh fs.FileHandle, fuseFlags uint32, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno { fh, fuseFlags, errno = n.LoopbackNode.OpendirHandle(ctx, flags); return errno })
	return fh, fuseFlags, errno
}

func (n *node) Readdir(ctx context.Context) (ds fs.DirStream, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno { ds, errno = n.LoopbackNode.Readdir(ctx); return errno })
	return ds, errno
}

func (n *node) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	return n.fs.do(func() syscall.Errno { return n.LoopbackNode.Statfs(ctx, out) })
}

func (n *node) Getxattr(ctx context.Context, attr string, dest []byte) (size uint32, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno { size, errno = n.LoopbackNode.Getxattr(ctx, attr, dest); return errno })
	return size, errno
}

func (n *node) Listxattr(ctx context.Context, dest []byte) (size uint32, errno syscall.Errno) {
	errno = n.fs.do(func() syscall.Errno { size, errno = n.LoopbackNode.Listxattr(ctx, dest); return errno })
	return size, errno
}

func (n *node) Setxattr(ctx context.Context, attr string, data []byte, flags uint32) syscall.Errno {
	return n.fs.do(func() syscall.Errno { return n.LoopbackNode.Setxattr(ctx, attr, data, flags) })
}

func (n *node) Removexattr(ctx context.Context, attr string) syscall.Errno {
	return n.fs.do(func() syscall.Errno { return n.LoopbackNode.Removexattr(ctx, attr) })
}
