//go:build unix

package pagehost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the test binary as the pagequeue command when
// PAGEHOST_MAIN is set, so that tests can watch a real process: its
// signals, its stderr and its exit code.
func TestMain(m *testing.M) {
	if os.Getenv("PAGEHOST_MAIN") != "" {
		Main(Program{Name: "pagequeue", Keeps: MemoryKeeps, Open: func() (Store, error) { return NewMemoryStore(), nil }})
	}
	os.Exit(m.Run())
}

// process is a pagequeue process started by a test.
type process struct {
	cmd    *exec.Cmd // the process, or the shell that started it
	pid    int       // the process
	base   string
	stderr io.ReadCloser
	log    *bufio.Reader
}

// processArgs are the flags every test process gets, then args.
func processArgs(args []string) []string {
	return append([]string{"-addr", "127.0.0.1:0", "-batch-timeout", "5ms"}, args...)
}

// startProcess starts the command on a loopback port and reads its log up
// to the line that says where it listens.
func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(os.Args[0], processArgs(args)...)}
	p.start(t, func() int { return p.cmd.Process.Pid })
	return p
}

// startInBackground starts the command as a script's background job
// (`cmd &` in sh -c), which starts it with SIGINT ignored.
func startInBackground(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command("sh", append([]string{"-c", `"$0" "$@" & echo $!; wait $!`, os.Args[0]}, processArgs(args)...)...)}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.start(t, func() int {
		var pid int
		if _, err := fmt.Fscan(stdout, &pid); err != nil {
			t.Fatalf("no pid from the shell: %v", err)
		}
		return pid
	})
	return p
}

// start starts p.cmd, learns the process's id from pid, and reads the log
// up to the line that says where it listens.
func (p *process) start(t *testing.T, pid func() int) {
	t.Helper()
	p.cmd.Env = append(os.Environ(), "PAGEHOST_MAIN=1")
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.pid = pid()
	t.Cleanup(func() { syscall.Kill(p.pid, syscall.SIGKILL); p.cmd.Process.Kill(); p.cmd.Wait() })
	p.stderr, p.log = stderr, bufio.NewReader(stderr)
	for p.base == "" {
		line, err := p.log.ReadString('\n')
		if err != nil {
			t.Fatalf("no listening line: %v", err)
		}
		if _, rest, ok := strings.Cut(line, "listening on "); ok {
			p.base, _, _ = strings.Cut(rest, " ")
		}
	}
}

// stats reads /stats.
func (p *process) stats(t *testing.T) Stats {
	t.Helper()
	resp, err := http.Get(p.base + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s Stats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body) // to EOF, so that the client keeps the connection for the next request
	return s
}

// upload opens a connection that sends a batch's headers and part of its
// body, and waits until the host's handler is reading it: /metrics, asked
// on a connection of its own, counts two requests in flight, that one and
// itself. (Dial returns before the host accepts, the kernel may hand the
// /metrics connection over first, and an accepted connection whose request
// is read after SIGINT is closed unanswered: a SIGINT sent earlier would
// find no upload in flight.) A deadline only stops a hang.
func (p *process) upload(t *testing.T) {
	t.Helper()
	sc := newStatsConn(t, p.base)
	c := dial(t, p.base)
	io.WriteString(c, partialBatch)
	deadline := time.Now().Add(30 * time.Second)
	for n := sc.inFlight(t); n != "2"; n = sc.inFlight(t) {
		if time.Now().After(deadline) {
			t.Fatalf("the upload never reached the handler: %s in flight", n)
		}
	}
}

// stop sends SIGINT and returns the exit code and the rest of the log; the
// process must end within a bound.
func (p *process) stop(t *testing.T) (int, string) {
	t.Helper()
	return p.stopWith(t, syscall.SIGINT)
}

// stopWith is stop with the signal sig.
func (p *process) stopWith(t *testing.T, sig syscall.Signal) (int, string) {
	t.Helper()
	syscall.Kill(p.pid, sig)
	exited := make(chan []byte, 1)
	go func() {
		rest, _ := io.ReadAll(p.log) // before Wait, which closes the pipe
		p.cmd.Wait()
		exited <- rest
	}()
	select {
	case rest := <-exited:
		return p.cmd.ProcessState.ExitCode(), string(rest)
	case <-time.After(30 * time.Second):
		t.Fatalf("the process did not end within 30 s of %v", sig)
	}
	return 0, ""
}

