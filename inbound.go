package hostbridge

import (
	"io"
	"maps"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
)

// Request is the current HTTP request of an event.
type Request interface {
	// Method is the method as the host received it.
	Method() string
	// URL is the absolute URL (what Request.url gives in a Worker). It need
	// not be normalised: the readers parse it as new URL does. They fail
	// with MsgRequestURL where new URL would throw, for a scheme other than
	// ftp, http, https, ws and wss, and for a host that is not ASCII after
	// percent-decoding (https://bücher.example/, which new URL would map to
	// xn--bcher-kva by IDNA: a host on the wire is ASCII, so only a
	// hand-built URL can have one).
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

// bodyLocker is a Body that can check that it is unused and lock itself in
// one step, so that of two readers racing for it exactly one wins.
type bodyLocker interface {
	// lock marks the body used and returns its reader, or ok false when it
	// was used already.
	lock() (rc io.ReadCloser, ok bool)
}

// openBody locks b and returns its reader: in one step when b is a
// bodyLocker (ok false: another reader won since Used said false), else by
// Open.
func openBody(b Body) (rc io.ReadCloser, ok bool) {
	if l, isLocker := b.(bodyLocker); isLocker {
		return l.lock()
	}
	return b.Open(), true
}

// BodyStatus is the status a bounded body read returns: a business outcome,
// never an error. ReadInboundText, ReadInboundStrictText, ReadInboundBytes
// and ReadInboundBoundedJSON return one with the body; when they return an
// error instead, the status is 0 (BodyOK), so check the error first.
type BodyStatus int

// The statuses of a bounded body read, numbered as the spec numbers them
// (有限正文读取, 有限 JSON 正文).
const (
	// BodyOK: the body was read and is within the limit (成功，正文不超过上限).
	BodyOK BodyStatus = 0
	// BodyTooLarge: the body exceeds the limit (正文超过上限).
	BodyTooLarge BodyStatus = 1
	// BodyNone: there is no body: GET, HEAD, or the host gave no body stream
	// (没有正文：GET、HEAD，或宿主没有提供正文流).
	BodyNone BodyStatus = 2
	// BodyUsed: the body was read already, or its stream is locked
	// (正文已被读取，或读取流已被锁定).
	BodyUsed BodyStatus = 3
	// BodyInvalidUTF8: the body is not valid UTF-8, for the strict text and
	// bounded JSON reads (正文不是有效 UTF-8（严格文字、有限 JSON）).
	BodyInvalidUTF8 BodyStatus = 4
	// BodyInvalidJSON: the body is not valid JSON, for the bounded JSON read
	// (不是有效 JSON（有限 JSON）).
	BodyInvalidJSON BodyStatus = 5
)

// bodyStatusNames are the constants' names, indexed by value.
var bodyStatusNames = [...]string{"BodyOK", "BodyTooLarge", "BodyNone", "BodyUsed", "BodyInvalidUTF8", "BodyInvalidJSON"}

// String returns the constant's name ("BodyOK", …), or "BodyStatus(n)" for
// a value that is none of them.
func (s BodyStatus) String() string {
	if s >= 0 && int(s) < len(bodyStatusNames) {
		return bodyStatusNames[s]
	}
	return "BodyStatus(" + strconv.Itoa(int(s)) + ")"
}

// The event kinds a Cloudflare host returns (读取入站事件种类) that carry an
// HTTP request; EventQueue and EventKinds give the others.
const (
	EventFetch        = "fetch"         // an ordinary request (普通请求)
	EventServiceFetch = "service-fetch" // a request delivered through a service binding
	EventDurableFetch = "durable-fetch" // a request delivered to a durable object
)

// carriesRequest reports whether an event of this kind carries an HTTP
// request (I13, I18). "遇到不认识的取值，须按“没有 HTTP 请求的事件”处理，不得当作 fetch。"
func carriesRequest(kind string) bool {
	return kind == EventFetch || kind == EventServiceFetch || kind == EventDurableFetch // I13 I18
}

// currentRequest is the check every inbound reader makes first (I1, I10,
// I14):
// "无当前 HTTP 请求时调用失败。"
func currentRequest(ev Event) (Request, error) {
	if ev != nil && carriesRequest(ev.Kind()) { // I14
		if r := ev.Request(); r != nil { // I1
			return r, nil
		}
	}
	return nil, failure(MsgNoRequest, nil) // I10
}

// currentURL is the URL of the current request, parsed as new URL parses
// it: what the URL readers start with. A URL the parser rejects, one whose
// host is not ASCII after percent-decoding (new URL would apply IDNA), an
// empty one, or one of a scheme other than ftp, http, https, ws and wss is
// Failure MsgRequestURL.
func currentURL(ev Event) (urlParts, error) {
	r, err := currentRequest(ev)
	if err != nil {
		return urlParts{}, err
	}
	u, ok := parseURL(r.URL())
	if !ok {
		return urlParts{}, failure(MsgRequestURL, nil)
	}
	return u, nil
}

// InboundHeader returns the value of the request header name, matched ASCII
// case-insensitively, or "" when the request has none; several fields of one
// name are joined with ", ", as Headers.get does.
//
// It is 读取入站标头值 of 网页入站 0.8.0 (I6, I7). With no current HTTP
// request it returns Failure MsgNoRequest; then the name is checked: one
// that is not an RFC 9110 token of 1 to MaxHeaderNameBytes bytes is
// Violation MsgHeaderName (I42–I44, I145).
func InboundHeader(ev Event, name string) (string, error) {
	vs, err := headerValues(ev, name)
	if err != nil {
		return "", err
	}
	return strings.Join(vs, ", "), nil // I7
}

// InboundHeaderExists reports whether the request has the header name at
// all, matched ASCII case-insensitively, even with an empty value, as
// headers.has does.
//
// It is 入站标头存在 of 网页入站 0.8.0 (I38–I40). Its errors are
// InboundHeader's: with no current HTTP request Failure MsgNoRequest, then
// for a name that is not an RFC 9110 token of 1 to MaxHeaderNameBytes bytes
// Violation MsgHeaderName (I42–I44).
func InboundHeaderExists(ev Event, name string) (bool, error) {
	vs, err := headerValues(ev, name)
	return vs != nil, err // I38
}

// headerValues checks the request, then the name (I44, I145: Violation
// MsgHeaderName unless isToken), and returns the values of
// name (nil when absent; a present header has at least one value).
func headerValues(ev Event, name string) ([]string, error) {
	r, err := currentRequest(ev)
	if err != nil {
		return nil, err
	}
	if !isToken(name) {
		return nil, violation(MsgHeaderName) // I44 I145
	}
	return lookupHeader(r.Header(), name), nil
}

// lookupHeader returns the values of the header name, matched ASCII
// case-insensitively, or nil when it is absent (a present header has at
// least one value, maybe empty). net/http canonicalises the keys it
// receives; a host may build its http.Header by hand, so other spellings
// are looked for too, in sorted order.
func lookupHeader(h http.Header, name string) []string {
	if vs, ok := h[textproto.CanonicalMIMEHeaderKey(name)]; ok {
		return nonNil(vs) // I39 I136
	}
	var vs []string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if strings.EqualFold(k, name) { // I6 I40
			vs = append(nonNil(vs), h[k]...)
		}
	}
	return vs
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
	if len(s) == 0 || len(s) > MaxHeaderNameBytes { // I43
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0: // I42
		default:
			return false
		}
	}
	return true
}

