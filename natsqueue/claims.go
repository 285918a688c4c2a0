package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A claim is what the cluster has committed of one stored message's life:
// how many times it was handed out, who holds it until when, and, once
// settled, the outcome. It is the last message on a subject of its own in
// the claims stream, and every write of it expects the revision its writer
// read (Nats-Expected-Last-Subject-Sequence; 0 to create it): the stream's
// Raft log commits one write per revision, and a server that only believes
// it leads commits none. So a host hands a message to a handler only after
// it committed a claim on it, applies an outcome only after it committed
// the settled claim over its own, and stores a copy (a retry's, a dead
// letter's) only while its settled claim's lease lasts: reads never decide.
type claim struct {
	N      int    `json:"n"`           // hand-outs of this stored copy, this one included
	Holder string `json:"h"`           // the write's author: a host's ID and a number
	Until  int64  `json:"u"`           // the lease's end, Unix milliseconds (the holder's clock)
	Done   string `json:"o,omitempty"` // the outcome, once settled
	Delay  int    `json:"d,omitempty"` // a retry's delay, seconds
	DLQ    string `json:"q,omitempty"` // a dead letter's queue
}

// The outcomes a settled claim records. A retry or a dead letter is
// settled in two steps: first the outcome (its holder then stores the copy
// while its lease lasts), then doneCopied once the copy is stored.
const (
	doneAck    = "ack"
	doneRetry  = "retry"
	doneDead   = "dead"
	doneDrop   = "drop"
	doneCopied = "copied"
)

// final reports whether c is settled and nothing is left to do but remove
// its message.
func (c claim) final() bool { return c.Done == doneAck || c.Done == doneDrop || c.Done == doneCopied }

// leaseEnded reports whether c's lease is over by this host's clock.
func (c claim) leaseEnded() bool { return !time.UnixMilli(c.Until).After(time.Now()) }

// settledTTL is how long a claim whose message is done is kept (ack, drop,
// copied): the server removes it then (a per-message TTL). A message
// handed out later than that after it was settled (a server paused for
// longer, handing out what it held) would be taken as new. Held claims and
// those whose copy is not stored yet have no TTL.
const settledTTL = time.Hour

// claimsStream is the stream of every queue's claims.
func (p *Platform) claimsStream() string { return p.opts.Prefix + "_CLAIMS" }

// claimSubject is the subject of the claim on the message at seq of the
// queue stream whose token is token.
func (p *Platform) claimSubject(token string, seq uint64) string {
	return p.opts.Prefix + "-claims." + token + "." + strconv.FormatUint(seq, 10)
}

// ensureClaims creates the claims stream (once per Platform).
func (p *Platform) ensureClaims(ctx context.Context) error {
	p.claimsOnce.Lock()
	defer p.claimsOnce.Unlock()
	if p.claimsReady {
		return nil
	}
	_, err := p.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: p.claimsStream(), Subjects: []string{p.opts.Prefix + "-claims.>"},
		Storage: jetstream.FileStorage, Replicas: p.opts.Replicas,
		MaxMsgsPerSubject: 1, AllowMsgTTL: true,
	})
	if err != nil {
		return fmt.Errorf("stream %s: %w", p.claimsStream(), err)
	}
	p.claimsReady = true
	return nil
}

// holding is a claim as its last committed write left it: the subject, the
// revision (the claims stream's sequence of the write; 0: lost to another
// write) and what it says.
type holding struct {
	subj   string
	rev    uint64
	c      claim
	unsure *claim // a write whose answer never came: committed or not
}

// errClaimUnknown: the server did not say, before the deadline, whether a
// claim's write committed.
var errClaimUnknown = errors.New("natsqueue: no answer to a claim's write")

// write writes c over h (a revision 0 creates the claim), with a TTL when c
// is final, trying until deadline; with a lease, each try's c ends it that
// long after the try (a write that waited out an election is committed
// with a lease of its own, not one spent waiting). It reports whether the
// write committed (h is then c as stored, at its new revision) or another
// write came first. A write whose answer was lost is tried again; the
// refusal that follows is this write's own when the claim, read from the
// stream's leader, is newer than h and is c (same holder, hand-outs and
// outcome). errClaimUnknown when the server said neither before deadline:
// h keeps the write as unsure, and the next write over h takes it for h's
// own if the stream has it.
func (p *Platform) write(h *holding, c claim, lease time.Duration, deadline time.Time) (bool, error) {
	return p.writeAfter(claimWrite{h, c, lease}, deadline, false)
}

