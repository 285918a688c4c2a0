package natsqueue

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The delivery journal keeps, for the embedded server, what its consumers
// forget when the host process dies: nats-server writes a consumer's
// record of deliveries at most ten times a second, so a host killed within
// about 100 ms of a fetch takes the record of those deliveries with it
// (the server dies with the host), and the messages come back with the
// same delivery count: the same attempts again. Before a batch reaches
// its handler, natsqueue appends one line a message to the journal, its
// stream, sequence and the deliveries counted so far; a Platform opened
// on the store again reads it and adds to a message's count what the
// server forgot. One write(2) a batch (the page cache keeps it through a
// SIGKILL; the store's sync writes it to disk with the rest). Lines live
// from journalSpan to twice that, far longer than the server's 100 ms:
// the current file is renamed over the older one when journalSpan old.
const (
	journalName = "natsqueue.deliveries"
	journalSpan = 10 * time.Second
)

// journalKey is a message: its stream and sequence.
type journalKey struct {
	stream string
	seq    uint64
}

// deliveryJournal is a store's journal: the file lines are appended to,
// the counts read when the store was opened, and what the server forgot
// of each message met since.
type deliveryJournal struct {
	mu      sync.Mutex
	dir     string
	f       *os.File
	started time.Time
	before  map[journalKey]uint64 // the last process's counts, for messages not met since
	lost    map[journalKey]uint64 // deliveries the server forgot, for messages met since
}

// openJournal reads dir's journal files and starts the current file anew
// with what they held, so that a second crash soon after does not lose
// it.
func openJournal(dir string) (*deliveryJournal, error) {
	j := &deliveryJournal{dir: dir, before: map[journalKey]uint64{}, lost: map[journalKey]uint64{}}
	for _, name := range []string{journalName + ".old", journalName} {
		if err := j.read(filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	for k, n := range j.before {
		fmt.Fprintf(&b, "%s %d %d\n", k.stream, k.seq, n)
	}
	tmp := filepath.Join(dir, journalName+".new")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o640); err != nil {
		return nil, fmt.Errorf("natsqueue: delivery journal: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, journalName+".old")); err != nil {
		return nil, fmt.Errorf("natsqueue: delivery journal: %w", err)
	}
	return j, j.start()
}

// read adds the counts of the journal file at path (none if it is not
// there); a line cut short by the crash is left out.
func (j *deliveryJournal) read(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("natsqueue: delivery journal: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			continue
		}
		seq, err1 := strconv.ParseUint(f[1], 10, 64)
		n, err2 := strconv.ParseUint(f[2], 10, 64)
		if k := (journalKey{f[0], seq}); err1 == nil && err2 == nil && n > j.before[k] {
			j.before[k] = n
		}
	}
	return sc.Err()
}

// start begins a new current file.
func (j *deliveryJournal) start() error {
	f, err := os.OpenFile(filepath.Join(j.dir, journalName), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o640)
	if err != nil {
		return fmt.Errorf("natsqueue: delivery journal: %w", err)
	}
	j.f, j.started = f, time.Now()
	return nil
}

// forgotten is how many deliveries of the message md describes the
// server forgot: when it is first met in this process, those the last
// process journaled past the server's count (its delivery now is one
// more than the journal's), and the same from then on, the server's
// count staying that much short. A nil journal (a cluster at URLs, whose
// servers outlive a host) forgets nothing.
func (j *deliveryJournal) forgotten(md *jetstream.MsgMetadata) uint64 {
	if j == nil {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	k := journalKey{md.Stream, md.Sequence.Stream}
	if n, ok := j.before[k]; ok {
		delete(j.before, k)
		if n >= md.NumDelivered {
			j.lost[k] = n + 1 - md.NumDelivered
		}
	}
	return j.lost[k]
}

// record appends a line for each of msgs, handed to a handler with the
// counts counted, in one write; the current file is renamed over the
// older one first when journalSpan old.
func (j *deliveryJournal) record(msgs []jetstream.Msg, counts []uint64) error {
	if j == nil {
		return nil
	}
	var b []byte
	for i, m := range msgs {
		if md, err := m.Metadata(); err == nil {
			b = fmt.Appendf(b, "%s %d %d\n", md.Stream, md.Sequence.Stream, counts[i])
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if time.Since(j.started) > journalSpan {
		if err := j.rotate(); err != nil {
			return err
		}
	}
	_, err := j.f.Write(b)
	return err
}

// rotate renames the current file over the older one and starts anew;
// when it cannot, lines go on to the current file.
func (j *deliveryJournal) rotate() error {
	if err := os.Rename(filepath.Join(j.dir, journalName), filepath.Join(j.dir, journalName+".old")); err != nil {
		return fmt.Errorf("natsqueue: delivery journal: %w", err)
	}
	old := j.f
	if err := j.start(); err != nil {
		return err
	}
	return old.Close()
}

func (j *deliveryJournal) close() {
	if j != nil && j.f != nil {
		_ = j.f.Close() // every line went out with its own write(2) before: nothing is left to flush
	}
}