// TestClosedLogReader: when the log reader goes away, the process neither
// dies of SIGPIPE nor stops delivering; SIGINT then ends it with exit 0.
func TestClosedLogReader(t *testing.T) {
	p := startProcess(t)
	p.stderr.Close()
	for i := range 20 {
		if code, v := post(t, http.DefaultClient, p.base+"/pages/gone?version="+string(rune('a'+i)), ""); code != 202 {
			t.Fatal(code, v)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	s := p.stats(t)
	for (s.Pending > 0 || s.LogDropped == 0) && time.Now().Before(deadline) {
		s = p.stats(t)
	}
	if s.Pending != 0 || s.LogDropped == 0 {
		t.Errorf("%+v: want all delivered and log records dropped", s)
	}
	if code, _ := p.stop(t); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestShutdownWithUpload: SIGINT while a client is still uploading ends
// the process, exit 0, after -shutdown-timeout; the final log line says
// what is lost.
func TestShutdownWithUpload(t *testing.T) {
	p := startProcess(t, "-shutdown-timeout", "200ms")
	p.upload(t)
	code, rest := p.stop(t)
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{"closing connections still busy", "stopped: 0 messages still pending", "are lost"} {
		if !strings.Contains(rest, want) {
			t.Errorf("log after SIGINT lacks %q:\n%s", want, rest)
		}
	}
}

// TestSecondSignal: a second SIGINT ends a process still waiting for a
// client at once, with the shell's code for it (130), also when a script
// started it in the background, where SIGINT starts out ignored.
func TestSecondSignal(t *testing.T) {
	for name, start := range map[string]func(*testing.T, ...string) *process{
		"foreground": startProcess, "background": startInBackground,
	} {
		t.Run(name, func(t *testing.T) {
			p := start(t, "-shutdown-timeout", "1m")
			p.upload(t)
			syscall.Kill(p.pid, syscall.SIGINT)
			for {
				line, err := p.log.ReadString('\n')
				if err != nil {
					t.Fatalf("no shutdown line: %v", err)
				}
				if strings.Contains(line, "shutting down") {
					break
				}
			}
			if code, rest := p.stop(t); code != 130 || !strings.Contains(rest, "second signal") {
				t.Errorf("exit %d, want 130; log %s", code, rest)
			}
		})
	}
}

// TestHelp: -h says what the in-memory store loses and where the durable
// one is; it is the same text every time (no random -seed, no default
// read from the machine: -max-conns and -seed say what 0 means and show no
// default of their own).
func TestHelp(t *testing.T) {
	help := func() string {
		var out bytes.Buffer
		p := Program{Name: "pagequeue", Keeps: MemoryKeeps}
		if code := p.Run(context.Background(), []string{"-h"}, &out); code != 0 {
			t.Errorf("exit %d", code)
		}
		return out.String()
	}
	out := help()
	for _, want := range []string{"are lost", "natsqueue/cmd/pagequeue", "-max-pending", "-shutdown-timeout",
		"  -max-conns int\n    \tconnections open at once; more wait in the kernel's queue (0: the open-file limit less an eighth, at most 10000; the listening line gives the number)\n",
		"  -seed uint\n    \tseed of the failure draws (0: a random one; the listening line gives the seed used)\n",
		"  -retry-delay duration\n", "(default 1s)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("-h lacks %q:\n%s", want, out)
		}
	}
	if again := help(); again != out {
		t.Errorf("-h differs between runs:\n%s\n%s", out, again)
	}
}

// closingStore records that the host closed it.
type closingStore struct {
	*MemoryStore
	closed bool
}

func (s *closingStore) Close() error { s.closed = true; return nil }

// TestStoreClosed: a store that is an io.Closer is closed when the host
// stops (natsqueue's connection and embedded server end cleanly), after the
// final counts are logged.
func TestStoreClosed(t *testing.T) {
	s := &closingStore{MemoryStore: NewMemoryStore()}
	p := Program{Name: "pagequeue", Keeps: MemoryKeeps, Open: func() (Store, error) { return s, nil }}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stop at once
	var out bytes.Buffer
	if code := p.Run(ctx, []string{"-addr", "127.0.0.1:0"}, &out); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if !s.closed {
		t.Error("the store was not closed")
	}
	if !strings.Contains(out.String(), "stopped: 0 messages") {
		t.Errorf("no final line: %s", out.String())
	}
}

// TestProcessRefusesFlags: the command refuses a flag out of range or not
// in its form, a port out of range, a stray argument, and plain HTTP on an
// address that is not loopback, with exit 2 before it listens: one line
// naming the flag and what it wants, one pointing to -h, no usage.
func TestProcessRefusesFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-fail", "2"}, `invalid value "2" for flag -fail: want 0 to 1`},
		{[]string{"-fail", "-1"}, `invalid value "-1" for flag -fail: want 0 to 1`},
		{[]string{"-retry-delay", "-1"}, `invalid value "-1" for flag -retry-delay: want 0s to 12h (whole seconds)`},
		{[]string{"-batch-timeout", "5"}, `invalid value "5" for flag -batch-timeout: want a duration such as 30s, 500ms or 2m`},
		{[]string{"-addr", "127.0.0.1:99999"}, `invalid value "127.0.0.1:99999" for flag -addr: want host:port with a port from 0 to 65535`},
		{[]string{"-addr", "127.0.0.1:0", "extra"}, `unexpected argument "extra": pagequeue takes flags only`},
		{[]string{"-addr", "0.0.0.0:0"}, `flag -addr "0.0.0.0:0" is not a loopback address: serve HTTPS there (-tls-cert and -tls-key), or add -insecure-addr if plain HTTP is meant`},
	} {
		cmd := exec.Command(os.Args[0], c.args...)
		cmd.Env = append(os.Environ(), "PAGEHOST_MAIN=1")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 2 || string(out) != c.want+"\npagequeue -h lists the flags and their forms.\n" {
			t.Errorf("%v: exit %d\n%s", c.args, code, out)
		}
	}
}