// eventKinds are the event kinds the spec documents (事件种类), in its
// order; EventKinds returns a copy.
var eventKinds = []string{
	EventFetch, EventServiceFetch, EventDurableFetch,
	EventQueue, "scheduled", "email",
	"durable-alarm", "durable-transaction", "durable-block",
	"durable-websocket-message", "durable-websocket-close", "durable-websocket-error",
	"websocket-open", "websocket-message", "websocket-close", "websocket-error",
	"stream-pull", "stream-cancel",
	"html-element", "html-text", "html-comments", "html-doctype",
	"html-document-text", "html-document-comments", "html-end", "html-end-tag",
	"workflow", "workflow-step", "workflow-rollback",
}

// EventKinds returns the event kinds the spec documents (事件种类), in its
// order: the three that carry an HTTP request, then those that do not. A
// host returns only the kinds it provides; an app must treat any other value
// as an event without an HTTP request. The slice is new on every call: the
// caller may modify it.
func EventKinds() []string { return slices.Clone(eventKinds) } // I15

// InboundEventKind returns the kind of the current host invocation (fetch,
// queue, scheduled, …: see EventKinds), or "" when there is none (a nil
// event). It never fails.
//
// It is 读取入站事件种类 of 网页入站 0.8.0 (I12): "读取入站事件种类
// 返回本次宿主调用的事件种类文字，一次调用内不变。"
func InboundEventKind(ev Event) string {
	if ev == nil {
		return ""
	}
	return ev.Kind() // I12
}

