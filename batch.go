package hostbridge

import (
	"context"
	"strconv"
)

// SendQueueBatch sends the messages of the JSON array batch, each item
// {"body":any JSON value, "delaySeconds":integer 0…43200} (delaySeconds
// optional, no other key), to the queue bound as binding, and returns nil
// once the platform has them, or the first problem it found: one bad item
// sends nothing (Q37, Q38).
//
// It is 批量发送队列消息 of 消息队列 0.1.0 (生产者). The whole array is checked
// before the platform is called. The checks, in order, each stopping at its
// first problem:
//
//  1. binding, as SendQueueMessage checks it;
//  2. the text: at most MaxBatchBytes (Q35, MsgBatchTooLarge), then valid
//     UTF-8 and JSON whose value is an array (MsgBatchNotArray);
//  3. the count, 1 to MaxBatchMessages (Q32: MsgBatchEmpty,
//     MsgBatchTooMany);
//  4. each item in order: an object, no other key, a body, then the body's
//     and the delay's checks as SendQueueMessage makes them, a problem
//     reported with "：序号 n" (n from 0);
//  5. the canonical bodies together, at most MaxBatchBodyBytes (Q34,
//     MsgBatchBodiesTotal).
//
// The array is scanned once, over the raw bytes: each body is canonicalised
// where it stands, so a body holding "],[", {"body":1}, quotes or
// backslashes is never mis-split. A repeated body or delaySeconds keeps its
// last value, as JSON.parse does. Only after step 5 is p.SendBatch called
// (p.Bound was asked in step 1). A platform error is a Failure:
// MsgBatchSendFailed followed by its text.
func SendQueueBatch(ctx context.Context, p Platform, binding, batch string) error {
	if err := checkBinding(p, binding); err != nil { // Q28
		return err
	}
	if len(batch) > MaxBatchBytes { // Q35
		return violation(MsgBatchTooLarge)
	}
	items, bodies, err := scanBatch([]byte(batch))
	if err != nil {
		return &Error{Kind: Violation, Msg: MsgBatchNotArray, Err: err}
	}
	switch {
	case len(items) < 1: // Q32 Q80
		return violation(MsgBatchEmpty)
	case len(items) > MaxBatchMessages: // Q32 Q80
		return violation(MsgBatchTooMany) // Q46
	}
	msgs := make([]BatchMessage, len(items))
	total := 0
	for n, it := range items {
		body := bodies[it.bodyStart:it.bodyEnd]
		if msg := it.problem(body); msg != "" { // Q38
			return violation(itemError(msg, n))
		}
		msgs[n] = BatchMessage{Body: body, ContentType: contentTypeJSON, DelaySeconds: it.delay}
		total += len(body)
	}
	if total > MaxBatchBodyBytes { // Q34 Q37
		return violation(MsgBatchBodiesTotal)
	}
	if err := p.SendBatch(ctx, binding, msgs); err != nil {
		return failure(MsgBatchSendFailed+err.Error(), err) // Q48
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
	case it.notObject: // Q29
		return MsgItemNotObject
	case it.hasBadKey: // Q31 Q81
		return MsgItemBadKey + it.badKey
	case !it.hasBody: // Q29 Q81
		return MsgItemNoBody
	case bodyTooLarge(it.bodyInput): // Q33
		return MsgBodyTooLarge // Q44
	}
	if msg := bodyProblem(body, it.bodyInfo); msg != "" {
		return msg
	}
	if it.hasDelay && !it.delayOK { // Q30 Q81
		return MsgDelayRange // Q45
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
	bodyInfo           valueReport
	hasDelay           bool
	delay              int  // the last delaySeconds
	delayOK            bool // it is an integer in 0…MaxDelaySeconds
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