// TestProcessExposed: the command with -tls-cert, -tls-key and
// -token-file serves HTTP/2 over TLS and answers only requests with the
// token.
func TestProcessExposed(t *testing.T) {
	certFile, keyFile, pool := writeCert(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startProcess(t, "-tls-cert", certFile, "-tls-key", keyFile, "-token-file", tokenFile)
	if !strings.HasPrefix(p.base, "https://") {
		t.Fatalf("listening on %s", p.base)
	}
	c := h2Client(t, pool)
	for _, token := range []string{"", "s3cret"} {
		req, _ := http.NewRequest(http.MethodPost, p.base+"/pages/x?version=1", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[string]int{"": 401, "s3cret": 202}[token]; resp.StatusCode != want || resp.ProtoMajor != 2 {
			t.Errorf("token %q: %s %d, want HTTP/2 %d", token, resp.Proto, resp.StatusCode, want)
		}
	}
	go io.Copy(io.Discard, p.log)
}

// TestProcessStartAndStop: the command starts with an empty queue (a
// POST /pages queues the first message) and stops cleanly, exit 0 with its
// final line, on SIGINT (Ctrl-C) and on SIGTERM (a script's kill), run in
// the foreground or as a script's background job.
func TestProcessStartAndStop(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for name, start := range map[string]func(*testing.T, ...string) *process{
			"foreground": startProcess, "background": startInBackground,
		} {
			t.Run(fmt.Sprintf("%v/%s", sig, name), func(t *testing.T) {
				p := start(t)
				if s := p.stats(t); s.Sent != 0 || s.Pending != 0 {
					t.Errorf("on start: %+v, want nothing sent", s)
				}
				if code, v := post(t, http.DefaultClient, p.base+"/pages/release/x?version=v8", ""); code != http.StatusAccepted {
					t.Fatal(code, v)
				}
				if s := p.stats(t); s.Sent != 1 {
					t.Errorf("after one POST: %+v, want 1 sent", s)
				}
				code, rest := p.stopWith(t, sig)
				if code != 0 || !strings.Contains(rest, "shutting down") || !strings.Contains(rest, "stopped: ") {
					t.Errorf("exit %d, want 0 after the final line; log %s", code, rest)
				}
			})
		}
	}
}
