// Package natsqueue is a hostbridge.Platform on NATS JetStream: durable
// queues that survive restarts of the host (an embedded single-node server
// with file storage) and, on a cluster with three replicas, the loss of a
// node. It is its own module so that the root module stays standard
// library only. It needs nats-server 2.12.5 or newer (message schedules;
// 2.12.5 fixed the loss of work-queue messages at R3): Open refuses an
// older server, naming both versions. The embedded server is v2.15.2.
//
// # The server and the store
//
// The embedded server is private: it takes no TCP connection unless
// Options.Port opens one on 127.0.0.1, with a password. One store has one
// owner: Open holds an exclusive flock(2) on StoreDir/natsqueue.lock until
// Close, so a second Platform on it fails at Open; a store that cannot be
// created or a server that cannot start fails Open with the reason.
//
// Durability, strong by default: a publish (a send, a copy, a count), and
// a stream's or consumer's creation or update, is answered only after an
// fsync, started after the server stored it, of every file and directory
// of StoreDir written since the last sync (inotify); one sync serves every
// publish waiting. So a message answered for survives a power loss (one
// in the middle of a stream update can lose the queue's SetLimits bound,
// never its messages). Acks and claims are not synced: lost to a power
// cut, they bring a message back with the attempts it had before them.
// Options.SyncInterval > 0 uses the server's periodic sync instead: a
// power loss can lose what was answered in that window. A crash of the
// host process alone loses no answered message. A cluster at URLs syncs
// as its servers are configured; at R3 a message answered for is on two
// of the three servers, and with sync_interval: always in each, survives
// a power loss of all three.
//
// With a credential in Options.NATS or a URL, the connection requires TLS
// (nats.Secure): no credential travels in clear text.
//
// # Mapping
//
// A queue is a stream <Prefix>_<queue> (WorkQueue retention, file storage,
// schedules allowed; a queue name of other characters than letters,
// digits, - and _ is written ~ and its hex) with one durable pull consumer
// "hostbridge" (explicit acks, AckWait, unlimited deliveries). Ready
// messages are on <Prefix>.<queue>.ready; a delayed one is a schedule on
// <Prefix>.<queue>.sched.<id> that the server moves to ready when due. The
// retry copy of the message at stream sequence S is on ready.r.S (or a
// schedule on sched.r.S); the dead-letter copy of the message at S of
// queue src is on the dead-letter queue's ready.d.<src>.S. The message ID,
// send time, attempts, and a copy's original travel in headers. The claim
// on the message at S is the last message on <Prefix>-claims.<queue>.S of
// the stream <Prefix>_CLAIMS. A queue an older natsqueue made is updated
// when a Platform first uses it; every host of a deployment must then run
// this version.
//
// # Claims: every step is a committed write
//
// A claim says how many times a stored message was handed out, which host
// holds it until when, and, once settled, its outcome. Every write of it
// expects the revision its writer read (Nats-Expected-Last-Subject-
// Sequence): the claims stream's Raft log commits one write per revision,
// and a server that only believes it leads (back from a pause, say)
// commits none. Reads decide nothing. So, with any number of hosts on one
// cluster, through host crashes and any single node fault:
//
//   - A message reaches a handler only after its host committed a claim on
//     it: created, or taken over, one hand-out more, from the last
//     holder (below). Pulled while another holds it, it is nak'd until it
//     may be taken over; pulled settled, it is removed, or its copy
//     finished, without a handler.
//   - A lease lasts AckWait and is renewed with the in-progress notice
//     (every AckWait/3). Another host takes a claim over AckWait/2 after
//     the lease ended by its own clock (hosts' clocks must agree within
//     AckWait/3): a holder whose renewals could not commit while the
//     claims stream had no leader has that long to renew once it has one.
//   - An outcome is committed over its holder's claim before it is
//     applied. Inherent to leases, when the claims stream has no leader
//     for longer than AckWait/2 past a lease (renewals and claims cannot
//     commit): a handler that outlives its lease may run while the next
//     holder handles the message, and its outcome is then refused, never
//     applied or counted (the message is in DeliveryResult.IDs only); and
//     a hand-out committed just before, whose host learns of it only
//     then, may be taken over before a handler saw it, so the next
//     handler sees one attempt more (as after a host crash).
//   - A copy (a retry's, a dead letter's) is stored only while its settled
//     claim's lease lasts (the patience, 10 s, Options.Timeout and a
//     second), and handed out only once its original's claim says copied.
//   - A schedule fired twice (a server killed between storing what a
//     schedule fired and removing the schedule fires it again once back)
//     stores a message twice: the first of the two delivered records its
//     sequence on <Prefix>-claims.<queue>.f.<schedule>, and the other is
//     removed, unhandled and counted nowhere.
//   - Settled claims expire an hour after their message is done (a
//     per-message TTL); a server that hands out a message later than that
//     after it was settled would hand it out as new. Claims of messages
//     the stream discarded (SetLimits' MaxBytes) stay.
//
// # What it promises
//
// MemoryPlatform's delivery semantics (the root package's doc), with these
// choices where JetStream decides; no delivery promise rests on the
// server's duplicate window or on the text of an error (codes only):
//
//   - Send and SendBatch return once the server stored every message; a
//     SendBatch that fails may have stored the messages before the failing
//     one. No answer within Options.Timeout (or before the caller's context
//     ends) fails it with "no answer from NATS JetStream: …": a send never
//     hangs. A send that failed may still have been stored.
//   - Delays are rounded up to a whole second (schedules have seconds), so
//     a delay never fires early and at most a second late; the server's
//     clock decides.
//   - A retry is a stored copy with attempts + 1, due after its delay; the
//     original is removed once the copy is stored and never reaches a
//     handler again: a retry is never early, across restarts, crashes and
//     failovers. The copy is published expecting none on its subjects.
//   - Dead letters: after MaxRetries+1 hand-outs a failing message is
//     copied (same ID, send time and body, attempts 1) to the
//     DeadLetterQueue, once, then removed; without one it is dropped. A
//     message claimed past MaxRetries+1 (its holders died) skips the
//     handler and is given up.
//   - Attempts count hand-outs, from the claims: every one adds exactly
//     one, a crashed host's included, so they never go back and a message
//     reaches handlers at most MaxRetries+1 times.
//   - At least once: nothing accepted is lost. A batch whose host died
//     comes back once its claims may be taken over (1.5 AckWait after the
//     last renewal); an ack lost with a connection is a redelivery.
//   - A copy not confirmed stored while its lease lasts leaves the
//     original nak'd with the copy's delay, to be finished by whoever it
//     comes back to; a removal not confirmed is tried again.
//
// A node fault makes sends fail for as long as the stream has no leader
// (no answer within Options.Timeout, or "nats: no response from stream"),
// delays hand-outs while the claims stream has none, and a Stats call then
// takes up to Options.Timeout and gives the last size it read.
//
// # Counters and limits
//
// Stats gives MemoryPlatform's QueueStats: Pending is the queue stream's
// size (read at most every 100 ms); the other counts are counters on a
// stream <Prefix>_STATS, read from its leader when a Platform first uses
// a queue. Counts are stored within 50 ms and sent again under the same
// publish IDs until confirmed, so with no host crash they are what
// happened (unless one stays unconfirmed past the server's 2 min
// duplicate window). Sent counts the sends the server stored: a send
// without an answer is asked about under its publish ID (a question that
// stores nothing) until the server tells, for up to 1 min, else logged
// and not counted. An outcome is counted, and stored, before it is
// committed, and taken back if refused; one never confirmed either way
// stays counted. A dead-letter copy is counted as sent by the host that
// marks its original's claim copied. Delivered counts the hand-outs a
// handler saw whose outcome holds. A host crash loses at most its last
// 50 ms of Sent, the sends it was asking about and the counts not yet
// confirmed, and counts a message handled again twice. InFlight and Ready
// are 0.
//
// SetLimits bounds a queue's pending messages (a send past it fails with
// ErrQueueFull, nothing sent; one Platform never takes a queue past it,
// several may by what each sent within 100 ms) and its stream's size (the
// oldest discarded, counted as Dropped; the bound is kept on the stream).
//
// Every call that may reach the server takes a context or is bounded by
// Options.Timeout. Errors no caller can be given (a failed ack, nak or
// in-progress notice, a count not stored yet) go to Options.Logger. Close
// stores the last counts; closing again does nothing.
// Bindings, grants and consumer settings are configuration kept in the
// Platform, not on the server; set them at start.
package natsqueue
