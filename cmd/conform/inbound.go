package main

import (
	"encoding/json"
	"fmt"

	"hostbridge/internal/conform"
)

// The functions whose one argument is a byte limit, and those whose one
// argument is a header name.
var (
	limitFunctions = map[string]bool{"读取入站有限正文文字": true, "读取入站有限正文严格文字": true,
		"读取入站有限正文字节": true, "读取入站有限癸象正文文": true}
	nameFunctions = map[string]bool{"读取入站标头值": true, "入站标头存在": true,
		"读取入站查询参数": true, "入站查询参数存在": true}
)

// inboundBodyRows: inbound-conformance.json (the spec's tables) and
// inbound-body.json (the package's decisions). Each case of a row is a
// case: its request, its calls in order.
func inboundBodyRows(file string, data []byte) ([]*row, error) {
	var f struct {
		Tables []struct {
			Table string            `json:"table"`
			Rows  []json.RawMessage `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	def := levelSpec
	if file == "inbound-body.json" {
		def = levelDecision
	}
	var rows []*row
	for _, t := range f.Tables {
		trows, err := decodeRows(file, t.Table, t.Rows, def, func(r *struct {
			Situation string              `json:"情境"`
			Cases     []inboundBodyVector `json:"cases"`
		}) (*row, error) {
			rw := &row{label: r.Situation}
			for i := range r.Cases {
				tc, err := r.Cases[i].tcase()
				if err != nil {
					return nil, fmt.Errorf("%s: case %d: %v", r.Situation, i+1, err)
				}
				rw.cases = append(rw.cases, tc)
			}
			return rw, nil
		})
		if err != nil {
			return nil, err
		}
		rows = append(rows, trows...)
	}
	return rows, nil
}

type inboundBodyVector struct {
	Request struct {
		Kind    string          `json:"kind"`
		Method  string          `json:"method"`
		URL     string          `json:"url"`
		Headers [][2]string     `json:"headers"`
		Body    json.RawMessage `json:"body"`
	} `json:"request"`
	Calls []struct {
		Function  string          `json:"function"`
		Limit     int             `json:"limit"`
		Name      string          `json:"name"`
		Expect    json.RawMessage `json:"expect"`
		BodyAfter *struct {
			Pulls    int  `json:"pulls"`
			Canceled bool `json:"canceled"`
			Used     bool `json:"used"`
		} `json:"body_after"`
	} `json:"calls"`
}

func (v *inboundBodyVector) tcase() (*tcase, error) {
	body, all, err := bodyOf(v.Request.Body)
	if err != nil {
		return nil, err
	}
	u := conform.Text(v.Request.URL)
	req := &conform.Request{Method: conform.Text(v.Request.Method), URL: &u, Headers: headersOf(v.Request.Headers), Body: body}
	tc := newCase(&conform.Event{Kind: v.Request.Kind, Request: req})
	for _, c := range v.Calls {
		w, err := bodyExpect(c.Expect, all)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.Function, err)
		}
		if a := c.BodyAfter; a != nil {
			w.body = &bodyWant{pulls: a.Pulls, canceled: &a.Canceled, used: a.Used}
		}
		switch {
		case limitFunctions[c.Function]:
			tc.call(w, c.Function, c.Limit)
		case nameFunctions[c.Function]:
			tc.call(w, c.Function, c.Name)
		default:
			tc.call(w, c.Function)
		}
	}
	return tc, nil
}

func headersOf(kvs [][2]string) [][2]conform.Bytes {
	out := [][2]conform.Bytes{}
	for _, kv := range kvs {
		out = append(out, [2]conform.Bytes{conform.Text(kv[0]), conform.Text(kv[1])})
	}
	return out
}

// bodyOf is a row's body (null; chunks; or bytes cut into chunk_size
// chunks) and all its bytes.
func bodyOf(raw json.RawMessage) (*conform.Body, []byte, error) {
	var b *struct {
		Chunks    []json.RawMessage `json:"chunks"`
		Bytes     json.RawMessage   `json:"bytes"`
		ChunkSize int               `json:"chunk_size"`
		Used      bool              `json:"used"`
	}
	if err := json.Unmarshal(raw, &b); err != nil || b == nil {
		return nil, nil, err
	}
	body := &conform.Body{Chunks: []conform.Bytes{}, Used: b.Used}
	var all []byte
	for _, c := range b.Chunks {
		x, err := conform.Builder(c)
		if err != nil {
			return nil, nil, err
		}
		body.Chunks = append(body.Chunks, x)
		all = append(all, x.Bytes()...)
	}
	if b.Bytes != nil {
		whole, err := conform.Builder(b.Bytes)
		if err != nil {
			return nil, nil, err
		}
		body.Bytes, body.ChunkSize, all = &whole, b.ChunkSize, whole.Bytes()
		if _, err := body.AllChunks(); err != nil {
			return nil, nil, err
		}
	}
	return body, all, nil
}

// bodyExpect reads a call's expect (testdata/README.md, "网页入站 body
// rows"); all is the whole body, for same_as_body.
func bodyExpect(raw json.RawMessage, all []byte) (want, error) {
	var e struct {
		Status       *int            `json:"status"`
		Text         *string         `json:"text"`
		Bytes        json.RawMessage `json:"bytes"`
		SameAsBody   bool            `json:"same_as_body"`
		ReasonPrefix string          `json:"reason_prefix"`
		Value        *bool           `json:"value"`
		Error        *struct {
			Kind            string  `json:"kind"`
			Message         *string `json:"message"`
			MessagePrefix   string  `json:"message_prefix"`
			MessageContains string  `json:"message_contains"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return want{}, err
	}
	var w want
	switch {
	case e.Error != nil && e.Error.Message != nil:
		return wantError(e.Error.Kind, *e.Error.Message), nil
	case e.Error != nil:
		return want{err: &conform.Exception{Kind: e.Error.Kind}, match: &errMatch{e.Error.MessagePrefix, e.Error.MessageContains}}, nil
	case e.Value != nil:
		w = wantBool(*e.Value)
	case e.SameAsBody:
		w = wantBytes(all)
	case string(e.Bytes) == "null":
		w = wantNone()
	case e.Bytes != nil:
		b, err := conform.Expand(e.Bytes)
		if err != nil {
			return want{}, err
		}
		w = wantBytes(b)
	case e.ReasonPrefix != "":
		w = want{val: valueWant{kind: vPrefix, b: []byte(e.ReasonPrefix)}}
	case e.Text != nil:
		w = wantText(*e.Text)
	}
	if e.Status != nil {
		w = w.withStatus(*e.Status)
	}
	return w, nil
}

// headerRows: inbound-headers.json. A fetch event GET https://example.com/
// with the row's headers, and the row's call.
func headerRows(file string, data []byte) ([]*row, error) {
	return fileRows(file, data, levelSpec, func(r *struct {
		Situation string             `json:"情境"`
		Kind      string             `json:"kind"`
		Headers   [][2]string        `json:"headers"`
		Call      string             `json:"call"`
		Arg       json.RawMessage    `json:"arg"`
		Want      json.RawMessage    `json:"want"`
		Error     *conform.Exception `json:"error"`
	}) (*row, error) {
		arg, err := conform.Builder(r.Arg)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.Situation, err)
		}
		ev := fetchEvent("https://example.com/")
		ev.Kind, ev.Request.Headers = r.Kind, headersOf(r.Headers)
		return oneCase(r.Situation, newCase(ev).call(readerWant(r.Want, r.Error), r.Call, arg))
	})
}

// readerWant is a reader row's want (a string or a boolean) or error.
func readerWant(wantRaw json.RawMessage, e *conform.Exception) want {
	if e != nil {
		return wantError(e.Kind, e.Message)
	}
	var b bool
	if json.Unmarshal(wantRaw, &b) == nil {
		return wantBool(b)
	}
	var s string
	_ = json.Unmarshal(wantRaw, &s) // a row without want wants ""
	return wantText(s)
}
