package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"hostbridge/internal/conform"
)

// maxBodyLimit is the largest limit a body reader takes (the spec's
// 16 MiB); the UTF-8 rows read with it.
const maxBodyLimit = 16 << 20

// utf8Rows: utf8-decoding.json, through the lenient and strict text
// readers (CONFORMANCE.md, section 10).
func utf8Rows(file string, data []byte) ([]*row, error) {
	var f struct {
		Cases     []json.RawMessage `json:"cases"`
		Streaming []json.RawMessage `json:"streaming"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	cases, err := decodeRows(file, "cases", f.Cases, levelSpec, utf8CaseRow)
	if err != nil {
		return nil, err
	}
	streams, err := decodeRows(file, "streaming", f.Streaming, levelSpec, utf8StreamRow)
	return append(cases, streams...), err
}

// utf8CaseRow: the bytes as a body whole, split in two at every point, and
// in 1-byte chunks, each read by both readers.
func utf8CaseRow(c *struct {
	Name    string `json:"name"`
	Bytes   string `json:"bytes"`
	Lenient string `json:"lenient"`
	Fatal   bool   `json:"fatal"`
}) (*row, error) {
	body, err := hex.DecodeString(c.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", c.Name, err)
	}
	r := &row{label: c.Name}
	for _, chunks := range conform.Chunkings(body) {
		r.cases = append(r.cases, textRead("读取入站有限正文文字", maxBodyLimit, chunks, wantText(c.Lenient), readToEnd(chunks)))
		strict, after := wantText(c.Lenient).withStatus(0), readToEnd(chunks)
		if c.Fatal {
			strict, after = wantText("").withStatus(4), strictEnd(chunks)
		}
		r.cases = append(r.cases, textRead("读取入站有限正文严格文字", maxBodyLimit, chunks, strict, after))
	}
	return r, nil
}

// textRead is a case: a POST whose body arrives as chunks, read once by
// function with limit.
func textRead(function string, limit int, chunks [][]byte, w want, after *bodyWant) *tcase {
	body := &conform.Body{Chunks: []conform.Bytes{}}
	for _, c := range chunks {
		body.Chunks = append(body.Chunks, conform.Of(c))
	}
	u := conform.Text("https://example.com/")
	ev := &conform.Event{Kind: "fetch", Request: &conform.Request{Method: conform.Text("POST"), URL: &u,
		Headers: [][2]conform.Bytes{}, Body: body}}
	if w.status == nil {
		w = w.withStatus(0)
	}
	w.body = after
	return newCase(ev).call(w, function, limit)
}

// readToEnd: every chunk pulled, the stream not cancelled.
func readToEnd(chunks [][]byte) *bodyWant {
	no := false
	return &bodyWant{pulls: len(chunks), canceled: &no, used: true}
}

// strictEnd is where a strict read of bytes that are not UTF-8 stops: at
// the first chunk after which no continuation could make the bytes valid,
// cancelling the stream there ("发现后立即取消读取流"); at the end when only
// the end is wrong.
func strictEnd(chunks [][]byte) *bodyWant {
	var seen []byte
	for k, c := range chunks {
		seen = append(seen, c...)
		if !validPrefix(seen) {
			yes := true
			return &bodyWant{pulls: k + 1, canceled: &yes, used: true}
		}
	}
	return readToEnd(chunks)
}

// validPrefix reports whether p can be continued into valid UTF-8.
func validPrefix(p []byte) bool {
	for _, tail := range []string{"", "\x80", "\x80\x80", "\x80\x80\x80", "\xa0\x80", "\x90\x80\x80", "\xbf", "\xbf\xbf", "\x8f\xbf\xbf", "\x9f\xbf"} {
		if utf8.Valid(append(append([]byte(nil), p...), tail...)) {
			return true
		}
	}
	return false
}

type streamCall struct {
	Bytes  *string `json:"bytes"`
	Stream bool    `json:"stream"`
	Output string  `json:"output"`
	Throws bool    `json:"throws"`
}

// utf8StreamRow: each stream of decode calls (up to a call without stream)
// is one body of those chunks. A fatal decoder throwing as a chunk arrives
// is the strict reader's status 4 with the stream cancelled after that chunk
// (the rest of that stream is left out); throwing at the flush, status 4
// after the last chunk, not cancelled; in the last call, either. Sequences
// with ignoreBOM, which no reader uses, have no case.
func utf8StreamRow(s *struct {
	Name      string       `json:"name"`
	Fatal     bool         `json:"fatal"`
	IgnoreBOM bool         `json:"ignoreBOM"`
	Calls     []streamCall `json:"calls"`
}) (*row, error) {
	r := &row{label: s.Name}
	if s.IgnoreBOM {
		r.skip = "a decoder with ignoreBOM: no reader keeps a BOM"
		return r, nil
	}
	var chunks [][]byte
	out, skipping := "", false
	for _, c := range s.Calls {
		if !skipping {
			if c.Bytes != nil {
				b, err := hex.DecodeString(*c.Bytes)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", s.Name, err)
				}
				chunks = append(chunks, b)
			}
			out += c.Output
			tc, ends := streamBody(s.Fatal, chunks, out, c)
			if tc != nil {
				r.cases = append(r.cases, tc)
			}
			skipping = ends
		}
		if !c.Stream {
			chunks, out, skipping = nil, "", false
		}
	}
	return r, nil
}

// streamBody is the case a stream's call c completes, if it completes one,
// and whether the rest of the stream is left out.
func streamBody(fatal bool, chunks [][]byte, out string, c streamCall) (*tcase, bool) {
	if !c.Throws && c.Stream {
		return nil, false
	}
	if !fatal {
		return textRead("读取入站有限正文文字", maxBodyLimit, chunks, wantText(out), readToEnd(chunks)), false
	}
	if !c.Throws {
		return textRead("读取入站有限正文严格文字", maxBodyLimit, chunks, wantText(out), readToEnd(chunks)), false
	}
	after := readToEnd(chunks)
	switch {
	case c.Stream: // thrown as the chunk arrived
		yes := true
		after.canceled = &yes
	case c.Bytes != nil: // in the last call: cancelled or not
		after.canceled = nil
	}
	return textRead("读取入站有限正文严格文字", maxBodyLimit, chunks, wantText("").withStatus(4), after), c.Stream
}
