package pagehost

import (
	"context"
	"flag"
	"fmt"
	"io"
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

// Main runs p with the command line's arguments until SIGINT or SIGTERM,
// then exits.
func Main(p Program) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(p.Run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// Run parses args, opens the store and serves until ctx ends; it returns the
// process's exit code.
func (p Program) Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := flags(fs)
	if p.Flags != nil {
		p.Flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if err := p.serve(ctx, *cfg, stdout); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
		return 1
	}
	return 0
}

func (p Program) serve(ctx context.Context, cfg Config, stdout io.Writer) error {
	store, err := p.Open()
	if err != nil {
		return err
	}
	h, err := newHost(cfg, store, stdout)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: listening on http://%s (POST /pages/<path>?version=v, POST /batch, GET /stats)\n", p.Name, ln.Addr())
	return h.serve(ctx, ln)
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
	return cfg
}
