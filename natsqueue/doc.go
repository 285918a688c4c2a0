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
// (no message natsqueue stores on a queue carries a message ID: nothing
// rests on that window); a queue name of other characters than letters,
// digits, - and _ is written ~ and its hex. Messages ready for delivery are
// on the subject <Prefix>.<queue>.ready; a delayed message is a schedule on
// <Prefix>.<queue>.sched.<id> that the server copies to ready when it is due
// and removes in the same step. The retry copy of the message at stream
// sequence S is on <Prefix>.<queue>.ready.r.S, or, delayed, a schedule on
// <Prefix>.<queue>.sched.r.S that fires onto it; the dead-letter copy of the
// message at S of queue src is on <Prefix>.<dlq>.ready.d.<src>.S. The
// stream's subjects are ready, ready.> and sched.>. One durable pull
// consumer per queue ("hostbridge", explicit acks, AckWait, unlimited
// deliveries and unlimited ack-pending messages) delivers ready and
// ready.>. The message ID (32 hex digits, 16 random per Platform then a
// sequence), the send time (Unix ns), the attempts of the stored copy when
// not 1 (Enqueue, a retry) and, for a retry, the deliveries from the queue
// before it and its original's sequence, for a dead-letter copy its
// original's stream and sequence, travel in headers.
//
// A queue whose stream and consumer an older natsqueue made (subjects ready
// and sched.*, the consumer filtering ready alone) is updated to these
// when a Platform first uses it. Every host of a deployment must then run
// this version: an older one sets them back when it opens the queue, and
// retry copies can then be neither published nor delivered until a newer
// host opens it again. A retry copy an older natsqueue stored (on
// sched.<id>, with a message ID) is delivered and removes its original as
// before, but the look-up below does not find it.
//
// # Delivery semantics
//
// Those of hostbridge.MemoryPlatform, as the root package's doc states them,
// with these choices where JetStream decides. No delivery promise below
// rests on which host a message comes back to, on the server's duplicate
// window, or on the text of an error: the state that makes retries safe is
// in the stream, and the server's answers are read by their error codes.
// (Stats' counters rest on the window once, as their paragraph says.)
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
//   - Outcomes are applied when the handler returns, as MemoryPlatform's.
//     A message settled (done, retried once its copy is stored,
//     dead-lettered or dropped) is removed: acked, waiting for the server's
//     answer; one whose ack the server does not confirm is deleted from the
//     stream until the server confirms it gone (deleted, or not there:
//     10043), for up to the patience (10 s, below), so that it does not
//     come back to be handled and counted again.
//   - Retries: a retried message, or one of a failed batch, is retried with
//     its delay (the retry's, else RetryDelay): a copy with attempts + 1 is
//     stored, as a schedule due after the delay rounded up to a whole
//     second (or on ready for 0), and the original is removed once the
//     server has the copy. A retry is thus a stored schedule like a delayed
//     send: it never comes back early, across restarts, crashes and
//     failovers (a nak's due time would come back from a restart in whole
//     seconds, early). Redeliveries with the same delay come back in no
//     fixed order.
//   - One copy per original: the copy of the message at S is published
//     expecting no message on <Prefix>.<queue>.*.r.S
//     (Nats-Expected-Last-Subject-Sequence 0 with its -Subject), so while a
//     copy of S is in the stream (a pending schedule, ready, or in flight;
//     the server stores a schedule's target and purges the schedule in one
//     step) the server refuses another, whichever host publishes it, however
//     long after. That refusal (10071) says a copy is stored: the original
//     is removed as when this publish stored it. A publish that gets no
//     answer, or that a replicated stream refuses because another publish
//     of that copy is in flight (10164), is published again, 250 ms apart,
//     until the server stores or refuses it, for up to the patience: 10 s,
//     a fixed ceiling whatever Options.Timeout is (each try waits at most
//     Timeout). One still unanswered falls back to a nak of the original
//     with the delay (logged): it comes back no sooner than its copy would,
//     and finds the copy if the server stored it (below). A publish the
//     server stores later than the patience (a proposal a new leader
//     commits late) can leave the message alive twice.
//   - A copy before its original: before a copy reaches a handler, its
//     deliverer deletes the original it copies (normally the server
//     answers that it is gone already: 10043), trying again while the
//     batch's lease keeps the copy, until the server confirms it gone, for
//     up to the patience. An original in the same batch is left out. A
//     copy whose original the server does not confirm gone by then is held
//     back: nak'd to come back a second later; that delivery, which no
//     handler saw, counts in its attempts and toward MaxRetries.
//   - An original after its copy: a message delivered before
//     (NumDelivered > 1), whichever host it comes back to, is looked up
//     before a handler sees it, asking the stream's leader (not a direct
//     get, which a replica that lags may answer): its copy on
//     <Prefix>.<queue>.*.r.S first, then itself. A copy found, and it is
//     acked and left out, unseen and uncounted; the message not in the
//     stream any more (its copy's deliverer deleted it, or another host
//     acked it), and it is left out and nak'd, not acked: the server drops
//     what it no longer holds, and a message that a leader lagging behind
//     said wrongly was gone comes back, never lost. Since a copy reaches a
//     handler only once its original is gone, an original found after no
//     copy was found has had no copy handed over. One the server cannot
//     tell about within the patience is held back as above. So a retried
//     original never reaches a handler again, and, with no host crash, a
//     message is never alive twice.
//   - An outcome for a message settled meanwhile: before a retry copy or a
//     dead-letter copy is stored, or a message dropped, the message is
//     looked up so, whatever its deliveries. One another host settled while
//     this one held it (its copy stored, or gone from the stream) is not
//     copied, but nak'd with the delay its copy would have had, so that a
//     host that held a message too long does not give it a second life
//     after its copies were handled; a retry its handler asked for is
//     reported and counted all the same, a dead letter or drop is not.
//   - Where JetStream cannot keep that: a message redelivered while another
//     host still holds it (the host's lease lapsed past AckWait, or the
//     consumer's leader changed and the new one lacks the in-progress
//     notices or the record of the delivery) reaches two handlers at once,
//     the second with attempts + 1, or the same attempts when the record
//     was lost. The consumer's leader changes when its node fails, and
//     also when any node of a cluster comes back from a pause (a stall,
//     SIGSTOP) and calls an election at once: JetStream's Raft has no
//     pre-vote, so the leader steps down for the higher term. If both
//     holders retry it, one copy is stored (the second is refused) with
//     the first's attempts + 1, so attempts do not go back but may repeat
//     once; if both dead-letter it, one dead-letter copy is stored. If
//     they settle it in the same moment, each before the other's copy or
//     removal reached the server, both outcomes stand: a retry copy and a
//     dead-letter copy, the retry copy given up in its turn, so the
//     message reaches the dead-letter queue twice, once more per such
//     change of leader in its life. A first delivery (NumDelivered 1) is
//     not looked up: a new leader that lost the record of deliveries can
//     hand a retried original over again, once per change of leader. And
//     a node that comes back from a pause may still act, for a moment
//     before it hears of the new term, as the consumer's leader it was
//     (JetStream's Raft serves a pull from the leader's own state, not
//     through the log): it hands out messages as they stood when it
//     stopped, so a message handled since can reach a handler again as a
//     first delivery, with the attempts it had then: attempts go back. A
//     message settled since is then not retried nor dead-lettered again
//     (looked up first, above), but its handler runs. The fault suite sees
//     this only in the seconds after a paused node's return (it allows 5).
//   - Attempts count deliveries: the first has the attempts the message
//     was sent with (1, or Enqueue's), and every delivery after it adds
//     one, a retry (a new copy stored with attempts + 1) or the same copy
//     back (its host died holding it, let its lease lapse, or lost its
//     ack: the stored attempts plus JetStream's count of the copy's
//     deliveries before). So attempts never go back and grow by one from
//     one delivery to the next, a host crash's included (but where a
//     cluster's leaders change, below). The embedded
//     server writes a consumer's records at most every 100 ms, so a host
//     killed within about 100 ms of a fetch takes the record of those
//     deliveries with it (the server dies with the host) and the message
//     comes back at once with the server's count unchanged: natsqueue
//     writes a line a message to a delivery journal (StoreDir/
//     natsqueue.deliveries, one write(2) a batch, before the handler
//     runs; lines kept 10 to 20 s) and the next Platform on the store
//     adds what the server forgot (the owner's deliveries: a Platform
//     that connects to its Options.Port has only the server's records).
//     A SIGKILL keeps the journal (the page cache); a power cut keeps what
//     the store's last sync wrote, so after one attempts may repeat once. A cluster's servers outlive the host
//     and keep the records, but a consumer's new leader may not (below).
//     A delivery no handler saw (its host died before its handler ran, or
//     it was held back above) adds one all the same, so the next handler
//     sees two more. MaxRetries counts the same deliveries, copies' and
//     redeliveries alike, so attempts reach at most MaxRetries+1 for a
//     message sent with 1.
//   - Dead letters: after MaxRetries+1 deliveries a failing message is
//     copied to the DeadLetterQueue (same ID, send time and body; attempts
//     start again at 1, as MemoryPlatform's) on a subject of its own,
//     published expecting none there, so while a copy of it is in the
//     dead-letter queue the server refuses another, whichever host
//     publishes it; it is published again until the server stores or
//     refuses it, as a retry copy is, and then the original is removed.
//     An original that comes back (its removal lost, its host dead before
//     it), to any host, is past MaxRetries+1: it skips the handler, its copy
//     is refused, and it is removed, not counted again. The copy names its
//     original, and whoever delivers the copy from the dead-letter queue
//     deletes the original first, as for a retry copy, so an original does
//     not come back once its copy is consumed; so the dead-letter queue
//     stores one copy of a message, except when its original comes back
//     to another host in the moment between that host's look-up and its
//     publish while the copy is handed over and acked, and when two hosts
//     held the message at once (above). A copy the server
//     does not confirm within the patience leaves the message to be
//     retried a second later (not counted as a retry) and given up again.
//     Without a DeadLetterQueue the message is removed so (dropped). A
//     message that arrives already past MaxRetries+1 deliveries (its hosts
//     died holding it, or lost the lease) is dead-lettered or dropped
//     without reaching the handler, so a host that crashes on a message does
//     not loop on it.
//   - At least once: a host that dies holding a batch leaves its messages
//     to come back after AckWait (an embedded server that restarts keeps
//     the time of a delivery in whole seconds, so up to 1 s sooner; at once
//     when the server lost its record of the delivery) with attempts + 1,
//     and that delivery counts toward MaxRetries; so an always-failing
//     message reaches handlers at most MaxRetries+1 times, plus once for
//     each change of the consumer's leader in its life (above) and once
//     for each power cut that took the journal's last lines; an ack lost
//     with a connection is a duplicate delivery.
//     A host that dies between a retry's copy being stored and its
//     original's removal leaves both: whichever comes back first, the copy
//     alone reaches a handler (above). Nothing accepted is lost.
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
// crash the counters are exactly what happened, whatever the servers did,
// but for two cases. A count the server stored without answering, whose
// publishes then stay unanswered for more than 2 min (the counter stream
// out of this host's reach that long), is counted twice when one is
// finally stored: the window has forgotten its ID. And a dead-letter
// copy whose publishes got no answer within the patience although the
// server stored one is counted
// (DeadLettered, and the dead-letter queue's Sent) by the host whose
// publish stored it when the original comes back to it, its publish then
// refused; when the original comes back to another host, nobody counts
// it. A Platform reads a queue's counters from the counter stream when it
// first uses the queue and adds its own counts since: other hosts' counts
// since then show in a Platform opened after they were stored.
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
