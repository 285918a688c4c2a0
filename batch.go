package hostbridge

import (
	"context"
	"strconv"
)

// SendQueueBatch is 批量发送队列消息 (消息队列 0.1.0, 生产者): it sends the
// messages of the JSON array batch, each item {"body":any JSON value,
// "delaySeconds":integer 0…43200} (delaySeconds optional, no other key), to
// the queue bound as binding. The whole array is checked before the
// platform is called, and one bad item sends nothing (Q37, Q38). The checks,
// in order, each stopping at its first problem:
//
//  1. binding (checkBinding);
//  2. the text: at most MaxBatchBytes (Q35), then valid UTF-8 and JSON whose
//     value is an array (MsgBatchNotArray);
//  3. the count, 1 to MaxBatchMessages (Q32);
//  4. each item in order (batchItem.problem), a problem reported with
//     "：序号 n" (n from 0);
//  5. the canonical bodies together, at most MaxBatchBodyBytes (Q34).
//
// The array is scanned once, over the raw bytes: each body is canonicalised
// where it stands, so a body holding "],[", {"body":1}, quotes or
// backslashes is never mis-split. A repeated body or delaySeconds keeps its
// last value, as JSON.parse does. Only after step 5 is p.SendBatch called
// (p.Bound was asked in step 1). A platform error is a Failure:
// MsgBatchSendFailed followed by its text.
func SendQueueBatch(ctx context.Context, p Platform, binding, batch string) error {
	if err := checkBinding(p, binding); err != nil {
		return err
	}
	if len(batch) > MaxBatchBytes {
		return violation(MsgBatchTooLarge)
	}
	items, bodies, err := scanBatch([]byte(batch))
	if err != nil {
		return &Error{Kind: Violation, Msg: MsgBatchNotArray, Err: err}
	}
	switch {
	case len(items) < 1:
		return violation(MsgBatchEmpty)
	case len(items) > MaxBatchMessages:
		return violation(MsgBatchTooMany)
	}
	msgs := make([]BatchMessage, len(items))
	total := 0
	for n, it := range items {
		body := bodies[it.bodyStart:it.bodyEnd]
		if msg := it.problem(body); msg != "" {
			return violation(itemError(msg, n))
		}
		msgs[n] = BatchMessage{Body: body, ContentType: contentTypeJSON, DelaySeconds: it.delay}
		total += len(body)
	}
	if total > MaxBatchBodyBytes {
		return violation(MsgBatchBodiesTotal)
	}
	if err := p.SendBatch(ctx, binding, msgs); err != nil {
		return failure(MsgBatchSendFailed+err.Error(), err)
	}
	return nil
}

// problem is the message of an item's first problem, "" when it may be
// sent (step 4 of SendQueueBatch; Q29–Q31, Q33): not an object; a key other
// than body and delaySeconds (the first in JavaScript key order); no body;
// the body (its input size measured on its own span, then as bodyProblem
// judges its canonical text); delaySeconds not an integer (after
// JSON.parse: 30, 30.0 and 3e1 are 30) in 0…MaxDelaySeconds.
func (it *batchItem) problem(body []byte) string {
	switch {
	case it.notObject:
		return MsgItemNotObject
	case it.hasBadKey:
		return MsgItemBadKey + it.badKey
	case !it.hasBody:
		return MsgItemNoBody
	case bodyTooLarge(it.bodyInput):
		return MsgBodyTooLarge
	}
	if msg := bodyProblem(body, it.bodyInfo); msg != "" {
		return msg
	}
	if it.hasDelay && !it.delayOK {
		return MsgDelayRange
	}
	return ""
}

// batchItem is what the scan learnt of one item of a batch.
type batchItem struct {
	notObject          bool
	hasBadKey          bool
	badKey             string // the first key that is not body or delaySeconds, in JavaScript key order
	badIndex           int64  // badKey as an array index, or -1
	hasBody            bool
	bodyStart, bodyEnd int // the last body's canonical text in the bodies buffer
	bodyInput          int // the last body's input length, whitespace around it excluded
	bodyInfo           canonInfo
	hasDelay           bool
	delay              int  // the last delaySeconds
	delayOK            bool // it is an integer in 0…MaxDelaySeconds
}

// fastScanBatch parses the batch text, which must be a JSON array, in one pass.
// It returns the items and the buffer that holds their canonical bodies.
// Past MaxBatchMessages+1 items the batch is too long to send whatever they
// hold: the rest of the text is still parsed, but no item nor body is kept.
func fastScanBatch(src []byte) ([]batchItem, []byte, error) {
	p := newParser(src, nil, &bodyOptions)
	defer p.release()
	s := &batchScan{p: p, bodies: make([]byte, 0, len(src))}
	var items []batchItem
	i := skipSpace(src, 0)
	if i >= len(src) || src[i] != '[' {
		return nil, nil, p.errorAt(i)
	}
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == ']' {
		return nil, nil, trailing(src, i+1)
	}
	for {
		it := batchItem{badIndex: -1}
		keep := len(items) <= MaxBatchMessages
		var err error
		if i < len(src) && src[i] == '{' {
			i, err = s.object(i, &it, keep)
		} else {
			it.notObject = true
			i, err = s.skip(i)
		}
		if err != nil {
			return nil, nil, err
		}
		if keep {
			items = appendDoubling(items, it)
		}
		if i = skipSpace(src, i); i < len(src) && src[i] == ',' {
			i = skipSpace(src, i+1)
			continue
		}
		if i >= len(src) || src[i] != ']' {
			return nil, nil, p.errorAt(i)
		}
		return items, s.bodies, trailing(src, i+1)
	}
}

