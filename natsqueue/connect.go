package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// minServer is the oldest nats-server natsqueue runs on: message schedules
// (delays) came in 2.12.0; 2.12.5 is the first with the fix for messages
// lost from work-queue streams at R3 (nats-server#7845). An older server
// accepts a delayed message and never delivers it.
var minServer = [3]int{2, 12, 5}

// checkVersion fails on a server older than minServer (or whose version
// cannot be read), naming the version found and the minimum.
func checkVersion(v string) error {
	min := fmt.Sprintf("%d.%d.%d", minServer[0], minServer[1], minServer[2])
	got, ok := parseVersion(v)
	if !ok {
		return fmt.Errorf(msgServerTooOld, strconv.Quote(v), min)
	}
	for i := range got {
		if got[i] != minServer[i] {
			if got[i] < minServer[i] {
				return fmt.Errorf(msgServerTooOld, v, min)
			}
			return nil
		}
	}
	return nil
}

// parseVersion reads "2.15.2" (or "2.15.2-beta.1") as its three numbers.
func parseVersion(v string) ([3]int, bool) {
	var n [3]int
	core, _, _ := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return n, false
	}
	for i, s := range parts {
		x, err := strconv.Atoi(s)
		if err != nil || x < 0 {
			return n, false
		}
		n[i] = x
	}
	return n, true
}

// secured is opts, and when they or the URLs carry credentials, the
// requirement that the connection be TLS: nats.go then refuses a server that does not offer
// TLS before it sends its CONNECT, so a credential never travels in clear
// text.
func secured(urls []string, opts []nats.Option) []nats.Option {
	o := nats.GetDefaultOptions()
	for _, opt := range opts {
		if opt != nil && opt(&o) != nil {
			return opts // nats.Connect reports the bad option
		}
	}
	if !strings.Contains(strings.Join(urls, ","), "@") && o.User == "" && o.Password == "" && o.Token == "" && o.TokenHandler == nil && o.UserInfo == nil &&
		o.Nkey == "" && o.UserJWT == nil {
		return opts
	}
	return append(opts[:len(opts):len(opts)], nats.Secure())
}

// connect starts the embedded server or dials URLs, checks the server's
// version and, for the embedded server, waits until JetStream answers.
func (p *Platform) connect() error {
	if len(p.opts.URLs) > 0 {
		return p.connectCluster()
	}
	e, err := startEmbedded(p.opts)
	if err != nil {
		return err
	}
	p.own, p.embed = e, e.srv
	if err := p.dial("", e.auth); err != nil {
		return err
	}
	if p.opts.SyncInterval == 0 && canSyncStore {
		p.js = syncedJS{JetStream: p.js, g: &groupSync{sync: e.sync.sync}}
	}
	return p.waitJetStream()
}

// dial connects to url with extra options after natsqueue's own; the
// client reconnects for ever, since a cluster may take a while to elect
// leaders after a node is lost.
func (p *Platform) dial(url string, extra []nats.Option) error {
	opts := append([]nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(100 * time.Millisecond),
		nats.Timeout(p.opts.Timeout), nats.Name("hostbridge natsqueue")}, extra...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		name := "the embedded server"
		if url != "" {
			name = redactURLs(strings.Split(url, ","))
		}
		return fmt.Errorf(msgConnect, name, err)
	}
	p.nc = nc
	if err := checkVersion(nc.ConnectedServerVersion()); err != nil {
		return err
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(p.opts.Timeout))
	if err != nil {
		return fmt.Errorf("natsqueue: %w", err)
	}
	p.js = js
	return nil
}

// waitJetStream waits, up to 30 s, until JetStream answers (a restarted
// server recovers its streams first).
func (p *Platform) waitJetStream() error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := p.ctx()
		_, err := p.js.AccountInfo(ctx)
		cancel()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readyPause is how long connectCluster waits between tries.
const readyPause = 250 * time.Millisecond

// notReady is an error of a try that a cluster still starting can cause,
// so that connectCluster tries again: no server to connect to yet, or no
// JetStream leader or not enough servers to place a stream.
type notReady struct{ err error }

func (e notReady) Error() string { return e.err.Error() }
func (e notReady) Unwrap() error { return e.err }

// connectCluster dials URLs; with ReadyWait it tries again, for up to
// ReadyWait, until the cluster can place the counter stream with Replicas
// copies: right after its servers start, a cluster has no JetStream
// leader yet, and a stream request times out. When it gives up, the error
// says what it waited for.
func (p *Platform) connectCluster() error {
	if p.opts.ReadyWait <= 0 {
		return p.dial(strings.Join(p.opts.URLs, ","), secured(p.opts.URLs, p.opts.NATS))
	}
	deadline := time.Now().Add(p.opts.ReadyWait)
	for {
		err := p.tryCluster(deadline)
		var nr notReady
		if !errors.As(err, &nr) {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf(msgClusterNotReady, redactURLs(p.opts.URLs), p.opts.ReadyWait, p.opts.Replicas, nr.err)
		}
		time.Sleep(min(readyPause, left))
	}
}

// tryCluster connects, unless connected, and creates the counter stream,
// within deadline; an error the cluster's start can cause is a notReady
// (with nats.go's reason for a failed connection).
func (p *Platform) tryCluster(deadline time.Time) error {
	if p.js == nil {
		err := p.dial(strings.Join(p.opts.URLs, ","), secured(p.opts.URLs, p.opts.NATS))
		if err != nil && p.nc == nil { // no connection: not yet, or not at all
			return notReady{errors.Unwrap(err)}
		}
		if err != nil { // connected, and the server will not do
			return err
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	ctx, cancel = p.callCtx(ctx)
	defer cancel()
	if _, err := p.ensureStats(ctx); err != nil {
		return notReady{err}
	}
	return nil
}

// redactURLs is urls, comma-separated, with whatever comes before an @ (a
// user and password, or a token) left out.
func redactURLs(urls []string) string {
	out := make([]string, len(urls))
	for i, u := range urls {
		scheme, rest, ok := strings.Cut(u, "://")
		if !ok {
			scheme, rest = "", u
		}
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest = "xxxxx@" + rest[at+1:]
		}
		if ok {
			rest = scheme + "://" + rest
		}
		out[i] = rest
	}
	return strings.Join(out, ",")
}

// Where says where p keeps its queues, for a host's log: the embedded
// server's directory (absolute), or the cluster's URLs without their
// credentials.
func (p *Platform) Where() string {
	if len(p.opts.URLs) > 0 {
		return redactURLs(p.opts.URLs)
	}
	if dir, err := filepath.Abs(p.opts.StoreDir); err == nil {
		return dir
	}
	return p.opts.StoreDir
}

// SyncPolicy says, for a host's log, when what p accepted reaches the
// disk: "before each answer" (SyncInterval 0), "every <SyncInterval>", or,
// on a cluster, "as the servers are configured".
func (p *Platform) SyncPolicy() string {
	switch {
	case len(p.opts.URLs) > 0:
		return "as the servers are configured"
	case p.opts.SyncInterval > 0:
		return "every " + p.opts.SyncInterval.String()
	}
	return "before each answer"
}
