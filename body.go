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

// ReadInboundText reads the request body, at most limit bytes, and returns
// its status and, for status 0 (BodyOK), the body decoded as UTF-8 the
// lenient way: a leading BOM stripped, each ill-formed sequence U+FFFD, as
// TextDecoder decodes. Statuses 1 to 3 return "" (this reader never gives 4
// or 5). When it returns an error the status is 0 (BodyOK) and the text "",
// so check the error before the status.
//
// It is 读取入站有限正文文字 of 网页入站 0.8.0 (有限正文读取). A read holds
// what arrived, at most limit+1 bytes, plus one block (D44). The checks, in
// order:
//   - the event carries an HTTP request, else Failure MsgNoRequest (I10);
//     then the limit is 1…MaxBodyLimit, else Violation MsgBodyLimitRange
//     (I47, I48);
//   - the body rules every bounded read shares: status 2 (no body), then 3
//     (used), then a Content-Length over the limit (status 1), then the read
//     chunk by chunk, status 1 once over the limit; a stream that fails is
//     Failure MsgBodyReadFailed (I55–I63, I74);
//   - the body decoded whole, a decoded text over MaxLenientTextBytes being
//     Violation MsgLenientTooLong (I64–I69).
func ReadInboundText(ev Event, limit int) (BodyStatus, string, error) {
	r, err := limitedRequest(ev, limit, MaxBodyLimit, MsgBodyLimitRange)
	if err != nil {
		return 0, "", err
	}
	st, body, err := readBody(r, limit, false)
	if err != nil || st != BodyOK {
		return st, "", err
	}
	s, err := decodeLenient(body.string())
	if err != nil {
		return 0, "", err
	}
	return BodyOK, s, nil
}

// ReadInboundStrictText reads the request body, at most limit bytes, and
// returns its status and, for status 0 (BodyOK), the body as text, a leading
// BOM stripped; a body that is not valid UTF-8 is status 4
// (BodyInvalidUTF8). Statuses 1 to 4 return "" (this reader never gives 5).
// When it returns an error the status is 0 (BodyOK) and the text "", so
// check the error before the status.
//
// It is 读取入站有限正文严格文字 of 网页入站 0.8.0 (有限正文读取). Its checks
// and errors are those of ReadInboundText up to the reading; then:
//   - status 4 (I70, I71): each chunk is validated once it has arrived whole
//     and been counted against the limit, an incomplete sequence at its end
//     carried into the next;
//   - "合法的正文与宽松文字的结果相同" (I72): a leading BOM is stripped.
func ReadInboundStrictText(ev Event, limit int) (BodyStatus, string, error) {
	r, err := limitedRequest(ev, limit, MaxBodyLimit, MsgBodyLimitRange)
	if err != nil {
		return 0, "", err
	}
	st, body, err := readBody(r, limit, true)
	if err != nil || st != BodyOK {
		return st, "", err
	}
	return BodyOK, trimBOM(body.string()), nil // I72
}

// ReadInboundBytes reads the request body, at most limit bytes, and returns
// its status and, for status 0 (BodyOK), the body's bytes as they came, BOM
// and zero bytes kept: never nil, an empty body giving an empty slice.
// Statuses 1 to 3 return nil (this reader never gives 4 or 5). When it
// returns an error the status is 0 (BodyOK) and the bytes nil, so check the
// error before the status.
//
// It is 读取入站有限正文字节 of 网页入站 0.8.0 (有限正文读取, I73): "字节接口
// 原样返回全部字节，BOM 与零字节都保留". Its checks and errors are those of
// ReadInboundText up to the reading.
func ReadInboundBytes(ev Event, limit int) (BodyStatus, []byte, error) {
	r, err := limitedRequest(ev, limit, MaxBodyLimit, MsgBodyLimitRange)
	if err != nil {
		return 0, nil, err
	}
	st, body, err := readBody(r, limit, false)
	if err != nil || st != BodyOK {
		return st, nil, err
	}
	return BodyOK, body.bytes(), nil // I73 I139
}

