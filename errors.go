package hostbridge

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrorKind says how a host must treat an *Error.
type ErrorKind uint8

// The kinds of error. Values start at 1, so the zero ErrorKind is never a real one.
const (
	// Violation (违规) is the app's mistake: a catchable 豫言 exception with a
	// fixed text.
	Violation ErrorKind = iota + 1
	// Failure (平台故障) is the platform's: a catchable exception whose text
	// carries the platform's reason.
	Failure
	// Abort (部署错误 or a bridge limit) ends the current request or event;
	// the app cannot catch it.
	Abort
)

// String returns the kind's name: 违规, 平台故障 or 中止 (Abort),
// or ErrorKind(n) for a value that is none of them.
func (k ErrorKind) String() string {
	switch k {
	case Violation:
		return "违规"
	case Failure:
		return "平台故障"
	case Abort:
		return "中止"
	}
	return "ErrorKind(" + strconv.Itoa(int(k)) + ")"
}

// Error is every error the package returns for the app: Msg is exactly what
// the app's exception says, Err the platform's or the parser's cause, if any.
//
// To branch on an exception, use errors.Is with its sentinel (ErrBodyTooLarge,
// ErrBindingNotGranted, …): it holds whatever the message carries after the
// exception's constant text (an item's "：序号 n", a binding name, a
// platform's or a parser's reason), so no caller needs to match strings.
// errors.As gives the *Error, its Kind and its exact Msg.
type Error struct {
	Kind ErrorKind
	Msg  string
	Err  error
}

// Error returns Msg, the app's exception text.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause, so errors.Is and errors.As see it.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's exception: the one whose
// text is the longest prefix of e.Msg, of e's Kind. (MsgJSONBodyNone, for
// one, is ErrJSONBodyNone and not ErrJSONBodyInvalid, whose text it starts
// with.) Any other target, another *Error included, is false.
func (e *Error) Is(target error) bool {
	s := exceptionOf(e.Msg)
	return s != nil && target == s && e.Kind == s.Kind
}

// exceptionOf returns the sentinel whose Msg is the longest prefix of msg,
// nil when none is.
func exceptionOf(msg string) *Error {
	var best *Error
	for _, s := range exceptions {
		if strings.HasPrefix(msg, s.Msg) && (best == nil || len(s.Msg) > len(best.Msg)) {
			best = s
		}
	}
	return best
}

// Catchable reports whether the app may catch the error (尝试运行); an Abort
// is not catchable: the host ends the request or event.
func (e *Error) Catchable() bool { return e.Kind != Abort } // Q49

func violation(msg string) *Error          { return &Error{Kind: Violation, Msg: msg} }         // Q42 I122
func failure(msg string, err error) *Error { return &Error{Kind: Failure, Msg: msg, Err: err} } // I124
func abort(msg string) *Error              { return &Error{Kind: Abort, Msg: msg} }
func itemError(msg string, n int) string   { return msg + MsgItemSuffix + strconv.Itoa(n) }

