package natsqueue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostbridge"
)

// syncRecorder wraps a Platform's store sync and records, in order, each
// sync that started with marker already in the store's files and finished.
type syncRecorder struct {
	mu     sync.Mutex
	events []string
}

func (r *syncRecorder) add(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// record makes p's store syncs record "covered" when they finish having
// started with marker in a file under dir.
func (r *syncRecorder) record(t *testing.T, p *Platform, dir string, marker []byte) {
	js, ok := p.js.(syncedJS)
	if !ok {
		t.Fatalf("the default Platform does not sync before it answers: %T", p.js)
	}
	g := js.g
	g.mu.Lock()
	defer g.mu.Unlock()
	real := g.sync
	g.sync = func() error {
		stored := storeHolds(dir, marker)
		err := real()
		if stored && err == nil {
			r.add("covered")
		}
		return err
	}
}

// storeHolds says whether a file under dir contains marker.
func storeHolds(dir string, marker []byte) bool {
	found := false
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error { // an unreadable file holds no marker
		if err == nil && !d.IsDir() && !found {
			b, _ := os.ReadFile(path)
			found = bytes.Contains(b, marker)
		}
		return nil
	})
	return found
}

// TestSendWaitsForSync: by default a send (one message, and a batch) is
// answered only after a sync of the store that started once the message
// was in the store's files: a real embedded server, its real files.
func TestSendWaitsForSync(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("elsewhere the server syncs every write itself")
	}
	p := openSingle(t)
	dir := p.opts.StoreDir
	for i, n := range []int{1, 5} {
		marker := []byte(`"marker-` + randomHex(8) + `"`)
		var r syncRecorder
		r.record(t, p, dir, marker)
		if n == 1 {
			send(t, p, string(marker), 0)
		} else {
			sendBatch(t, p, string(marker), n)
		}
		r.add("answered")
		r.mu.Lock()
		events := slices.Clone(r.events)
		r.mu.Unlock()
		if len(events) < 2 || events[0] != "covered" {
			t.Errorf("round %d: %v, want a covering sync before the answer", i, events)
		}
	}
}

// TestSyncPolicy: syncing before the answer is the default; nats-server's
// periodic sync is what a SyncInterval asks for, and then natsqueue syncs
// nothing itself.
func TestSyncPolicy(t *testing.T) {
	p := openSingle(t)
	if runtime.GOOS == "linux" {
		js, ok := p.js.(syncedJS)
		if !ok {
			t.Fatalf("default: %T", p.js)
		}
		before := js.g.syncs.Load()
		send(t, p, `1`, 0)
		if js.g.syncs.Load() == before {
			t.Error("a send was answered without a sync")
		}
	} else if !p.embed.JetStreamConfig().SyncAlways {
		t.Error("default: the server does not sync every write")
	}
	o := storeOptions(t)
	o.SyncInterval = 2 * time.Minute
	q := openWith(t, o)
	if _, ok := q.js.(syncedJS); ok {
		t.Error("SyncInterval: natsqueue syncs")
	}
	if c := q.embed.JetStreamConfig(); c.SyncAlways || c.SyncInterval != 2*time.Minute {
		t.Errorf("SyncInterval: the server's %+v", c)
	}
}

// sendBatch sends n copies of body in one SendBatch on Q.
func sendBatch(t *testing.T, p *Platform, body string, n int) {
	t.Helper()
	msgs := make([]hostbridge.BatchMessage, n)
	for i := range msgs {
		msgs[i] = hostbridge.BatchMessage{Body: []byte(body), ContentType: "json"}
	}
	if err := p.SendBatch(context.Background(), "Q", msgs); err != nil {
		t.Fatal(err)
	}
}

// TestGroupSync: a caller of wait is answered by a sync that started after
// it called, with that sync's error; one sync answers every caller waiting
// when it starts, and syncs never overlap.
func TestGroupSync(t *testing.T) {
	started, release := make(chan int), make(chan struct{})
	var running, overlaps atomic.Int32
	n := 0
	g := &groupSync{sync: func() error {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		defer running.Add(-1)
		n++
		started <- n
		<-release
		return fmt.Errorf("sync %d", n)
	}}
	answers := make(chan string, 11)
	call := func() { answers <- g.wait().Error() }
	go call()
	if k := <-started; k != 1 {
		t.Fatalf("first sync: %d", k)
	}
	for range 10 {
		go call()
	}
	waitFor(t, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.waiting) == 10 })
	release <- struct{}{}
	if a := <-answers; a != "sync 1" {
		t.Fatalf("the first caller: %q, want sync 1", a)
	}
	if k := <-started; k != 2 {
		t.Fatalf("second sync: %d", k)
	}
	if len(answers) != 0 {
		t.Fatal("a caller was answered by a sync that started before it called")
	}
	release <- struct{}{}
	for range 10 {
		if a := <-answers; a != "sync 2" {
			t.Errorf("a caller waiting when sync 2 started: %q", a)
		}
	}
	waitFor(t, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return !g.running })
	if s, o := g.syncs.Load(), overlaps.Load(); s != 2 || o != 0 {
		t.Errorf("%d syncs (want 2), %d overlapping", s, o)
	}
}

// waitFor waits until cond holds, for at most 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
	}
}

// setSync makes f g's store sync and returns the one it replaces.
func setSync(g *groupSync, f func() error) func() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	old := g.sync
	g.sync = f
	return old
}

// failSyncOnce makes g's next store sync fail; what it returns says
// whether one did.
func failSyncOnce(g *groupSync) *atomic.Bool {
	g.mu.Lock()
	real := g.sync
	g.mu.Unlock()
	failed := new(atomic.Bool)
	setSync(g, func() error {
		if failed.CompareAndSwap(false, true) {
			return errors.New("the disk is gone")
		}
		return real()
	})
	return failed
}
