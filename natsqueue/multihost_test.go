//go:build unix

package natsqueue

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hostbridge"
)

var multihostLong = flag.Bool("multihost.long", false, "run TestMultiHostFaults' full round: four phases of 3 minutes (about 15 minutes)")

func init() { hosts["NATSQUEUE_MULTIHOST"] = runMultiHost }

// The settings of the multi-host suite's queue fq: every
// host sends mhRate messages a second "fq-<host>.<run>-<n>" (delayed
// 1+n%3 s when n%7 == 3) and consumes fq with three loops and dlq with
// one. A batch holding a message with n%20 == 0 fails (the handler
// returns an error: every message of it is retried after RetryDelay);
// n%20 == 10 is retried with 1 s at every handling, so it reaches dlq;
// n%10 == 1 is retried once with 1+n/10%2 s, then acked; n%500 == 7
// stalls its handler for mhStall, past AckWait, on its first handling,
// then is acked; any other is acked.
const (
	mhHosts      = 3
	mhLoops      = 3
	mhRate       = 60
	mhMaxRetries = 3
	mhRetryDelay = 3
	mhAckWait    = 5 * time.Second
	mhStall      = 6 * time.Second
)

// mhPhase is one phase of the suite: its host processes are SIGKILLed
// (and started again at once) every hostEvery, its nodes faulted.
type mhPhase struct {
	name       string
	hostKills  bool
	nodeFaults bool
}

var mhPhases = []mhPhase{{"none", false, false}, {"hosts", true, false}, {"nodes", false, true}, {"both", true, true}}

// TestMultiHostFaults is natsqueue's multi-host fault suite:
// three nats-server processes (R3 streams) and three host processes (the
// test binary, runMultiHost), all sending to and consuming the same queue
// fq with handlers that ack, retry, fail and stall, MaxRetries 3, a
// dead-letter queue dlq, RetryDelay 3 s and AckWait 5 s. Each phase has
// its own streams (a Prefix of its own) and runs with no fault, with a
// host SIGKILLed and started again every few seconds, with the leaders
// of fq's stream, fq's consumer and the counter stream SIGKILLed for 2 s
// or SIGSTOPped for 6 s (past AckWait), or both. Every process writes
// what it saw to a file of its own; once the phase is drained the files
// are merged and faultHistory.check checks every delivery promise of
// doc.go in every phase (0 acknowledged sends lost, none early, attempts
// never back and one more at every redelivery, a retried original never
// handed over again, at most MaxRetries+1 handlings plus one per crash of
// a host holding the message, none after its ack or dead-lettering, a
// dead-letter copy stored once, never alive twice but for the lease
// overlap whose earlier holder's outcome was refused: no other bound for
// a node fault), and in a phase with no host crash the counters exactly,
// refused outcomes counting for nothing.
// The short round (HOSTBRIDGE_LONG=1) has the phases none, nodes and both, 16 s of load each, a host
// killed every 3–5 s; with
// -multihost.long every phase, 3 minutes each. -v logs a summary a phase.
// Pins D31.
func TestMultiHostFaults(t *testing.T) {
	long(t, "three host processes on a cluster of processes under faults, about two minutes")
	r := mhRound{load: 16 * time.Second, hostEvery: [2]time.Duration{3 * time.Second, 5 * time.Second}, calm: time.Second,
		phases: []mhPhase{mhPhases[0], mhPhases[2], mhPhases[3]}}
	if *multihostLong {
		r = mhRound{load: 3 * time.Minute, hostEvery: [2]time.Duration{15 * time.Second, 25 * time.Second}, calm: 2 * time.Second, phases: mhPhases}
	}
	c := startProcCluster(t)
	for i, ph := range r.phases {
		t.Run(ph.name, func(t *testing.T) {
			runMultiHostPhase(t, c, fmt.Sprintf("MH%d", i), ph, r)
		})
	}
}

// mhRound is how long each phase sends (load), how often a host is
// SIGKILLed (a random time between the two), how long the cluster runs
// healthy before each node fault (calm), and which phases run.
type mhRound struct {
	load, calm time.Duration
	hostEvery  [2]time.Duration
	phases     []mhPhase
}

