package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"hostbridge/internal/conform"
)

// A want is what one call must answer: an exception, or a value (with a
// status for a bounded body reader), and the body's state after it.
type want struct {
	err    *conform.Exception // the exception; Message "" with errMatch: any text matching prefix and contains
	match  *errMatch
	status *int
	val    valueWant
	body   *bodyWant
}

// bodyWant is a request body's state after a call; canceled nil: either.
type bodyWant struct {
	pulls    int
	canceled *bool
	used     bool
}

// ok compares the observations the adapter makes (observes).
func (b *bodyWant) ok(got *conform.BodyState, observes func(string) bool) bool {
	return got != nil && (!observes("pulls") || got.Pulls == b.pulls) && (!observes("used") || got.Used == b.used) &&
		(b.canceled == nil || !observes("canceled") || *b.canceled == got.Canceled)
}

func (b *bodyWant) String() string {
	c := "either"
	if b.canceled != nil {
		c = fmt.Sprint(*b.canceled)
	}
	return fmt.Sprintf("{pulls %d, canceled %s, used %v}", b.pulls, c, b.used)
}

// errMatch is an exception whose text the spec fixes only in part.
type errMatch struct{ prefix, contains string }

// valueWant is the value a call must return.
type valueWant struct {
	kind   valueKind
	b      []byte // vText, vBytes, vPrefix
	bo     bool   // vBool
	custom func(json.RawMessage) string
	desc   string // vCustom: what is wanted
}

type valueKind int

const (
	vAny    valueKind = iota // not compared
	vNull                    // null: no result, or no bytes
	vText                    // text or bytes equal to b
	vBool                    // the boolean bo
	vPrefix                  // a text starting with b and longer than it
	vCustom                  // custom says
)

func wantNone() want          { return want{val: valueWant{kind: vNull}} }
func wantText(s string) want  { return want{val: valueWant{kind: vText, b: []byte(s)}} }
func wantBytes(b []byte) want { return want{val: valueWant{kind: vText, b: b}} }
func wantBool(b bool) want    { return want{val: valueWant{kind: vBool, bo: b}} }
func wantError(kind, msg string) want {
	return want{err: &conform.Exception{Kind: kind, Message: msg}}
}

// withStatus adds a status to w.
func (w want) withStatus(st int) want {
	w.status = &st
	return w
}

// diff is how an answer differs from w: "" when it does not.
func (w want) diff(a conform.Answer, observes func(string) bool) string {
	if d := w.diffOutcome(a); d != "" {
		return d
	}
	if w.body != nil && !w.body.ok(a.Body, observes) {
		return fmt.Sprintf("want the body after it %s, got %s", w.body, showBody(a.Body))
	}
	return ""
}

func (w want) diffOutcome(a conform.Answer) string {
	if w.err != nil || w.match != nil {
		if a.Error == nil || !w.errOK(a.Error) {
			return "want " + w.show() + ", got " + showAnswer(a)
		}
		return ""
	}
	if a.Error != nil || !intEq(w.status, a.Status) || !w.val.ok(a.Value) {
		return "want " + w.show() + ", got " + showAnswer(a)
	}
	return ""
}

func (w want) errOK(e *conform.Exception) bool {
	if w.match != nil {
		return e.Kind == w.err.Kind && strings.HasPrefix(e.Message, w.match.prefix) && strings.Contains(e.Message, w.match.contains)
	}
	return *e == *w.err
}

func intEq(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// ok reports whether a value is the one wanted.
func (v valueWant) ok(raw json.RawMessage) bool {
	isNull := len(raw) == 0 || string(raw) == "null"
	switch v.kind {
	case vNull:
		return isNull
	case vBool:
		return string(raw) == fmt.Sprint(v.bo)
	case vText, vPrefix:
		if isNull {
			return false
		}
		b, err := conform.Expand(raw)
		if v.kind == vPrefix {
			return err == nil && bytes.HasPrefix(b, v.b) && len(b) > len(v.b)
		}
		return err == nil && bytes.Equal(b, v.b)
	case vCustom:
		return v.custom(raw) == ""
	}
	return true
}

// show describes what w wants.
func (w want) show() string {
	if w.match != nil {
		return fmt.Sprintf("%s exception starting %q and containing %q", w.err.Kind, w.match.prefix, w.match.contains)
	}
	if w.err != nil {
		return fmt.Sprintf("%s exception %q", w.err.Kind, w.err.Message)
	}
	s := ""
	if w.status != nil {
		s = fmt.Sprintf("status %d, ", *w.status)
	}
	switch w.val.kind {
	case vNull:
		return s + "value null"
	case vBool:
		return s + fmt.Sprintf("value %v", w.val.bo)
	case vText:
		return s + "value " + showBytes(w.val.b)
	case vPrefix:
		return s + "a value starting " + showBytes(w.val.b)
	case vCustom:
		return s + w.val.desc
	}
	return strings.TrimSuffix(s, ", ")
}

// showAnswer describes an answer.
func showAnswer(a conform.Answer) string {
	if a.Error != nil {
		return fmt.Sprintf("%s exception %q", a.Error.Kind, a.Error.Message)
	}
	s := ""
	if a.Status != nil {
		s = fmt.Sprintf("status %d, ", *a.Status)
	}
	if len(a.Value) == 0 {
		return s + "no value"
	}
	if a.Value[0] == '"' || bytes.HasPrefix(a.Value, []byte(`{"hex"`)) {
		if b, err := conform.Expand(a.Value); err == nil {
			return s + "value " + showBytes(b)
		}
	}
	return s + "value " + clip(string(a.Value))
}

func showBody(b *conform.BodyState) string {
	if b == nil {
		return "nothing"
	}
	return fmt.Sprintf("{pulls %d, canceled %v, used %v}", b.Pulls, b.Canceled, b.Used)
}

// showBytes shows bytes as a quoted string, clipped.
func showBytes(b []byte) string { return clip(fmt.Sprintf("%q", b)) }

func clip(s string) string {
	const most = 160
	if len(s) <= most {
		return s
	}
	return s[:most] + fmt.Sprintf("… (%d bytes)", len(s))
}