// claimWrite is a write of c over h; with a lease, c ends it that long
// after the try that commits it.
type claimWrite struct {
	h     *holding
	c     claim
	lease time.Duration
}

// writeAfter is write, told whether an earlier try of the same write got no
// answer (lost: it may have committed).
func (p *Platform) writeAfter(w claimWrite, deadline time.Time, lost bool) (bool, error) {
	h, c, lease := w.h, w.c, w.lease
	for {
		if lease > 0 {
			c.Until = time.Now().Add(lease).UnixMilli()
		}
		data, err := json.Marshal(c)
		if err != nil {
			return false, err
		}
		ctx, cancel := p.tryCtx(deadline)
		ack, err := p.claimsJS().PublishMsg(ctx, &nats.Msg{Subject: h.subj, Data: data}, p.claimOpts(h.rev, c)...)
		cancel()
		switch {
		case err == nil:
			h.rev, h.c, h.unsure = ack.Sequence, c, nil
			return true, nil
		case apiCode(err) == codeWrongLast && !lost && h.unsure == nil:
			return false, nil
		case apiCode(err) == codeWrongLast:
			if last, err := p.readClaim(h.subj, deadline); err == nil && last.Sequence > h.rev {
				if !p.adopt(h, last, c) {
					return false, nil
				}
				if h.c.same(c) {
					return true, nil
				}
				lost = false // h's unsure write committed: c goes over it now
				continue
			}
		case apiCode(err) == codeWrongLastInFlight:
		case errors.Is(err, nats.ErrConnectionClosed):
			return false, err
		default:
			lost = true
		}
		left := time.Until(deadline)
		if left <= 0 {
			if lost {
				h.unsure = &c
			}
			return false, errClaimUnknown
		}
		time.Sleep(min(retryPause, left))
	}
}

// writeEach makes each of ws and reports each as write does, the
// publishes pipelined (one round trip for them all, rather than a
// goroutine waiting for each answer). A write answered neither by its
// commit nor by a refusal, or refused over an unsure write, is tried again
// by writeAfter, which tells a refusal of its own lost write from
// another's.
func (p *Platform) writeEach(ws []claimWrite, deadline time.Time) ([]bool, []error) {
	oks, errs := make([]bool, len(ws)), make([]error, len(ws))
	futures := make([]jetstream.PubAckFuture, len(ws))
	var again sync.WaitGroup
	for i := range ws {
		w := &ws[i]
		if w.lease > 0 {
			w.c.Until = time.Now().Add(w.lease).UnixMilli()
		}
		data, err := json.Marshal(w.c)
		if err != nil {
			errs[i] = err
			continue
		}
		msg := &nats.Msg{Subject: w.h.subj, Data: data}
		if futures[i], err = p.claimsJS().PublishMsgAsync(msg, p.claimOpts(w.h.rev, w.c)...); err != nil { // not sent
			again.Go(func() { oks[i], errs[i] = p.writeAfter(*w, deadline, false) })
		}
	}
	ctx, cancel := p.tryCtx(deadline)
	defer cancel()
	for i, f := range futures {
		if f == nil {
			continue
		}
		var err error
		select {
		case ack := <-f.Ok():
			h := ws[i].h
			h.rev, h.c, h.unsure, oks[i] = ack.Sequence, ws[i].c, nil, true
			continue
		case err = <-f.Err():
		case <-ctx.Done():
		}
		if apiCode(err) == codeWrongLast && ws[i].h.unsure == nil {
			continue // refused: another write came first
		}
		again.Go(func() { oks[i], errs[i] = p.writeAfter(ws[i], deadline, apiCode(err) != codeWrongLast) })
	}
	again.Wait()
	return oks, errs
}

// same reports whether c and o are one write but for the lease's end:
// the same holder, hand-outs and outcome.
func (c claim) same(o claim) bool {
	o.Until = c.Until
	return c == o
}

