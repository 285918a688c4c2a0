package hostbridge

import (
	"io"
	"net/http"
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
