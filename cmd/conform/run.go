package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"hostbridge/internal/conform"
)

// maxRestarts is how many times the runner starts an adapter again after it
// broke; the next break leaves the rest of the rows not run.
const maxRestarts = 3

// runner runs rows against one adapter command.
type runner struct {
	argv     []string
	timeout  time.Duration
	log      io.Writer // where breaks are told as they happen
	a        *adapter
	hello    conform.Hello
	restarts int
	broken   string // not empty once the adapter is given up
	nextID   int
}

// start starts the adapter; an error is a handshake that failed.
func (rn *runner) start() error {
	a, h, err := startAdapter(rn.argv)
	if err != nil {
		return err
	}
	rn.a, rn.hello = a, h
	return nil
}

// window is how many cases the runner writes before it reads their
// answers (CONFORMANCE.md, section 1).
const window = 64

// pending is a case to run: its row's index, and the case.
type pending struct {
	ri int
	tc *tcase
}

// runRows runs every row: the rows decided without the adapter first (no
// case, a case the adapter cannot run, a handshake that differs), then
// every case of the others, in order, up to window of them at a time. A
// row passes when every one of its cases does.
func (rn *runner) runRows(rows []*row) []result {
	results := make([]result, len(rows))
	var queue []pending
	for i, r := range rows {
		results[i] = result{row: r, status: statusPass}
		if st, detail := rn.decide(r); st != "" {
			results[i].status, results[i].detail = st, detail
			continue
		}
		for _, tc := range r.cases {
			queue = append(queue, pending{i, tc})
		}
	}
	rn.stream(queue, func(p pending, d string) {
		r := &results[p.ri]
		if r.status == statusPass {
			r.status = statusFail
			r.detail = fmt.Sprintf("case %d of %d: %s", slices.Index(r.row.cases, p.tc)+1, len(r.row.cases), d)
		}
	})
	return results
}

// decide is the status of a row decided without running its cases, or "".
func (rn *runner) decide(r *row) (status, detail string) {
	if r.skip != "" {
		return statusSkip, r.skip
	}
	for _, tc := range r.cases {
		if why := rn.unsupported(tc); why != "" {
			return statusSkip, why
		}
	}
	if r.hello != nil {
		if d := r.hello(rn.hello); d != "" {
			return statusFail, d
		}
	}
	return "", ""
}

// stream runs the cases of q in order, calling failed for each that fails.
// The cases in flight are always the next ones of q: after the adapter
// breaks, the first of them has failed and the rest are written again.
func (rn *runner) stream(q []pending, failed func(p pending, detail string)) {
	next, inflight := 0, 0 // q[next-inflight:next] are written, unanswered
	var sent []time.Time
	last := time.Now()
	for next < len(q) || inflight > 0 {
		if rn.broken != "" {
			for _, p := range q[next-inflight:] {
				failed(p, "not run: "+rn.broken)
			}
			return
		}
		for ; inflight < window && next < len(q); next, inflight = next+1, inflight+1 {
			rn.a.send(rn.message(q[next]))
			sent = append(sent, time.Now())
		}
		p := q[next-inflight]
		deadline := sent[len(sent)-inflight]
		if last.After(deadline) {
			deadline = last
		}
		d, err := rn.answer(p, deadline.Add(p.tc.limit(rn.timeout)))
		last = time.Now()
		if d != "" {
			failed(p, d)
		}
		inflight--
		var br *broke
		if errors.As(err, &br) {
			rn.restart(p.tc.msg.Row, br)
			next, inflight, sent = next-inflight, 0, nil
		}
	}
}

// message is the line of a case: its row's name and a new id.
func (rn *runner) message(p pending) []byte {
	rn.nextID++
	p.tc.msg.ID = rn.nextID
	b, err := json.Marshal(p.tc.msg)
	if err != nil { // the runner's own values: cannot fail
		panic(err)
	}
	return b
}

// limit is the time a case may take: the per-case limit, and as much again
// for each MiB of request body it carries.
func (tc *tcase) limit(base time.Duration) time.Duration {
	n := 0
	if ev := tc.msg.Event; ev != nil && ev.Request != nil && ev.Request.Body != nil {
		b := ev.Request.Body
		for _, c := range b.Chunks {
			n += len(c.Bytes())
		}
		if b.Bytes != nil {
			n += len(b.Bytes.Bytes())
		}
	}
	return base + base*time.Duration(n>>20)
}