// adopt takes last, the claim's newest write, for h's own when it is c (the
// write being made) or h's unsure write, and reports whether it did.
func (p *Platform) adopt(h *holding, last *storedMsg, c claim) bool {
	var got claim
	if json.Unmarshal(last.Data, &got) != nil || !got.same(c) && (h.unsure == nil || !got.same(*h.unsure)) {
		return false
	}
	h.rev, h.c, h.unsure = last.Sequence, got, nil
	return true
}

// claimsJS is what claims are written with: the connection's JetStream,
// with no wait for the embedded store's sync. A power cut can take the
// last claims, as it takes the last acks: a message comes back with the
// hand-outs before them and is handled again. The settled claim of a retry
// or a dead letter is synced all the same before its copy is answered (a
// sync covers every write before it), and a copy's mark before the copy
// is handed out and acked.
func (p *Platform) claimsJS() jetstream.JetStream {
	if s, ok := p.js.(syncedJS); ok {
		return s.JetStream
	}
	return p.js
}

// claimOpts are the expectations of a write of c over revision rev.
func (p *Platform) claimOpts(rev uint64, c claim) []jetstream.PublishOpt {
	opts := []jetstream.PublishOpt{jetstream.WithExpectLastSequencePerSubject(rev)}
	if c.final() {
		opts = append(opts, jetstream.WithMsgTTL(p.settledTTL))
	}
	return opts
}

// readClaim is the last write on subj, read from the claims stream's
// leader: an error with codeNoMessage when there is none.
func (p *Platform) readClaim(subj string, deadline time.Time) (*storedMsg, error) {
	ctx, cancel := p.tryCtx(deadline)
	defer cancel()
	return p.api.getMsg(ctx, p.claimsStream(), msgGetRequest{LastFor: subj})
}

// reread is h as the claims stream's leader has it now: ok is false when
// the server did not answer, and h is at revision 0 when there is no claim.
func (p *Platform) reread(h *holding, deadline time.Time) bool {
	m, err := p.readClaim(h.subj, deadline)
	if apiCode(err) == codeNoMessage {
		h.rev, h.c = 0, claim{}
		return true
	}
	if err != nil {
		return false
	}
	var c claim
	if json.Unmarshal(m.Data, &c) != nil {
		return false
	}
	h.rev, h.c = m.Sequence, c
	return true
}

// claimState is what a host found when it tried to claim a message.
type claimState int

const (
	claimHeld    claimState = iota // committed: this host holds it
	claimSettled                   // settled: its outcome is to be finished, not handled
	claimTaken                     // another holder's lease runs
	claimFailed                    // the server confirmed neither within the patience
)

// claimOne claims the message whose claim is on subj: it creates the claim,
// or, when one exists whose lease has ended, takes it over, one hand-out
// more. A claim whose commit this host learnt of only after its lease
// ended (an answer lost, then the write found in the stream) is no longer
// surely its own: another host may have taken it over meanwhile, so it is
// renewed first, fenced as any write. It gives the holding as the last
// write found or made.
func (p *Platform) claimOne(subj string) (*holding, claimState) {
	h := &holding{subj: subj}
	deadline := time.Now().Add(p.settlePatience())
	for time.Now().Before(deadline) {
		ok, err := p.write(h, claim{N: h.c.N + 1, Holder: p.newID()}, p.opts.AckWait, deadline)
		switch {
		case err != nil:
			return h, claimFailed
		case ok && h.c.leaseEnded() && !p.renewOwn(h, deadline):
			continue // taken over meanwhile: see what the claim is now
		case ok:
			return h, claimHeld
		case !p.reread(h, deadline):
			return h, claimFailed
		case h.c.Done != "":
			return h, claimSettled
		case h.rev > 0 && time.Now().Before(p.takeoverAt(h.c)):
			return h, claimTaken
		}
	}
	return h, claimFailed
}

// takeoverAt is when another host may take c, a hand-out's claim, over:
// AckWait/2 after its lease ended, so that a holder whose renewals could
// not commit while the claims stream had no leader has that long, once it
// has one again, to renew (or to learn that its claim committed) before
// the claim is taken from it.
func (p *Platform) takeoverAt(c claim) time.Time {
	return time.UnixMilli(c.Until).Add(p.opts.AckWait / 2)
}

