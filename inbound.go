package hostbridge

import (
	"io"
	"net/http"
	"net/textproto"
	"strings"
)

// Request is the current HTTP request of an event.
type Request interface {
	// Method is the method as the host received it.
	Method() string
	// URL is the absolute URL, serialised as the WHATWG URL standard does
	// (what Request.url gives in a Worker).
	URL() string
	// Header holds the request's headers; names are matched
	// case-insensitively.
	Header() http.Header
	// Body is the request's body stream, or nil when the host provides none.
	Body() Body
}

// Body is a request body stream.
type Body interface {
	// Used reports whether the stream was read before, by anyone, or is
	// locked by another reader.
	Used() bool
	// Open locks the stream and returns its reader: each Read pulls one
	// chunk; Close cancels the stream (an error from Close is swallowed).
	Open() io.ReadCloser
}

// BodyStatus is the status of a bounded body read: a business outcome, never
// an error.
type BodyStatus int

// The statuses of 有限正文读取 and 有限 JSON 正文.
const (
	BodyOK          BodyStatus = 0 // 成功，正文不超过上限
	BodyTooLarge    BodyStatus = 1 // 正文超过上限
	BodyNone        BodyStatus = 2 // 没有正文：GET、HEAD，或宿主没有提供正文流
	BodyUsed        BodyStatus = 3 // 正文已被读取，或读取流已被锁定
	BodyInvalidUTF8 BodyStatus = 4 // 正文不是有效 UTF-8（严格文字、有限 JSON）
	BodyInvalidJSON BodyStatus = 5 // 不是有效 JSON（有限 JSON）
)

// The event kinds a Cloudflare host returns (读取入站事件种类). Only the
// first three carry an HTTP request.
const (
	KindFetch        = "fetch"
	KindServiceFetch = "service-fetch"
	KindDurableFetch = "durable-fetch"
)

// carriesRequest reports whether an event of this kind carries an HTTP
// request. "遇到不认识的取值，须按“没有 HTTP 请求的事件”处理，不得当作 fetch。"
func carriesRequest(kind string) bool {
	return kind == KindFetch || kind == KindServiceFetch || kind == KindDurableFetch
}

// currentRequest is the check every inbound reader makes first:
// "无当前 HTTP 请求时调用失败。"
func currentRequest(ev Event) (Request, error) {
	if ev != nil && carriesRequest(ev.Kind()) {
		if r := ev.Request(); r != nil {
			return r, nil
		}
	}
	return nil, failure(MsgNoRequest, nil)
}

// InboundHeader is 读取入站标头值: the value of the request header name,
// matched ASCII case-insensitively, "" when it is missing. Several fields of
// one name are joined with ", ", as Headers.get does.
//
// "旧函数 读取入站标头值 的名称不合令牌规则 … 时，抛可捕获的「入站标头名称无效」"
func InboundHeader(ev Event, name string) (string, error) {
	vs, err := headerValues(ev, name)
	if err != nil {
		return "", err
	}
	return strings.Join(vs, ", "), nil
}

// InboundHeaderExists is 入站标头存在: whether the request has the header
// name at all, even with an empty value (headers.has).
//
// "名称必须是 RFC 9110 令牌字符（数字、字母与 !#$%&'*+-.^_|~`）组成的 1 至 256
// 字节字符串，否则属于违规，抛出可捕获的豫言异常，消息为“入站标头名称无效”。"
func InboundHeaderExists(ev Event, name string) (bool, error) {
	vs, err := headerValues(ev, name)
	return vs != nil, err
}

// headerValues checks the request, then the name, and returns the values of
// name (nil when absent; a present header has at least one value).
func headerValues(ev Event, name string) ([]string, error) {
	r, err := currentRequest(ev)
	if err != nil {
		return nil, err
	}
	if !isToken(name) {
		return nil, violation(MsgHeaderName)
	}
	h := r.Header()
	if vs, ok := h[textproto.CanonicalMIMEHeaderKey(name)]; ok {
		return nonNil(vs), nil
	}
	// A host may build its http.Header by hand, without canonical keys.
	var vs []string
	for k, v := range h {
		if strings.EqualFold(k, name) {
			vs = append(nonNil(vs), v...)
		}
	}
	return vs, nil
}

func nonNil(vs []string) []string {
	if vs == nil {
		return []string{}
	}
	return vs
}

// isToken reports whether s is an RFC 9110 token of 1 to MaxHeaderNameBytes
// bytes: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA.
func isToken(s string) bool {
	if len(s) == 0 || len(s) > MaxHeaderNameBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
