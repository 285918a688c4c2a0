package hostbridge

import (
	"errors"
	"io"
	"math/bits"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// ReadInboundText is 读取入站有限正文文字 (有限正文读取): the request body
// decoded as UTF-8 the lenient way, read without ever holding more than
// limit bytes (plus the chunk that crosses it).
//
// The checks, in order (the shared ones are those of readBody):
//   - the event carries an HTTP request, else Failure MsgNoRequest;
//   - "参数是字节上限，须在 1 至 16777216（16 MiB）之间，越界属于违规"
//     (Violation MsgBodyLimitRange);
//   - status 2 (GET, HEAD, or no body stream), then 3 (the body was used);
//   - a Content-Length of 1–18 digits over limit, or of 19 digits or more,
//     is status 1 without reading a byte;
//   - the body is read chunk by chunk; "一旦超过上限就取消读取流并返回 1";
//     a failing stream is Failure MsgBodyReadFailed + its reason;
//   - "宽松文字的解码与 TextDecoder 整块解码的默认行为相同：非法序列各替换为
//     U+FFFD；只有整个正文开头的 BOM 被剥除" — decoding is done on the whole
//     body, so the text does not depend on how it was chunked;
//   - a decoded text over MaxLenientTextBytes UTF-8 bytes is Violation
//     MsgLenientTooLong ("若超过 16 MiB，属于违规").
func ReadInboundText(ev Event, limit int) (BodyStatus, string, error) {
	r, err := limitedRequest(ev, limit, MaxBodyLimit, MsgBodyLimitRange)
	if err != nil {
		return 0, "", err
	}
	st, body, _, err := readBody(r, limit, false, keepText)
	if err != nil || st != BodyOK {
		return st, "", err
	}
	s, err := decodeLenient(body.string())
	if err != nil {
		return 0, "", err
	}
	return BodyOK, s, nil
}

// ReadInboundStrictText is 读取入站有限正文严格文字 (有限正文读取): the request
// body as strictly decoded UTF-8. Its checks are those of ReadInboundText up
// to the reading; then:
//   - "严格文字按 fatal 解码：过长编码、代理对编码、越界码点、孤立的延续字节与
//     末尾残缺序列都算非法，得状态 4，且发现后立即取消读取流" — each chunk is
//     validated as it arrives (after it is counted against the limit), an
//     incomplete sequence at its end carried into the next;
//   - "合法的正文与宽松文字的结果相同": a leading BOM is stripped.
func ReadInboundStrictText(ev Event, limit int) (BodyStatus, string, error) {
	r, err := limitedRequest(ev, limit, MaxBodyLimit, MsgBodyLimitRange)
	if err != nil {
		return 0, "", err
	}
	st, body, _, err := readBody(r, limit, true, keepText)
	if err != nil || st != BodyOK {
		return st, "", err
	}
	return BodyOK, strings.TrimPrefix(body.string(), utf8BOM), nil
}

// ReadInboundBytes is 读取入站有限正文字节 (有限正文读取): the request body's
// bytes. Its checks are those of ReadInboundText up to the reading; "字节接口
// 原样返回全部字节，BOM 与零字节都保留". The bytes of status 0 are never nil
// (an empty body gives an empty slice); every other status gives nil.
func ReadInboundBytes(ev Event, limit int) (BodyStatus, []byte, error) {
	r, err := limitedRequest(ev, limit, MaxBodyLimit, MsgBodyLimitRange)
	if err != nil {
		return 0, nil, err
	}
	st, body, _, err := readBody(r, limit, false, keepBytes)
	if err != nil || st != BodyOK {
		return st, nil, err
	}
	p := body.bytes()
	return BodyOK, p[:len(p):len(p)], nil
}

// ReadInboundBoundedJSON is 读取入站有限癸象正文文 上限 (有限 JSON 正文): the
// request body, read by the rules of ReadInboundStrictText with limit, as
// canonical JSON (JSON.stringify(JSON.parse(text))).
//
// The checks, in order:
//   - the event carries an HTTP request, else Failure MsgNoRequest;
//   - "上限 1 至 8388608，即 8 MiB，越界属于违规" (Violation MsgJSONLimitRange);
//   - statuses 1 to 4 exactly as ReadInboundStrictText gives them ("判定顺序、
//     Content-Length 预判、逐块累计与取消、状态含义都相同");
//   - the text, its BOM stripped, is parsed: invalid JSON, nesting over
//     MaxJSONDepth levels and an empty body are status 5 with the parser's
//     reason ("SyntaxError: … in JSON at position n");
//   - status 0 gives the canonical text; a number that parses to ±Infinity is
//     written null, as JSON.stringify does.
func ReadInboundBoundedJSON(ev Event, limit int) (BodyStatus, string, error) {
	r, err := limitedRequest(ev, limit, MaxBoundedJSONLimit, MsgJSONLimitRange)
	if err != nil {
		return 0, "", err
	}
	st, body, _, err := readBody(r, limit, true, keepScratch)
	if err != nil || st != BodyOK {
		return st, "", err
	}
	out, err := body.canonical()
	if err != nil {
		return BodyInvalidJSON, err.Error(), nil
	}
	return BodyOK, out, nil
}

// ReadInboundJSON is 读取入站癸象正文文 (JSON 正文): the request body as
// canonical JSON, read by the rules of ReadInboundStrictText with the fixed
// limit JSONBodyLimit ("先按上述规则以 2 MiB 上限读取字节"). Every problem is
// a catchable Failure ("下列情形都是可捕获的豫言异常"):
//   - no current HTTP request: MsgNoRequest;
//   - status 1, or a canonical text over JSONBodyLimit ("规范化后的文字也不得
//     超过 2 MiB"): MsgJSONBodyTooLarge;
//   - status 2: MsgJSONBodyNone; status 3: MsgJSONBodyUsed;
//   - invalid UTF-8: MsgJSONBodyInvalid + "SyntaxError: Invalid UTF-8 in JSON
//     at position n", n the byte offset of the first bad sequence in the text
//     after its BOM (a truncated sequence at the end counts from its first
//     byte);
//   - invalid JSON or nesting over MaxJSONDepth: MsgJSONBodyInvalid + the
//     parser's reason.
func ReadInboundJSON(ev Event) (string, error) {
	r, err := currentRequest(ev)
	if err != nil {
		return "", err
	}
	st, body, bad, err := readBody(r, JSONBodyLimit, true, keepScratch)
	if err != nil {
		return "", err
	}
	switch st {
	case BodyTooLarge:
		return "", failure(MsgJSONBodyTooLarge, nil)
	case BodyNone:
		return "", failure(MsgJSONBodyNone, nil)
	case BodyUsed:
		return "", failure(MsgJSONBodyUsed, nil)
	case BodyInvalidUTF8:
		serr := &syntaxError{reason: SyntaxBadUTF8, off: bad}
		return "", failure(MsgJSONBodyInvalid+serr.Error(), serr)
	}
	out, err := body.canonical()
	if err != nil {
		return "", failure(MsgJSONBodyInvalid+err.Error(), err)
	}
	if len(out) > JSONBodyLimit {
		return "", failure(MsgJSONBodyTooLarge, nil)
	}
	return out, nil
}

// inboundCanon is how both inbound JSON functions parse: at most
// MaxJSONDepth levels, ±Infinity written null; the strict read has
// validated the UTF-8 already.
var inboundCanon = &canonOptions{maxDepth: MaxJSONDepth, infToNull: true, validUTF8: true}

// canonical returns the canonical JSON text of a body read strictly with
// keepScratch, its BOM stripped. The body and the canonical bytes are
// scratch, kept in a pool between calls; only the returned text is new.
func (d bodyData) canonical() (string, error) {
	src := d.blocks[0] // read with keepScratch: one buffer
	defer putScratch(src)
	src = trimBOM(src)
	out, _, err := canonical(getScratch(len(src)+16), src, inboundCanon)
	defer putScratch(out)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// scratch keeps buffers of the JSON readers between calls.
var scratch sync.Pool

// getScratch returns an empty buffer of at least n bytes.
func getScratch(n int) []byte {
	if b, ok := scratch.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

// putScratch keeps b for a later call, unless it is larger than the
// largest body a JSON reader takes, with room for its canonical text.
func putScratch(b []byte) {
	if cap(b) > 2*MaxBoundedJSONLimit {
		return
	}
	b = b[:0]
	scratch.Put(&b)
}

// limitedRequest is the check the limited readers make first: a current
// request, then 1 <= limit <= most, else Violation msg.
func limitedRequest(ev Event, limit, most int, msg string) (Request, error) {
	r, err := currentRequest(ev)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > most {
		return nil, violation(msg)
	}
	return r, nil
}

// readInitialSize is the first block of a body whose length is not
// declared, and the least size of every further block.
const readInitialSize = 512

// readBufferMax is the most a text reader's read buffer has.
const readBufferMax = 64 << 10

// readBody reads the body of r under limit and returns its status and, for
// status 0, its data. With strict, each chunk is validated as UTF-8 as it
// arrives, and status 4 comes with bad, the offset of the first bad sequence
// in the text after a leading BOM. With text, the data is wanted as a string
// (bodyData.string), else as bytes (bodyData.bytes). The order of the checks
// is the spec's:
//
// "先验证参数；再判断 2 与 3；随后若请求的 Content-Length 全由 1 至 18 位十进制
// 数字组成且已超过上限，或长达 19 位以上（必然超过任何上限），立即返回 1 而不读取
// 任何字节；其余形态的 Content-Length 一概忽略，只按流式计数判断。读取时逐块累计
// 字节数，一旦超过上限就取消读取流并返回 1，因此宿主最多持有已接受的字节再加使
// 总数越界的那一块，不会继续读取更多数据；取消时上游的取消回调即使失败也被吞掉，
// 仍返回 1。空正文流返回状态 0 与空结果。"
//
// The reader is always closed when readBody returns: after the end that only
// releases the stream; before it, that cancels it. Close's error is
// swallowed.
//
// Memory: no Read asks for more than limit+1 bytes in all. With a declared
// Content-Length within the limit, bytes are read into one block of its size
// plus one byte, so a body of that size is read into one block and its end
// seen without another allocation; text is read through one small buffer
// (1/16 of the length, at most readBufferMax) into a strings.Builder grown
// to the length, whose String is the body without a copy. Otherwise, and
// for what arrives beyond the declared length, each new block has 1/16 of
// what was read so far (at least readInitialSize): a body read in several
// blocks costs at most about 1/16 more than its size, plus one copy into a
// single buffer or string at the end.
func readBody(r Request, limit int, strict bool, mode keepMode) (st BodyStatus, body bodyData, bad int, err error) {
	b := r.Body()
	if b == nil || isBodyless(r.Method()) {
		return BodyNone, body, 0, nil
	}
	if b.Used() {
		return BodyUsed, body, 0, nil
	}
	size := readInitialSize
	switch n, over := declaredLength(r.Header(), limit); {
	case over:
		return BodyTooLarge, body, 0, nil
	case n >= 0 && mode == keepText:
		body.sb = new(strings.Builder)
		body.sb.Grow(n)
		size = min(n+1, max(readInitialSize, min(n/16, readBufferMax)))
	case n >= 0:
		size = n + 1
	}

	rc, ok := openBody(b)
	if !ok {
		return BodyUsed, body, 0, nil
	}
	defer func() { _ = rc.Close() }()
	var v utf8Validator
	var head [3]byte // the body's first bytes, for bomOffset
	nh := 0
	block := newBlock(size, limit+1)
	if mode == keepScratch {
		block = getScratch(min(size, limit+1))
	}
	for {
		if len(block) == cap(block) {
			switch {
			case mode == keepScratch:
				block = grow(block, limit+1)
			case body.add(block):
				block = block[:0]
			default:
				block = newBlock(max(readInitialSize, body.n/16), limit+1-body.n)
			}
		}
		room := min(cap(block), len(block)+limit+1-body.n)
		k, rerr := rc.Read(block[len(block):room])
		if k < 0 || k > room-len(block) {
			return 0, bodyData{}, 0, failure(MsgBodyReadFailed+errReadCount.Error(), errReadCount)
		}
		chunk := block[len(block) : len(block)+k]
		block = block[:len(block)+k]
		body.n += k
		if body.n > limit {
			return BodyTooLarge, bodyData{}, 0, nil
		}
		nh += copy(head[nh:], chunk)
		if strict && !v.feed(chunk) {
			return BodyInvalidUTF8, bodyData{}, bomOffset(head[:nh], v.pos), nil
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return 0, bodyData{}, 0, failure(MsgBodyReadFailed+rerr.Error(), rerr)
		}
	}
	if strict && v.nc > 0 {
		// "末尾残缺序列"
		return BodyInvalidUTF8, bodyData{}, bomOffset(head[:nh], v.pos), nil
	}
	body.add(block)
	return BodyOK, body, 0, nil
}

// keepMode is how readBody keeps the body it reads.
type keepMode uint8

const (
	// keepBytes: blocks growing by 1/16 of what was read, joined once at the
	// end if there are several (ReadInboundBytes).
	keepBytes keepMode = iota
	// keepText: a strings.Builder grown to the declared Content-Length, read
	// into through a small buffer; beyond it, or without it, blocks as for
	// keepBytes (the text readers).
	keepText
	// keepScratch: one pooled buffer, doubled as it fills (the JSON readers:
	// the body is only their parser's input, so its memory is reused).
	keepScratch
)

// grow returns b with its capacity doubled, to at most most bytes; a
// doubling that would stop just short of most goes all the way, so the
// last step is not a second buffer of nearly the same size.
func grow(b []byte, most int) []byte {
	size := 2*cap(b) + readInitialSize
	if size > most-most/4 {
		size = most
	}
	n := make([]byte, len(b), size)
	copy(n, b)
	return n
}

// newBlock returns an empty block of at least size bytes but at most most,
// its size rounded up the way the allocator rounds it anyway (a power of two
// up to 32 KiB, whole 8 KiB pages above), so the memory it takes is used.
func newBlock(size, most int) []byte {
	size = min(size, most)
	if size <= 32<<10 {
		size = 1 << bits.Len(uint(size-1))
	} else {
		size = (size + 8<<10 - 1) &^ (8<<10 - 1)
	}
	return make([]byte, 0, min(size, most))
}

// bodyData is a body as read: first what sb holds (a text reader's body of
// declared length), then the blocks, every block full but the last.
type bodyData struct {
	sb     *strings.Builder
	blocks [][]byte
	n      int // bytes in all
}

// add takes a block the reader is done with. While the body is all in sb
// and the block fits in what sb was grown to, it is written there and add
// reports true: the block can be reused. Otherwise the block is kept.
func (d *bodyData) add(block []byte) bool {
	if d.sb != nil && len(d.blocks) == 0 && d.sb.Len()+len(block) <= d.sb.Cap() {
		d.sb.Write(block)
		return true
	}
	d.blocks = append(d.blocks, block)
	return false
}

// bytes returns the body of a bytes read (sb nil) as one slice: the only
// block, or a copy of all.
func (d bodyData) bytes() []byte {
	if len(d.blocks) == 1 {
		return d.blocks[0]
	}
	p := make([]byte, 0, d.n)
	for _, b := range d.blocks {
		p = append(p, b...)
	}
	return p
}

// string returns the body as a string: what sb holds without a copy, if
// that is all, else a copy of all.
func (d bodyData) string() string {
	if d.sb != nil && len(d.blocks) == 0 {
		return d.sb.String()
	}
	var sb strings.Builder
	sb.Grow(d.n)
	if d.sb != nil {
		sb.WriteString(d.sb.String())
	}
	for _, b := range d.blocks {
		sb.Write(b)
	}
	return sb.String()
}

// bomOffset is the offset of i in the text after a leading BOM, head being
// the body's first (up to 3) bytes.
func bomOffset(head []byte, i int) int {
	if string(head) == utf8BOM && i >= 3 {
		return i - 3
	}
	return i
}

// errReadCount is the cause of a read failure when a host's Read breaks the
// io.Reader contract (0 <= n <= len(p)).
var errReadCount = errors.New("hostbridge: body Read returned an invalid count")

// isBodyless reports whether a request of this method has no body ("方法为 GET
// 或 HEAD"); methods are compared case-insensitively, in case a host does not
// normalise them.
func isBodyless(method string) bool {
	return strings.EqualFold(method, http.MethodGet) || strings.EqualFold(method, http.MethodHead)
}

// declaredLength looks at the Content-Length header, as Headers.get gives it
// (several fields joined with ", ", so never all digits). All decimal digits,
// 1 to MaxContentLengthDigits of them: n is its value and over whether it
// exceeds limit. More digits (leading zeros count): over, n = -1. Any other
// form is ignored: n = -1, not over.
func declaredLength(h http.Header, limit int) (n int, over bool) {
	vs := lookupHeader(h, "Content-Length")
	if len(vs) != 1 || vs[0] == "" {
		return -1, false
	}
	v := vs[0]
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return -1, false
		}
	}
	if len(v) > MaxContentLengthDigits {
		return -1, true
	}
	x, err := strconv.ParseInt(v, 10, 64) // 18 digits always fit
	if err != nil {
		return -1, false
	}
	if x > int64(limit) {
		return -1, true
	}
	return int(x), false
}

// decodeLenient decodes the whole body s as TextDecoder("utf-8") does: a
// leading BOM stripped, each maximal subpart of an ill-formed sequence
// replaced by one U+FFFD (WHATWG Encoding, "UTF-8 decoder"; Unicode §3.9,
// "U+FFFD Substitution of Maximal Subparts"). Decoding the whole body at
// once is what makes the text independent of the chunking. "若超过 16 MiB，
// 属于违规": a text over MaxLenientTextBytes is Violation MsgLenientTooLong;
// its length is counted before it is built.
func decodeLenient(s string) (string, error) {
	s = strings.TrimPrefix(s, utf8BOM)
	if utf8.ValidString(s) {
		return s, nil
	}
	n := whatwgDecode(nil, s)
	if n > MaxLenientTextBytes {
		return "", violation(MsgLenientTooLong)
	}
	var sb strings.Builder
	sb.Grow(n)
	whatwgDecode(&sb, s)
	return sb.String(), nil
}
