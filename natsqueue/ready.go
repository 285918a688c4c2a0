package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

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
