package hostbridge

import "strconv"

// Kind says how a host must treat an *Error.
type Kind uint8

// The kinds of error. Values start at 1, so the zero Kind is never a real one.
const (
	// Violation (违规) is the app's mistake: a catchable 豫言 exception with a
	// fixed text.
	Violation Kind = iota + 1
	// Failure (平台故障) is the platform's: a catchable exception whose text
	// carries the platform's reason.
	Failure
	// Abort (部署错误 or a bridge limit) ends the current request or event;
	// the app cannot catch it.
	Abort
)

func (k Kind) String() string {
	switch k {
	case Violation:
		return "违规"
	case Failure:
		return "平台故障"
	case Abort:
		return "中止"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is every error the package returns for the app: Msg is exactly what
// the app's exception says, Err the platform's or the parser's cause, if any.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause, so errors.Is and errors.As see it.
func (e *Error) Unwrap() error { return e.Err }

// Catchable reports whether the app may catch the error (尝试运行); an Abort
// is not catchable: the host ends the request or event.
func (e *Error) Catchable() bool { return e.Kind != Abort }

func violation(msg string) *Error          { return &Error{Kind: Violation, Msg: msg} }
func failure(msg string, err error) *Error { return &Error{Kind: Failure, Msg: msg, Err: err} }
func abort(msg string) *Error              { return &Error{Kind: Abort, Msg: msg} }
func itemError(msg string, n int) string   { return msg + MsgItemSuffix + strconv.Itoa(n) }

// The exception texts. They are the API: an app's exception says exactly
// this, byte for byte, and tests compare them so. Do not edit a text without
// a new spec version. Texts quoted by a spec are verbatim; the others are
// DESIGN.md's catalogue.
const (
	// 消息队列 0.1.0, producer.
	MsgEmptyBinding      = "队列绑定名不能为空"
	MsgBindingNotGranted = "队列绑定未授权或未配置：" // + binding
	MsgBodyNotJSON       = "消息体不是有效的 JSON 文字"
	MsgBodyTooLarge      = "消息体超过 128000 字节"
	MsgBodyTooDeep       = "消息体嵌套超过 24 层"
	MsgBodyMarker        = "消息体含宿主专用记号"
	MsgBodyNotFinite     = "消息体含非有限数字"
	MsgDelayRange        = "延迟秒数须在 0 至 43200 之间"
	MsgSendFailed        = "队列发送失败："   // + the platform's text
	MsgBatchSendFailed   = "队列批量发送失败：" // + the platform's text

	MsgBatchNotArray    = "批量消息不是有效的 JSON 数组"
	MsgBatchEmpty       = "批量消息不得少于 1 条"
	MsgBatchTooMany     = "批量消息不得超过 100 条"
	MsgBatchTooLarge    = "批量消息超过 1 MiB"
	MsgBatchBodiesTotal = "批量消息合计超过 256000 字节"
	MsgItemNotObject    = "批量消息项不是对象"
	MsgItemNoBody       = "批量消息项缺少 body"
	MsgItemBadKey       = "批量消息项含不允许的字段 " // + the key
	MsgItemSuffix       = "：序号 "          // + n, after any item problem

	// 消息队列 0.1.0, consumer.
	MsgNotQueueEvent  = "当前事件不是队列事件"
	MsgMessageIndex   = "队列消息序号越界"
	MsgMessageNotJSON = "队列消息正文不是 JSON 值：序号 " // + n
	MsgMessageTooDeep = "队列消息正文嵌套超过 32 层：序号 " // + n

	// 网页入站 0.8.0.
	MsgNoRequest        = "当前没有 HTTP 请求"
	MsgPathEncoding     = "入站路径编码无效"
	MsgHeaderName       = "入站标头名称无效"
	MsgSameOriginPath   = "同源网址路径无效"
	MsgSameOriginList   = "同源网址的设置或删除列表超过 16 项"
	MsgBodyLimitRange   = "入站正文字节上限须在 1 至 16777216"
	MsgLenientTooLong   = "宽松解码后的文字超过 16 MiB"
	MsgBodyReadFailed   = "读取入站正文失败：" // + the stream's reason
	MsgJSONBodyTooLarge = "入站 JSON 正文超过 2 MiB"
	MsgJSONBodyInvalid  = "入站 JSON 正文无效：" // + the reason
	MsgJSONBodyNone     = "入站 JSON 正文无效：没有正文"
	MsgJSONBodyUsed     = "入站 JSON 正文无效：正文已被读取"
	MsgJSONLimitRange   = "入站 JSON 正文字节上限须在 1 至 8388608"
	// MsgRequestURL: the URL readers' Failure when Request.URL is not an
	// absolute http(s) URL a URL parser accepts (new URL would throw), or is
	// empty: a request that named no host and arrived on no known address.
	MsgRequestURL = "入站请求网址无效"
)

// The reasons of a JSON syntax error (status 5, or after MsgJSONBodyInvalid).
// Each is written "SyntaxError: <reason> at position <byte offset>", the way
// JavaScript hosts word them; the offset counts bytes of the decoded text.
const (
	SyntaxPrefix          = "SyntaxError: "
	SyntaxUnexpectedEnd   = "Unexpected end of input"
	SyntaxUnexpectedToken = "Unexpected token" // + " 'c'"
	SyntaxBadControl      = "Bad control character in string literal"
	SyntaxBadEscape       = "Bad escaped character"
	SyntaxBadUnicode      = "Bad Unicode escape"
	SyntaxUnterminated    = "Unterminated string"
	SyntaxBadNumber       = "Invalid number"
	SyntaxBadUTF8         = "Invalid UTF-8"
	SyntaxTooDeep         = "Nesting deeper than 1000 levels"
	SyntaxAfterJSON       = "Unexpected non-whitespace character after the value"
	SyntaxPosition        = " in JSON at position " // + offset
)
