package pagehost

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Program is one pagequeue command: its name, its store and what the store
// keeps when the process ends.
type Program struct {
	Name string
	// Keeps says, in a sentence or two for an operator, what becomes of the
	// messages still pending when the process ends (MemoryKeeps for the
	// in-memory store). The -h text and the final log line say it.
	Keeps string
	// Flags, when not nil, adds the store's own flags.
	Flags func(*flag.FlagSet)
	// Open opens the store, after the flags are parsed.
	Open func() (Store, error)
}

// The log: records waiting for a slow log reader, and how long the end of
// the process waits for them.
const (
	logLines = 4096
	logFlush = 2 * time.Second
)

// Main runs p with the command line's arguments until SIGINT or SIGTERM,
// then exits. A second signal ends the process at once, with the shell's
// code for it (130 for SIGINT, 143 for SIGTERM). The host keeps handling
// both signals rather than restoring their first disposition: a script's
// background job (`pagequeue &` in sh) starts with SIGINT ignored, and a
// restored disposition would ignore the second Ctrl-C too. SIGPIPE is
// ignored, so that a log reader that goes away costs log records, not the
// queue.
func Main(p Program) {
	signal.Ignore(syscall.SIGPIPE)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-sig
		cancel()
		s := <-sig
		slog.New(slog.NewTextHandler(os.Stderr, nil)).Warn("second signal: exiting at once", "signal", s.String())
		n, _ := s.(syscall.Signal) // it is: Notify asked for two of them
		os.Exit(128 + int(n))
	}()
	os.Exit(p.Run(ctx, os.Args[1:], os.Stderr))
}

// Run parses args, opens the store and serves until ctx ends, logging to
// stderr; it returns the process's exit code.
func (p Program) Run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := flags(fs)
	if p.Flags != nil {
		p.Flags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, usage, p.Name, p.Keeps)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	logw := newLogWriter(stderr, logLines)
	defer logw.Close(logFlush)
	log := slog.New(slog.NewTextHandler(logw, nil))
	if err := p.serve(ctx, *cfg, log, logw); err != nil {
		log.Error("failed", "err", err)
		return 1
	}
	return 0
}

const usage = `Usage of %s:

A small host on hostbridge's queue: POST /pages/<path>?version=v and POST
/batch enqueue, consumer loops deliver, GET /stats counts. It logs to stderr.

%s

Flags:
`

func (p Program) serve(ctx context.Context, cfg Config, log *slog.Logger, logw *logWriter) error {
	store, err := p.Open()
	if err != nil {
		return err
	}
	if c, ok := store.(io.Closer); ok {
		defer closeStore(c, log)
	}
	h, err := newHost(cfg, store, log)
	if err != nil {
		return err
	}
	h.keeps, h.logw = p.Keeps, logw
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	log.Info("listening on http://"+ln.Addr().String()+" (POST /pages/<path>?version=v, POST /batch, GET /stats)",
		"maxConns", cfg.MaxConns, "maxPending", cfg.MaxPending, "maxDeadLetters", cfg.MaxDeadLetters)
	return h.serve(ctx, ln)
}

// closeStore closes a store that holds resources of its own (natsqueue's
// connection and embedded server) once the host has stopped; a failure is
// logged, since every message is already where the store keeps it.
func closeStore(c io.Closer, log *slog.Logger) {
	if err := c.Close(); err != nil {
		log.Error("closing the store", "err", err)
	}
}

// flags defines the host's flags on fs.
func flags(fs *flag.FlagSet) *Config {
	cfg := &Config{}
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8787", "address to listen on")
	fs.Float64Var(&cfg.Fail, "fail", 0, "share of messages the consumer fails and retries (0 to 1)")
	fs.IntVar(&cfg.RetryDelay, "retry-delay", 1, "retry delay in seconds (0: the queue's default)")
	fs.IntVar(&cfg.MaxRetries, "max-retries", 3, "retries before a message is dead-lettered")
	fs.IntVar(&cfg.BatchSize, "batch-size", 10, "messages per batch (1 to 100)")
	fs.DurationVar(&cfg.BatchTimeout, "batch-timeout", time.Second, "how long a batch waits to fill (Cloudflare's default is 5s)")
	fs.IntVar(&cfg.Consumers, "consumers", 2, "consumer loops")
	fs.Uint64Var(&cfg.Seed, "seed", uint64(time.Now().UnixNano()), "seed of the failure draws")
	fs.IntVar(&cfg.MaxPending, "max-pending", 10000, "messages pending on the queue at most; past it producers get 503 with Retry-After (each message is at most 128 KB)")
	fs.IntVar(&cfg.MaxDeadLetters, "max-dead-letters", 1000, "messages kept on the dead-letter queue; past it the oldest are discarded")
	fs.DurationVar(&cfg.ReadHeaderTimeout, "read-header-timeout", 5*time.Second, "time to read a request's headers")
	fs.DurationVar(&cfg.ReadTimeout, "read-timeout", 30*time.Second, "time to read a whole request, body included (a slower body gets 408)")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", 30*time.Second, "time a keep-alive connection may wait for its next request")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", 10*time.Second, "time requests in flight get to finish at shutdown before their connections are closed")
	fs.IntVar(&cfg.MaxHeaderBytes, "max-header-bytes", 16<<10, "size of a request's headers at most (431 past it)")
	fs.IntVar(&cfg.MaxConns, "max-conns", defaultMaxConns(fileLimit()), "connections open at once; more wait in the kernel's queue (default: the open-file limit less an eighth, at most 10000)")
	return cfg
}