// ReadInboundBoundedJSON reads the request body, at most limit bytes, as
// JSON in strict UTF-8, and returns its status and a string: for status 0
// (BodyOK) the body as canonical JSON (JSON.stringify(JSON.parse(text)));
// for status 5 (BodyInvalidJSON) the parser's reason, "SyntaxError: <reason>
// in JSON at position <offset>" (it starts with SyntaxPrefix; D7); for
// statuses 1 to 4, "". When it returns an error the status is 0 (BodyOK)
// and the string "", so check the error before the status.
//
// It is 读取入站有限癸象正文文 上限 of 网页入站 0.8.0 (有限 JSON 正文). The
// checks, in order:
//   - the event carries an HTTP request, else Failure MsgNoRequest (I10);
//     then the limit is 1…MaxBoundedJSONLimit, else Violation
//     MsgJSONLimitRange (I89, I90);
//   - statuses 1 to 4, and Failure MsgBodyReadFailed, exactly as
//     ReadInboundStrictText gives them (I91);
//   - the text, its BOM stripped, is parsed: invalid JSON, nesting over
//     MaxJSONDepth levels and an empty body are status 5;
//   - status 0 gives the canonical text; a number that parses to ±Infinity is
//     written null, as JSON.stringify does.
func ReadInboundBoundedJSON(ev Event, limit int) (BodyStatus, string, error) {
	r, err := limitedRequest(ev, limit, MaxBoundedJSONLimit, MsgJSONLimitRange) // I89
	if err != nil {
		return 0, "", err
	}
	// I88
	st, body, err := readBody(r, limit, true)
	if err != nil || st != BodyOK {
		return st, "", err
	}
	out, err := body.canonical(false)
	if err != nil {
		return BodyInvalidJSON, err.Error(), nil // I86 I103 I105 I115
	}
	return BodyOK, out, nil // I94 I107 I109 I141
}

// ReadInboundJSON reads the request body, at most JSONBodyLimit (2 MiB), and
// returns it as canonical JSON (JSON.stringify(JSON.parse(text))), or "" and
// an error: a body that is missing, used, too large or not JSON is a
// catchable Failure, not a status. It decodes the body leniently, as
// Request.json() does (D45): a leading BOM stripped, each ill-formed
// sequence U+FFFD.
//
// It is 读取入站癸象正文文 of 网页入站 0.8.0 (JSON 正文): its bytes read by the
// rules of ReadInboundBytes with the fixed limit JSONBodyLimit ("先按上述规则以
// 2 MiB 上限读取字节"), then "以 UTF-8 解码（剥除 BOM）" leniently, as
// ReadInboundText decodes. Every problem is a Failure
// ("下列情形都是可捕获的豫言异常"):
//   - no current HTTP request: MsgNoRequest;
//   - status 1, or a canonical text over JSONBodyLimit ("规范化后的文字也不得
//     超过 2 MiB"): MsgJSONBodyTooLarge;
//   - status 2: MsgJSONBodyNone; status 3: MsgJSONBodyUsed;
//   - a stream that fails: MsgBodyReadFailed + its reason;
//   - invalid JSON or nesting over MaxJSONDepth: MsgJSONBodyInvalid + the
//     parser's reason.
func ReadInboundJSON(ev Event) (string, error) {
	r, err := currentRequest(ev)
	if err != nil {
		return "", err
	}
	st, body, err := readBody(r, JSONBodyLimit, false) // I76
	if err != nil {
		return "", err
	}
	switch st {
	case BodyTooLarge: // I81
		return "", failure(MsgJSONBodyTooLarge, nil)
	case BodyNone:
		return "", failure(MsgJSONBodyNone, nil) // I80 I82
	case BodyUsed:
		return "", failure(MsgJSONBodyUsed, nil) // I83 I125
	}
	out, err := body.canonical(true)
	if err != nil {
		return "", failure(MsgJSONBodyInvalid+err.Error(), err) // I84 I137
	}
	if len(out) > JSONBodyLimit { // I79
		return "", failure(MsgJSONBodyTooLarge, nil)
	}
	return out, nil // I75
}

// inboundCanon is how both inbound JSON functions parse: at most
// MaxJSONDepth levels, ±Infinity written null; the text is valid UTF-8
// already (read strictly, or decoded leniently).
var inboundCanon = &canonOptions{syntaxDepthLimit: MaxJSONDepth, infToNull: true, validUTF8: true}

// canonical returns the canonical JSON text of the body, its BOM stripped:
// a body read strictly (valid UTF-8), or, with lenient, any body, decoded as
// TextDecoder does. The blocks go back to their pool. A body of several
// blocks is joined in a pooled buffer, and the canonical bytes are written
// to another, so once the pools are warm only the returned text is new (and,
// for a lenient body that is not UTF-8, its decoding).
func (d *bodyData) canonical(lenient bool) (string, error) {
	src := getScratch(d.n)
	defer putScratch(src)
	src = d.appendTo(src)
	d.release()
	if lenient && !validUTF8(src) { // I77
		// BOM stripped; at most 3 × JSONBodyLimit bytes, so never over
		// MaxLenientTextBytes.
		s, err := decodeLenient(string(src))
		if err != nil {
			return "", err
		}
		src = []byte(s)
	} else {
		src = trimBOM(src) // I77 I92
	}
	out, _, err := canonical(getScratch(len(src)+16), src, inboundCanon) // I146
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
	if limit < 1 || limit > most { // I47 I121 I134
		return nil, violation(msg) // I48 I90
	}
	return r, nil
}

