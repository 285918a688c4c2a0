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
	// Check, when not nil, checks the store's own flags once they are
	// parsed (CheckRanges says how): an error is a usage error, exit 2.
	Check func(*flag.FlagSet) error
	// Open opens the store, after the flags are parsed.
	Open func() (Store, error)
	// Describe, when not nil, gives the listening line's attributes for the
	// store once it is open (slog's key-value pairs): where it keeps the
	// messages and how it syncs them. Without it the line says store=memory.
	Describe func() []any
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
// stderr; it returns the process's exit code: 2 for a flag that does not
// parse, is out of range or names a file that cannot be used, or a stray
// argument (one line names the flag and what it wants, one points to -h),
// 1 when the host fails, else 0 (SIGINT and SIGTERM included). -h prints
// the usage and returns 0.
func (p Program) Run(ctx context.Context, args []string, stderr io.Writer) int {
	fs, cfg := p.flagSet()
	err := p.parse(fs, cfg, args)
	if err == flag.ErrHelp {
		fmt.Fprintf(stderr, usage, p.Name, p.Keeps)
		printFlags(stderr, fs)
		return 0
	}
	if err == nil {
		err = cfg.load()
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		fmt.Fprintf(stderr, msgFlagHint+"\n", p.Name)
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

// flagSet is the host's flags, set on cfg, and the store's; it prints
// nothing (Run says what is wrong).
func (p Program) flagSet() (*flag.FlagSet, *Config) {
	fs := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	cfg := flags(fs)
	if p.Flags != nil {
		p.Flags(fs)
	}
	nameForms(fs)
	return fs, cfg
}

// parse parses args into fs and checks the host's flags (cfg), then the
// store's: the error is a usage error naming the flag or the argument, or
// flag.ErrHelp.
func (p Program) parse(fs *flag.FlagSet, cfg *Config, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf(msgFlagArgs, fs.Arg(0), p.Name)
	}
	if err := cfg.check(fs); err != nil || p.Check == nil {
		return err
	}
	return p.Check(fs)
}

const usage = `Usage of %s:

A small host on hostbridge's queue: POST /pages/<path>?version=v and POST
/batch enqueue, consumer loops deliver, GET /stats and GET /metrics count.
It logs to stderr. Every route is open to whoever reaches -addr unless
-token-file is given; -addr is loopback unless -tls-cert and -tls-key (or
-insecure-addr) are given.

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
	scheme := "http://"
	if cfg.Certificate != nil {
		scheme = "https://"
	}
	log.Info("listening on "+scheme+ln.Addr().String()+" (POST /pages/<path>?version=v, POST /batch, GET /stats, GET /metrics)",
		append(p.describe(), "token", len(cfg.Token) > 0, "maxConns", h.cfg.MaxConns, "maxPending", cfg.MaxPending,
			"maxDeadLetters", cfg.MaxDeadLetters, "seed", h.cfg.Seed)...)
	return h.serve(ctx, ln)
}

// describe is the store's attributes for the listening line.
func (p Program) describe() []any {
	if p.Describe == nil {
		return []any{"store", "memory"}
	}
	return p.Describe()
}

// closeStore closes a store that holds resources of its own (natsqueue's
// connection and embedded server) once the host has stopped; a failure is
// logged, since every message is already where the store keeps it.
func closeStore(c io.Closer, log *slog.Logger) {
	if err := c.Close(); err != nil {
		log.Error("closing the store", "err", err)
	}
}