// The exception texts. They are the API: an app's exception says exactly
// this, byte for byte, and tests compare them so. Do not edit a text without
// a new spec version. Texts quoted by a spec are verbatim; the package names
// the ones marked "(own)", where the spec names no text. A text ending in
// "：" or " " is followed by what the comment says.
const (
	// 消息队列 0.1.0, producer.
	MsgEmptyBinding      = "队列绑定名不能为空"           // the queue binding name is empty (own)
	MsgBindingNotGranted = "队列绑定未授权或未配置："        // the binding is not granted or not configured: + binding (own)
	MsgBodyNotJSON       = "消息体不是有效的 JSON 文字"    // the body is not valid JSON text
	MsgBodyTooLarge      = "消息体超过 128000 字节"     // the body exceeds 128000 bytes
	MsgBodyTooDeep       = "消息体嵌套超过 24 层"        // the body nests deeper than 24 levels (own)
	MsgBodyMarker        = "消息体含宿主专用记号"          // the body holds a host-reserved marker (own)
	MsgBodyNotFinite     = "消息体含非有限数字"           // the body holds a non-finite number (own)
	MsgDelayRange        = "延迟秒数须在 0 至 43200 之间" // the delay must be 0 to 43200 seconds
	MsgSendFailed        = "队列发送失败："             // the queue send failed: + the platform's text
	MsgBatchSendFailed   = "队列批量发送失败："           // the queue batch send failed: + the platform's text

	MsgBatchNotArray    = "批量消息不是有效的 JSON 数组"  // the batch is not a valid JSON array (own)
	MsgBatchEmpty       = "批量消息不得少于 1 条"       // the batch has fewer than 1 message (own)
	MsgBatchTooMany     = "批量消息不得超过 100 条"     // the batch has more than 100 messages
	MsgBatchTooLarge    = "批量消息超过 1 MiB"       // the batch text exceeds 1 MiB (own)
	MsgBatchBodiesTotal = "批量消息合计超过 256000 字节" // the batch's bodies total more than 256000 bytes (own)
	MsgItemNotObject    = "批量消息项不是对象"          // a batch item is not an object (own)
	MsgItemNoBody       = "批量消息项缺少 body"       // a batch item has no body (own)
	MsgItemBadKey       = "批量消息项含不允许的字段 "      // a batch item has a key not allowed: + the key (own)
	MsgItemSuffix       = "：序号 "               // ": item " + n, after any item problem

	// 消息队列 0.1.0, consumer.
	MsgNotQueueEvent  = "当前事件不是队列事件"          // the current event is not a queue event
	MsgMessageIndex   = "队列消息序号越界"            // the queue message index is out of range
	MsgMessageNotJSON = "队列消息正文不是 JSON 值：序号 " // a queue message's body is not a JSON value: item + n
	MsgMessageTooDeep = "队列消息正文嵌套超过 32 层：序号 " // a queue message's body nests deeper than 32 levels: item + n (own)

	// 网页入站 0.8.0.
	MsgNoRequest        = "当前没有 HTTP 请求"                 // there is no current HTTP request
	MsgPathEncoding     = "入站路径编码无效"                     // the inbound path's encoding is invalid (own)
	MsgHeaderName       = "入站标头名称无效"                     // the inbound header name is invalid
	MsgSameOriginPath   = "同源网址路径无效"                     // the same-origin URL's path is invalid (own)
	MsgSameOriginList   = "同源网址的设置或删除列表超过 16 项"          // a same-origin URL's set or delete list has more than 16 items (own)
	MsgBodyLimitRange   = "入站正文字节上限须在 1 至 16777216"      // the body byte limit must be 1 to 16777216
	MsgLenientTooLong   = "宽松解码后的文字超过 16 MiB"            // the leniently decoded text exceeds 16 MiB
	MsgBodyReadFailed   = "读取入站正文失败："                    // reading the inbound body failed: + the stream's reason
	MsgJSONBodyTooLarge = "入站 JSON 正文超过 2 MiB"           // the inbound JSON body exceeds 2 MiB
	MsgJSONBodyInvalid  = "入站 JSON 正文无效："                // the inbound JSON body is invalid: + the reason
	MsgJSONBodyNone     = "入站 JSON 正文无效：没有正文"            // the inbound JSON body is invalid: there is no body (own)
	MsgJSONBodyUsed     = "入站 JSON 正文无效：正文已被读取"          // the inbound JSON body is invalid: the body was read already (own)
	MsgJSONLimitRange   = "入站 JSON 正文字节上限须在 1 至 8388608" // the JSON body byte limit must be 1 to 8388608
	// MsgRequestURL (own): the URL readers' Failure when Request.URL is not
	// an absolute URL of a scheme a request has (ftp, http, https, ws, wss)
	// that the URL parser accepts (where new URL would throw), or has a host
	// that is not ASCII after percent-decoding (new URL would map it by
	// IDNA, which the package does not do), or is empty: a request that
	// named no host and arrived on no known address.
	MsgRequestURL = "入站请求网址无效"
)

// The exceptions, one sentinel each, for errors.Is (see Error.Is): Kind and
// Msg are the exception's kind and constant text. They are values to compare
// with, never returned themselves; do not modify them.
var (
	// 消息队列 0.1.0, producer.
	ErrEmptyBinding      = sentinel(Violation, MsgEmptyBinding)
	ErrBindingNotGranted = sentinel(Abort, MsgBindingNotGranted)
	ErrBodyNotJSON       = sentinel(Violation, MsgBodyNotJSON)
	ErrBodyTooLarge      = sentinel(Violation, MsgBodyTooLarge)
	ErrBodyTooDeep       = sentinel(Violation, MsgBodyTooDeep)
	ErrBodyMarker        = sentinel(Violation, MsgBodyMarker)
	ErrBodyNotFinite     = sentinel(Violation, MsgBodyNotFinite)
	ErrDelayRange        = sentinel(Violation, MsgDelayRange)
	ErrSendFailed        = sentinel(Failure, MsgSendFailed)
	ErrBatchSendFailed   = sentinel(Failure, MsgBatchSendFailed)
	ErrBatchNotArray     = sentinel(Violation, MsgBatchNotArray)
	ErrBatchEmpty        = sentinel(Violation, MsgBatchEmpty)
	ErrBatchTooMany      = sentinel(Violation, MsgBatchTooMany)
	ErrBatchTooLarge     = sentinel(Violation, MsgBatchTooLarge)
	ErrBatchBodiesTotal  = sentinel(Violation, MsgBatchBodiesTotal)
	ErrItemNotObject     = sentinel(Violation, MsgItemNotObject)
	ErrItemNoBody        = sentinel(Violation, MsgItemNoBody)
	ErrItemBadKey        = sentinel(Violation, MsgItemBadKey)

	// 消息队列 0.1.0, consumer.
	ErrNotQueueEvent  = sentinel(Violation, MsgNotQueueEvent)
	ErrMessageIndex   = sentinel(Violation, MsgMessageIndex)
	ErrMessageNotJSON = sentinel(Violation, MsgMessageNotJSON)
	ErrMessageTooDeep = sentinel(Abort, MsgMessageTooDeep)

	// 网页入站 0.8.0.
	ErrNoRequest        = sentinel(Failure, MsgNoRequest)
	ErrPathEncoding     = sentinel(Violation, MsgPathEncoding)
	ErrHeaderName       = sentinel(Violation, MsgHeaderName)
	ErrSameOriginPath   = sentinel(Violation, MsgSameOriginPath)
	ErrSameOriginList   = sentinel(Violation, MsgSameOriginList)
	ErrBodyLimitRange   = sentinel(Violation, MsgBodyLimitRange)
	ErrLenientTooLong   = sentinel(Violation, MsgLenientTooLong)
	ErrBodyReadFailed   = sentinel(Failure, MsgBodyReadFailed)
	ErrJSONBodyTooLarge = sentinel(Failure, MsgJSONBodyTooLarge)
	ErrJSONBodyInvalid  = sentinel(Failure, MsgJSONBodyInvalid)
	ErrJSONBodyNone     = sentinel(Failure, MsgJSONBodyNone)
	ErrJSONBodyUsed     = sentinel(Failure, MsgJSONBodyUsed)
	ErrJSONLimitRange   = sentinel(Violation, MsgJSONLimitRange)
	ErrRequestURL       = sentinel(Failure, MsgRequestURL)
)