// batchScan is one scan of a batch: the parser and its buffers.
type batchScan struct {
	p      *parser
	bodies []byte // the kept items' canonical bodies
	key    []byte // the current key, canonical
	other  []byte // values that are not kept
}

// skip parses the value at src[i:], which is not kept, into s.other.
func (s *batchScan) skip(i int) (int, error) {
	s.p.out = s.other[:0]
	j, _, err := s.p.value(i)
	s.other = s.p.out
	return j, err
}

// object parses the item object at src[i:] (its '{') into it.
func (s *batchScan) object(i int, it *batchItem, keep bool) (int, error) {
	p, src := s.p, s.p.src
	i = skipSpace(src, i+1)
	for first := true; ; first = false {
		if i < len(src) && src[i] == '}' && first {
			return i + 1, nil
		}
		if i >= len(src) || src[i] != '"' {
			return i, p.errorAt(i)
		}
		p.out = s.key[:0]
		j, err := p.str(i)
		if err != nil {
			return j, err
		}
		s.key = p.out
		if j = skipSpace(src, j); j >= len(src) || src[j] != ':' {
			return j, p.errorAt(j)
		}
		if j, err = s.member(skipSpace(src, j+1), it, keep); err != nil {
			return j, err
		}
		if i = skipSpace(src, j); i < len(src) && src[i] == ',' {
			i = skipSpace(src, i+1)
			continue
		}
		if i >= len(src) || src[i] != '}' {
			return i, p.errorAt(i)
		}
		return i + 1, nil
	}
}

// member parses the value at src[i:] of the member whose key is s.key.
func (s *batchScan) member(i int, it *batchItem, keep bool) (int, error) {
	switch string(s.key) {
	case `"body"`:
		if !keep {
			return s.skip(i)
		}
		p, start := s.p, len(s.bodies)
		p.out = s.bodies
		j, info, err := p.value(i)
		it.hasBody, it.bodyStart, it.bodyEnd, it.bodyInput, it.bodyInfo = true, start, len(p.out), j-i, info
		s.bodies = p.out
		return j, err
	case `"delaySeconds"`:
		j, err := s.skip(i)
		it.hasDelay = true
		it.delay, it.delayOK = delayValue(s.other)
		return j, err
	}
	it.noteKey(s.key)
	return s.skip(i)
}

// noteKey records key, which is neither body nor delaySeconds, if it comes
// first in JavaScript key order ("array index" keys ascending, then the
// others as they first appear).
func (it *batchItem) noteKey(key []byte) {
	x := arrayIndex(key)
	switch {
	case !it.hasBadKey:
	case x >= 0 && (it.badIndex < 0 || x < it.badIndex):
	default:
		return
	}
	it.hasBadKey, it.badKey, it.badIndex = true, string(key[1:len(key)-1]), x
}

// delayValue reads a canonical delaySeconds: an integer 0…MaxDelaySeconds.
func delayValue(canon []byte) (int, bool) {
	if len(canon) == 0 || len(canon) > 5 {
		return 0, false
	}
	d, err := strconv.Atoi(string(canon))
	if err != nil || !delayInRange(d) {
		return 0, false
	}
	return d, true
}

// errorAt is the syntax error at src[i], which may be the end.
func (p *parser) errorAt(i int) error {
	if i >= len(p.src) {
		return &syntaxError{SyntaxUnexpectedEnd, len(p.src)}
	}
	return p.unexpected(i)
}

// trailing is the error for anything but whitespace after the value ending at i.
func trailing(src []byte, i int) error {
	if i = skipSpace(src, i); i < len(src) {
		return &syntaxError{SyntaxAfterJSON, i}
	}
	return nil
}

// refScanBatch is scanBatch on the reference (canonref.go): the batch is
// parsed whole, then each item's surviving members are read in JavaScript
// key order and each body is canonicalised again on its own span, with the
// queue's checks. Like scanBatch it keeps at most MaxBatchMessages+1 items.
func refScanBatch(src []byte) ([]batchItem, []byte, error) {
	if i := refSkipSpace(src, 0); i >= len(src) {
		return nil, nil, &syntaxError{SyntaxUnexpectedEnd, len(src)}
	} else if src[i] != '[' {
		return nil, nil, unexpectedAt(src, i) // only an array is read
	}
	root, err := refParse(src, &canonOptions{})
	if err != nil {
		return nil, nil, err
	}
	var (
		items  []batchItem
		bodies []byte
	)
	for _, e := range root.members[:min(len(root.members), MaxBatchMessages+1)] {
		it := batchItem{badIndex: -1, notObject: !e.value.object}
		for _, m := range e.value.members {
			v := m.value
			switch string(m.key) {
			case `"body"`:
				span, start := src[v.off:v.end], len(bodies)
				bodies, it.bodyInfo, _ = refCanonical(bodies, span, &bodyOptions)
				if it.bodyInfo.prob.kind != problemNone {
					it.bodyInfo.prob.off += v.off
				}
				it.hasBody, it.bodyStart, it.bodyEnd, it.bodyInput = true, start, len(bodies), len(span)
			case `"delaySeconds"`:
				it.hasDelay = true
				it.delay, it.delayOK = delayValue(refStringify(nil, v))
			default:
				if !it.hasBadKey && e.value.object {
					it.hasBadKey, it.badKey, it.badIndex = true, string(m.key[1:len(m.key)-1]), m.index
				}
			}
		}
		items = append(items, it)
	}
	return items, bodies, nil
}
