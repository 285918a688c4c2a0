// Package hostbridge is the reference implementation of two host-bridge
// specifications for 豫言 apps:
//
//   - 消息队列 0.1.0: an app sends JSON messages to a granted queue binding
//     (SendQueueMessage, SendQueueBatch); in a queue event it reads the batch
//     (ReadQueueBatch) and acks (AckQueueMessage) or retries
//     (RetryQueueMessage) message n.
//   - 网页入站 0.8.0: an app reads the current HTTP request (event kind,
//     method, paths, headers, query, origin, hostname), builds a same-origin
//     URL, and reads the body within a limit as text, bytes or canonical
//     JSON, with a status for each business outcome.
//
// When two hosts disagree about what an app should see, this package is the
// answer. Each exported function's doc names its spec function and lists
// its checks in order. Below, decisions D1… settle what the specs leave
// open; DECISIONS.md gives their reasons, tests name the decisions they pin,
// PLATFORMS.md lists where real platforms differ.
//
// # Shape
//
// Plain functions behind two interfaces: Platform (the deployment's queues:
// Bound, Send, SendBatch) and Event (one host invocation: Kind, Request,
// Batch). Every error is an *Error whose ErrorKind is Violation, Failure or
// Abort; every message is a constant in errors.go, every limit in limits.go.
// Body reads report business outcomes as BodyStatus 0–5, never as errors.
// MemoryPlatform is an in-memory Platform for embedding and tests;
// BatchRecord is the Batch a delivering Platform hands its handler;
// HTTPEvent adapts a net/http request, NewRequestEvent builds one for tests.
//
// # Decisions: general and errors
//
//   - D1 Check order: every function checks its event first, then its
//     arguments in order, and stops at the first problem.
//   - D2 Standard library only: the root module has no require, imports
//     no unsafe, starts no goroutine and reads no environment; adapters
//     (natsqueue) are modules of their own, never imported by it.
//   - D3 Nesting counts arrays and objects: [] is 1, {"a":[1]} 2, a scalar
//     0 (「嵌套不得超过 24 层」, the 32 and 1000 levels).
//   - D4 Texts: Msg is exactly the app's exception text. A spec's texts are
//     verbatim; where it names a case but no text, errors.go words one,
//     marked (own). No text changes without a new spec version.
//   - D5 Kinds: Violation (违规, the app's mistake) and Failure (平台故障,
//     with the platform's reason) are catchable; Abort (部署错误 or a bridge
//     limit) ends the request or event. ErrorKind's zero value is none.
//   - D6 Sentinels: errors.Is(err, sentinel) holds for the sentinel whose
//     text is the longest constant prefix of Msg, whatever follows it.
//   - D7 Syntax errors read "SyntaxError: <reason> in JSON at position
//     <offset>"; only the prefix, the status and the offset (bytes into the
//     decoded text, where V8 points) are pinned, the words being 「供诊断」.
//
// # Decisions: canonical JSON
//
//   - D8 Canonical form (「规范化」): V8's JSON.stringify(JSON.parse(text))
//     byte for byte, as canonref.go states rule by rule: numbers as
//     Number::toString (1e+21, -0 as 0), lone surrogates as \udxxx,
//     array-index keys first, ascending, a repeated key at its first place
//     with its last value.
//   - D9 Input: valid UTF-8 and strict RFC 8259, as JSON.parse takes it: no
//     BOM, comments or trailing comma; whitespace only space, tab, LF, CR.
//     Any depth is parsed without overflowing the stack.
//
// # Decisions: producer
//
//   - D10 Producer order: the binding (empty: Violation; not Bound or no
//     Platform: Abort), the body (input size, syntax, then whichever of
//     nesting, markers and ±Infinity comes first, then canonical size), the
//     delay.
//   - D11 Bound first, send last: Send or SendBatch is called only once
//     every check passed, so nothing refused reaches the platform, not even
//     part of a batch.
//   - D12 Markers are exactly the keys $句柄, $未定义, $大整数 and $数字,
//     after unescaping, at any depth, whatever else the object holds; other
//     $ keys pass.
//   - D13 Parsed value: nesting, markers and ±Infinity are judged on what
//     JSON.parse gives, so a value a later duplicate key replaces does not
//     count; 1e-400 is 0. The problem reported is the first in text order
//     (a key at its quote, a number at its first byte, a container at its
//     bracket; a repeated marker key where it first appears).
//   - D14 Batch order: text size (1 MiB = 1048576 bytes), "is a JSON array"
//     (invalid UTF-8 included), item count, each item (shape, body, delay),
//     then the 256000-byte total of the canonical bodies.
//   - D15 Batch items: not an object, a key other than body and
//     delaySeconds (the first in JavaScript key order, named by its
//     canonical string content), no body. A repeated key keeps its last
//     value, and a replaced body is not checked; a body's size is its own
//     span, without surrounding whitespace.
//   - D16 Delays are judged after parsing: 30.0 and 3e1 are 30, -0 is 0;
//     1.5, "30" and null are MsgDelayRange.
//   - D17 Delay range: every delay is 0…43200 as the spec says (sends,
//     items, retries, MemoryPlatform's Send, which refuses others, and
//     Enqueue, which clamps), though Cloudflare allows 86400 since February
//     2026.
//   - D18 The platform gets the canonical bytes with
//     SendOptions{ContentType: "json"}, DelaySeconds only when not 0.
//   - D19 Context: the producers pass the caller's context to the
//     Platform; one already ended fails the send (MsgSendFailed + its
//     error), never the checks before it.
//   - D20 Grants: Bound holds for a binding granted and configured.
//     GrantJSON reads exactly the key "QUEUE": a case variant grants
//     nothing; a value not an array of strings is an error.
//
// # Decisions: consumer and delivery
//
//   - D21 Queue event: Kind() "queue" with a non-nil Batch; elsewhere the
//     consumer functions give MsgNotQueueEvent. Retry checks the index,
//     then the delay.
//   - D22 Batch text: keys in the spec's order, no whitespace, timestamp
//     Time.UnixMilli; id and queue quoted as JSON.stringify does, invalid
//     UTF-8 as TextDecoder decodes it; bodies as they are, markers included.
//   - D23 Bodies: a body not a json.RawMessage, invalid JSON or ±Infinity is
//     MsgMessageNotJSON (Violation); then nesting over 32 is
//     MsgMessageTooDeep (Abort); the first message with a problem wins.
//   - D24 No state: every valid ack and retry goes to the Batch; the
//     package keeps none (「效果以平台为准」).
//   - D25 Retry 0 is the consumer's RetryDelay (「平台的默认延迟」), whatever
//     Miniflare does.
//   - D26 Batch rules: of ack and retry the first call wins; a second
//     retry replaces the delay; calls out of range or after the handler
//     returned are ignored. Every delivering Platform uses BatchRecord.
//   - D27 Consumer settings default to Cloudflare's: batches of 10 (1…100),
//     a 5 s batch timeout (0…60 s), 3 retries (0…100), retry delay 0, no
//     dead-letter queue; acked messages of a failed batch are not
//     redelivered unless RedeliverAcked (Miniflare's behaviour).
//   - D28 A batch is ready when full, or when its oldest message has waited
//     the batch timeout since it became ready.
//   - D29 Failure: a handler that errs or panics fails its batch, each
//     message back with attempts + 1 after its retry delay. After
//     MaxRetries+1 deliveries, retries included, a message is dropped or
//     dead-lettered (attempts from 1 again).
//   - D30 MemoryPlatform: timestamp is the send time; ids are 32 hex
//     digits, random per platform; delays never fire early; Sent = Acked +
//     DeadLettered + Dropped + Pending (in flight included); Calls keeps
//     the last 1000.
//   - D31 Durable platforms keep a send that returned nil through a power
//     loss, unless the operator chose a documented loss window. Across
//     restarts and failover delays never fire early, attempts never go
//     back, counters lose nothing without a host crash; delivery is at
//     least once.
//
// # Decisions: request and URL
//
//   - D32 Request events: only fetch, service-fetch and durable-fetch carry
//     a request; any other kind, known or not, or a nil Request, is
//     MsgNoRequest for every reader.
//   - D33 new URL: the readers parse Request.URL as new URL does. A URL it
//     rejects, a scheme not ftp, http(s) or ws(s), or a host not ASCII (no
//     IDNA) is MsgRequestURL for every URL reader. A lone "?" is no query.
//   - D34 xn-- hosts: an ASCII host with an xn-- label is kept and
//     lower-cased, not checked as Punycode, as the URL Standard and WPT say,
//     whatever Node.js 20 or workerd do.
//   - D35 Decoded path: decoded exactly once (%252F is %2F, + stays); a %
//     without two hex digits, or invalid UTF-8, is MsgPathEncoding.
//   - D36 Query: parsed as the browser's URLSearchParams does (invalid
//     UTF-8 as U+FFFD), also where workerd keeps the byte; the first pair
//     wins; a name argument converts as a USVString.
//   - D37 Headers: fields of one name are joined with ", "; one name under
//     several spellings joins them in the spellings' sorted order, the
//     canonical one alone when present.
//   - D38 Same-origin URL: the path refuses C1 controls and invalid UTF-8
//     too, and is set as the pathname setter does (^ encoded); no userinfo
//     or fragment. Delete, then set; with a list non-empty the query is
//     serialised anew, else kept byte for byte.
//
// # Decisions: bounded body reads
//
//   - D39 Content-Length: GET and HEAD match in any case. Only one field of
//     ASCII digits counts, leading zeros included; a wrong one is left to
//     the streaming count.
//   - D40 Whole chunks: a chunk (one pull) is counted before it is
//     validated, so no status depends on buffer sizes; a sequence no byte
//     could complete (E0 80) is 4 at once.
//   - D41 Decoding: the text readers strip one leading BOM, also split
//     across chunks; the lenient reader decodes as WHATWG does; its 16 MiB
//     limit counts decoded bytes.
//   - D42 One reader: of two goroutines reading a Body that locks itself
//     (HTTPEvent's), one gets it, the other status 3; other Bodies are read
//     from one goroutine.
//   - D43 Stream failures: an error, or a Read count outside 0…len(p), is
//     MsgBodyReadFailed, after the bytes with it were judged. The stream is
//     always closed. An empty body's bytes are non-nil.
//   - D44 Memory: a read holds at most what arrived (limit+1) plus one block
//     no larger than that (or 512 B); a Content-Length reserves nothing.
//   - D45 JSON bodies: ReadInboundJSON decodes leniently, as Request.json()
//     does. Both JSON readers refuse nesting over 1000 (replaced values
//     counted) and write ±Infinity as null.
//
// # Decisions: the net/http adapter
//
//   - D46 HTTPEvent's URL is scheme://Host target, https under TLS; an
//     absolute-form target gives the host, not the scheme; a target
//     starting // is a path. Bytes not UTF-8 become U+FFFD, as in workerd.
//   - D47 Dot segments are removed first as bare workerd does (split on "/"
//     only, up to "?"; %2e is no dot), so GET /x\y/.. has the path /.
//   - D48 Body stream: none for GET, HEAD or no body (nil, http.NoBody, or
//     ContentLength 0 without the header); Content-Length: 0 is empty.
//   - D49 No Host: the address the request arrived on; with none, or a host
//     holding / \ ? # or @, the URL is "": a host is never read from the
//     path.
//   - D50 Headers are r.Header with Host and Transfer-Encoding put back;
//     what net/http removed or refused first (a Content-Length beside
//     chunked framing) cannot be.
package hostbridge
