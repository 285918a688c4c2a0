package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"hostbridge"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Options say where a Platform keeps its queues and how.
type Options struct {
	// URLs are the servers of an existing NATS cluster with JetStream. When
	// empty, Open starts an embedded single-node server that keeps its
	// streams in StoreDir.
	URLs []string
	// StoreDir is the embedded server's JetStream directory (required when
	// URLs is empty; ignored otherwise).
	StoreDir string
	// Replicas is how many copies of each stream the cluster keeps: 1
	// (default) or 3.
	Replicas int
	// Prefix starts every stream name and subject the platform uses
	// (default "HB"), so several deployments can share one cluster.
	Prefix string
	// AckWait is how long the server waits for a delivered message's ack
	// before it redelivers it (default 30 s). A batch being filled and a
	// running handler keep their lease by InProgress every AckWait/3.
	AckWait time.Duration
	// Timeout bounds every call to the server: a send that gets no answer
	// within it fails with the platform's reason (default 5 s).
	Timeout time.Duration
	// ReadyWait, above 0, is how long Open waits for the cluster at URLs to
	// be ready, trying again every 250 ms: a server to connect to, a
	// JetStream leader, and room to place a stream of Replicas copies (a
	// cluster just started has none of them for a few seconds). 0 (the
	// default): Open tries once to connect, and the first stream request
	// fails while the cluster is not ready.
	ReadyWait time.Duration

	// SyncInterval is the embedded server's durability. 0 (the default):
	// a send is answered only after a sync of the store that started after
	// the server stored it, so every message answered for survives a power
	// loss; concurrent sends share their syncs. Above 0: the server syncs
	// every SyncInterval (nats-server's periodic sync, 2 min by its
	// default), faster, and a power loss can lose what was answered in the
	// last SyncInterval. A cluster at URLs syncs as its servers are
	// configured (sync_interval).
	SyncInterval time.Duration
	// Port, when above 0, lets the embedded server take TCP connections on
	// 127.0.0.1:Port (for the nats CLI, say), from PortUser with
	// PortPassword only (both required). By default it takes none:
	// natsqueue connects to it in process.
	Port                   int
	PortUser, PortPassword string
	// NATS are nats.go options for the connection to URLs, applied after
	// natsqueue's own: credentials (nats.UserCredentials,
	// nats.NkeyOptionFromSeed, nats.UserInfo, nats.Token) and TLS
	// (nats.RootCAs, nats.ClientCert, nats.Secure with a tls.Config).
	// With credentials the connection requires TLS: they are never sent in
	// clear text.
	NATS []nats.Option

	// Logger gets the errors no caller can be given: a failed ack, nak or
	// in-progress notice, a failed pull while a batch fills, a counter that
	// could not be stored or read yet (default slog.Default()).
	Logger *slog.Logger
}

// Platform is a hostbridge.Platform whose queues are NATS JetStream
// streams; see the package doc for the mapping and the delivery semantics.
// It is safe for concurrent use.
type Platform struct {
	hostbridge.Bindings // Bind, Grant, GrantJSON, Bound (config.go)

	opts   Options
	nc     *nats.Conn
	js     jetstream.JetStream
	embed  *server.Server // the embedded server, nil on URLs
	own    *embedded      // what the embedded server owns, nil on URLs
	idBase string         // 16 hex digits, random per Platform

	opening  sync.Mutex // held while ensureQueue creates a queue
	mu       sync.Mutex
	seq      uint64
	settings map[string]hostbridge.ConsumerSettings
	queues   map[string]*queueState // queues whose stream and consumer exist
	limits   map[string]queueLimits
	// api deletes and reads single messages (msgapi.go); tests fail it.
	api msgAPI
	// patience is copyPatience, settledTTL settledTTL; tests shorten them.
	patience, settledTTL time.Duration
	// loseRemovals: tests lose the removals of settled originals, as an
	// ack lost with a connection or a server fault would.
	loseRemovals atomic.Bool

	claimsOnce  sync.Mutex // guards claimsReady
	claimsReady bool       // the claims stream exists
	statsOnce   sync.Mutex // guards stats
	stats       jetstream.Stream
	stopFlush   chan struct{}
	flushDone   chan struct{}
	closeOnce   sync.Once

	// retryUnit is the length of a retry delay's second: time.Second, but
	// tests shorten it to replay rows with 30 s retries in real time.
	retryUnit time.Duration
	// asking are the questions about sends the server did not answer
	// (askStored); Close sets closing (under mu), closes stopAsking and
	// waits for them.
	asking     sync.WaitGroup
	closing    bool
	stopAsking chan struct{}
	// losePubAcks: tests lose the answer to a send the server stored, as
	// a timeout or a failover would.
	losePubAcks atomic.Bool
}

