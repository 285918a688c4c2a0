package hostbridge

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"unicode/utf8"
)

// benchText is 16 MiB of valid UTF-8: mostly ASCII JSON-like text with some
// 2-, 3- and 4-byte characters, as a request body often is.
// It ends before a character that the cut would split.
var benchText = sync.OnceValue(func() []byte {
	unit := []byte(`{"name":"Zoë","city":"東京","note":"ok 👍","n":12345,"tags":["a","b","c"]},` + "\n")
	p := bytes.Repeat(unit, MaxBodyLimit/len(unit)+1)[:MaxBodyLimit]
	for !utf8.Valid(p) {
		p = p[:len(p)-1]
	}
	return p
})

// benchASCII is 16 MiB of ASCII.
var benchASCII = sync.OnceValue(func() []byte {
	unit := []byte("0123456789abcdefghijklmnopqrstuvwxyz{}[]:,\"\n")
	return bytes.Repeat(unit, MaxBodyLimit/len(unit)+1)[:MaxBodyLimit]
})

const benchChunk = 64 << 10

// benchRead reads body in benchChunk chunks with read, declaring the
// Content-Length cl unless it is "".
func benchRead(b *testing.B, body []byte, cl string, read func(Event, int) (BodyStatus, []byte, error)) {
	chunks := splitChunks(body, benchChunk)
	h := http.Header{}
	if cl != "" {
		h.Set("Content-Length", cl)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", h, &FakeBody{Chunks: chunks})
		if st, _, err := read(ev, MaxBodyLimit); st != BodyOK || err != nil {
			b.Fatal(st, err)
		}
	}
}

func strictBytes(ev Event, n int) (BodyStatus, []byte, error) {
	st, _, err := ReadInboundStrictText(ev, n)
	return st, nil, err
}

func lenientBytes(ev Event, n int) (BodyStatus, []byte, error) {
	st, _, err := ReadInboundText(ev, n)
	return st, nil, err
}

// BenchmarkReadBody reads 16 MiB in 64 KiB chunks with each reader, with and
// without a declared Content-Length, and a 1-byte body that declares
// Content-Length: 16000000 (falselength: B/op is what a lying client costs).
// Compare with BenchmarkUTF8Valid (strict) and BenchmarkChunkedCopy (bytes).
func BenchmarkReadBody(b *testing.B) {
	readers := []struct {
		name string
		read func(Event, int) (BodyStatus, []byte, error)
	}{{"Strict", strictBytes}, {"Bytes", ReadInboundBytes}, {"Lenient", lenientBytes}}
	for _, body := range []struct {
		name string
		p    []byte
	}{{"text", benchText()}, {"ascii", benchASCII()}} {
		for _, cl := range []string{strconv.Itoa(len(body.p)), ""} {
			name := "/length"
			if cl == "" {
				name = "/nolength"
			}
			for _, r := range readers {
				b.Run(r.name+"/"+body.name+name, func(b *testing.B) { benchRead(b, body.p, cl, r.read) })
			}
		}
	}
	for _, r := range readers {
		b.Run(r.name+"/falselength", func(b *testing.B) { benchRead(b, []byte("1"), "16000000", r.read) })
	}
}

// BenchmarkUTF8Valid is the baseline of the strict reader: utf8.Valid on the
// same 16 MiB, in one piece.
func BenchmarkUTF8Valid(b *testing.B) {
	for _, body := range []struct {
		name string
		p    []byte
	}{{"text", benchText()}, {"ascii", benchASCII()}} {
		b.Run(body.name, func(b *testing.B) {
			b.SetBytes(int64(len(body.p)))
			b.ReportAllocs()
			for b.Loop() {
				if !utf8.Valid(body.p) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkChunkedCopy is the baseline of the bytes reader: the same 64 KiB
// chunks copied into one buffer of the body's size, as a minimal reader
// that knows the length would.
func BenchmarkChunkedCopy(b *testing.B) {
	body := benchText()
	chunks := splitChunks(body, benchChunk)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		buf := make([]byte, 0, len(body))
		for _, c := range chunks {
			buf = append(buf, c...)
		}
		if len(buf) != len(body) {
			b.Fatal(len(buf))
		}
	}
}

// BenchmarkReadBoundedJSON reads and canonicalises JSON bodies of 1 and 8
// MiB (arrays of small objects) in 64 KiB chunks.
func BenchmarkReadBoundedJSON(b *testing.B) {
	for _, s := range benchSizes[1:] { // 1MiB and 8MiB: the documents bench-node.js reads too
		body := benchDoc(s.size)
		chunks := splitChunks(body, benchChunk)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				ev := NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, &FakeBody{Chunks: chunks})
				if st, _, err := ReadInboundBoundedJSON(ev, MaxBoundedJSONLimit); st != BodyOK || err != nil {
					b.Fatal(st, err)
				}
			}
		})
	}
}