// renewOwn renews h, this host's claim that committed but whose commit
// it learnt of only after its lease ended (an answer lost in an election),
// over h's revision: no other host took it over meanwhile if that commits,
// and no handler has seen this hand-out, so it keeps its count.
func (p *Platform) renewOwn(h *holding, deadline time.Time) bool {
	ok, err := p.write(h, h.c, p.opts.AckWait, deadline)
	return ok && err == nil
}

// claimAll claims each of msgs, all at once, on q's claims: it creates
// their claims, the writes pipelined (writeEach); those that exist already
// (a message handed out before), and those committed too late to be still
// surely this host's that it cannot renew (renewOwn), it then claims one
// by one (claimOne).
func (p *Platform) claimAll(q *queueState, msgs []jetstream.Msg) ([]*holding, []claimState) {
	hs, sts := make([]*holding, len(msgs)), make([]claimState, len(msgs))
	var ws []claimWrite
	for i, m := range msgs {
		hs[i] = &holding{}
		if md, err := m.Metadata(); err == nil {
			hs[i].subj = p.claimSubject(q.names.token, md.Sequence.Stream)
			ws = append(ws, claimWrite{hs[i], claim{N: 1, Holder: p.newID()}, p.opts.AckWait})
		}
	}
	oks, errs := p.writeEach(ws, time.Now().Add(p.settlePatience()))
	var wg sync.WaitGroup
	j := 0
	for i := range msgs {
		if hs[i].subj == "" {
			sts[i] = claimFailed
			continue
		}
		switch ok, err := oks[j], errs[j]; {
		case err != nil:
			sts[i] = claimFailed
		case ok && (!hs[i].c.leaseEnded() || p.renewOwn(hs[i], time.Now().Add(p.settlePatience()))):
			sts[i] = claimHeld
		default:
			wg.Go(func() { hs[i], sts[i] = p.claimOne(hs[i].subj) })
		}
		j++
	}
	wg.Wait()
	return hs, sts
}

// renew extends the lease of each of hs still this host's, all at once,
// each within AckWait/3 (the next renewal comes then). One that another
// write beat is lost (revision 0): its outcome will be refused.
func (p *Platform) renew(hs []*holding) {
	deadline := time.Now().Add(p.opts.AckWait / 3)
	var wg sync.WaitGroup
	for _, h := range hs {
		if h.rev == 0 {
			continue
		}
		wg.Go(func() {
			ok, err := p.write(h, h.c, p.opts.AckWait, deadline)
			if err != nil {
				p.log().Warn("natsqueue: renewing a claim", "subject", h.subj, "err", err)
			} else if !ok {
				h.rev = 0
			}
		})
	}
	wg.Wait()
}

// settlePatience is how long a host tries to commit a claim or an
// outcome: longer than copyPatience, so that an election in between does
// not leave a write committed but unknown (a hand-out no handler saw, an
// outcome committed but not counted).
func (p *Platform) settlePatience() time.Duration { return 6 * p.patience }

// settled is the write that settles h, this host's hold, with done's
// outcome: a retry or a dead letter gets a new lease, for storing its copy.
func (p *Platform) settled(h *holding, done claim) claimWrite {
	done.N, done.Holder, done.Until = h.c.N, h.c.Holder, h.c.Until
	lease := time.Duration(0)
	if !done.final() {
		lease = p.copyLease()
	}
	return claimWrite{h, done, lease}
}

// copyLease is how long a settled claim's holder may store its copy: the
// patience and one Options.Timeout for publishConfirmed's tries, which
// end a second before the lease does (storeCopy), that second covering
// the clocks of two hosts.
func (p *Platform) copyLease() time.Duration { return p.patience + p.opts.Timeout + time.Second }

// takeCopy takes over the copy of h, a settled claim whose holder's lease
// ended before it marked the copy stored: a new lease for this host.
func (p *Platform) takeCopy(h *holding) bool {
	next := h.c
	next.Holder = p.newID()
	ok, err := p.write(h, next, p.copyLease(), time.Now().Add(p.patience))
	return ok && err == nil
}

// markCopied commits that h's copy is stored, over h.
func (p *Platform) markCopied(h *holding) bool {
	next := h.c
	next.Done = doneCopied
	ok, err := p.write(h, next, 0, time.Now().Add(p.patience))
	return ok && err == nil
}

// copyGate is what a copy's deliverer found of its original's claim.
type copyGate int