var _ hostbridge.Platform = (*Platform)(nil)

// Open connects to the cluster at opts.URLs, or starts an embedded server
// on opts.StoreDir, and returns a Platform with no bindings and no grants.
func Open(opts Options) (*Platform, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	p := newPlatform(opts)
	p.idBase = randomHex(8)
	if err := p.connect(); err != nil {
		p.Close()
		return nil, err
	}
	p.stopFlush, p.flushDone = make(chan struct{}), make(chan struct{})
	go p.flusher(p.stopFlush, p.flushDone)
	return p, nil
}

// newPlatform is a Platform of opts with no connection and no
// configuration.
func newPlatform(opts Options) *Platform {
	p := &Platform{opts: opts, settings: map[string]hostbridge.ConsumerSettings{}, queues: map[string]*queueState{},
		limits: map[string]queueLimits{}, retryUnit: time.Second,
		patience: copyPatience, settledTTL: settledTTL, stopAsking: make(chan struct{})}
	p.api = leaderAPI{p}
	return p
}

func (o Options) withDefaults() (Options, error) {
	if len(o.URLs) == 0 && o.StoreDir == "" {
		return o, errors.New("natsqueue: Options need URLs or a StoreDir")
	}
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.Replicas != 1 && o.Replicas != 3 {
		return o, fmt.Errorf("natsqueue: Replicas %d is not 1 or 3", o.Replicas)
	}
	if o.Prefix == "" {
		o.Prefix = "HB"
	}
	if !plainName(o.Prefix) {
		return o, fmt.Errorf("natsqueue: Prefix %q is not letters, digits, - and _", o.Prefix)
	}
	if o.AckWait <= 0 {
		o.AckWait = 30 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Port < 0 || o.Port > 65535 {
		return o, fmt.Errorf(msgPortRange, o.Port)
	}
	if o.Port != 0 && len(o.URLs) > 0 {
		return o, errors.New(msgPortWithURLs)
	}
	if o.Port != 0 && (o.PortUser == "" || o.PortPassword == "") {
		return o, errors.New(msgPortNeedsPassword)
	}
	return o, nil
}

// Close ends the questions about sends left without an answer (askStored;
// each after its try in progress, within Options.Timeout), stores the last
// counts, closes the connection and stops the embedded server, if any,
// releasing its store. Messages already accepted
// stay in the streams. Closing again does nothing.
func (p *Platform) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closing = true
		p.mu.Unlock()
		close(p.stopAsking)
		p.asking.Wait() // each within Options.Timeout: its last question
		if p.stopFlush != nil {
			close(p.stopFlush)
			<-p.flushDone
		}
		if p.nc != nil {
			p.nc.Close()
		}
		if p.own != nil {
			p.own.close()
		}
	})
	return nil
}

// log is where errors no caller can be given go: Options.Logger, else
// slog.Default().
func (p *Platform) log() *slog.Logger {
	if p.opts.Logger != nil {
		return p.opts.Logger
	}
	return slog.Default()
}

// Conn returns the platform's connection (for hosts that also want plain
// NATS, and for tests).
func (p *Platform) Conn() *nats.Conn { return p.nc }

func (p *Platform) newID() string {
	p.mu.Lock()
	p.seq++
	n := p.seq
	p.mu.Unlock()
	return fmt.Sprintf("%s%016x", p.idBase, n)
}

// ctx is the context of one call to the server that no caller bounds.
func (p *Platform) ctx() (context.Context, context.CancelFunc) {
	return p.callCtx(context.Background())
}

// callCtx is the context of one call to the server on behalf of a caller's
// ctx: it ends with ctx or after Options.Timeout, whichever comes first.
func (p *Platform) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, p.opts.Timeout)
}
