package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"hostbridge"
	"hostbridge/internal/conform"
	"hostbridge/internal/conformhook"
)

// callCtx is what a call runs on: the current event (nil for none), the
// producer's platform, the recorder of platform calls, the request body.
type callCtx struct {
	ev   hostbridge.Event
	p    *hostbridge.MemoryPlatform
	rec  recorder
	body *hostbridge.FakeBody
	f    fault
}

// makeCalls makes the calls in order and answers each; an error is a call
// this adapter cannot read.
func makeCalls(calls []conform.Call, c callCtx) ([]conform.Answer, error) {
	out := make([]conform.Answer, 0, len(calls))
	for i, call := range calls {
		fn, ok := specFunctions[call.Function]
		if call.Function == conform.CanonicalJSON {
			fn, ok = canonicalJSON, true
		}
		if !ok {
			return nil, fmt.Errorf("calls[%d]: unknown function %q", i, call.Function)
		}
		a, err := fn(c, args(call.Args))
		if err != nil {
			return nil, fmt.Errorf("calls[%d] %s: %v", i, call.Function, err)
		}
		a.Platform = c.rec.take()
		if c.body != nil {
			a.Body = &conform.BodyState{Pulls: c.body.Pulls, Canceled: c.body.Canceled, Used: c.body.Used()}
		}
		out = append(out, c.f.answer(call, a))
	}
	return out, nil
}

// args are a call's arguments, read one by one; the first error sticks.
type args []json.RawMessage

func (a args) raw(i int) (json.RawMessage, error) {
	if i >= len(a) {
		return nil, fmt.Errorf("args: %d arguments, want at least %d", len(a), i+1)
	}
	return a[i], nil
}

func (a args) text(i int) (string, error) {
	var b conform.Bytes
	err := a.decode(i, &b)
	return b.String(), err
}

// number is an argument that must be a JSON number with an integer value.
func (a args) number(i int) (int, error) {
	var f float64
	if err := a.decode(i, &f); err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("args[%d]: %v is not an integer this adapter can pass", i, f)
	}
	return int(f), nil
}

func (a args) decode(i int, v any) error {
	r, err := a.raw(i)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(r, v); err != nil {
		return fmt.Errorf("args[%d]: %v", i, err)
	}
	return nil
}

// answerOf is the answer of a call that returned v and err: a spec
// exception, or the value (a status too when st is not nil).
func answerOf(st *hostbridge.BodyStatus, v any, err error) (conform.Answer, error) {
	if err != nil {
		return conform.Answer{Error: exception(err)}, nil
	}
	var raw []byte
	switch v := v.(type) {
	case string:
		raw = conform.AppendBytes(nil, []byte(v))
	case []byte:
		if v == nil {
			raw = []byte("null")
		} else {
			raw = conform.AppendBytes(nil, v)
		}
	default:
		raw, err = json.Marshal(v)
	}
	a := conform.Answer{Value: raw}
	if st != nil {
		n := int(*st)
		a.Status = &n
	}
	return a, err
}

var kindNames = map[hostbridge.ErrorKind]string{hostbridge.Violation: "violation", hostbridge.Failure: "failure", hostbridge.Abort: "abort"}

// exception is the spec exception an error stands for; an error that is not
// a *hostbridge.Error is no spec exception, and says so in its kind.
func exception(err error) *conform.Exception {
	var e *hostbridge.Error
	if !errors.As(err, &e) {
		return &conform.Exception{Kind: "not a spec exception", Message: err.Error()}
	}
	return &conform.Exception{Kind: kindNames[e.Kind], Message: e.Msg}
}

// canonicalJSON is the protocol's own function: the package's canonicaliser
// with the vectors' options.
func canonicalJSON(_ callCtx, a args) (conform.Answer, error) {
	var text conform.Bytes
	var o conform.CanonOptions
	if err := firstErr(a.decode(0, &text), a.decode(1, &o)); err != nil {
		return conform.Answer{}, err
	}
	r := conformhook.Canonical(text.Bytes(), conformhook.Options{MaxDepth: o.MaxDepth, DeepOver: o.DeepOver,
		Markers: o.Markers, InfToNull: o.InfToNull})
	var v conform.CanonResult
	if r.Syntax {
		v.SyntaxError = &conform.SyntaxError{Reason: r.Reason, Off: r.Off}
	} else {
		v.Depth, v.Problem = &r.Depth, r.Problem
		if r.Problem == "none" {
			c := conform.Of(r.Canonical)
			v.Canonical = &c
		} else {
			v.Off = &r.ProblemOff
		}
	}
	return answerOf(nil, v, nil)
}
