package hostbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"hostbridge"
)

// newPlatform is a platform whose app is granted PAGE_QUEUE, bound to the
// queue "pages".
func newPlatform() *hostbridge.MemoryPlatform {
	p := hostbridge.NewMemoryPlatform()
	p.Bind("PAGE_QUEUE", "pages")
	p.GrantJSON(`{"QUEUE":["PAGE_QUEUE"]}`)
	return p
}

func ExampleSendQueueMessage() {
	p := newPlatform()
	err := hostbridge.SendQueueMessage(context.Background(), p, "PAGE_QUEUE", `{ "kind": "page", "url": "/release/x", "n": 1.50 }`, 30)
	fmt.Println(err)
	c := p.Calls()[0]
	fmt.Printf("%s %s %+v\n", c.Method, c.Messages[0].Body, c.Messages[0].DelaySeconds)

	// Every problem is an *Error whose Msg is the app's exception text.
	err = hostbridge.SendQueueMessage(context.Background(), p, "PAGE_QUEUE", `{"$句柄":"1"}`, 0)
	var e *hostbridge.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind, e.Catchable(), e.Msg)
	}
	err = hostbridge.SendQueueMessage(context.Background(), p, "OTHER_QUEUE", `1`, 0)
	if errors.As(err, &e) {
		fmt.Println(e.Kind, e.Catchable(), e.Msg)
	}
	// Output:
	// <nil>
	// send {"kind":"page","url":"/release/x","n":1.5} 30
	// 违规 true 消息体含宿主专用记号
	// 中止 false 队列绑定未授权或未配置：OTHER_QUEUE
}

func ExampleSendQueueBatch() {
	p := newPlatform()
	err := hostbridge.SendQueueBatch(context.Background(), p, "PAGE_QUEUE", `[
		{"body": {"url": "/a"}},
		{"body": "],[", "delaySeconds": 3e1}
	]`)
	fmt.Println(err)
	for _, m := range p.Calls()[0].Messages {
		fmt.Printf("%s delay %d\n", m.Body, m.DelaySeconds)
	}
	// Nothing is sent unless every item passes.
	err = hostbridge.SendQueueBatch(context.Background(), p, "PAGE_QUEUE", `[{"body":1},{"body":2,"contentType":"json"}]`)
	fmt.Println(err, len(p.Calls()))
	// Output:
	// <nil>
	// {"url":"/a"} delay 0
	// "],[" delay 30
	// 批量消息项含不允许的字段 contentType：序号 1 1
}

