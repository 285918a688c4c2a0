// Package hostbridge is the reference implementation of two host-bridge
// specifications for 豫言 apps:
//
//   - 消息队列 0.1.0 (queue-0.1.0): an app sends JSON messages to a granted
//     queue binding, one (SendQueueMessage) or a batch of up to 100
//     (SendQueueBatch), fully validated before anything is sent; in a queue
//     event it reads the batch as JSON (ReadQueueBatch) and acknowledges
//     (AckQueueMessage) or retries (RetryQueueMessage) message n.
//   - 网页入站 0.8.0 (inbound-0.8.0): an app reads the current HTTP request:
//     event kind, method, raw and decoded path, headers, query parameters,
//     origin, hostname, raw query, a same-origin URL builder, and bounded
//     body reads that never buffer past their limit and return (status,
//     result), including a bounded JSON body returned as canonical JSON.
//
// When two hosts disagree about what an app should see, this package is the
// answer. Each exported function's doc comment names its spec function in
// Chinese and lists its checks in the order they are made.
//
// # Shape
//
// Plain functions behind two interfaces: Platform (the deployment's queues)
// and Event (the current host invocation; its Request and Batch). Errors are
// *Error with a Kind: Violation (违规, catchable, fixed text), Failure (平台故障,
// catchable, carries the platform's reason) and Abort (部署错误 or a bridge
// limit: the host ends the request or event). Every message is a constant in
// errors.go; every limit a constant in limits.go. Business outcomes of body
// reads are BodyStatus values, never errors. MemoryPlatform is an in-memory
// Platform for embedding and tests.
//
// The producer functions take the caller's context.Context first and hand it
// to the Platform, as gocloud's Topic.Send and nats.go's jetstream.Publish
// take theirs: a host bounds or cancels a send with it (a net/http host
// passes r.Context()). A send whose context ended before the platform had
// it is a Failure (队列发送失败： or 队列批量发送失败： then the context's
// error text) that wraps the context's error; the checks before the
// platform call do not look at the context.
//
// # Canonical JSON
//
// Message bodies and inbound JSON bodies are canonicalised as
// JSON.stringify(JSON.parse(text)) is in V8, byte for byte: no whitespace;
// numbers as ECMAScript Number::toString (1e+21, 1e-7, -0 → 0, float64
// precision); strings escape only '"', '\\', \b \f \n \r \t, other C0 controls
// as \u00xx and lone surrogates as \udxxx (lower-case hex), everything else
// raw (U+2028, DEL, '/', '<'); object keys that are array indices (canonical
// decimal 0 … 4294967294) first, ascending, then the others in order of first
// appearance; a repeated key keeps its first position and its last value.
// Input must be valid UTF-8 and strict RFC 8259 JSON, as JSON.parse takes a
// string: no BOM, no comments, no trailing comma, whitespace only space, tab,
// LF and CR. The parser keeps its open containers on an explicit stack and
// never recurses per nesting level.
//
// The normative version is canonref.go: encoding/json's Decoder finds the
// tokens, each string and number is read again from its raw bytes, the
// value is built as JSON.parse builds it and written as JSON.stringify
// writes it, each rule beside the ECMA-262 or RFC 8259 sentence it
// implements. canon.go, number.go and jsonstring.go are the fast path, held
// equal to it (output, depth, first problem and its offset, syntax error
// and its offset) by FuzzReference and a seeded corpus of 20,000 documents;
// built with -tags hostbridge_ref the package uses the reference alone.
// Where the two could differ only by a promise (canonOptions.validUTF8:
// the caller checked the UTF-8), the reference checks anyway.
//
// A number is converted (strconv.ParseFloat, then the shortest digits of
// strconv.AppendFloat) only when its spelling may not be Number::toString's
// digits already: a number of at most 15 significant digits is its own
// shortest form, and one of 16 to 19 digits that exact integer arithmetic
// shows to be the shortest, nearest digits of its double (as the programs
// that write doubles write them) is laid out without converting it.
//
// # Decisions the specs leave open
//
// Where the specs are silent, the package does what follows, and its tests
// pin each choice. DECISIONS.md gives the reasoning behind the ones that
// needed some. Where something is still open, the package chooses what a
// careful host author would expect, writes the choice here and tests it.
//
// General:
//   - Every function checks its event first (a queue event; a current HTTP
//     request), then its arguments in order, and stops at the first problem.
//   - Nesting counts arrays and objects: [] is 1, {"a":[1]} is 2, a scalar 0.
//   - The root module is the reference and stays standard-library only (its
//     go.mod has no require). Adapters to real engines (natsqueue, on NATS
//     JetStream) are modules of their own in subfolders; the root package
//     never imports them.
//
// Errors:
//   - Every error for the app is an *Error: Msg is exactly the text of the
//     app's exception. Texts a spec quotes are used verbatim; where a spec
//     names no text the package names one (errors.go says which). A text
//     never changes without a new spec version.
//   - Kind: Violation (违规: the app's mistake, catchable, a fixed text),
//     Failure (平台故障: catchable, the text carries the platform's or the
//     stream's reason), Abort (部署错误 or a bridge limit: the host ends the
//     request or event; not catchable). Catchable answers the host's one
//     question. Kind values start at 1, so the zero Kind is never a real one.
//   - Each exception has a sentinel (ErrEmptyBinding …); errors.Is(err,
//     sentinel) holds for the exception whose text is Msg's constant part,
//     whatever follows it (an item's "：序号 n", a binding name, a platform
//     or parser reason). Business outcomes of body reads are BodyStatus
//     values 0–5, never errors.
//   - A JSON syntax error's reason (status 5, or after MsgJSONBodyInvalid)
//     starts "SyntaxError: " and says what and where; only that prefix, the
//     status and the offset are pinned (see Canonical JSON details).
//
// Producer (发送队列消息, 批量发送队列消息):
//   - Order: binding (empty → Violation; not Bound, or a nil Platform →
//     Abort), then the body, then the delay. A body: input size, then UTF-8
//     and JSON syntax, then nesting, host markers and ±Infinity (whichever
//     comes first in the text), then the canonical size. Both the input and
//     the canonical text must be at most 128000 bytes.
//   - The binding check asks Platform.Bound first; Send and SendBatch are
//     called only after every check passed, so a refused message or batch
//     never reaches the platform (nothing of a batch is sent unless every
//     item passes).
//   - Host markers are exactly the keys $句柄, $未定义, $大整数 and $数字,
//     compared after unescaping (so \u0024句柄 is caught), at any depth, in
//     any object, whatever other keys it has. $set and other $ keys pass.
//   - Nesting over 24, markers and ±Infinity are judged on the parsed value,
//     what JSON.parse gives and the platform would get: a value a later
//     duplicate key replaces does not count, so {"a":{"$句柄":1},"a":2} is
//     sent as {"a":2}. A number that underflows (1e-400) is 0, not an error.
//   - A batch: text size (1 MiB = 1048576 bytes), then "is a JSON array"
//     (invalid UTF-8 or JSON anywhere in the text, or another value, all
//     give MsgBatchNotArray), then the item count, then each item in order
//     (shape, body, delay), then the canonical total of the bodies.
//   - Batch items: not an object, then a key other than body/delaySeconds
//     (the first in JavaScript key order: array-index keys ascending, then
//     the others as they first appear), then no body. The key is written in
//     the message as its canonical JSON string content, without the quotes.
//     A repeated body or delaySeconds keeps its last value, as JSON.parse
//     does, and a replaced body is not checked. A body's 128000-byte input
//     limit is measured on its own span, without the whitespace around it.
//   - delaySeconds follows JavaScript after parsing: 30, 30.0, 3e1 are 30,
//     -0 is 0 (no delay); 1.5, "30", null and anything outside 0…43200 give
//     MsgDelayRange with the item's number.
//   - The platform receives the canonical bytes with SendOptions{ContentType:
//     "json"}, DelaySeconds only when it is not 0.
//
// Consumer (读取队列批次, 确认队列消息, 重试队列消息):
//   - A queue event is Kind() == "queue" with a non-nil Batch; anything else
//     is MsgNotQueueEvent for all three functions.
//   - ReadQueueBatch writes {"queue","messages":[{"id","attempts",
//     "timestamp","body"}]} in that key order, no whitespace; id and queue are
//     quoted as JSON.stringify does, invalid UTF-8 decoded as TextDecoder
//     and the query readers decode it (one U+FFFD per maximal subpart: an
//     ID "a\xF0\x90\x80b" reads "a\uFFFDb"); timestamp is Time.UnixMilli. Bodies pass as they are, reserved $ keys included
//     (only the producer rejects them). Each message in order: a Go value
//     other than json.RawMessage, invalid JSON or a number that parses to
//     ±Infinity is MsgMessageNotJSON (Violation); then depth over 32 is
//     MsgMessageTooDeep (Abort). The first message with a problem wins.
//   - Ack checks the event, then the index; Retry the event, the index, then
//     the delay (0: the platform's default; 1…43200). Every valid call is
//     forwarded to the Batch and the package keeps no state of its own
//     ("效果以平台为准").
//
// MemoryPlatform (delivery, modelled on Cloudflare Queues):
//   - Consumer settings default to Cloudflare's: batches of 10 (1…100), a 5 s
//     batch timeout (0…60 s), 3 retries (0…100), retry delay 0, no
//     dead-letter queue, acked messages not redelivered when a batch fails
//     (RedeliverAcked gives Miniflare's behaviour). So with the defaults a
//     batch of fewer than 10 messages is delivered only 5 s after its oldest
//     message became ready: under VirtualClock, Deliver returns false until
//     the clock has been advanced that far (or MaxBatchTimeout is set to 0).
//   - A batch is ready when full, or when its oldest ready message has waited
//     the batch timeout since it became ready (after its delay). A message's
//     timestamp is its send time; ids are 32 hex digits (16 random per
//     platform, then a sequence) so they do not repeat after a restart.
//   - A handler that returns an error or panics fails its batch; every message
//     of it is redelivered with attempts + 1 after its own retry delay if it
//     was retried, else the queue's. An explicit retry counts against
//     MaxRetries: at most MaxRetries+1 deliveries, then the dead-letter queue
//     (id, timestamp and body kept, attempts starting again at 1, as Miniflare
//     does) or a drop. Between ack and retry of one message the first call
//     wins; a second retry replaces the first one's delay (as workerd does);
//     calls after the handler returned are ignored. These rules, and which
//     messages go back after what delay, have one home: BatchRecord (with
//     MessageOutcome), the Batch that MemoryPlatform and natsqueue hand to a
//     handler and that another Platform's delivery should use too.
//   - Send and SendBatch refuse a delay outside 0…43200, as Cloudflare does.
//     Delays and retry delays never fire early.
//     Counters always satisfy Sent = Acked + DeadLettered + Dropped + Pending.
//   - The record of producer calls (Calls) keeps the last DefaultCallLimit
//     (1000) calls unless SetCallLimit says otherwise, in a ring, so a
//     long-running host's record is bounded and recording a call costs the
//     same at any limit.
//
// Durable platforms (a Platform that stores messages, as natsqueue does):
//   - A send that returned nil survives a power loss of the node that stored
//     it, by default; a faster policy is the operator's explicit choice,
//     with its loss window documented.
//   - Send delays and retry delays never fire early, across restarts and
//     failover; attempts never decrease; counters never lose increments when
//     no host process crashed. Delivery is at least once.
//   - The ack/retry rules and redelivery are MemoryPlatform's (BatchRecord).
//
// 网页入站: event and URL pieces:
//   - Only fetch, service-fetch and durable-fetch carry a request; any other
//     kind, known or not, is Failure 当前没有 HTTP 请求 for every reader,
//     whatever Request() returns, as is a nil Request on a fetch event.
//   - The readers parse Request.URL as new URL does (the basic URL parser
//     without a base), whatever its spelling: bare workerd's request.url
//     is not normalised, so http://Example.COM:80/a/%2e%2e/b\c reads as
//     origin http://example.com and path /b/c. A URL the parser rejects (no
//     host, a bad port or IPv4 address, a forbidden host code point), a
//     scheme a request does not have (only ftp, http, https, ws and wss are
//     parsed; file:, blob: and non-special schemes are refused), or a host
//     that is not ASCII after percent-decoding (it needs IDNA, which the
//     package does not do; both workerd and net/http refuse such a Host) is
//     Failure MsgRequestURL, for every URL reader. Origin:
//     scheme://host[:port]. Hostname: lower case, no port, IPv6 in brackets.
//   - Hosts with a label starting xn-- (in any case) are lower-cased and
//     not checked as Punycode: the URL Standard's domain to ASCII keeps an
//     ASCII domain, lower-cased, whatever Unicode ToASCII says of it, so
//     xn--a.example has the origin http://xn--a.example. workerd and
//     Node.js 20 refuse such a host when its label is not valid Punycode;
//     the standard wins (README.md lists the difference).
//   - Raw query: "" for no query and for a lone "?"; "??a" stays "??a".
//   - Decoded path: percent-decoded exactly once (%2F → /, %252F → %2F, + stays
//     +, %00 → NUL, U+FEFF kept); a % not followed by two hex digits, or
//     invalid UTF-8 after decoding, is Violation MsgPathEncoding.
//   - Query parameters: the query is parsed as URLSearchParams does (+ is
//     space, lenient percent-decoding, invalid UTF-8 → U+FFFD, no BOM
//     stripping, no further "?" stripped); the first pair of a name wins. A
//     name argument that is not UTF-8 is converted as a USVString would be.
//     These are the browser's rules, as the spec asks ("按浏览器 URL 查询参数
//     规则"), also where workerd differs: a percent-encoded byte that is not
//     UTF-8 decodes to U+FFFD (?a=%ff has the name a and the value U+FFFD,
//     re-serialised a=%EF%BF%BD, and the name U+FFFD matches %ff), where
//     workerd keeps the raw byte (README.md lists it among the known
//     platform differences).
//   - Headers: several fields of one name are joined with ", ", as
//     Headers.get does; a host's hand-built http.Header may spell names in
//     any case, and when it holds one name under several spellings their
//     values are joined in the sorted order of the spellings (the canonical
//     spelling alone, when present).
//
// 构造入站同源网址:
//   - Checks: the request, then the path (a single leading /, no //, \,
//     Unicode Cc control U+0000–U+001F and U+007F–U+009F, ?, # or invalid
//     UTF-8), then the lists (over 16 set pairs or 16 deleted keys).
//   - The path is normalised as the URL pathname setter does for a special
//     URL under the current WHATWG standard, whose path percent-encode set
//     includes ^ (node 20 predates that: WPT wins). The result is origin +
//     path + query; userinfo and fragment are dropped.
//   - Delete first, then set (URLSearchParams.set: replace the first pair of
//     the name, drop the others, else append). When either list is non-empty
//     the query is re-serialised as URLSearchParams does after any call, even
//     one that changed nothing (space → +); an empty result leaves no "?".
//     With both lists empty the raw query is kept byte for byte, a lone "?"
//     included, as URL.href keeps it.
//
// Bounded body reads:
//   - Order: the request, the limit, then status 2 (no stream, or GET/HEAD
//     compared case-insensitively) and 3 (used or locked), then the
//     Content-Length precheck, then chunk by chunk. Content-Length counts
//     only as one field of ASCII digits: several fields (Headers.get joins
//     them with ", ") or any other form are ignored; leading zeros count as
//     digits, so 19 digits of 0000…1 is status 1. A declared length that is
//     wrong is left to the streaming count.
//   - Each chunk is counted whole first (over the limit: cancel, 1), then the
//     strict reader validates it, carrying only a cut-off sequence across
//     chunks; a sequence no byte could complete (E0 80, ED A0) is 4 at once, a
//     truncated one at the end is 4. A chunk is what the stream delivers in
//     one pull: a Read that returns less than its buffer, or ends the stream,
//     ends one; a Read that fills its buffer may have cut one, so its bytes
//     are counted at once but validated only when a later Read ends the chunk.
//     So the status never depends on the reader's buffer sizes or pools (one
//     701-byte chunk FF a… is 1 at any limit under 701). A chunk that ends
//     exactly where a buffer ends cannot be told from a longer one and is
//     joined to the next: that can only turn a 4 into a 1, when the next chunk
//     crosses the limit. Both text readers strip one leading BOM, also when it
//     is split across chunks, and only at the very start; the lenient reader
//     decodes as the WHATWG UTF-8 decode does (each maximal subpart of an
//     ill-formed sequence becomes one U+FFFD); the 16 MiB lenient limit
//     counts decoded UTF-8 bytes and applies only to a body within the limit.
//   - One body, one reader: when two goroutines read one body at once,
//     exactly one gets it and the other sees status 3. A Body that can
//     check and lock itself in one step (HTTPEvent's can) is opened that
//     way; other Bodies are trusted to be read from one goroutine.
//   - A stream error is Failure MsgBodyReadFailed + its text, after the bytes
//     that came with it were counted and validated (so 1 or 4 can win). The
//     stream is always closed; a Close error is swallowed. A Read returning
//     a count outside 0…len(p) is a Failure too. ReadInboundBytes gives a
//     non-nil empty slice for an empty body, nil for every other status.
//   - Memory follows what arrived, never what was declared: a Content-Length
//     is only prechecked, never used to reserve memory (a 1-byte body
//     declaring 16000000 costs one 512-byte block). Every reader reads into
//     pooled blocks that double with what arrived, 512 B to 64 KiB, so a read
//     holds at most the bytes received (limit+1 at most) plus one block no
//     larger than what arrived (or 512 B); the result is one new slice or
//     string of the body's size, so in steady state a read allocates about
//     1.0x the body. The JSON functions join the blocks in a pooled buffer and
//     canonicalise into another: once the pools are warm only the returned
//     text is new. The package uses no unsafe.
//   - ReadInboundBoundedJSON reads as the strict reader does (invalid UTF-8
//     is status 4); ReadInboundJSON reads the bytes as ReadInboundBytes does
//     and decodes them leniently, as Request.json() does (the spec says only
//     "以 UTF-8 解码（剥除 BOM）" for it): 22 FF 22 gives "\uFFFD". Both strip
//     the BOM and canonicalise with a 1000-level parser bound (deeper is
//     status 5, or the exception, with a SyntaxError reason: hosts differ
//     here, so the package fixes one number every host can meet), ±Infinity
//     written as null. Every failure of ReadInboundJSON is a catchable
//     Failure: MsgJSONBodyTooLarge (input over 2 MiB or canonical text over
//     2 MiB), MsgJSONBodyNone, MsgJSONBodyUsed, or MsgJSONBodyInvalid
//     followed by a SyntaxError reason, whose position counts UTF-8 bytes of
//     the decoded text. An empty body is status 5 for the bounded function.
//
// Canonical JSON details:
//   - A syntax error is worded "SyntaxError: <reason> in JSON at position
//     <offset>". The words after "SyntaxError: " are for diagnosis, not API
//     (the spec calls the text 供诊断, and JavaScript engines word it
//     differently from one version to the next); the offset is a byte
//     offset into the decoded text, where V8 points: the unexpected byte, the
//     character after the backslash of a bad escape ("\q": 2), the first
//     non-hex digit of a bad \u escape, the text's length for an unexpected
//     end.
//   - The problem the queue reports is the first in text order among those
//     of the parsed value, at a key's opening quote, a number's first byte or
//     a container's opening bracket; a repeated marker key is reported where
//     it first appears, since it keeps that position.
//   - The 1000-level bound counts every container it reads, replaced or not.
//     Without a bound (the queue's bodies, whose size bounds them) nesting
//     costs memory in proportion, never stack.
//
// net/http adapter (HTTPEvent):
//   - The URL is scheme://host target parsed and serialised as above: the
//     scheme from the connection (https under TLS), the Host header, the
//     request-target. An absolute-form target supplies the host, not the
//     scheme; a target that starts with // is a path, never an authority. A
//     host the parser rejects leaves the URL unparsed, as workerd's
//     request.url is, and the URL readers then fail as new URL would.
//   - Before the target is parsed, its "." and ".." segments are removed as
//     bare workerd removes them: the path up to the first "?" is split on
//     "/" only ("\" and "#" are ordinary characters in that pass), so
//     GET /x\y/.. has the path / and /a#b/../c the path /c. Percent-encoded
//     dots are not dots in that pass (workerd does not percent-decode
//     there); the URL parser that follows treats %2e as the URL Standard
//     says, so /a/%2e%2e/../c is /a/c. Empty segments and the query are
//     kept as they are.
//   - Bytes that are not UTF-8, in a header value or in the raw
//     request-target, are decoded the lenient way (each maximal ill-formed
//     subpart becomes U+FFFD), as workerd does: GET /\xFF has the raw path
//     /%EF%BF%BD and the decoded path /\uFFFD. net/http itself answers 400 to
//     a request-target with a bad percent escape, before any handler.
//   - A request has a body stream unless it is GET or HEAD or has no body
//     at all (r.Body nil or http.NoBody, or r.ContentLength 0 without a
//     Content-Length header, as net/http's server gives an HTTP/2 request
//     whose headers end the stream). A body of unknown length (chunked,
//     HTTP/2 without content-length) is read; Content-Length: 0 is an empty
//     stream.
//   - No Host (HTTP/1.0 may name none): the URL's host is the address the
//     request arrived on (http.LocalAddrContextKey), so InboundOrigin is a
//     real origin and a same-origin URL stays on it. With no address either
//     (a request built by hand), or a host holding / \ ? # or @, the URL
//     is "" and the URL readers fail with MsgRequestURL: a host is never
//     read from the path (http:///evil.example/steal would be).
//   - What net/http changed or refused before the adapter sees a request
//     cannot be undone; README.md lists these known platform differences
//     (400 for a bad percent escape or a space or control byte in the
//     target, for a control byte in a header value and for a non-ASCII
//     header name, 417 for an Expect other than 100-continue, trimmed
//     trailing spaces in header values, obs-fold joined by one space,
//     Content-Length beside chunked framing, chunk boundaries), and what
//     workerd refuses that net/http passes on (431 for a head over 128 KiB,
//     500 for some Content-Length and Host spellings).
//   - Headers are a copy of r.Header with Host (r.Host) and Transfer-Encoding
//     (r.TransferEncoding) put back, as a Worker's Request.headers has them.
//     A Content-Length beside chunked framing cannot be put back: net/http
//     deletes it and keeps no trace (r.ContentLength is -1), so over
//     net/http the precheck does not see it; a host whose headers keep it
//     (a Worker, NewRequestEvent) gets status 1 from it.
package hostbridge