// readBody reads the body of r under limit and returns its status and, for
// status 0, its data, which the caller turns into its result (bodyData.bytes,
// string or canonical). With strict, the bytes are validated as UTF-8 as
// they arrive (status 4). The order of the checks is the spec's (I55; the
// limit was checked by the caller): status 2, status 3, the Content-Length
// precheck (I56, I57: declaredLength), then the read (bodyReader.read).
//
// The reader is always closed when readBody returns: after the end that only
// releases the stream; before it, that cancels it. Close's error is
// swallowed (I60).
func readBody(r Request, limit int, strict bool) (BodyStatus, bodyData, error) {
	b := r.Body()
	if b == nil || isBodyless(r.Method()) { // I52 I55 I91 I100 I118 I130
		return BodyNone, bodyData{}, nil
	}
	if b.Used() { // I53 I63 I101 I108 I119 I131
		return BodyUsed, bodyData{}, nil
	}
	if _, over := declaredLength(r.Header(), limit); over {
		return BodyTooLarge, bodyData{}, nil
	}
	rc, ok := openBody(b)
	if !ok {
		// I53 I101
		return BodyUsed, bodyData{}, nil // another reader won since Used
	}
	defer func() { _ = rc.Close() }()                      // I60 I62
	br := bodyReader{rc: rc, limit: limit, strict: strict} // I45
	st, err := br.read()
	if err != nil || st != BodyOK {
		br.body.release()
		return st, bodyData{}, err // I123
	}
	return BodyOK, br.body, nil // I49
}

// bodyReader reads one body stream into pooled blocks.
type bodyReader struct {
	rc     io.Reader
	limit  int
	strict bool
	most   int // if not 0, the most one Read may ask for (tests vary it)
	body   bodyData
	v      utf8Validator
	vb, vo int // the next byte to validate: block vb, offset vo
}

// read reads to the end of the stream, counting each chunk as it arrives:
// status 1 as soon as the total is over the limit (I58), 0 for an empty
// stream (I61), 4 for a strict read that is not UTF-8 (I70, I71), a Failure
// for a stream that fails (I74). No Read asks for more than limit+1 bytes
// in all (I59, space).
//
// A chunk is what the stream delivers in one pull, and it is counted whole
// before any byte of it is validated (D40), so the status does not
// depend on how large the reader's buffers are: a Read that returns less
// than it was offered, or ends the stream, ends a chunk; a Read that fills
// its buffer may have cut a chunk, so its bytes are counted but validated
// only once a later Read ends the chunk. (A chunk that ends exactly where a
// buffer does is joined to the next: a Read cannot tell the two apart. That
// can only turn a 4 into a 1, when the next chunk crosses the limit.)
func (br *bodyReader) read() (BodyStatus, error) {
	for {
		p := br.space()
		k, err := br.rc.Read(p)
		if k < 0 || k > len(p) {
			return 0, failure(MsgBodyReadFailed+errReadCount.Error(), errReadCount)
		}
		br.body.extend(k)
		if br.body.n > br.limit { // I50 I51 I58 I99 I116 I127 I128 I135
			return BodyTooLarge, nil
		}
		chunkEnded := k < len(p) || err != nil         // I71
		if br.strict && chunkEnded && !br.validate() { // I54 I102 I120 I132
			return BodyInvalidUTF8, nil
		}
		if err == io.EOF { // I61
			break
		}
		if err != nil {
			return 0, failure(MsgBodyReadFailed+err.Error(), err) // I74
		}
	}
	if br.strict && br.v.nc > 0 {
		return BodyInvalidUTF8, nil // "末尾残缺序列"
	}
	return BodyOK, nil
}

// space returns the buffer of the next Read: the rest of the last block, or
// a new block when that is full, cut to what would take the body one byte
// past the limit.
func (br *bodyReader) space() []byte {
	d := &br.body
	if len(d.blocks) == 0 || len(*d.last()) == cap(*d.last()) {
		d.blocks = append(d.blocks, getBlock(blockSize(d.n)))
	}
	b := *d.last()
	room := min(cap(b)-len(b), br.limit+1-d.n) // I46 I59 I138
	if br.most > 0 {
		room = min(room, br.most)
	}
	return b[len(b) : len(b)+room]
}

