// Command pagequeue is the pagequeue host on a durable store: NATS
// JetStream, embedded in the process with its streams in a directory
// (-store DIR, the default) or an existing cluster (-nats URL[,URL…]). The
// host itself is hostbridge/internal/pagehost, as for the in-memory
// cmd/pagequeue: the same routes, flags and /stats JSON; this main gives it
// natsqueue, whose counters live in JetStream and survive restarts.
//
//	cd natsqueue && go run ./cmd/pagequeue [-store pagequeue-data | -nats nats://…] [-addr 127.0.0.1:8787]
//
// With -nats it waits up to -nats-wait (30s) for a cluster just started to
// be ready; its first log line names the store, where it is and its sync
// policy.
package main

import (
	"context"
	"errors"
	"flag"
	"strings"
	"time"

	"hostbridge"
	"hostbridge/internal/pagehost"
	"hostbridge/natsqueue"

	"github.com/nats-io/nats.go"
)

// keeps is what the store keeps when the process ends.
const keeps = "The durable store keeps every message it accepted when the process ends, " +
	"even by SIGKILL: pending, delayed and retried ones, and the /stats counters but connections and logDropped " +
	"(sent may miss the last 50 ms of sends; acked and deadLettered may count a redelivered message twice). " +
	"A batch in flight comes back after -ack-wait with attempts + 1. " +
	"-store keeps them in one directory, each page synced to disk before its 202 " +
	"(with -sync-interval D, a machine crash or power loss can lose the pages answered in the last D); " +
	"-nats with three servers keeps them while two of the three run (synced as the servers are configured)."

func main() { pagehost.Main(program()) }

func program() pagehost.Program {
	var dir, urls string
	var ackWait, syncInterval, natsWait time.Duration
	var nf natsFlags
	var natsOpts []nats.Option
	var portPassword string
	var opened store
	return pagehost.Program{
		Name:  "pagequeue",
		Keeps: keeps,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&dir, "store", "pagequeue-data", "directory of the embedded JetStream server's streams (unused with -nats)")
			fs.StringVar(&urls, "nats", "", "URLs of an existing NATS JetStream cluster, comma-separated; with more than one, streams have 3 replicas")
			fs.DurationVar(&natsWait, "nats-wait", 30*time.Second, "how long to wait for the -nats cluster to be ready (a server to connect to, a JetStream leader, room for the streams' replicas) before giving up with exit 1; 0s: try once")
			fs.DurationVar(&ackWait, "ack-wait", 30*time.Second, "how long a batch taken by a host that died waits before it is delivered again")
			fs.DurationVar(&syncInterval, "sync-interval", 0, "0: a page is answered once it is synced to disk (-store); above 0: the embedded server syncs every interval, faster, and a power loss can lose what was answered in the last interval")
			nf.register(fs)
		},
		Check: func(fs *flag.FlagSet) (err error) {
			err = pagehost.CheckRanges(fs, []pagehost.FlagRange{
				{Flag: "ack-wait", Bad: ackWait <= 0, Want: "more than 0s"},
				{Flag: "sync-interval", Bad: syncInterval < 0, Want: "0s or more"},
				{Flag: "nats-wait", Bad: natsWait < 0, Want: "0s or more"},
				{Flag: "store-port", Bad: nf.port < 0 || nf.port > 65535, Want: "0 to 65535"},
			})
			if err == nil {
				portPassword, err = nf.portPassword()
			}
			if err == nil {
				natsOpts, err = nf.options() // the files they name read now: a usage error, exit 2
			}
			return err
		},
		Open: func() (pagehost.Store, error) {
			o := natsqueue.Options{StoreDir: dir, AckWait: ackWait, SyncInterval: syncInterval, ReadyWait: natsWait,
				Port: nf.port, PortUser: nf.portUser, PortPassword: portPassword, NATS: natsOpts}
			s, err := open(o, urls)
			if err != nil {
				return nil, err
			}
			opened = s
			return s, nil
		},
		Describe: func() []any { return describe(opened.Platform, urls != "") },
	}
}

// describe is the listening line's account of the store: embedded or a
// cluster, where (its directory, or URLs without credentials), and when
// what it accepts reaches the disk.
func describe(p *natsqueue.Platform, cluster bool) []any {
	if cluster {
		return []any{"store", "nats", "urls", p.Where(), "sync", p.SyncPolicy()}
	}
	return []any{"store", "embedded", "dir", p.Where(), "sync", p.SyncPolicy()}
}

// open opens the store: on the cluster at urls, else embedded on
// o.StoreDir.
func open(o natsqueue.Options, urls string) (store, error) {
	if urls != "" {
		o.URLs = strings.Split(urls, ",")
		if len(o.URLs) > 1 {
			o.Replicas = 3
		}
	}
	p, err := natsqueue.Open(o)
	if err != nil {
		return store{}, err
	}
	p.Bind(pagehost.Binding, pagehost.Queue)
	p.Grant(pagehost.Binding)
	return store{p}, nil
}

// store is natsqueue as a pagehost.Store.
type store struct{ *natsqueue.Platform }

func (s store) Send(ctx context.Context, binding string, body []byte, opts hostbridge.SendOptions) error {
	return fullError(s.Platform.Send(ctx, binding, body, opts))
}

func (s store) SendBatch(ctx context.Context, binding string, msgs []hostbridge.BatchMessage) error {
	return fullError(s.Platform.SendBatch(ctx, binding, msgs))
}

// KeptCounts are the batches and full-queue refusals natsqueue keeps, so
// that /stats' batches and refusedFull survive restarts.
func (s store) KeptCounts(queue string) (batches, refusedFull int64) {
	m := s.MoreStats(context.Background(), queue) // bounded by Options.Timeout
	return m.Batches, m.RefusedFull
}

// Stats is natsqueue's Stats for the host's /stats, each call to the
// server bounded by Options.Timeout.
func (s store) Stats(queue string) hostbridge.QueueStats {
	return s.Platform.Stats(context.Background(), queue)
}

// fullError is natsqueue's full queue as the host's.
func fullError(err error) error {
	if errors.Is(err, natsqueue.ErrQueueFull) {
		return pagehost.ErrQueueFull
	}
	return err
}

// SetLimits bounds queue's pending messages and its dead-letter queue's
// size (set by SetConsumer before).
func (s store) SetLimits(queue string, l pagehost.Limits) error {
	if err := l.Check(); err != nil {
		return err
	}
	ctx := context.Background() // each call bounded by Options.Timeout
	if err := s.Platform.SetLimits(ctx, queue, l.MaxPending, 0); err != nil {
		return err
	}
	if dead := s.Consumer(queue).DeadLetterQueue; dead != "" {
		return s.Platform.SetLimits(ctx, dead, 0, l.MaxDeadLetters)
	}
	return nil
}
