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

// runRow runs a row's cases in order: the row passes when every case does.
func (rn *runner) runRow(r *row) (status, detail string) {
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
	for i, tc := range r.cases {
		if d := rn.runCase(r, tc); d != "" {
			return statusFail, fmt.Sprintf("case %d of %d: %s", i+1, len(r.cases), d)
		}
	}
	return statusPass, ""
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

// runCase sends one case and compares its answer: "" when it is right.
func (rn *runner) runCase(r *row, tc *tcase) string {
	if rn.broken != "" {
		return "not run: " + rn.broken
	}
	rn.nextID++
	msg := tc.msg
	msg.ID, msg.Row = rn.nextID, r.name
	b, err := json.Marshal(msg)
	if err != nil {
		return "the runner cannot write this case: " + err.Error()
	}
	line, err := rn.a.roundTrip(b, rn.timeout)
	if err == nil {
		var res *conform.Result
		if res, err = readResult(line, msg.ID, tc); err == nil {
			return tc.compare(res, rn.hello.Redelivery)
		}
	}
	var br *broke
	if errors.As(err, &br) {
		rn.restart(r, br)
	}
	return err.Error()
}

// restart starts the adapter again after it broke, or gives it up.
func (rn *runner) restart(r *row, b *broke) {
	fmt.Fprintf(rn.log, "ADAPTER %s at %s\n", b, r.name)
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
func (tc *tcase) compare(res *conform.Result, redelivery bool) string {
	var got []conform.PlatformCall
	for i, a := range res.Calls {
		if d := tc.wants[i].diff(a); d != "" {
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
	if tc.redelivered != nil && redelivery {
		g, _ := json.Marshal(nonNil(res.Redelivered)) // the runner's own values: cannot fail
		w, _ := json.Marshal(*tc.redelivered)
		if string(g) != string(w) {
			return fmt.Sprintf("redelivered: want %s, got %s", w, g)
		}
	}
	return ""
}