// answer reads the answer to the oldest case in flight and compares it:
// how it is wrong, or "", and the *broke when the adapter broke.
func (rn *runner) answer(p pending, deadline time.Time) (string, error) {
	line, err := rn.a.receive(deadline, p.tc.limit(rn.timeout))
	if err != nil {
		return err.Error(), err
	}
	res, err := readResult(line, p.tc.msg.ID, p.tc)
	if err != nil {
		return err.Error(), err
	}
	return p.tc.compare(res, &rn.hello), nil
}

// unsupported is why the adapter cannot run a case, or "".
func (rn *runner) unsupported(tc *tcase) string {
	for _, c := range tc.msg.Calls {
		if !slices.Contains(rn.hello.Functions, c.Function) {
			return "the adapter does not support " + c.Function
		}
		if s := specOf(c.Function); s != "" && !slices.Contains(rn.hello.Specs, s) {
			return "the adapter does not implement " + s
		}
	}
	if ev := tc.msg.Event; ev != nil && ev.Request != nil && ev.Request.Target != nil && !rn.hello.Targets {
		return "the adapter does not make Request.url from a raw target"
	}
	return ""
}

// specOf is the spec a function belongs to ("" for the protocol's own).
func specOf(function string) string {
	switch function {
	case conform.CanonicalJSON:
		return ""
	case "发送队列消息", "批量发送队列消息", "读取队列批次", "确认队列消息", "重试队列消息":
		return "消息队列 0.1.0"
	}
	return "网页入站 0.8.0"
}

// restart starts the adapter again after it broke, or gives it up.
func (rn *runner) restart(rowName string, b *broke) {
	fmt.Fprintf(rn.log, "ADAPTER %s at %s\n", b, rowName)
	rn.a.kill()
	if rn.restarts == maxRestarts {
		rn.broken = fmt.Sprintf("the adapter broke %d times", maxRestarts+1)
		return
	}
	rn.restarts++
	if err := rn.start(); err != nil {
		rn.broken = "the adapter did not start again: " + err.Error()
	}
}

// readResult reads the answer to case id; a *broke when it is not one.
func readResult(line []byte, id int, tc *tcase) (*conform.Result, error) {
	var res conform.Result
	if err := json.Unmarshal(line, &res); err != nil {
		return nil, &broke{brokeProtocol, fmt.Sprintf("not a result: %v: %s", err, clip(string(line)))}
	}
	if res.Type == conform.TypeProtocolError && (res.ID == nil || *res.ID == id) {
		return nil, fmt.Errorf("the adapter could not read the case: %s", res.Message)
	}
	switch {
	case res.Type != conform.TypeResult:
		return nil, &broke{brokeProtocol, fmt.Sprintf("a message of type %q, not a result: %s", res.Type, clip(string(line)))}
	case res.ID == nil || *res.ID != id:
		return nil, &broke{brokeProtocol, fmt.Sprintf("the answer to case %d is not for it: %s", id, clip(string(line)))}
	case len(res.Calls) != len(tc.msg.Calls):
		return nil, &broke{brokeProtocol, fmt.Sprintf("%d answers to %d calls", len(res.Calls), len(tc.msg.Calls))}
	case tc.msg.End != nil && res.Outcome == nil:
		return nil, &broke{brokeProtocol, "a queue event's result without an outcome"}
	}
	return &res, nil
}

// compare is how a case's answer differs from what it must be: "" when it
// does not.
func (tc *tcase) compare(res *conform.Result, hello *conform.Hello) string {
	var got []conform.PlatformCall
	for i, a := range res.Calls {
		if d := tc.wants[i].diff(a, hello.Observes); d != "" {
			return fmt.Sprintf("call %d %s: %s", i+1, tc.msg.Calls[i].Function, d)
		}
		got = append(got, a.Platform...)
	}
	if tc.platform != nil {
		if g, w := normalCalls(got), normalCalls(*tc.platform); g != w {
			return fmt.Sprintf("platform calls: want %s, got %s", clip(w), clip(g))
		}
	}
	if tc.outcome != nil && *res.Outcome != *tc.outcome {
		return fmt.Sprintf("outcome: want %q, got %q", *tc.outcome, *res.Outcome)
	}
	if tc.redelivered != nil && hello.Redelivery {
		g, _ := json.Marshal(nonNil(res.Redelivered)) // the runner's own values: cannot fail
		w, _ := json.Marshal(*tc.redelivered)
		if string(g) != string(w) {
			return fmt.Sprintf("redelivered: want %s, got %s", w, g)
		}
	}
	return ""
}
