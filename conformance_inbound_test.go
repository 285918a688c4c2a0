package hostbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// inboundConformance is testdata/inbound-conformance.json: the rows of the
// example tables of 网页入站接口规范 0.8.0.
type inboundConformance struct {
	Source string
	Tables []struct {
		Table string
		Rows  []struct {
			Situation string `json:"情境"`
			Observe   string `json:"必须观察到"`
			Cases     []conformanceCase
		}
	}
}

type conformanceCase struct {
	Note    string
	Request struct {
		Kind, Method, URL string
		Headers           [][2]string
		Body              *conformanceBody
	}
	Calls []conformanceCall
}

type conformanceBody struct {
	Chunks    []json.RawMessage // builders, one chunk each
	Bytes     json.RawMessage   // a builder, cut into chunks of ChunkSize
	ChunkSize int               `json:"chunk_size"`
	Used      bool
}

type conformanceCall struct {
	Function string // the spec function's name
	Limit    int
	Name     string
	Expect   struct {
		Status       *int
		Text         *string
		Bytes        json.RawMessage // a builder, or null for no bytes
		SameAsBody   bool            `json:"same_as_body"`
		ReasonPrefix string          `json:"reason_prefix"`
		Value        *bool
		Error        *struct {
			Kind            string // violation, failure or abort
			Message         *string
			MessagePrefix   string `json:"message_prefix"`
			MessageContains string `json:"message_contains"`
		}
	}
	BodyAfter *struct {
		Pulls    int
		Canceled bool
		Used     bool
	} `json:"body_after"`
	NeedsCanonical bool `json:"needs_canonical"`
}

// fakeBody builds the FakeBody a row describes and returns the whole body.
func (b *conformanceBody) fakeBody(t *testing.T) (*FakeBody, []byte) {
	if b == nil {
		return nil, nil
	}
	fb := &FakeBody{Chunks: [][]byte{}}
	var all []byte
	for _, c := range b.Chunks {
		p := build(t, c)
		fb.Chunks = append(fb.Chunks, p)
		all = append(all, p...)
	}
	if b.Bytes != nil {
		if b.ChunkSize < 1 {
			t.Fatal("bytes without chunk_size")
		}
		all = build(t, b.Bytes)
		fb.Chunks = splitChunks(all, b.ChunkSize)
	}
	if b.Used {
		fb.Open()
	}
	return fb, all
}

func TestInboundConformance(t *testing.T) {
	// Pins I45, I47, I49, I50, I51, I52, I53, I54, I56, I58, I59, I62, I63,
	//   I65, I73, I75, I84, I88, I89, I91, I92, I94, I95, I96, I97, I98, I99,
	//   I100, I101, I102, I103, I105, I108, I110, I111, I112, I113, I114, I115,
	//   I116, I117, I118, I119, I120, I121, I123, I127, I128, I129, I130, I131,
	//   I132, I133, I134, I135, I136, I137, I146, I148.
	if rows := runInboundRows(t, "inbound-conformance.json"); rows != 23 {
		t.Errorf("%d rows, want 12 + 11", rows)
	}
}

// runInboundRows runs every case of a file in the format of
// inbound-conformance.json and returns how many rows it has.
func runInboundRows(t *testing.T, file string) int {
	var doc inboundConformance
	readTestJSON(t, file, &doc)
	rows := 0
	for _, tab := range doc.Tables {
		for ri, row := range tab.Rows {
			rows++
			for ci, c := range row.Cases {
				fb, all := c.Request.Body.fakeBody(t)
				h := http.Header{}
				for _, kv := range c.Request.Headers {
					h.Add(kv[0], kv[1])
				}
				ev := NewRequestEvent(c.Request.Kind, c.Request.Method, c.Request.URL, h, fb)
				for k, call := range c.Calls {
					where := func() string {
						s := tab.Table + " 行 " + strconv.Itoa(ri+1) + " 「" + row.Situation + "」 → " + row.Observe +
							"; case " + strconv.Itoa(ci+1) + " call " + strconv.Itoa(k+1) + " " + call.Function
						if c.Note != "" {
							s += " (" + c.Note + ")"
						}
						return s
					}
					runConformanceCall(t, where, ev, fb, all, call)
				}
			}
		}
	}
	return rows
}

func runConformanceCall(t *testing.T, where func() string, ev Event, fb *FakeBody, all []byte, call conformanceCall) {
	t.Helper()
	r, err := callSpec(t, call.Function, specArgs{Event: ev, Limit: call.Limit, Text: call.Name})
	st := r.Status
	text, _ := r.Value.(string)
	bs, isByte := r.Value.([]byte)
	val, _ := r.Value.(bool)
	ex := call.Expect
	if ex.Error != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got error %v, want a %s exception", where(), err, ex.Error.Kind)
			return
		}
		if e.Kind != kindNames[ex.Error.Kind] || !e.Catchable() {
			t.Errorf("%s: got kind %s (catchable %v), want %s", where(), e.Kind, e.Catchable(), ex.Error.Kind)
		}
		if m := ex.Error.Message; m != nil && e.Msg != *m {
			t.Errorf("%s: got message %q, want %q", where(), e.Msg, *m)
		}
		if !strings.HasPrefix(e.Msg, ex.Error.MessagePrefix) || !strings.Contains(e.Msg, ex.Error.MessageContains) {
			t.Errorf("%s: got message %q, want it to start with %q and contain %q", where(), e.Msg, ex.Error.MessagePrefix, ex.Error.MessageContains)
		}
	} else if err != nil {
		t.Errorf("%s: unexpected error %v", where(), err)
		return
	} else {
		if ex.Status != nil && int(st) != *ex.Status {
			t.Errorf("%s: got status %d, want %d", where(), st, *ex.Status)
		}
		switch {
		case ex.Value != nil:
			if val != *ex.Value {
				t.Errorf("%s: got %v, want %v", where(), val, *ex.Value)
			}
		case ex.SameAsBody:
			got := []byte(text)
			if isByte {
				got = bs
			}
			if !bytes.Equal(got, all) {
				t.Errorf("%s: result of %d bytes is not the body of %d", where(), len(got), len(all))
			}
		case isByte:
			var want []byte
			if string(ex.Bytes) != "null" {
				want = build(t, ex.Bytes)
			}
			if !bytes.Equal(bs, want) || (bs == nil) != (want == nil) {
				t.Errorf("%s: got bytes %x (nil %v), want %s", where(), bs, bs == nil, ex.Bytes)
			}
		case ex.ReasonPrefix != "":
			if !strings.HasPrefix(text, ex.ReasonPrefix) || len(text) == len(ex.ReasonPrefix) {
				t.Errorf("%s: got reason %q, want a non-empty one starting %q", where(), text, ex.ReasonPrefix)
			}
		case ex.Text != nil:
			if text != *ex.Text {
				t.Errorf("%s: got %q, want %q", where(), text, *ex.Text)
			}
		}
	}
	if a := call.BodyAfter; a != nil {
		if fb == nil {
			t.Fatalf("%s: body_after without a body", where())
		}
		if fb.Pulls != a.Pulls || fb.Canceled != a.Canceled || fb.Used() != a.Used {
			t.Errorf("%s: body after: pulls %d canceled %v used %v, want %d %v %v", where(), fb.Pulls, fb.Canceled, fb.Used(), a.Pulls, a.Canceled, a.Used)
		}
	}
}