const (
	gateOpen   copyGate = iota // the original's claim says copied: the copy may be handed out
	gateWait                   // a holder may be storing the copy still, until the time given
	gateFailed                 // the server did not confirm either
)

// openCopy lets a copy be handed out once its original's claim (at subj)
// says the copy is stored, and reports whether this host marked it so: it
// does when the lease of the host storing the copy has ended (this copy is
// in the stream: stored). So no host stores a copy again once a copy was
// handed out (a publish expecting none would store a second one after the
// first was acked). A claim gone is one copied and expired (settledTTL),
// or one a lagging leader does not have yet: marking it copied anew tells.
func (p *Platform) openCopy(subj string) (g copyGate, until time.Time, marked bool) {
	h := &holding{subj: subj}
	deadline := time.Now().Add(p.patience)
	for time.Now().Before(deadline) {
		if !p.reread(h, deadline) {
			return gateFailed, time.Time{}, false
		}
		switch {
		case h.c.Done == doneCopied:
			return gateOpen, time.Time{}, false
		case h.rev > 0 && !h.c.leaseEnded():
			return gateWait, time.UnixMilli(h.c.Until), false
		case p.markCopied(h):
			return gateOpen, time.Time{}, true
		}
	}
	return gateFailed, time.Time{}, false
}

// hdrScheduler is the header the server gives a message its schedule
// fired (a delayed send, a delayed retry copy): the schedule's subject.
const hdrScheduler = "Nats-Scheduler"

// firingSubject is where the claims stream records which stored message
// the schedule of m, a message of q's stream, fired first:
// <Prefix>-claims.<token>.f.<the schedule's subject after q's sched.>; ok
// is false when no schedule fired m.
func (p *Platform) firingSubject(q *queueState, m jetstream.Msg) (string, bool) {
	tail, ok := strings.CutPrefix(m.Headers().Get(hdrScheduler), q.names.sched)
	if !ok {
		return "", false
	}
	return p.opts.Prefix + "-claims." + q.names.token + ".f." + tail, true
}

// firing is what a host found of a message a schedule fired.
type firing int

const (
	firedFirst   firing = iota // the first message its schedule fired
	firedAgain                 // another message was fired first
	firedUnknown               // the server said neither within the patience
)

// firingOf says whether the message at seq is the first message its
// schedule fired, the one whose firing is recorded at subj: a server
// killed after it stored what a schedule fired, before it removed the
// schedule, fires it again once back (nats-server 2.15.2, seen in
// TestScheduleFiresTwiceUnderKill), so a second message with the same
// ID, body and headers is stored. The first to be delivered records its
// sequence (created, expecting none; kept settledTTL), and any other is
// fired again.
func (p *Platform) firingOf(subj string, seq uint64) firing {
	data := []byte(strconv.FormatUint(seq, 10))
	deadline := time.Now().Add(p.patience)
	r, err := p.publishConfirmed(p.claimsJS(), &nats.Msg{Subject: subj, Data: data},
		[]jetstream.PublishOpt{jetstream.WithExpectLastSequencePerSubject(0), jetstream.WithMsgTTL(p.settledTTL)}, deadline)
	switch {
	case err != nil:
		return firedUnknown
	case r.ack != nil:
		return firedFirst
	}
	last, err := p.readClaim(subj, deadline)
	switch {
	case err != nil:
		return firedUnknown
	case string(last.Data) == string(data): // its own write, its answer lost
		return firedFirst
	}
	return firedAgain
}

// originalClaim is the subject of the claim on the original that m copies
// (a retry copy, a dead-letter copy); ok is false for any other m.
func (p *Platform) originalClaim(q *queueState, m jetstream.Msg) (string, bool) {
	h := m.Headers()
	if s, err := strconv.ParseUint(h.Get(hdrRetryOf), 10, 64); err == nil {
		return p.claimSubject(q.names.token, s), true
	}
	v := h.Get(hdrDeadOf)
	i := strings.LastIndexByte(v, ':')
	stream, ok := strings.CutPrefix(v[:max(i, 0)], p.opts.Prefix+"_")
	if i < 0 || !ok {
		return "", false
	}
	s, err := strconv.ParseUint(v[i+1:], 10, 64)
	return p.claimSubject(stream, s), err == nil
}
