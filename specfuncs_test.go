package hostbridge

import (
	"context"
	"testing"
)

// The vectors in testdata/ name each call by its spec function's own name
// (发送队列消息, 读取入站来源, …), so that a host in any language can run
// them. specFunctions is the one place that maps those names to the Go
// functions; every test that runs a vector file calls through it.

// specArgs are the arguments of one call, as a vector row gives them; each
// function takes the ones its spec function has (the producer's context is
// context.Background(): the vectors set no deadline).
type specArgs struct {
	Event        Event
	Platform     Platform // the queue producer's platform
	Binding      string
	Text         string // a body or batch text, a header or query name, a path
	Set          [][2]string
	Del          []string
	N            int // a message's index in its batch
	DelaySeconds int
	Limit        int // a body reader's byte limit
}

// specResult is what a call returned: Status for the bounded body readers,
// Value the result (a string, []byte or bool; nil when the spec function
// returns nothing).
type specResult struct {
	Status BodyStatus
	Value  any
}

func value[T any](v T, err error) (specResult, error) { return specResult{Value: v}, err }

func status[T any](st BodyStatus, v T, err error) (specResult, error) {
	return specResult{st, v}, err
}

var specFunctions = map[string]func(a specArgs) (specResult, error){
	"发送队列消息": func(a specArgs) (specResult, error) {
		return specResult{}, SendQueueMessage(context.Background(), a.Platform, a.Binding, a.Text, a.DelaySeconds)
	},
	"批量发送队列消息": func(a specArgs) (specResult, error) {
		return specResult{}, SendQueueBatch(context.Background(), a.Platform, a.Binding, a.Text)
	},
	"读取队列批次": func(a specArgs) (specResult, error) { return value(ReadQueueBatch(a.Event)) },
	"确认队列消息": func(a specArgs) (specResult, error) { return specResult{}, AckQueueMessage(a.Event, a.N) },
	"重试队列消息": func(a specArgs) (specResult, error) {
		return specResult{}, RetryQueueMessage(a.Event, a.N, a.DelaySeconds)
	},
	"读取入站事件种类": func(a specArgs) (specResult, error) { return value(InboundEventKind(a.Event), error(nil)) },
	"读取入站方法":   func(a specArgs) (specResult, error) { return value(InboundMethod(a.Event)) },
	"读取入站原路径":  func(a specArgs) (specResult, error) { return value(InboundRawPath(a.Event)) },
	"读取入站解码路径": func(a specArgs) (specResult, error) { return value(InboundDecodedPath(a.Event)) },
	"读取入站标头值":  func(a specArgs) (specResult, error) { return value(InboundHeader(a.Event, a.Text)) },
	"入站标头存在":   func(a specArgs) (specResult, error) { return value(InboundHeaderExists(a.Event, a.Text)) },
	"读取入站查询参数": func(a specArgs) (specResult, error) { return value(InboundQueryParam(a.Event, a.Text)) },
	"入站查询参数存在": func(a specArgs) (specResult, error) { return value(InboundQueryParamExists(a.Event, a.Text)) },
	"读取入站来源":   func(a specArgs) (specResult, error) { return value(InboundOrigin(a.Event)) },
	"读取入站主机名":  func(a specArgs) (specResult, error) { return value(InboundHostname(a.Event)) },
	"读取入站原查询":  func(a specArgs) (specResult, error) { return value(InboundRawQuery(a.Event)) },
	"构造入站同源网址": func(a specArgs) (specResult, error) {
		return value(InboundSameOriginURL(a.Event, a.Text, a.Set, a.Del))
	},
	"读取入站有限正文文字":   func(a specArgs) (specResult, error) { return status(ReadInboundText(a.Event, a.Limit)) },
	"读取入站有限正文严格文字": func(a specArgs) (specResult, error) { return status(ReadInboundStrictText(a.Event, a.Limit)) },
	"读取入站有限正文字节":   func(a specArgs) (specResult, error) { return status(ReadInboundBytes(a.Event, a.Limit)) },
	"读取入站癸象正文文":    func(a specArgs) (specResult, error) { return value(ReadInboundJSON(a.Event)) },
	"读取入站有限癸象正文文":  func(a specArgs) (specResult, error) { return status(ReadInboundBoundedJSON(a.Event, a.Limit)) },
}

// callSpec calls the spec function a vector names; a name the map does not
// hold fails tb.
func callSpec(tb testing.TB, name string, a specArgs) (specResult, error) {
	tb.Helper()
	f, ok := specFunctions[name]
	if !ok {
		tb.Fatalf("no spec function %q", name)
	}
	return f(a)
}

// TestSpecFunctions: the map holds every spec function of both specs, 22
// in all, as the README's table lists them.
func TestSpecFunctions(t *testing.T) {
	// Pins Q2, Q6, Q28, Q75, Q89, I25, I45.
	if n := len(specFunctions); n != 22 {
		t.Errorf("%d spec functions, want 22", n)
	}
}
