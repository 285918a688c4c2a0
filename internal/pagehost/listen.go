package pagehost

import (
	"net"
	"sync"
	"sync/atomic"
)

// limitListener holds at most cap(slots) connections open at once: Accept
// waits for one to close before it takes the next from the kernel's queue,
// so the process never runs out of file descriptors for the ones it serves.
// (golang.org/x/net/netutil.LimitListener does the same; the root module
// takes no dependency.)
//
// A waiting Accept already holds the slot of the next connection, so the
// slots in use are not the connections open: n counts those, from a
// successful Accept to the connection's Close.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	n         atomic.Int64
	done      chan struct{}
	closeOnce sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max(n, 1)), done: make(chan struct{})}
}

// Accept waits for a free slot, then accepts a connection that frees it
// when closed.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	l.n.Add(1)
	return &limitConn{Conn: c, l: l}, nil
}

// Close closes the listener and ends a waiting Accept.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// open is the number of connections accepted and not yet closed.
func (l *limitListener) open() int { return int(l.n.Load()) }

type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.n.Add(-1)
		<-c.l.slots
	})
	return err
}

// defaultMaxConns is the default cap on open connections for a process
// allowed files open files: an eighth of them (at least 32) stay free for
// the store, the log and the listener, and the cap is at most 10000.
func defaultMaxConns(files int) int {
	return max(1, min(files-max(32, files/8), 10000))
}