// mhRun is one phase's processes and history.
type mhRun struct {
	t      *testing.T
	c      *procCluster
	dir    string
	prefix string
	epoch  time.Time
	h      *faultHistory // the test's own facts: node faults and host kills

	mu    sync.Mutex
	procs [mhHosts]*exec.Cmd
	runs  [mhHosts]int
}

func runMultiHostPhase(t *testing.T, c *procCluster, prefix string, ph mhPhase, round mhRound) {
	dir := t.TempDir()
	t.Cleanup(func() {
		if keep := os.Getenv("NATSQUEUE_KEEP"); keep != "" && t.Failed() {
			_ = os.CopyFS(filepath.Join(keep, prefix), os.DirFS(dir)) // best effort: the evidence of a failed run
		}
	})
	r := &mhRun{t: t, c: c, dir: dir, prefix: prefix, epoch: time.UnixMilli(time.Now().UnixMilli())}
	f, err := os.Create(filepath.Join(dir, "faults.history"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() }) // nothing written is left to flush
	r.h = emptyFaultHistory(r.epoch, "t", mhMaxRetries, "dlq")
	r.h.file = f
	queues, all := r.createStreams()
	t.Cleanup(r.killAll)
	for i := range mhHosts {
		r.start(i)
	}
	end := time.Now().Add(round.load)
	var killer sync.WaitGroup
	if ph.hostKills {
		killer.Add(1)
		go func() { defer killer.Done(); r.killHosts(end, round.hostEvery) }()
	}
	if ph.nodeFaults {
		r.faultNodes(end, round.calm, queues, all)
	}
	time.Sleep(time.Until(end))
	killer.Wait()
	if err := os.WriteFile(filepath.Join(dir, "stop"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c.waitHealthy(all...)
	h := r.waitDrained(queues)
	r.stopHosts()
	if h = r.read(); h == nil {
		return
	}
	fs := h.check(t, !ph.hostKills && !ph.nodeFaults)
	off := 0
	if !ph.hostKills {
		off = h.checkCounters(t, c, prefix)
	}
	t.Logf("%s: %s; counters off %d", ph.name, h.summary(fs, mhHandlings), off)
}

// createStreams makes the phase's streams and waits until they have their
// replicas; it returns fq's and dlq's streams, and those with the counter
// stream.
func (r *mhRun) createStreams() (queues, all []string) {
	p, err := Open(Options{URLs: r.c.urls, Replicas: 3, Prefix: r.prefix, Timeout: 5 * time.Second})
	if err != nil {
		r.t.Fatal(err)
	}
	defer p.Close()
	for _, q := range []string{"fq", "dlq"} {
		if _, err := p.ensureQueue(context.Background(), q); err != nil {
			r.t.Fatal(err)
		}
		queues = append(queues, p.namesOf(q).stream)
	}
	p.Stats(ctxBG, "fq") // the counter stream exists
	all = append(append(all, queues...), p.statsStream())
	r.c.waitHealthy(all...)
	return queues, all
}

// start starts host i (again: its next run).
func (r *mhRun) start(i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs[i]++
	name := fmt.Sprintf("h%d", i)
	log, err := os.OpenFile(filepath.Join(r.dir, name+".log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		r.t.Error(err)
		return
	}
	defer log.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "NATSQUEUE_MULTIHOST="+filepath.Join(r.dir, name+".history"),
		"NATSQUEUE_MH_HOST="+name, "NATSQUEUE_MH_RUN="+strconv.Itoa(r.runs[i]),
		"NATSQUEUE_MH_URLS="+strings.Join(r.c.urls, ","), "NATSQUEUE_MH_PREFIX="+r.prefix,
		"NATSQUEUE_MH_EPOCH="+strconv.FormatInt(r.epoch.UnixMilli(), 10), "NATSQUEUE_MH_STOP="+filepath.Join(r.dir, "stop"))
	if err := cmd.Start(); err != nil {
		r.t.Error(err)
		return
	}
	r.procs[i] = cmd
}

// killHosts SIGKILLs a host chosen at random every hostEvery (a random
// time between the two) until end, recording the kill, and starts it
// again at once.
func (r *mhRun) killHosts(end time.Time, every [2]time.Duration) {
	for {
		wait := every[0] + rand.N(every[1]-every[0])
		if time.Now().Add(wait).After(end) {
			return
		}
		time.Sleep(wait)
		i := rand.IntN(mhHosts)
		r.mu.Lock()
		cmd := r.procs[i]
		r.procs[i] = nil
		r.mu.Unlock()
		if cmd == nil {
			continue
		}
		_ = cmd.Process.Signal(syscall.SIGKILL) // it may have ended already
		r.h.hostKilled(fmt.Sprintf("h%d", i))
		_ = cmd.Wait() // a killed process's status
		r.start(i)
	}
}

// faultNodes faults, until end, in turn the leader of fq's stream, of
// fq's consumer and of the counter stream: SIGKILLed for 2 s, then
// SIGSTOPped for 6 s, and so on; before each fault the cluster is
// healthy and runs calm unfaulted.
func (r *mhRun) faultNodes(end time.Time, calm time.Duration, queues, all []string) {
	faults := []struct {
		d   time.Duration
		sig syscall.Signal
	}{{2 * time.Second, syscall.SIGKILL}, {6 * time.Second, syscall.SIGSTOP}}
	for n := 0; ; n++ {
		r.c.waitHealthy(all...)
		f := faults[n%2]
		if time.Now().Add(calm).After(end) { // the last fault may outlast the load: the phase waits for it
			return
		}
		time.Sleep(calm)
		var node int
		switch n % 3 {
		case 0:
			node = r.c.leader(queues[0])
		case 1:
			if node = r.c.consumerLeader(queues[0]); node < 0 {
				node = r.c.leader(queues[0])
			}
		case 2:
			node = r.c.leader(all[len(all)-1])
		}
		r.c.faultFor(r.h, f.d, f.sig, node)
	}
}

// paths are the phase's history files: the test's and each host's.
func (r *mhRun) paths() []string {
	paths := []string{filepath.Join(r.dir, "faults.history")}
	for i := range mhHosts {
		if p := filepath.Join(r.dir, fmt.Sprintf("h%d.history", i)); fileExists(p) {
			paths = append(paths, p)
		}
	}
	return paths
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// read merges the phase's history files (nil after a failure to read them).
func (r *mhRun) read() *faultHistory {
	h, err := readFaultHistory(r.paths(), r.epoch, mhMaxRetries, "dlq")
	if err != nil {
		r.t.Error(err)
		return nil
	}
	return h
}

// waitDrained waits up to 90 s until every send that returned nil was
// acked or dead-lettered and fq's and dlq's streams are empty; it returns
// the history it read last.
func (r *mhRun) waitDrained(queues []string) *faultHistory {
	deadline := time.Now().Add(90 * time.Second)
	for {
		h := r.read()
		if h == nil {
			return nil
		}
		missing := h.lost()
		err := errors.New("messages missing")
		if len(missing) == 0 {
			err = r.c.empty(queues)
		}
		if err == nil {
			return h
		}
		if time.Now().After(deadline) {
			r.t.Errorf("not drained after 90 s: %v; %d acknowledged sends not acked nor dead-lettered: %.300v", err, len(missing), missing)
			return h
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// stopHosts ends every host with SIGTERM (a clean Close, which stores the
// last counts) and waits for them, SIGKILLing one still running after
// 30 s.
func (r *mhRun) stopHosts() {
	r.mu.Lock()
	procs := r.procs
	r.procs = [mhHosts]*exec.Cmd{}
	r.mu.Unlock()
	for i, cmd := range procs {
		if cmd == nil {
			continue
		}
		_ = cmd.Process.Signal(syscall.SIGTERM) // it may have ended already
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				r.t.Errorf("host h%d after SIGTERM: %v", i, err)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill() // it may have ended already
			<-done
			r.t.Errorf("host h%d still running 30 s after SIGTERM", i)
		}
	}
}

func (r *mhRun) killAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, cmd := range r.procs {
		if cmd != nil {
			_ = cmd.Process.Kill() // it may have ended already
			_ = cmd.Wait()         // a killed process's status
			r.procs[i] = nil
		}
	}
}

// mhHandlings is how many times a handler gets id with no fault, but for
// the batches failed for a batch-mate: n%20 == 10 and n%20 == 0 until
// dead-lettered, n%10 == 1 twice.
func mhHandlings(id string) int {
	switch n := idNumber(id); {
	case n%10 == 0:
		return mhMaxRetries + 1
	case n%10 == 1:
		return 2
	}
	return 1
}

// runMultiHost is a host process of TestMultiHostFaults: on the cluster
// at NATSQUEUE_MH_URLS with the phase's Prefix it sends mhRate messages a
// second until the file NATSQUEUE_MH_STOP exists, and consumes fq and dlq
// until SIGTERM; it appends what it saw to the history file at path (the
// lines of faultHistory, one write each: a SIGKILL keeps every line
// written).
func runMultiHost(path string) error {
	epoch, _ := strconv.ParseInt(os.Getenv("NATSQUEUE_MH_EPOCH"), 10, 64)
	host, run := os.Getenv("NATSQUEUE_MH_HOST"), os.Getenv("NATSQUEUE_MH_RUN")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	h := emptyFaultHistory(time.UnixMilli(epoch), host, mhMaxRetries, "dlq")
	h.file = f
	p, err := Open(Options{URLs: strings.Split(os.Getenv("NATSQUEUE_MH_URLS"), ","), Replicas: 3, Prefix: os.Getenv("NATSQUEUE_MH_PREFIX"),
		AckWait: mhAckWait, Timeout: 2 * time.Second, ReadyWait: 30 * time.Second})
	if err != nil {
		return err
	}
	defer p.Close()
	p.Bind("FQ", "fq")
	p.Grant("FQ")
	s := hostbridge.DefaultConsumerSettings()
	s.MaxBatchTimeout, s.MaxRetries, s.RetryDelay, s.DeadLetterQueue = 50*time.Millisecond, mhMaxRetries, mhRetryDelay, "dlq"
	if err := p.SetConsumer("fq", s); err != nil {
		return err
	}
	s = hostbridge.DefaultConsumerSettings()
	s.MaxBatchTimeout = 50 * time.Millisecond
	if err := p.SetConsumer("dlq", s); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	var wg sync.WaitGroup
	for range mhLoops {
		wg.Go(func() { h.run(ctx, p, "fq", handleMultiHost) })
	}
	wg.Go(func() { h.run(ctx, p, "dlq", ackAll) })
	stopFile := os.Getenv("NATSQUEUE_MH_STOP")
	for n := 0; ctx.Err() == nil && !fileExists(stopFile); n++ {
		id := fmt.Sprintf("fq-%s.%s-%d", host, run, n)
		delay := 0
		if n%7 == 3 {
			delay = 1 + n%3
		}
		start := time.Now()
		err := hostbridge.SendQueueMessage(context.Background(), p, "FQ", strconv.Quote(id), delay)
		h.sent("fq", id, delay, start, err)
		time.Sleep(time.Until(start.Add(time.Second / mhRate)))
	}
	<-ctx.Done()
	wg.Wait()
	return p.Close()
}

// handleMultiHost is fq's handler in a host of TestMultiHostFaults (see
// the constants); the history records what became of each message
// (faultHistory.run).
func handleMultiHost(ev hostbridge.Event) error {
	ms := ev.Batch().Messages()
	for _, m := range ms {
		if idNumber(messageID(m))%20 == 0 {
			return errors.New("a failing batch")
		}
	}
	for i, m := range ms {
		n := idNumber(messageID(m))
		delay := -1
		switch {
		case n%20 == 10:
			delay = 1
		case n%10 == 1 && m.Attempts == 1:
			delay = 1 + n/10%2
		case n%500 == 7 && m.Attempts == 1:
			time.Sleep(mhStall)
		}
		var err error
		if delay >= 0 {
			err = hostbridge.RetryQueueMessage(ev, i, delay)
		} else {
			err = hostbridge.AckQueueMessage(ev, i)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
