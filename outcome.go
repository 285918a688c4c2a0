package hostbridge

// What a platform does with each message of a finished batch: the one rule
// MemoryPlatform and natsqueue both apply (Settle).

import "strconv"

// MessageOutcome is what the handler asked for one message of a
// BatchRecord: Acked, Retried (never both) or neither (untouched).
type MessageOutcome struct {
	Acked        bool
	Retried      bool
	DelaySeconds int // of the last Retry; 0: the queue's RetryDelay
}

// Action is what a platform does with one message of a finished batch
// (Settle).
type Action uint8

// The actions of Settle.
const (
	// ActionAck: the message is done and never delivered again.
	ActionAck Action = iota + 1
	// ActionRetry: the message is delivered again from the same queue after
	// the delay Settle returns, with Attempts + 1.
	ActionRetry
	// ActionDeadLetter: the message moves to the consumer's DeadLetterQueue,
	// keeping its ID, Timestamp and Body, with Attempts 1 again (D29).
	ActionDeadLetter
	// ActionDrop: the message is removed without being delivered again.
	ActionDrop
)

// String returns the action's name: ack, retry, dead-letter or drop.
func (a Action) String() string {
	switch a {
	case ActionAck:
		return "ack"
	case ActionRetry:
		return "retry"
	case ActionDeadLetter:
		return "dead-letter"
	case ActionDrop:
		return "drop"
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// Settle returns what a platform does with one message of a finished batch,
// and for ActionRetry the delay in seconds before its next delivery. o is
// what the handler asked for the message (BatchRecord.Outcome), handlerErr
// what the handler returned (a panic is an error: *HandlerPanic),
// deliveries how many times this queue has delivered the message, this
// delivery included, and s the queue's consumer settings. Every delivering
// platform calls it for every message of a batch once the handler has
// returned.
//
// The rule, in order:
//
//  1. "程序正常结束、对某条消息没有显式重试的，视为成功" (Q68): with a nil
//     handlerErr a message not retried is acked. "豫言异常无人捕获时…本次
//     队列处理失败" (Q69): with an error every message is redelivered but
//     one explicitly acked, which is done unless s.RedeliverAcked (Q71,
//     D27).
//  2. "平台按队列的重试与死信配置整批重新投递（`attempts` 相应加一）" (Q70,
//     D29): a message redelivered after MaxRetries redeliveries
//     (deliveries > s.MaxRetries) is dead-lettered to s.DeadLetterQueue, or
//     dropped when there is none.
//  3. Otherwise it is retried after the handler's Retry delay, or after
//     s.RetryDelay when the handler gave 0 or did not retry (Q63, D25).
func Settle(o MessageOutcome, handlerErr error, deliveries int, s ConsumerSettings) (Action, int) {
	switch {
	case handlerErr == nil && !o.Retried: // Q68 Q69
		return ActionAck, 0
	case handlerErr != nil && o.Acked && !s.RedeliverAcked: // Q71
		return ActionAck, 0
	case deliveries > s.MaxRetries && s.DeadLetterQueue != "": // Q70
		return ActionDeadLetter, 0
	case deliveries > s.MaxRetries: // Q70
		return ActionDrop, 0
	case o.Retried && o.DelaySeconds > 0: // Q63
		return ActionRetry, o.DelaySeconds
	}
	return ActionRetry, s.RetryDelay // Q63
}
