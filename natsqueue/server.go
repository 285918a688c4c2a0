package natsqueue

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// lockName is the file in a store directory that its owner holds locked.
const lockName = "natsqueue.lock"

// internalUser is the name natsqueue's own in-process connection uses when
// the embedded server requires credentials (it has a port).
const internalUser = "natsqueue"

// embedded is the embedded server of a Platform with what it owns.
type embedded struct {
	srv  *server.Server
	lock *os.File // held locked for the server's life
	sync *storeSyncer
	auth []nats.Option
}

// startEmbedded creates o.StoreDir, takes it for this process, and starts a
// single-node JetStream server on it that takes no TCP connection, or only
// on 127.0.0.1:o.Port with o.PortUser's password. It returns the options
// that connect to it in process.
func startEmbedded(o Options) (*embedded, error) {
	if err := os.MkdirAll(o.StoreDir, 0o750); err != nil {
		return nil, fmt.Errorf("natsqueue: store: %w", err)
	}
	lock, err := lockStore(o.StoreDir)
	if err != nil {
		return nil, err
	}
	e := &embedded{lock: lock}
	if o.SyncInterval == 0 && canSyncStore {
		e.sync = newStoreSyncer(o.StoreDir) // before the server writes
	}
	so := embeddedOptions(o)
	if o.Port != 0 {
		pw := randomHex(16)
		so.Users = []*server.User{{Username: internalUser, Password: pw}, {Username: o.PortUser, Password: o.PortPassword}}
		e.auth = []nats.Option{nats.UserInfo(internalUser, pw)}
	}
	if e.srv, err = runServer(so); err != nil {
		e.close()
		return nil, err
	}
	e.auth = append(e.auth, nats.InProcessServer(e.srv))
	return e, nil
}

// embeddedOptions are the embedded server's options: JetStream on
// o.StoreDir, no listener unless o.Port, and the sync policy of
// o.SyncInterval (natsqueue syncs itself where canSyncStore).
func embeddedOptions(o Options) *server.Options {
	so := &server.Options{ServerName: "hostbridge", JetStream: true, StoreDir: o.StoreDir,
		NoLog: true, NoSigs: true, DontListen: true}
	if o.Port != 0 {
		so.DontListen, so.Host, so.Port = false, "127.0.0.1", o.Port
	}
	switch {
	case o.SyncInterval > 0:
		so.SyncInterval = o.SyncInterval
	case !canSyncStore:
		so.SyncAlways = true
	}
	return so
}

// runServer starts a server with so and waits until it takes connections;
// the reason it could not start is its error, not a timeout.
func runServer(so *server.Options) (*server.Server, error) {
	s, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("natsqueue: embedded server: %w", err)
	}
	var log fatalLog
	s.SetLoggerV2(&log, false, false, false)
	s.Start() // returns once started, or when it could not start
	switch {
	case !s.JetStreamEnabled():
		err = log.reason("JetStream did not start")
	case !s.ReadyForConnections(30 * time.Second):
		err = log.reason("did not take connections within 30 s")
	}
	if err != nil {
		s.Shutdown()
		return nil, fmt.Errorf("natsqueue: embedded server: %w", err)
	}
	return s, nil
}

// fatalLog keeps the first fatal or error record of a server that logs
// nothing else: what stopped it from starting.
type fatalLog struct {
	mu    sync.Mutex
	first string
}

func (l *fatalLog) keep(format string, v []any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == "" {
		l.first = fmt.Sprintf(format, v...)
	}
}

func (l *fatalLog) reason(otherwise string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first != "" {
		return errors.New(l.first)
	}
	return errors.New(otherwise)
}

func (l *fatalLog) Fatalf(format string, v ...any) { l.keep(format, v) }
func (l *fatalLog) Errorf(format string, v ...any) { l.keep(format, v) }
func (*fatalLog) Noticef(string, ...any)           {}
func (*fatalLog) Warnf(string, ...any)             {}
func (*fatalLog) Debugf(string, ...any)            {}
func (*fatalLog) Tracef(string, ...any)            {}

func (e *embedded) close() {
	if e.srv != nil {
		e.srv.Shutdown()
		e.srv.WaitForShutdown()
	}
	e.sync.close()
	if e.lock != nil {
		unlockStore(e.lock)
	}
}

// lockStore takes dir for this process: the second Platform (in this
// process or another) on the same directory fails here.
func lockStore(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("natsqueue: store: %w", err)
	}
	if err := lockFile(f); err != nil {
		_ = f.Close() // nothing was written to it; the error given is the lock's
		return nil, fmt.Errorf(msgStoreInUse, dir, err)
	}
	return f, nil
}

func unlockStore(f *os.File) {
	unlockFile(f)
	_ = f.Close() // the lock file holds nothing: closing it only releases the lock
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never returns an error (it crashes the program instead)
	return hex.EncodeToString(b)
}
