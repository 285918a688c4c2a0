// Package natsqueue is a hostbridge.Platform on NATS JetStream: durable
// queues that survive restarts of the host (an embedded single-node server
// with file storage) and, on a cluster with three replicas, the loss of a
// node. It is its own module so that the root module stays standard
// library only; it needs nats-server ≥ 2.12.5 (message schedules; the
// embedded server is v2.15.2) and builds with nats.go v1.55 (go.mod).
//
// # The server, the store and the connection
//
//   - Version: Open reads the version of the server it connected to and
//     refuses one older than 2.12.5, naming both: message schedules came in
//     2.12.0, 2.12.5 fixed the loss of messages from work-queue streams at
//     R3 (nats-server#7845), and an older server (2.9.10, Debian's) accepts
//     a delayed message and never delivers it.
//   - The embedded server is private: it takes no TCP connection
//     (DontListen) and the Platform connects in process. Options.Port opens
//     one on 127.0.0.1 only, and then the server requires credentials:
//     PortUser's password for the operator, a random password made at each
//     Open for the Platform's own connection.
//   - One store, one owner: Open creates StoreDir (failing at once with the
//     OS's reason) and holds an exclusive flock(2) on StoreDir/natsqueue.lock
//     until Close; a second Platform, in this process or another, fails at
//     Open. The OS releases the lock when the process dies, however it dies.
//     A server that cannot start says why (its first error record), at once.
//   - Durability, strong by default: nats-server syncs its files every
//     2 min by default and, with sync_interval: always, once per message
//     under the stream's lock (about 5 k messages/s at 185 µs an fsync, no
//     sharing). So natsqueue does group commit itself: the embedded server
//     keeps its periodic sync, and every publish (sends, dead-letter copies,
//     counters) is answered only after an fsync of every file written and
//     every directory whose entries changed under StoreDir since the last
//     sync, as the kernel reports them (inotify(7): nothing is inferred from
//     sizes or times; where no watch can be had, every file and directory),
//     a sync that started after the server acknowledged the message. An R1
//     file store writes a message to its block file before it acknowledges
//     it (flush in place), so that sync covers it. One sync runs at a time and
//     serves every publish waiting when it starts. Creating or updating a
//     stream or consumer (a queue's first use by a Platform, SetLimits)
//     waits for such a sync too: the server writes their config files anew,
//     a file renamed over the old one without a sync, and a power loss
//     before the next sync can leave them empty, so that the server
//     opened again does not know the stream (natsqueue creates it
//     again, its messages recovered, its SetLimits bound lost). A power loss
//     in the middle of such an update can still do that. Acks are not
//     synced: an ack lost to a power cut is a redelivery, as at least once
//     allows.
//     Options.SyncInterval > 0 gives the server's periodic sync instead, at
//     that interval: faster, and a power loss can lose what was answered
//     in that window. Where this is not Linux, the strong policy is the
//     server's sync_interval: always. A crash of the host process alone
//     (SIGKILL) loses no answered message under either policy: the server
//     wrote it before it answered. A cluster at URLs syncs as its servers
//     are configured; with three replicas a message answered for is stored
//     by at least two of the three servers, so it survives the loss of any
//     one machine, and while two of three run the queues keep working, a
//     new stream leader taking over pending delays and retries.
//   - Secured clusters: Options.NATS are nats.go options applied after
//     natsqueue's own (credentials files, nkey seeds, user and password,
//     tokens, TLS roots, client certificates, a tls.Config with the server
//     name), the form a Go user of nats.go already knows. When they, or a
//     URL, carry a credential, natsqueue adds nats.Secure(): nats.go then
//     refuses a server that does not offer TLS before it sends CONNECT, and
//     upgrades to TLS with one that requires it, so no credential travels
//     in clear text. Options.NATS does not apply to the embedded server.
//
// # Mapping
//
// A queue is a stream <Prefix>_<queue> with WorkQueue retention, file
// storage, Replicas 1 or 3, schedules allowed and a 2 min duplicate window
// (used by dead-letter copies);
// a queue name of other characters than letters, digits, - and _ is written
// ~ and its hex. Messages ready for delivery are on the subject
// <Prefix>.<queue>.ready; a delayed message is a schedule on
// <Prefix>.<queue>.sched.<id> that the server copies to ready when it is due
// and then removes. One durable pull consumer per queue ("hostbridge",
// explicit acks, AckWait, unlimited deliveries and unlimited ack-pending
// messages) delivers ready. The message ID (32 hex digits, 16 random per
// Platform then a sequence), the send time (Unix ns), the attempts of the
// stored copy when not 1 (Enqueue, a retry) and, for a retry, the
// deliveries from the queue before it travel in headers.
//
// # Delivery semantics
//
// Those of hostbridge.MemoryPlatform, as the root package's doc states them,
// with these choices where JetStream decides:
//   - Send and SendBatch return once the server has stored every message
//     (SendBatch pipelines its publishes and waits once). A send carries no
//     Nats-Msg-Id: its ID is new, so a host's retry is a new message anyway,
//     and the server's duplicate table would hold every ID for 2 min. A
//     SendBatch that
//     fails may have stored the messages before the failing one: JetStream
//     has no atomic batch with schedules. A server that does not answer
//     within Options.Timeout gives the reason "no answer from NATS
//     JetStream: context deadline exceeded", so a send never hangs; the
//     caller's context bounds the publish too (the earlier of the two ends
//     it, with the same reason and that context's error); a context that
//     has already ended fails the send with its error, nothing sent.
//   - Delays: the schedule's time is the send time plus the delay rounded
//     up to a whole second (schedules have second granularity), so a delay
//     never fires early and at most a second late. Schedules are stored in
//     the stream: they survive restarts and fail over with the stream. The
//     server's clock decides when they fire.
//   - A batch: Deliver takes what is ready now (up to MaxBatchSize); when
//     nothing is, it waits for one message, then for more until the batch is
//     full or its oldest message has waited MaxBatchTimeout since it became
//     ready (stored or fired; for a redelivery, since it came back). While a
//     batch fills and while its handler runs, every message is told to the
//     server as in progress every AckWait/3, so a slow handler keeps it.
//   - A batch fills until its context ends too: Deliver then hands the
//     handler what it has.
//   - Outcomes are applied when the handler returns, as MemoryPlatform's:
//     a done message is acked (sent without waiting for a reply: the server
//     reads it before the connection's next pull request);
//     a retried one, or one of a failed batch, is retried with its delay (the
//     retry's, else RetryDelay): a copy with attempts + 1 is stored, as a
//     schedule due after the delay rounded up to a whole second (or on ready
//     for 0), and the original is acked once the server has the copy. A
//     retry is thus a stored schedule like a delayed send: it never comes
//     back early, across restarts, crashes and failovers (a nak's due time
//     would come back from a restart in whole seconds, early). The copy's
//     publish ID names the original's stream sequence, so an original that
//     comes back (its host died before the ack) and fails again stores no
//     second copy. A copy whose publish gets no answer (a server fault) is
//     published again with the same publish ID until the server confirms it,
//     for up to 5 x Options.Timeout; one still unconfirmed, or refused,
//     falls back to a nak of the original with the delay (logged). The host
//     remembers the originals it retried until their ack is confirmed: one
//     that comes back (an ack lost, or the nak) never reaches a handler: it
//     is acked when its copy is stored, or its copy is published again first
//     (nak'd with the delay again if still unconfirmed). So, without a host
//     crash, a message is never alive twice. Redeliveries with the same
//     delay come back in no fixed order.
//   - Attempts count deliveries: the first has the attempts the message
//     was sent with (1, or Enqueue's), and every delivery after it adds
//     one, a retry (a new copy stored with attempts + 1) or the same copy
//     back (its host died holding it, let its lease lapse, or lost its
//     ack: the stored attempts plus JetStream's count of the copy's
//     deliveries before, less those no handler saw because this host held
//     the copy back, below). So attempts never go back and grow by one from
//     one handling to the next, except where a crash breaks the count: the
//     same attempts again when the server lost its record of the delivery
//     (the copy comes back at once: the embedded server writes a
//     consumer's records at most every 100 ms, so a host killed within
//     about 100 ms of a fetch loses them; a cluster's servers outlive the
//     host and keep them, but a consumer leader that fails may not), or
//     when the host died between a retry copy and the original's ack (the
//     original comes back with attempts + 1, and its copy then has them
//     too); one more per delivery to a host that died before its handler
//     ran (or after it held a copy back). MaxRetries counts the same
//     deliveries, copies' and redeliveries alike, so attempts reach at
//     most MaxRetries+1 for a message sent with 1: after MaxRetries+1 a
//     failing message is
//     copied to the DeadLetterQueue (same ID, send time and body; attempts
//     start again at 1, as MemoryPlatform's; the copy's publish ID names the
//     original's stream sequence, so a host that dies between the copy and
//     the removal stores it once; it is published again until confirmed, as
//     a retry copy is) and then acked (removed), waiting for the
//     server's answer; without one it is acked so (dropped). One back
//     because that ack was lost is acked again, unseen and not counted
//     again. A message that
//     arrives already past MaxRetries+1 deliveries (its hosts died holding
//     it, or lost the lease) is dead-lettered or dropped without reaching
//     the handler, so a host that crashes on a message does not loop on it.
//   - At least once: a host that dies holding a batch leaves its messages
//     to come back after AckWait (an embedded server that restarts keeps
//     the time of a delivery in whole seconds, so up to 1 s sooner; at once
//     when the server lost its record of the delivery) with attempts + 1
//     (the same when the record was lost), and that delivery counts toward
//     MaxRetries; so an always-failing message reaches handlers at most
//     MaxRetries+1 times plus once for each host crash that lost the
//     record of its delivery or came between its retry copy and its
//     original's ack; an ack lost with a connection is a duplicate
//     delivery. A host that dies in the round trip between a retry's copy
//     being stored and the original's ack being applied leaves both: the
//     original comes back with attempts + 1, unless the copy (attempts + 1
//     too) comes first: before a copy reaches a handler, the original it
//     retries is removed from the stream (one request per retried message;
//     normally the server answers that it is gone already: sequence not
//     found), so attempts never go back. A copy whose original the server
//     did not confirm gone (no answer, or unavailable) is held back, nak'd
//     to come back a second later, past its due time; the host counts that
//     delivery neither in its attempts nor toward MaxRetries. Nothing
//     accepted is lost.
//
// # Counters and limits
//
// Stats gives MemoryPlatform's QueueStats from JetStream's own state, so
// they survive restarts: Pending is the queue stream's size (ready, delayed,
// in flight, waiting for a retry), read at most every 100 ms; Sent,
// Delivered, Acked, Retried, DeadLettered and Dropped are counters in a
// counter stream <Prefix>_STATS. Sent counts the messages the server
// confirmed it stored. Every count is kept until the server confirms it,
// and sent again under the same publish IDs when it did not answer (the
// server drops a repeat within its 2 min duplicate window): with no host
// crash the counters are exactly what happened, whatever the servers did.
// Sends are stored on the counters within 50 ms; a batch's counts before
// its acks and naks are sent. So a host crash loses at most its last
// 50 ms of sends from Sent, and the counts the server had not confirmed
// (while the counter stream has no leader), never a message; it counts a
// message it delivered again twice; Delivered counts the deliveries to a
// handler whose outcome was applied, not a batch a host died holding nor a
// message past MaxRetries+1 that skips the handler; Retried counts the
// retries a handler's outcome asked for, not the 1 s retry of a message
// whose dead-letter copy could not be stored. InFlight and Ready are 0.
//
// SetLimits bounds a queue's pending messages (a send past it fails with
// ErrQueueFull, nothing sent): a send reserves its room under a lock
// against the cached size plus this Platform's sends since and the room
// other sends hold, so one Platform never takes a queue past it (several
// Platforms may, by what each sent within 100 ms). It bounds a stream's
// size too (the oldest messages discarded, for a dead-letter queue nobody
// consumes; Stats counts them as Dropped, and a bound lifted stores that
// count, so Dropped never goes down); the bound is kept on the stream, so a
// queue opened again has it before SetLimits is called again.
//
// Errors no caller can be given (a failed ack, nak or in-progress
// notice, a pull that failed while a batch filled, a count not stored yet,
// Stats that cannot reach the server) go to Options.Logger, by default
// slog.Default(). Close stores the last counts; closing again does nothing.
//
// Bindings, grants and consumer settings are the deployment's
// configuration: they live in the Platform (set them at start, as for
// MemoryPlatform), not on the server; the settings' defaults are
// MemoryPlatform's and hostbridge.CheckConsumerSettings checks their
// ranges.
package natsqueue
