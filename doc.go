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
// # Decisions the specs leave open
//
// Where the specs are silent, the package does what follows (DESIGN.md is
// the source of most of these), and its tests pin each choice.
//
// General:
//   - Every function checks its event first (a queue event; a current HTTP
//     request), then its arguments in order, and stops at the first problem.
//   - Nesting counts arrays and objects: [] is 1, {"a":[1]} is 2, a scalar 0.
//
// Producer (发送队列消息, 批量发送队列消息):
//   - Order: binding (empty → Violation; not Bound, or a nil Platform →
//     Abort), then the body, then the delay. A body: input size, then UTF-8
//     and JSON syntax, then nesting, host markers and ±Infinity (whichever
//     comes first in the text), then the canonical size. Both the input and
//     the canonical text must be at most 128000 bytes.
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
package hostbridge