// InboundMethod returns the request's method as the host received it, not
// upper-cased here, or Failure MsgNoRequest when the event carries no HTTP
// request.
//
// It is 读取入站方法 of 网页入站 0.8.0 (I2): "读取入站方法 返回宿主接收的方法文字".
func InboundMethod(ev Event) (string, error) {
	r, err := currentRequest(ev)
	if err != nil {
		return "", err
	}
	return r.Method(), nil // I2
}

// InboundRawPath returns the path of the request URL, still percent-encoded
// (URL.pathname), without the query or fragment.
//
// It is 读取入站原路径 of 网页入站 0.8.0 (I3): "读取入站原路径 返回 URL
// 的百分号编码路径，不含查询串或片段". Like every URL reader it returns
// Failure MsgNoRequest when the event carries no HTTP request, and Failure
// MsgRequestURL for a URL new URL would reject (D33).
func InboundRawPath(ev Event) (string, error) {
	u, err := currentURL(ev)
	if err != nil {
		return "", err
	}
	return u.pathname(), nil
}

// InboundDecodedPath returns the path of the request URL percent-decoded
// once, then decoded as UTF-8, both strictly: "%2F" becomes "/", and "%252F"
// becomes "%2F" (once only).
//
// It is 读取入站解码路径 of 网页入站 0.8.0 (I4, I5): "读取入站解码路径
// 对该路径严格解码一次百分号和 UTF-8，坏编码时报错". In order:
//   - no current request: Failure MsgNoRequest; a URL new URL would reject:
//     Failure MsgRequestURL (D33);
//   - a "%" not followed by two hex digits ("%zz", "%4", a lone "%"), or
//     bytes that are not valid UTF-8 after decoding: Violation MsgPathEncoding.
func InboundDecodedPath(ev Event) (string, error) {
	u, err := currentURL(ev)
	if err != nil {
		return "", err
	}
	p, ok := decodePathStrict(u.pathname())
	if !ok {
		return "", violation(MsgPathEncoding) // I5
	}
	return p, nil
}

// InboundOrigin returns the origin of the request URL (URL.origin): scheme
// "://" host, then ":" port only when the port is not the scheme's default.
//
// It is 读取入站来源 of 网页入站 0.8.0 (I23): "读取入站来源 返回 URL 标准的
// origin，供应用比较同源请求；它不代表已经完成跨站请求授权。" Like every URL
// reader it returns Failure MsgNoRequest when the event carries no HTTP
// request, and Failure MsgRequestURL for a URL new URL would reject (D33).
func InboundOrigin(ev Event) (string, error) {
	u, err := currentURL(ev)
	if err != nil {
		return "", err
	}
	return u.origin(), nil
}

// InboundHostname returns the host of the request URL (URL.hostname): lower
// case, without the port; an IPv6 address keeps its brackets.
//
// It is 读取入站主机名 of 网页入站 0.8.0 (I35): "读取入站主机名 返回当前请求 URL 的
// hostname，依 URL 规则规范化为小写且不含端口。" Like every URL reader it
// returns Failure MsgNoRequest when the event carries no HTTP request, and
// Failure MsgRequestURL for a URL new URL would reject (D33).
func InboundHostname(ev Event) (string, error) {
	u, err := currentURL(ev)
	if err != nil {
		return "", err
	}
	return u.host, nil
}

// InboundRawQuery returns the query of the request URL as it is, not
// decoded, with its leading "?" (URL.search), or "" when the query is empty
// or missing (a lone "?" included, as URL.search does).
//
// It is 读取入站原查询 of 网页入站 0.8.0 (I36): "读取入站原查询
// 返回原请求的查询串，非空时保留开头 ?；它不进行参数解码". Like every URL reader it
// returns Failure MsgNoRequest when the event carries no HTTP request, and
// Failure MsgRequestURL for a URL new URL would reject (D33).
func InboundRawQuery(ev Event) (string, error) {
	u, err := currentURL(ev)
	if err != nil {
		return "", err
	}
	return u.search(), nil
}