// exceptions are the sentinels Error.Is chooses from.
var exceptions []*Error

// sentinel returns a new sentinel and adds it to exceptions.
func sentinel(kind ErrorKind, msg string) *Error {
	e := &Error{Kind: kind, Msg: msg}
	exceptions = append(exceptions, e)
	return e
}

// SyntaxPrefix starts every reason of a JSON syntax error (status 5, or
// after MsgJSONBodyInvalid): the one part of its words that is API, so a
// host may recognise a parser's reason by it.
const SyntaxPrefix = "SyntaxError: "

// The rest of a syntax error's reason. Each is written
// "SyntaxError: <reason> in JSON at position <offset>", the way JavaScript
// hosts word them. The prefix and the offset are pinned; the words after the
// prefix are for diagnosis ("供诊断"), not API (so these are unexported), and
// engines word them differently from one version to the next. The offset
// is a byte offset into the decoded text (after any BOM), not a count of
// UTF-16 code units as in JavaScript; it points where V8 points: the
// unexpected byte, the character after the backslash of a bad escape, the
// first non-hex digit of a bad \u escape, the text's length for an
// unexpected end.
const (
	syntaxUnexpectedEnd   = "Unexpected end of input"
	syntaxUnexpectedToken = "Unexpected token" // + " 'c'"
	syntaxBadControl      = "Bad control character in string literal"
	syntaxBadEscape       = "Bad escaped character"
	syntaxBadUnicode      = "Bad Unicode escape"
	syntaxUnterminated    = "Unterminated string"
	syntaxBadNumber       = "Invalid number"
	syntaxBadUTF8         = "Invalid UTF-8"
	syntaxTooDeep         = "Nesting deeper than 1000 levels"
	syntaxAfterJSON       = "Unexpected non-whitespace character after the value"
	syntaxPosition        = " in JSON at position " // + offset
)

// The texts of the errors a host's own configuration gets: a host reads
// them, an app never does.
const (
	// CheckConsumerSettings: a setting out of its range (fmt formats: the
	// value given, then the range's bounds), or a queue named as its own
	// dead-letter queue (the queue).
	msgMaxBatchSizeRange    = "hostbridge: MaxBatchSize %d is not in 1…%d"
	msgMaxBatchTimeoutRange = "hostbridge: MaxBatchTimeout %v is not in 0…%v"
	msgMaxRetriesRange      = "hostbridge: MaxRetries %d is not in 0…%d"
	msgRetryDelayRange      = "hostbridge: RetryDelay %d is not in 0…%d"
	msgOwnDeadLetterQueue   = "hostbridge: queue %q cannot be its own dead-letter queue"
	// GrantJSON's permission text is not a JSON object (+ ": " and the
	// parser's reason, when it is not JSON at all).
	msgPermissionsNotObject = "hostbridge: permission text is not a JSON object"
	// GrantJSON's permission text has a "QUEUE" that is not an array of
	// strings.
	msgPermissionsQueue = `hostbridge: permission "QUEUE" is not an array of strings`
)

// hostError is a host's configuration error: msg, then the cause's text if
// there is one, which errors.Is and errors.As see.
func hostError(msg string, cause error) error {
	if cause == nil {
		return errors.New(msg)
	}
	return fmt.Errorf("%s: %w", msg, cause)
}
