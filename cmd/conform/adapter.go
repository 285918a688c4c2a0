package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
	"unicode/utf8"

	"hostbridge/internal/conform"
)

// maxLine bounds one line of the adapter's output (CONFORMANCE.md, section 1).
const maxLine = 64 << 20

// handshakeTimeout is how long an adapter may take to start and answer the
// handshake (`go run` compiles first).
const handshakeTimeout = 2 * time.Minute

// brokeKind says how an adapter broke.
type brokeKind string

const (
	brokeDied     brokeKind = "adapter died"
	brokeStalled  brokeKind = "adapter stalled"
	brokeProtocol brokeKind = "protocol error"
)

// broke is an adapter that broke while answering: how, and the details.
type broke struct {
	kind   brokeKind
	detail string
}

func (b *broke) Error() string { return string(b.kind) + ": " + b.detail }

// adapter is one run of the adapter command: its process, a goroutine
// writing its input and one reading its output a line at a time.
type adapter struct {
	cmd     *exec.Cmd
	in      chan []byte // lines to write
	out     chan lineOrErr
	stderr  *tail
	done    chan struct{} // closed when the process has exited
	waitErr error
	quit    chan struct{} // closed when the runner is done with the adapter
	stop    sync.Once     // closes quit
}

type lineOrErr struct {
	line []byte
	err  error
}

// startAdapter starts argv and answers its handshake.
func startAdapter(argv []string) (*adapter, conform.Hello, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	ownGroup(cmd)
	a := &adapter{cmd: cmd, in: make(chan []byte, window), out: make(chan lineOrErr, 1), stderr: &tail{max: 4096},
		done: make(chan struct{}), quit: make(chan struct{})}
	cmd.Stderr = a.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, conform.Hello{}, err
	}
	// The output is a pipe of the runner's own, not cmd.StdoutPipe: Wait
	// closes that as soon as the process exits, and the answers an adapter
	// wrote just before it died, and the end of output that says it died,
	// would be lost (the run then saw a stall instead of a death).
	stdout, out, err := os.Pipe()
	if err != nil {
		return nil, conform.Hello{}, err
	}
	cmd.Stdout = out
	err = cmd.Start()
	out.Close() // the child has its own copy; ours would hide the end of output
	if err != nil {
		stdout.Close()
		return nil, conform.Hello{}, err
	}
	go a.write(stdin)
	go a.read(stdout)
	go func() { a.waitErr = cmd.Wait(); close(a.done) }()
	h, err := a.handshake()
	if err != nil {
		a.kill()
	}
	return a, h, err
}

func (a *adapter) handshake() (conform.Hello, error) {
	line, err := a.roundTrip([]byte(`{"type":"hello","protocol":1}`), handshakeTimeout)
	var h conform.Hello
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(line, &h); err != nil || h.Type != conform.TypeHello {
		return h, &broke{brokeProtocol, fmt.Sprintf("the handshake's answer is not a hello message: %.200s", line)}
	}
	if h.Protocol != conform.Protocol {
		return h, &broke{brokeProtocol, fmt.Sprintf("the adapter speaks protocol %d; this runner speaks %d", h.Protocol, conform.Protocol)}
	}
	return h, nil
}

// write writes each line it is given, until the input fails.
func (a *adapter) write(w io.WriteCloser) {
	defer w.Close()
	for line := range a.in {
		if _, err := w.Write(line); err != nil {
			return
		}
	}
}

// read reads the output a line at a time; it ends at the first error (the
// end of output included, which it passes on like a line), or when the
// runner is done with the adapter.
func (a *adapter) read(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := readLine(br)
		select {
		case a.out <- lineOrErr{line, err}:
		case <-a.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line of at most maxLine bytes, without its newline.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if len(line)+len(part) > maxLine {
			return nil, &broke{brokeProtocol, "a line longer than 64 MiB"}
		}
		line = append(line, part...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) > 0:
			return nil, &broke{brokeProtocol, "the output ends in the middle of a line"}
		}
		return nil, err
	}
}

// roundTrip writes one message and waits at most limit for its answer
// line; any failure is a *broke.
func (a *adapter) roundTrip(msg []byte, limit time.Duration) ([]byte, error) {
	a.send(msg)
	return a.receive(time.Now().Add(limit), limit)
}

// send queues one message for the adapter's input. It never blocks while
// fewer than window messages are queued and unanswered.
func (a *adapter) send(msg []byte) { a.in <- append(msg, '\n') }

// receive waits until deadline for the next answer line; limit is the
// per-case time limit, for the message. Any failure is a *broke.
func (a *adapter) receive(deadline time.Time, limit time.Duration) ([]byte, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case r := <-a.out:
		if r.err != nil {
			var b *broke
			if errors.As(r.err, &b) {
				return nil, b
			}
			return nil, a.died()
		}
		if !utf8.Valid(r.line) {
			return nil, &broke{brokeProtocol, "an answer that is not UTF-8"}
		}
		return r.line, nil
	case <-timer.C:
		return nil, &broke{brokeStalled, fmt.Sprintf("no answer within %v", limit)}
	}
}

// died describes an adapter whose output ended: its exit status, if it has
// one by now, and the end of its standard error.
func (a *adapter) died() *broke {
	select {
	case <-a.done:
	case <-time.After(2 * time.Second):
	}
	status := "still running, its output closed"
	select {
	case <-a.done:
		status = "exit status 0"
		if a.waitErr != nil {
			status = a.waitErr.Error()
		}
	default:
	}
	return &broke{brokeDied, status + a.stderr.show()}
}

// close ends the run: the adapter's input closes, and it has 2 s to exit.
func (a *adapter) close() {
	close(a.in)
	select {
	case <-a.done:
	case <-time.After(2 * time.Second):
		a.kill()
	}
	a.stop.Do(func() { close(a.quit) })
}

// kill kills the adapter and every process it started, and waits for it.
func (a *adapter) kill() {
	killGroup(a.cmd)
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
	}
	a.stop.Do(func() { close(a.quit) })
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// show is the kept standard error, as a suffix of a message.
func (t *tail) show() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := bytes.TrimSpace(t.b)
	if len(s) == 0 {
		return ""
	}
	return "; its standard error ends:\n" + string(s)
}