// validate feeds the validator the bytes read since it last ran.
func (br *bodyReader) validate() bool {
	blocks := br.body.blocks
	for {
		b := *blocks[br.vb]
		if !br.v.feed(b[br.vo:]) {
			return false
		}
		br.vo = len(b)
		if br.vb == len(blocks)-1 {
			return true
		}
		br.vb, br.vo = br.vb+1, 0
	}
}

// Blocks: a body is read into blocks that double in size with what was read
// (blockMin while less than 1 KiB arrived, then the largest power of two not
// over it), up to blockMax. So the memory a read holds follows what
// arrived: the bytes received plus one block no larger than
// max(blockMin, what arrived), never what a Content-Length declares (a
// false Content-Length: 16000000 on a 1-byte body costs one block of
// blockMin). Blocks are pooled by size, so in steady state a read allocates
// only its result (about 1.0 × the body), where blocks of its own would
// cost the body again (2 ×, with the join). Each size is one of Go's
// allocator size classes (512 B … 32 KiB) or whole 8 KiB pages (64 KiB), so
// no block is rounded up.
const (
	blockMin     = 512
	blockMax     = 64 << 10
	blockClasses = 8 // blockMin << 7 == blockMax
)

// blockPools holds free blocks, one pool per size blockMin << i.
var blockPools [blockClasses]sync.Pool

// blockSize is the size of the block that follows n bytes read.
func blockSize(n int) int {
	if n < 2*blockMin {
		return blockMin
	}
	return min(1<<(bits.Len(uint(n))-1), blockMax)
}

// getBlock returns an empty block of size bytes, a power of two from
// blockMin to blockMax.
func getBlock(size int) *[]byte {
	pool := &blockPools[bits.TrailingZeros(uint(size/blockMin))]
	if b, ok := pool.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, size)
	return &b
}

// putBlock gives a block back to its pool.
func putBlock(b *[]byte) {
	*b = (*b)[:0]
	blockPools[bits.TrailingZeros(uint(cap(*b)/blockMin))].Put(b)
}

// bodyData is a body as read: pooled blocks, every block full but the last.
// Its owner turns it into a result once (bytes, string or canonical), which
// gives the blocks back.
type bodyData struct {
	blocks []*[]byte
	n      int // bytes in all
}

// last is the block being filled.
func (d *bodyData) last() *[]byte { return d.blocks[len(d.blocks)-1] }

// extend counts k bytes just read into the last block.
func (d *bodyData) extend(k int) {
	b := d.last()
	*b = (*b)[:len(*b)+k]
	d.n += k
}

// appendTo appends the body to p.
func (d *bodyData) appendTo(p []byte) []byte {
	for _, b := range d.blocks {
		p = append(p, *b...)
	}
	return p
}

// release gives the blocks back to their pools.
func (d *bodyData) release() {
	for _, b := range d.blocks {
		putBlock(b)
	}
	d.blocks = nil
}

// bytes returns the body as a new slice of its length and capacity, never
// nil.
func (d *bodyData) bytes() []byte {
	p := d.appendTo(make([]byte, 0, d.n))
	d.release()
	return p
}

// string returns the body as a new string.
func (d *bodyData) string() string {
	var sb strings.Builder
	sb.Grow(d.n)
	for _, b := range d.blocks {
		sb.Write(*b)
	}
	d.release()
	return sb.String()
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

// declaredLength is the Content-Length precheck (I56, I57), the one home of
// that rule. It looks at the Content-Length header, as Headers.get gives it
// (several fields joined with ", ", so never all digits). All decimal digits,
// 1 to MaxContentLengthDigits of them: n is its value and over whether it
// exceeds limit. More digits (leading zeros count): over, n = -1. Any other
// form is ignored: n = -1, not over.
func declaredLength(h http.Header, limit int) (n int, over bool) {
	vs := lookupHeader(h, "Content-Length")
	if len(vs) != 1 || vs[0] == "" { // I57
		return -1, false
	}
	v := vs[0]
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' { // I57
			return -1, false
		}
	}
	if len(v) > MaxContentLengthDigits { // I56
		return -1, true
	}
	x, err := strconv.ParseInt(v, 10, 64) // 18 digits always fit
	if err != nil {
		return -1, false
	}
	if x > int64(limit) { // I56 I117 I129
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
	s = trimBOM(s) // I65 I133
	if utf8.ValidString(s) {
		return s, nil
	}
	n := whatwgDecode(nil, s)
	if n > MaxLenientTextBytes { // I68
		return "", violation(MsgLenientTooLong) // I69
	}
	var sb strings.Builder
	sb.Grow(n)
	// I66
	whatwgDecode(&sb, s)
	return sb.String(), nil
}