func ExampleReadQueueBatch() {
	p := newPlatform()
	p.VirtualClock(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	for _, url := range []string{"/a", "/b", "/c"} {
		hostbridge.SendQueueMessage(context.Background(), p, "PAGE_QUEUE", `{"url":"`+url+`"}`, 0)
	}
	p.Advance(5 * time.Second) // the batch timeout: the batch is ready

	result, _ := p.Deliver("pages", func(ev hostbridge.Event) error {
		text, err := hostbridge.ReadQueueBatch(ev)
		if err != nil {
			return err
		}
		var batch struct {
			Queue    string
			Messages []struct {
				Attempts  int
				Timestamp int64
				Body      json.RawMessage
			}
		}
		json.Unmarshal([]byte(text), &batch)
		for _, m := range batch.Messages {
			fmt.Println(batch.Queue, m.Attempts, m.Timestamp, string(m.Body))
		}
		hostbridge.AckQueueMessage(ev, 0)
		hostbridge.RetryQueueMessage(ev, 1, 30)
		// Message 2 is left alone: done when the handler returns normally.
		fmt.Println(hostbridge.AckQueueMessage(ev, 3))
		return nil
	})
	fmt.Println(result.Outcome, len(result.ExplicitAcks), result.RetryMessages[0].DelaySeconds, len(result.Acked))

	// Outside a queue event the consumer functions are a violation.
	_, err := hostbridge.ReadQueueBatch(hostbridge.NewRequestEvent("fetch", "GET", "https://example.com/", nil, nil))
	fmt.Println(err)
	// Output:
	// pages 1 1795996800000 {"url":"/a"}
	// pages 1 1795996800000 {"url":"/b"}
	// pages 1 1795996800000 {"url":"/c"}
	// 队列消息序号越界
	// ok 1 30 2
	// 当前事件不是队列事件
}

func ExampleInboundSameOriginURL() {
	ev := hostbridge.NewRequestEvent("fetch", "GET", "https://Example.com:8443/docs/a%20b/%E4%B8%AD?after=&page=2&page=3", nil, nil)
	kind := hostbridge.InboundEventKind(ev)
	origin, _ := hostbridge.InboundOrigin(ev)
	host, _ := hostbridge.InboundHostname(ev)
	raw, _ := hostbridge.InboundRawPath(ev)
	decoded, _ := hostbridge.InboundDecodedPath(ev)
	query, _ := hostbridge.InboundRawQuery(ev)
	page, _ := hostbridge.InboundQueryParam(ev, "page")
	after, _ := hostbridge.InboundQueryParamExists(ev, "after")
	fmt.Println(kind, origin, host)
	fmt.Println(raw, decoded, query, page, after)

	next, _ := hostbridge.InboundSameOriginURL(ev, "/docs/./x/../b c", [][2]string{{"page", "4"}}, []string{"after"})
	fmt.Println(next)
	_, err := hostbridge.InboundSameOriginURL(ev, "//evil.example/", nil, nil)
	fmt.Println(err)
	// Output:
	// fetch https://example.com:8443 example.com
	// /docs/a%20b/%E4%B8%AD /docs/a b/中 ?after=&page=2&page=3 2 true
	// https://example.com:8443/docs/b%20c?page=4
	// 同源网址路径无效
}

func ExampleInboundHeader() {
	h := http.Header{}
	h.Add("Accept", "text/html")
	h.Add("Accept", "application/json")
	h.Set("X-Empty", "")
	ev := hostbridge.NewRequestEvent("fetch", "GET", "https://example.com/", h, nil)
	accept, _ := hostbridge.InboundHeader(ev, "accept")
	empty, _ := hostbridge.InboundHeaderExists(ev, "x-empty")
	missing, _ := hostbridge.InboundHeaderExists(ev, "x-missing")
	_, err := hostbridge.InboundHeader(ev, "bad name")
	fmt.Printf("%q %v %v %v\n", accept, empty, missing, err)

	// An event that carries no HTTP request.
	_, err = hostbridge.InboundHeader(hostbridge.NewRequestEvent("scheduled", "", "", nil, nil), "accept")
	fmt.Println(err)
	// Output:
	// "text/html, application/json" true false 入站标头名称无效
	// 当前没有 HTTP 请求
}

func ExampleReadInboundStrictText() {
	post := func(chunks ...string) (hostbridge.Event, *hostbridge.FakeBody) {
		body := &hostbridge.FakeBody{}
		for _, c := range chunks {
			body.Chunks = append(body.Chunks, []byte(c))
		}
		return hostbridge.NewRequestEvent("fetch", "POST", "https://example.com/", nil, body), body
	}
	ev, _ := post("\xef\xbb\xbfhel", "lo \xe4\xb8", "\xad")
	fmt.Println(hostbridge.ReadInboundStrictText(ev, 100))
	fmt.Println(hostbridge.ReadInboundStrictText(ev, 100)) // read before: BodyUsed (3)

	ev, body := post("12345", "678", "9")
	st, text, err := hostbridge.ReadInboundStrictText(ev, 7)
	fmt.Println(st, text == "", err, body.Pulls, body.Canceled) // over the limit: canceled at the crossing chunk

	ev, _ = post("a\xffb")
	fmt.Println(hostbridge.ReadInboundStrictText(ev, 100))
	ev, _ = post("a\xffb")
	fmt.Println(hostbridge.ReadInboundText(ev, 100))
	// Output:
	// BodyOK hello 中 <nil>
	// BodyUsed  <nil>
	// BodyTooLarge true <nil> 2 true
	// BodyInvalidUTF8  <nil>
	// BodyOK a�b <nil>
}

func ExampleReadInboundBoundedJSON() {
	ev := hostbridge.NewRequestEvent("fetch", "POST", "https://example.com/", nil,
		&hostbridge.FakeBody{Chunks: [][]byte{[]byte(`{"b":1, "2":2, "1":3, "b":4e21, "s":"\u4e2d\/"}`)}})
	fmt.Println(hostbridge.ReadInboundBoundedJSON(ev, 1000))

	ev = hostbridge.NewRequestEvent("fetch", "POST", "https://example.com/", nil,
		&hostbridge.FakeBody{Chunks: [][]byte{[]byte(`{bad`)}})
	fmt.Println(hostbridge.ReadInboundBoundedJSON(ev, 1000))

	ev = hostbridge.NewRequestEvent("fetch", "GET", "https://example.com/", nil, nil)
	_, err := hostbridge.ReadInboundJSON(ev)
	fmt.Println(err)
	// Output:
	// BodyOK {"1":3,"2":2,"b":4e+21,"s":"中/"} <nil>
	// BodyInvalidJSON SyntaxError: Unexpected token 'b' in JSON at position 1 <nil>
	// 入站 JSON 正文无效：没有正文
}

// ExampleHTTPEvent is a net/http handler that reads the request through
// HTTPEvent and queues a message, run here with httptest.
func ExampleHTTPEvent() {
	q := newPlatform()
	handler := func(w http.ResponseWriter, r *http.Request) {
		ev := hostbridge.HTTPEvent(r)
		origin, _ := hostbridge.InboundOrigin(ev)
		path, _ := hostbridge.InboundDecodedPath(ev)
		version, _ := hostbridge.InboundQueryParam(ev, "version")
		status, meta, err := hostbridge.ReadInboundBoundedJSON(ev, 1024)
		if err == nil && status != hostbridge.BodyOK {
			http.Error(w, fmt.Sprint("body status ", status), http.StatusBadRequest)
			return
		}
		msg, _ := json.Marshal(map[string]any{"origin": origin, "url": path, "version": version, "meta": json.RawMessage(meta)})
		if err == nil {
			err = hostbridge.SendQueueMessage(r.Context(), q, "PAGE_QUEUE", string(msg), 0)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}

	w := httptest.NewRecorder()
	handler(w, httptest.NewRequest("POST", "https://Example.COM/pages/a%20b?version=v2", strings.NewReader(`{"tags": ["x"], "n": 1.0}`)))
	fmt.Println(w.Code)
	fmt.Printf("%s\n", q.Calls()[0].Messages[0].Body)

	w = httptest.NewRecorder()
	handler(w, httptest.NewRequest("POST", "/pages/b", strings.NewReader(`{bad`)))
	fmt.Print(w.Code, " ", w.Body)
	// Output:
	// 202
	// {"meta":{"tags":["x"],"n":1},"origin":"https://example.com","url":"/pages/a b","version":"v2"}
	// 400 body status BodyInvalidJSON
}

// ExampleMemoryPlatform_Deliver consumes a queue in a test, on a virtual
// clock. The default consumer settings are Cloudflare's: a batch is ready
// when it holds MaxBatchSize (10) messages, or when its oldest message has
// waited MaxBatchTimeout (5 s). So a lone message is not delivered until the
// clock has moved 5 s: until then Deliver returns false and does nothing.
func ExampleMemoryPlatform_Deliver() {
	ctx := context.Background()
	p := newPlatform()
	p.VirtualClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	handler := func(ev hostbridge.Event) error {
		for _, m := range ev.Batch().Messages() {
			fmt.Printf("  delivered %s, attempt %d\n", m.Body, m.Attempts)
		}
		return nil // every message not retried is acked
	}

	hostbridge.SendQueueMessage(ctx, p, "PAGE_QUEUE", `{"url":"/a"}`, 0)
	_, ok := p.Deliver("pages", handler)
	fmt.Println("at 0 s:", ok)
	p.Advance(4 * time.Second)
	_, ok = p.Deliver("pages", handler)
	fmt.Println("at 4 s:", ok)
	p.Advance(time.Second)
	fmt.Println("at 5 s:")
	r, ok := p.Deliver("pages", handler)
	fmt.Println(ok, r.Outcome, p.Stats("pages").Acked)

	// With MaxBatchTimeout 0 a message is delivered as soon as it is ready:
	// here, when its 30 s delay has passed.
	s := p.Consumer("pages")
	s.MaxBatchTimeout = 0
	p.SetConsumer("pages", s)
	hostbridge.SendQueueMessage(ctx, p, "PAGE_QUEUE", `{"url":"/b"}`, 30)
	_, ok = p.Deliver("pages", handler)
	fmt.Println("delayed:", ok)
	p.Advance(30 * time.Second)
	fmt.Println("30 s later:")
	_, ok = p.Deliver("pages", handler)
	fmt.Println(ok)
	// Output:
	// at 0 s: false
	// at 4 s: false
	// at 5 s:
	//   delivered {"url":"/a"}, attempt 1
	// true ok 1
	// delayed: false
	// 30 s later:
	//   delivered {"url":"/b"}, attempt 1
	// true
}

// ExampleError branches on what went wrong: errors.As gives the *Error, its
// Kind and the app's exact exception text; errors.Is matches an exception's
// sentinel whatever its text carries after the constant part.
func ExampleError() {
	ctx := context.Background()
	p := newPlatform()
	p.FailNext("Queue is full")
	for _, err := range []error{
		hostbridge.SendQueueBatch(ctx, p, "PAGE_QUEUE", `[{"body":1},{"body":{"$句柄":"h"}}]`),
		hostbridge.SendQueueMessage(ctx, p, "OTHER_QUEUE", `1`, 0),
		hostbridge.SendQueueMessage(ctx, p, "PAGE_QUEUE", `1`, 0),
	} {
		var e *hostbridge.Error
		if !errors.As(err, &e) {
			continue
		}
		fmt.Printf("%s (catchable %v): %s\n", e.Kind, e.Catchable(), e.Msg)
		switch {
		case errors.Is(err, hostbridge.ErrBodyMarker):
			fmt.Println("  a host marker key, in some item of the batch")
		case errors.Is(err, hostbridge.ErrBindingNotGranted):
			fmt.Println("  a deployment error: end the request (HTTP 500)")
		case errors.Is(err, hostbridge.ErrSendFailed):
			fmt.Println("  the platform refused:", e.Err)
		}
	}
	// Output:
	// 违规 (catchable true): 消息体含宿主专用记号：序号 1
	//   a host marker key, in some item of the batch
	// 中止 (catchable false): 队列绑定未授权或未配置：OTHER_QUEUE
	//   a deployment error: end the request (HTTP 500)
	// 平台故障 (catchable true): 队列发送失败：Queue is full
	//   the platform refused: Queue is full
}
