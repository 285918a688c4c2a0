// Package natsqueue is a hostbridge.Platform on NATS JetStream: durable
// queues that survive restarts of the host (an embedded single-node server
// with file storage) and, on a cluster with three replicas, the loss of a
// node. It is its own module so that the root module stays standard
// library only. It needs nats-server 2.12.5 or newer (message schedules;
// 2.12.5 fixed the loss of work-queue messages at R3): Open refuses an
// older server, naming both versions. The embedded server is v2.15.2.
//
// The files: platform.go (Options, Open, Close), connect.go (connecting,
// the version check, waiting for a cluster), server.go and lock_*.go (the
// embedded server and its store's lock), durability.go and sync_*.go
// (syncing the store before a send is answered), streams.go (a queue's
// stream and consumer), config.go (consumer settings), send.go,
// delivery.go (batches and their outcomes), copies.go (retry and
// dead-letter copies, originals' removal), journal.go (the delivery
// journal), stats.go (counters), limits.go (SetLimits, MaxPending),
// msgapi.go (the server's message API and error codes), errors.go.
//
// # The server and the store
//
// The embedded server is private: it takes no TCP connection unless
// Options.Port opens one on 127.0.0.1, with a password. One store has one
// owner: Open holds an exclusive flock(2) on StoreDir/natsqueue.lock until
// Close, so a second Platform on it fails at Open; a store that cannot be
// created or a server that cannot start fails Open with the reason.
//
// Durability, strong by default: a publish (a send, a copy, a count) is
// answered only after an fsync, started after the server stored it, of
// every file and directory of StoreDir written since the last sync (as
// inotify reports them); one sync serves every publish waiting (group
// commit). Creating or updating a stream or consumer waits for one too.
// So a message answered for survives a power loss, but one that comes in
// the middle of a stream update can lose the queue's SetLimits bound
// (never its messages). Acks are not synced: an ack lost to a power cut
// is a redelivery. Options.SyncInterval > 0 uses the server's periodic
// sync instead: faster, and a power loss can lose what was answered in
// that window. A crash of the host process alone loses no answered
// message under either policy. A cluster at URLs syncs as its servers are
// configured; at R3 a message answered for is stored by two of the three
// servers, so it survives the loss of any one, and with sync_interval:
// always in every server's configuration, a power loss of all three.
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
// send time, attempts, and a copy's original travel in headers. A queue an
// older natsqueue made is updated when a Platform first uses it; every
// host of a deployment must then run this version.
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
//   - A batch: Deliver takes what is ready (up to MaxBatchSize), else waits
//     for a message and fills until MaxBatchTimeout after its oldest
//     became ready, or the context ends. A batch being filled or handled
//     keeps its lease with an in-progress notice every AckWait/3.
//   - A retry is a stored copy with attempts + 1, due after its delay, and
//     the original is removed once the server has the copy: it never comes
//     back early, across restarts, crashes and failovers. The copy is
//     published expecting none on its subjects, so the server keeps one
//     copy of a message whichever host retries it. A copy's deliverer
//     removes its original first, and a message delivered again is looked
//     up (asking the stream's leader) before a handler sees it: so a
//     retried original does not reach a handler again.
//   - Dead letters: after MaxRetries+1 deliveries a failing message is
//     copied (same ID, send time and body, attempts 1) to the
//     DeadLetterQueue on a subject of its own, once, then removed; without
//     one it is dropped. A message that arrives past MaxRetries+1 skips the
//     handler. Before any copy or removal the message is looked up again:
//     one another host settled meanwhile is not given a second life.
//   - Attempts count deliveries: every delivery adds one, a retry's, a
//     lapsed lease's and a crashed host's included (a delivery the server
//     forgot in a crash is counted from the delivery journal,
//     StoreDir/natsqueue.deliveries). So with no node fault attempts never
//     go back and grow by one from a delivery to the next, and a message
//     reaches handlers at most MaxRetries+1 times, plus once per power cut
//     that took the journal's last lines.
//   - At least once: nothing accepted is lost. A batch whose host died
//     comes back after AckWait (up to 1 s sooner after a restart of the
//     embedded server, at once if it lost the record); an ack lost with a
//     connection is a redelivery.
//   - A copy whose publish the server does not answer is published again,
//     250 ms apart, for up to 10 s (the patience); then the original is
//     nak'd with the copy's delay (a dead-letter copy's: 1 s, not counted
//     as a retry) and comes back no sooner than the copy would. A removal
//     not confirmed is tried again for the same patience.
//
// # Bounds under node faults
//
// Several hosts on one cluster keep every promise above through host
// crashes. A node fault (killed, paused and resumed, restarted) can change
// the consumer's leader, and a new leader may lack the in-progress notices
// or the record of a delivery; a node back from a pause may still act as
// leader for a moment (JetStream's Raft has no pre-vote and serves pulls
// from the leader's own state). The look-ups above are reads, not a fence.
// So, once per change of the consumer's leader in a message's life:
//
//   - a message may reach two handlers at once (the second with one
//     attempt more, or the same attempts when the record was lost), and a
//     retry may then be handed out before its delay;
//   - if both holders retry it, one copy is stored; if they settle it in
//     the same moment as a retry and a dead letter, it reaches the
//     dead-letter queue twice;
//   - a retried or acked original, as a first delivery, may reach a
//     handler again, and, from a node back from a pause, with the attempts
//     it had before (attempts go back); its outcome is then refused (it is
//     looked up), but its handler runs;
//   - a handling past MaxRetries+1, by one;
//   - a copy the server stored later than the patience (a new leader
//     committing a late proposal) leaves the message alive twice.
//
// A node fault also makes sends fail for as long as the stream has no
// leader (no answer within Options.Timeout, or "nats: no response from
// stream"), and a Stats call then takes up to Options.Timeout and gives
// the last size it read.
//
// # Counters and limits
//
// Stats gives MemoryPlatform's QueueStats: Pending is the queue stream's
// size (read at most every 100 ms); Sent, Delivered, Acked, Retried,
// DeadLettered and Dropped are counters on a counter stream
// <Prefix>_STATS. A Platform reads them from the stream's leader when it
// first uses a queue and adds its own counts; counts are stored within
// 50 ms, kept until the server confirms them and sent again under the same
// publish IDs, so with no host crash they are what happened, unless a
// count stays unconfirmed past the server's 2 min duplicate window. Sent
// counts the sends the server stored: a send goes out under a publish ID,
// and one left without an answer is asked about under it (a question that
// stores nothing), 250 ms apart, until the server tells; one it has not
// told about within 1 min (half that window) is logged, not counted. A
// message handled twice (above) is counted twice; a dead-letter copy
// stored although its publishes got no answer within the patience is
// counted when the original comes back to the same host, not when it comes
// back to another. Delivered counts the deliveries whose outcome was
// applied (not a message past MaxRetries+1 that skips the handler),
// Retried the retries a handler asked for. A host crash loses at most its
// last 50 ms of Sent, the sends it was asking about and the counts not yet
// confirmed, and counts a message delivered again twice. InFlight and
// Ready are 0.
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