// InboundQueryParam returns the first value of the query parameter name,
// decoded as url.searchParams.get(name) decodes it, or "" when the query has
// no such parameter.
//
// It is 读取入站查询参数 of 网页入站 0.8.0 (I19, I20): "读取入站查询参数
// 按浏览器 URL 查询参数规则读取第一个同名值，已经百分号解码；无该参数时返回空字符串。"
// The query is parsed as application/x-www-form-urlencoded: "+" is a space,
// percent-decoding keeps a bad "%" as it is, invalid UTF-8 becomes U+FFFD. A
// name that is not valid UTF-8 is first converted as a USVString is (each
// maximal ill-formed subpart to U+FFFD). Like every URL reader it returns
// Failure MsgNoRequest when the event carries no HTTP request, and Failure
// MsgRequestURL for a URL new URL would reject (D33).
func InboundQueryParam(ev Event, name string) (string, error) {
	v, _, err := queryParam(ev, name) // I20
	return v, err
}

// InboundQueryParamExists reports whether the query has a parameter name,
// even with an empty value, as url.searchParams.has(name) does.
//
// It is 入站查询参数存在 of 网页入站 0.8.0 (I21, I22): "?after=
// 这样的空值仍返回阳，使应用能区分缺失与空值。" The name is matched as by
// InboundQueryParam, and its errors are the same.
func InboundQueryParamExists(ev Event, name string) (bool, error) {
	_, ok, err := queryParam(ev, name) // I21
	return ok, err
}

func queryParam(ev Event, name string) (string, bool, error) {
	u, err := currentURL(ev)
	if err != nil {
		return "", false, err
	}
	v, ok := formGet(u.query, utf8DecodeWithoutBOM(name))
	return v, ok, nil
}

// InboundSameOriginURL returns the request URL with a new path (unless path
// is empty) and its query parameters deleted (del), then set (set): an
// absolute URL of the request's origin. It sends nothing.
//
// It is 构造入站同源网址 of 网页入站 0.8.0 (I25–I28): "宿主复制当前请求
// URL，先删后设，未指定参数原样保留，并返回同源绝对网址，不发起请求。
// 新路径须以单个 / 起首，拒绝 //、反斜线、控制字符、? 和 #；查询键和值由宿主编码。
// 设置或删除列表各最多 16 项，超限失败。" In order:
//   - no current request: Failure MsgNoRequest (I10); a URL new URL would
//     reject: Failure MsgRequestURL (D33);
//   - a path, unless empty (the current path is kept, I26), must start with a
//     single "/", be valid UTF-8 and hold no "//", backslash, control
//     character (U+0000–U+001F, U+007F–U+009F), "?" or "#", else Violation
//     MsgSameOriginPath (I31, I32, D38);
//   - over MaxSameOriginItems pairs in set or keys in del: Violation
//     MsgSameOriginList (I34).
//
// The path is then set as URL.pathname's setter does for a special URL: each
// byte in the path percent-encode set (which includes "^") is encoded and
// "." and ".." segments, "%2e" forms included, are resolved. Each key of del
// is removed (every pair of that name), then each pair of set is set
// (URLSearchParams.set: the first pair of that name takes the value and the
// others go, or the pair is appended). When set or del is non-empty the query
// is written again as URLSearchParams does after any change, even when
// nothing changed ("a=%20" becomes "a=+"), and an empty query leaves no "?";
// with both empty the query is kept byte for byte (a lone "?" too, as
// URL.href keeps it). Keys and values that are not valid UTF-8 are converted
// as USVStrings are. The result is origin, path and query: no userinfo, no
// fragment (a Request's URL has neither).
func InboundSameOriginURL(ev Event, path string, set [][2]string, del []string) (string, error) {
	u, err := currentURL(ev)
	if err != nil {
		return "", err
	}
	if path != "" && !validSameOriginPath(path) {
		return "", violation(MsgSameOriginPath)
	}
	if len(set) > MaxSameOriginItems || len(del) > MaxSameOriginItems { // I34
		return "", violation(MsgSameOriginList)
	}
	if path != "" {
		u.path = normalizePath(path) // I26
	}
	if len(set) == 0 && len(del) == 0 {
		return u.href(), nil // I29
	}
	var b strings.Builder
	b.WriteString(u.origin()) // I29
	b.WriteString(u.path)
	list := parseForm(u.query) // I28
	for _, k := range del {
		list = formDelete(list, utf8DecodeWithoutBOM(k)) // I27
	}
	for _, kv := range set {
		list = formSet(list, utf8DecodeWithoutBOM(kv[0]), utf8DecodeWithoutBOM(kv[1])) // I25
	}
	// URL Standard §6.2 URLSearchParams update steps: "Let serializedQuery be
	// the serialization of query's list. If serializedQuery is the empty
	// string, then set serializedQuery to null."
	if q := serializeForm(list); q != "" {
		b.WriteString("?")
		b.WriteString(q)
	}
	return b.String(), nil
}
