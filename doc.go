// Package hostbridge implements, in Go with the standard library only, two
// host-bridge specifications for 豫言 apps: 消息队列 0.1.0, the queue (send
// JSON messages to a granted binding; in a queue event read the batch, ack
// or retry a message), and 网页入站 0.8.0, the inbound HTTP request (its
// method, path, headers, query and origin, a same-origin URL builder, and
// body reads within a limit). A host calls these functions for an app; where
// hosts disagree about what an app should see, this package is the answer.
//
// A net/http handler wraps its request with [HTTPEvent], reads it with the
// Inbound and ReadInbound functions, and sends to a [Platform]
// ([MemoryPlatform] in memory; natsqueue, a module of its own, on NATS
// JetStream):
//
//	q := hostbridge.NewMemoryPlatform()
//	q.Bind("PAGE_QUEUE", "pages") // the deployment's binding
//	q.Grant("PAGE_QUEUE")         // the app's permission
//
//	http.HandleFunc("POST /pages/", func(w http.ResponseWriter, r *http.Request) {
//		st, body, err := hostbridge.ReadInboundBoundedJSON(hostbridge.HTTPEvent(r), 64<<10)
//		if err == nil && st == hostbridge.BodyOK {
//			err = hostbridge.SendQueueMessage(r.Context(), q, "PAGE_QUEUE", body, 0)
//		}
//		switch {
//		case err != nil: // a *hostbridge.Error: Msg is the app's exception text, Kind whose fault
//			http.Error(w, err.Error(), http.StatusInternalServerError)
//		case st != hostbridge.BodyOK: // 1 to 5; with 5, body is the "SyntaxError: …" reason
//			http.Error(w, st.String()+" "+body, http.StatusBadRequest)
//		default:
//			w.WriteHeader(http.StatusAccepted)
//		}
//	})
//
// Check err before the status: a read that returns an error returns status
// 0, [BodyOK], too. A queue consumer reads its batch in a queue [Event] with
// [ReadQueueBatch] and answers with [AckQueueMessage] and
// [RetryQueueMessage]; [MemoryPlatform.Deliver] hands it one, on a virtual
// clock in tests.
//
// Each function's doc says what it does, then names its spec function and
// lists its checks in order, citing the spec's clauses (Q… of 消息队列, I…
// of 网页入站, numbered in CLAUSES.md). Every problem is an [*Error] whose
// Msg is the app's exception text, with a sentinel for [errors.Is].
//
// # The package by concept
//
// Each concept's files are listed together; its tests sit beside them, in
// X_test.go files.
//
//   - Producer: queue.go ([Platform], [Bindings], [SendQueueMessage]);
//     batch.go ([SendQueueBatch]).
//   - Consumer: consumer.go ([Event], [Batch], [Message], [ReadQueueBatch],
//     [AckQueueMessage], [RetryQueueMessage]); batchrecord.go
//     ([BatchRecord], the Batch a delivering platform hands its handler,
//     with the ack and retry rules).
//   - The in-memory platform: memory.go ([MemoryPlatform], its queues,
//     clock and counters); delivery.go ([MemoryPlatform.Deliver],
//     [MemoryPlatform.Run], [DeliveryResult]); checkqueue.go
//     ([CheckQueuePlatform], the queue contract checked against any
//     Platform).
//   - The inbound request: inbound.go ([Request], [Body], [InboundMethod],
//     [InboundDecodedPath], the header, query and URL readers,
//     [InboundSameOriginURL]); url.go (WHATWG URL parsing); form.go
//     (URLSearchParams).
//   - Body reads: body.go: [ReadInboundText], [ReadInboundStrictText],
//     [ReadInboundBytes] and [ReadInboundBoundedJSON] return a [BodyStatus]
//     and the body (go doc lists them under type BodyStatus);
//     [ReadInboundJSON] returns the body as canonical JSON or an error.
//     utf8.go: strict and WHATWG lenient UTF-8.
//   - Events for hosts and tests: httpevent.go ([HTTPEvent], for net/http
//     servers); fakeevent.go ([NewRequestEvent], [FakeBody]).
//   - Errors and limits: errors.go ([Error], [ErrorKind], every Msg… text
//     and its Err… sentinel); limits.go (every Max… limit, beside its
//     spec sentence).
//   - Canonical JSON, JSON.stringify(JSON.parse(text)) byte for byte:
//     canon.go (what both builds share); canon_ref*.go (the reference, the
//     normative one, written to be read, and all that -tags hostbridge_ref
//     compiles); canon_fast*.go (the fast path of the default build, held
//     equal to the reference by its tests).
//
// DECISIONS.md gives the reasons of the decisions below, PLATFORMS.md where
// real platforms differ, BENCHMARKS.md the measured figures.
//
// # Decisions
//
// Decisions D1… settle what the specs leave open, each citing the clauses
// it refines. They are grouped by concept.
//
// General and errors:
//
//   - D1 Check order: the event first, then the arguments in order,
//     stopping at the first problem (Q6, Q28, I55).
//   - D2 Standard library only: go.mod has no require; no unsafe, no
//     goroutine started, no environment read; adapters are modules of their
//     own.
//   - D3 Nesting counts arrays and objects: [] is 1, {"a":[1]} 2, a scalar
//     0 (Q16, Q59, I103).
//   - D4 Texts: Msg is the app's exception text exactly: the spec's where
//     it gives one, else errors.go's (marked own), changed only by a new
//     spec version (Q42).
//   - D5 Kinds: Violation (违规) and Failure (平台故障, with the platform's
//     reason) are catchable; Abort (部署错误, a bridge limit) ends the
//     request or event. The zero ErrorKind is none (Q8, I122–I125).
//   - D6 Sentinels: errors.Is(err, s) holds for the sentinel s whose text
//     is the longest constant prefix of Msg (Q47, I84).
//   - D7 Syntax errors read "SyntaxError: <reason> in JSON at position
//     <offset>"; only the prefix, status and offset (bytes into the decoded
//     text, where V8 points) are pinned (I103, I137).
//
// Canonical JSON:
//
//   - D8 Canonical form: V8's JSON.stringify(JSON.parse(text)) byte for
//     byte, rule by rule in canon_ref.go: lone surrogates as \udxxx,
//     array-index keys first, a repeated key at its first place (Q11, Q12,
//     I93, I95–I98).
//   - D9 Input: valid UTF-8 and strict RFC 8259 (no BOM, comment or
//     trailing comma; whitespace only space, tab, LF, CR), at any depth
//     without overflowing the stack (Q18, I147).
//
// Producer:
//
//   - D10 Producer order: the binding (empty: Violation; not Bound or no
//     Platform: Abort), the body (input size, syntax, the first of nesting,
//     markers and ±Infinity, canonical size), the delay (Q8, Q9, Q13–Q21).
//   - D11 Bound first, send last: Send or SendBatch only after every check,
//     so nothing refused reaches the platform, not even in part (Q37, Q41).
//   - D12 Markers: exactly the keys $句柄, $未定义, $大整数, $数字 after
//     unescaping, at any depth, whatever else the object holds; other $
//     keys pass (Q19, Q20).
//   - D13 Parsed value: nesting, markers and ±Infinity are judged on
//     JSON.parse's value (one a later duplicate replaces does not count;
//     1e-400 is 0); the first in text order is reported, at a key's quote,
//     a number's first byte or a container's bracket (Q18–Q21).
//   - D14 Batch order: text size (1 MiB = 1048576 bytes), "is a JSON array"
//     (invalid UTF-8 included), item count, each item (shape, body, delay),
//     then the total of the canonical bodies (Q32–Q35).
//   - D15 Batch items: not an object, then a foreign key (the first in
//     JavaScript key order, named by its canonical content), then no body.
//     A repeated key keeps its last value, a replaced body unchecked; a
//     body's size excludes surrounding whitespace (Q29, Q31, Q33).
//   - D16 Delays are judged parsed: 30.0 and 3e1 are 30, -0 is 0; 1.5, "30"
//     and null are MsgDelayRange (Q23, Q29).
//   - D17 Delay range: 0…43200, though Cloudflare allows 86400 (PLATFORMS.md
//     lists the difference); MemoryPlatform's Send refuses others, Enqueue
//     clamps (Q23, Q64).
//   - D18 The platform gets the canonical bytes with
//     SendOptions{ContentType: "json"}, DelaySeconds only when not 0 (Q26,
//     Q76).
//   - D19 Context: producers pass the caller's context to the Platform; an
//     ended one fails the send (MsgSendFailed with its error), never an
//     earlier check (Q47).
//   - D20 Grants: Bound holds for a binding granted and configured.
//     GrantJSON reads exactly the key "QUEUE": a case variant grants
//     nothing, a value not an array of strings is an error (Q7, Q8).
//
// Consumer and delivery:
//
//   - D21 Queue event: Kind() "queue" with a non-nil Batch; elsewhere the
//     consumer functions give MsgNotQueueEvent (Q50, Q51).
//   - D22 Batch text: keys in the spec's order, no whitespace, timestamp
//     Time.UnixMilli; id and queue quoted as JSON.stringify does, invalid
//     UTF-8 as TextDecoder decodes it; bodies as they are, markers included
//     (Q53, Q56).
//   - D23 Bodies: one not a json.RawMessage, invalid JSON or ±Infinity is
//     MsgMessageNotJSON (Violation), then nesting over 32 MsgMessageTooDeep
//     (Abort); the first message with a problem wins (Q57–Q59).
//   - D24 No state: every valid ack and retry goes to the Batch; the
//     package keeps none (Q67).
//   - D25 Retry 0 is the consumer's RetryDelay (PLATFORMS.md lists the
//     difference) (Q63).
//   - D26 Batch rules: of ack and retry the first call wins; a second retry
//     replaces the delay; calls out of range or after the handler returned
//     are ignored. Every delivering Platform uses BatchRecord (Q67, Q68).
//   - D27 Consumer settings default to Cloudflare's (batches of 10, a 5 s
//     timeout, 3 retries, retry delay 0), in its ranges; a failed batch's
//     acked messages are not redelivered unless RedeliverAcked (Q71, Q89).
//   - D28 A batch is ready when full, or when its oldest message has waited
//     the batch timeout since it became ready (Q89).
//   - D29 Failure: a handler that errs or panics fails its batch, each
//     message back after its retry delay with attempts + 1; after
//     MaxRetries+1 deliveries it is dropped or dead-lettered, attempts from
//     1 again (Q69, Q70).
//   - D30 MemoryPlatform: timestamps are send times, ids 32 hex digits
//     random per platform; delays never fire early; Sent = Acked +
//     DeadLettered + Dropped + Pending, in flight included (Q53).
//   - D31 Durable platforms keep a send that returned nil through a power
//     loss, unless the operator chose a documented loss window; across
//     restarts and failover delays never fire early, attempts never go
//     back and counters lose nothing but to a host crash; delivery is at
//     least once (Q93). Under a node fault the one overlap allowed is the
//     lease's: a handler that outlives its lease, no renewal committed,
//     may overlap the next holder, and its outcome is then refused, never
//     applied; the platform's doc states it, and its fault suite checks
//     that and nothing looser.
//
// Request and URL:
//
//   - D32 Request events: only fetch, service-fetch and durable-fetch carry
//     a request; any other kind, or a nil Request, is MsgNoRequest for
//     every reader (I13–I15, I18).
//   - D33 new URL: the readers parse Request.URL as new URL does; a URL it
//     rejects, a scheme not ftp, http(s) or ws(s), or a non-ASCII host (no
//     IDNA) is MsgRequestURL for every URL reader. A lone "?" is no query
//     (I23, I35, I36).
//   - D34 xn-- hosts: an ASCII host with an xn-- label is lower-cased, not
//     checked as Punycode, as the URL Standard says (PLATFORMS.md lists the
//     difference) (I23, I35).
//   - D35 Decoded path: decoded exactly once (%252F is %2F, + stays); a %
//     without two hex digits, or invalid UTF-8, is MsgPathEncoding (I4, I5).
//   - D36 Query: parsed as a browser's URLSearchParams does (invalid
//     UTF-8 as U+FFFD), also where workerd keeps the byte (PLATFORMS.md
//     lists the difference); the first pair wins; a name argument converts
//     as a USVString (I19, I21).
//   - D37 Headers: fields of one name are joined with ", "; a name under
//     several spellings joins them in the spellings' sorted order, the
//     canonical one alone when present (I6).
//   - D38 Same-origin URL: the path also refuses C1 controls and invalid
//     UTF-8 and is set as the pathname setter does (^ encoded); no userinfo
//     or fragment. With a non-empty list the query is serialised anew, else
//     kept byte for byte (I25–I33).
//
// Bounded body reads:
//
//   - D39 Content-Length: GET and HEAD match in any case. Only one field of
//     ASCII digits counts, leading zeros included; a wrong one is left to
//     the streaming count (I52, I56, I57).
//   - D40 Whole chunks: a chunk (one pull) is counted before it is
//     validated; a sequence no byte could complete (E0 80) is 4 at once
//     (I58, I66, I70, I71).
//   - D41 Decoding: the text readers strip one leading BOM, also split
//     across chunks; the lenient reader decodes as WHATWG does, its 16 MiB
//     limit counting decoded bytes (I64, I65, I68).
//   - D42 One reader: of two goroutines reading a self-locking Body
//     (HTTPEvent's), one gets it, the other status 3; other Bodies are read
//     from one goroutine (I53, I63).
//   - D43 Stream failures: an error, or a Read count outside 0…len(p), is
//     MsgBodyReadFailed once the bytes with it are judged; the stream is
//     always closed; an empty body's bytes are non-nil (I60, I61, I74).
//   - D44 Memory: a read holds what arrived (at most limit+1) plus one block
//     no larger than that (or 512 B); a Content-Length reserves nothing
//     (I46, I59).
//   - D45 JSON bodies: ReadInboundJSON decodes leniently, as Request.json()
//     does. Both JSON readers refuse nesting over 1000 (replaced values
//     counted) and write ±Infinity as null (I77, I84, I103).
//
// The net/http adapter:
//
//   - D46 HTTPEvent's URL is scheme://Host target, https under TLS; an
//     absolute-form target gives the host only; //x is a path. Bytes not
//     UTF-8 become U+FFFD, as in workerd (I11).
//   - D47 Dot segments are removed first, as bare workerd does (split on "/"
//     only, up to "?"; %2e is no dot): GET /x\y/.. has the path / (I3).
//   - D48 Body stream: none for GET, HEAD or no body (nil, http.NoBody, or
//     ContentLength 0 without the header); Content-Length: 0 is empty
//     (I52, I130).
//   - D49 No Host: the address the request arrived on; with none, or a host
//     holding / \ ? # or @, the URL is "": a host is never read from the
//     path (I23).
//   - D50 Headers are r.Header with Host and Transfer-Encoding put back;
//     what net/http removed or refused first (a Content-Length beside
//     chunked framing) cannot be; PLATFORMS.md lists the differences (I6,
//     I56).
//   - D51 Host reads: HTTPEvent puts in r.Body a reader of the same stream;
//     the host reading, parsing or closing it after HTTPEvent marks the
//     body used (status 3). A read before HTTPEvent, or through the r.Body
//     it replaced, cannot be seen: the readers read what is left (I53, I63).
//
// Exception kinds beyond the spec's lists:
//
//   - D52 More Violations: besides the three cases 网页入站's 违规 paragraph
//     lists, a path with a bad percent-encoding (MsgPathEncoding) and both
//     same-origin errors (MsgSameOriginPath, MsgSameOriginList) are
//     Violations: catchable, with a fixed text and no platform's reason
//     (I5, I32, I34, I122).
//
// Conformance of other hosts:
//
//   - D53 Rows have a level: spec (the specs' own tables, limits and texts,
//     and the standards they are written on: WHATWG URL and Encoding,
//     ECMAScript JSON) or decision (a row pinning one of D1…, which a host
//     may decide otherwise, listing the row with its reason in its
//     expectations file). CONFORMANCE.md gives each file's level; a row's
//     "level" overrides it; a row the runner derives from one of the
//     package's rules (a scheme a request cannot have, a host that needs
//     IDNA) is a decision row.
package hostbridge
