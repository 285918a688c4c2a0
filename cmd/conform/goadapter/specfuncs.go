package main

import (
	"context"

	"hostbridge"
	"hostbridge/internal/conform"
)

// specFunctions are the spec functions by their spec names, each reading
// its arguments in the spec's order (CONFORMANCE.md, section 5).
var specFunctions = map[string]func(c callCtx, a args) (conform.Answer, error){
	"发送队列消息":       sendQueueMessage,
	"批量发送队列消息":     sendQueueBatch,
	"读取队列批次":       func(c callCtx, _ args) (conform.Answer, error) { return value(hostbridge.ReadQueueBatch(c.ev)) },
	"确认队列消息":       ackQueueMessage,
	"重试队列消息":       retryQueueMessage,
	"读取入站事件种类":     func(c callCtx, _ args) (conform.Answer, error) { return value(hostbridge.InboundEventKind(c.ev), nil) },
	"读取入站方法":       func(c callCtx, _ args) (conform.Answer, error) { return value(hostbridge.InboundMethod(c.ev)) },
	"读取入站原路径":      func(c callCtx, _ args) (conform.Answer, error) { return value(hostbridge.InboundRawPath(c.ev)) },
	"读取入站解码路径":     func(c callCtx, _ args) (conform.Answer, error) { return value(hostbridge.InboundDecodedPath(c.ev)) },
	"读取入站来源":       func(c callCtx, _ args) (conform.Answer, error) { return value(hostbridge.InboundOrigin(c.ev)) },
	"读取入站主机名":      func(c callCtx, _ args) (conform.Answer, error) { return value(hostbridge.InboundHostname(c.ev)) },
	"读取入站原查询":      func(c callCtx, _ args) (conform.Answer, error) { return value(hostbridge.InboundRawQuery(c.ev)) },
	"读取入站查询参数":     withName(hostbridge.InboundQueryParam),
	"入站查询参数存在":     withName(hostbridge.InboundQueryParamExists),
	"读取入站标头值":      withName(hostbridge.InboundHeader),
	"入站标头存在":       withName(hostbridge.InboundHeaderExists),
	"构造入站同源网址":     sameOriginURL,
	"读取入站有限正文文字":   withLimit(hostbridge.ReadInboundText),
	"读取入站有限正文严格文字": withLimit(hostbridge.ReadInboundStrictText),
	"读取入站有限正文字节":   withLimit(hostbridge.ReadInboundBytes),
	"读取入站癸象正文文":    func(c callCtx, _ args) (conform.Answer, error) { return value(hostbridge.ReadInboundJSON(c.ev)) },
	"读取入站有限癸象正文文":  withLimit(hostbridge.ReadInboundBoundedJSON),
}

func value[T any](v T, err error) (conform.Answer, error) { return answerOf(nil, v, err) }

func withName[T any](f func(hostbridge.Event, string) (T, error)) func(callCtx, args) (conform.Answer, error) {
	return func(c callCtx, a args) (conform.Answer, error) {
		name, err := a.text(0)
		if err != nil {
			return conform.Answer{}, err
		}
		return value(f(c.ev, name))
	}
}

func withLimit[T any](f func(hostbridge.Event, int) (hostbridge.BodyStatus, T, error)) func(callCtx, args) (conform.Answer, error) {
	return func(c callCtx, a args) (conform.Answer, error) {
		limit, err := a.number(0)
		if err != nil {
			return conform.Answer{}, err
		}
		if st, ok := c.f.precheck(c.ev, limit); ok {
			var none T // what the reader returns with a status other than 0
			return answerOf(&st, none, nil)
		}
		st, v, err := f(c.ev, c.f.limit(limit))
		return answerOf(&st, v, err)
	}
}

func sendQueueMessage(c callCtx, a args) (conform.Answer, error) {
	binding, err1 := a.text(0)
	body, err2 := a.text(1)
	delay, err3 := a.number(2)
	if err := firstErr(err1, err2, err3); err != nil {
		return conform.Answer{}, err
	}
	return value[any](nil, hostbridge.SendQueueMessage(context.Background(), c.p, binding, body, delay))
}

func sendQueueBatch(c callCtx, a args) (conform.Answer, error) {
	binding, err1 := a.text(0)
	batch, err2 := a.text(1)
	if err := firstErr(err1, err2); err != nil {
		return conform.Answer{}, err
	}
	err := hostbridge.SendQueueBatch(context.Background(), c.p, binding, batch)
	c.f.afterBatch(c.p, binding, batch, err)
	return value[any](nil, err)
}

func ackQueueMessage(c callCtx, a args) (conform.Answer, error) {
	n, err := a.number(0)
	if err != nil {
		return conform.Answer{}, err
	}
	return value[any](nil, hostbridge.AckQueueMessage(c.ev, n))
}

func retryQueueMessage(c callCtx, a args) (conform.Answer, error) {
	n, err1 := a.number(0)
	delay, err2 := a.number(1)
	if err := firstErr(err1, err2); err != nil {
		return conform.Answer{}, err
	}
	return value[any](nil, hostbridge.RetryQueueMessage(c.ev, n, delay))
}

func sameOriginURL(c callCtx, a args) (conform.Answer, error) {
	path, err1 := a.text(0)
	var set [][2]conform.Bytes
	var del []conform.Bytes
	if err := firstErr(err1, a.decode(1, &set), a.decode(2, &del)); err != nil {
		return conform.Answer{}, err
	}
	var s [][2]string
	for _, kv := range set {
		s = append(s, [2]string{kv[0].String(), kv[1].String()})
	}
	var d []string
	for _, k := range del {
		d = append(d, k.String())
	}
	return value(hostbridge.InboundSameOriginURL(c.ev, path, s, d))
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
