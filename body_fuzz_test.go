package hostbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// cutChunks cuts body into chunks whose sizes the bytes of cuts give (0 to
// 8, so empty chunks too); the rest is the last chunk.
func cutChunks(body, cuts []byte) [][]byte {
	chunks := [][]byte{}
	for _, c := range cuts {
		n := min(int(c%9), len(body))
		chunks = append(chunks, body[:n])
		body = body[n:]
	}
	if len(body) > 0 {
		chunks = append(chunks, body)
	}
	return chunks
}

// addBodySeeds seeds f with the bodies of the inbound conformance rows and
// every 25th WHATWG UTF-8 case, each with a few chunkings.
func addBodySeeds(f *testing.F) {
	cuts := [][]byte{nil, {1}, {3, 0, 1}, {1, 1, 1, 1, 1, 1, 1, 1}}
	add := func(body []byte) {
		for _, c := range cuts {
			f.Add(body, c)
		}
	}
	var doc inboundConformance
	readTestJSON(f, "inbound-conformance.json", &doc)
	for _, tab := range doc.Tables {
		for _, row := range tab.Rows {
			for _, c := range row.Cases {
				if b := c.Request.Body; b != nil && b.Bytes == nil {
					var body []byte
					for _, p := range b.Chunks {
						body = append(body, build(f, p)...)
					}
					add(body)
				}
			}
		}
	}
	for i, c := range loadUTF8Decoding(f).Cases {
		if i%25 == 0 {
			add(mustHex(f, c.Bytes))
		}
	}
}

// refDecode is the WHATWG Encoding "UTF-8 decoder" algorithm, byte by byte,
// as the standard writes it: a reference for decodeLenient.
func refDecode(p []byte) string {
	var sb strings.Builder
	var cp rune
	needed, seen := 0, 0
	lower, upper := byte(0x80), byte(0xbf)
	for i := 0; i < len(p); i++ {
		b := p[i]
		if needed == 0 {
			switch {
			case b <= 0x7f:
				sb.WriteByte(b)
			case 0xc2 <= b && b <= 0xdf:
				needed, cp = 1, rune(b&0x1f)
			case 0xe0 <= b && b <= 0xef:
				if b == 0xe0 {
					lower = 0xa0
				}
				if b == 0xed {
					upper = 0x9f
				}
				needed, cp = 2, rune(b&0xf)
			case 0xf0 <= b && b <= 0xf4:
				if b == 0xf0 {
					lower = 0x90
				}
				if b == 0xf4 {
					upper = 0x8f
				}
				needed, cp = 3, rune(b&0x7)
			default:
				sb.WriteRune(utf8.RuneError)
			}
			continue
		}
		if b < lower || b > upper {
			cp, needed, seen, lower, upper = 0, 0, 0, 0x80, 0xbf
			sb.WriteRune(utf8.RuneError)
			i-- // "Restore byte to ioQueue."
			continue
		}
		lower, upper = 0x80, 0xbf
		cp = cp<<6 | rune(b&0x3f)
		seen++
		if seen == needed {
			sb.WriteRune(cp)
			cp, needed, seen = 0, 0, 0
		}
	}
	if needed != 0 {
		sb.WriteRune(utf8.RuneError)
	}
	return strings.TrimPrefix(sb.String(), "\ufeff")
}

// FuzzBodyReaders checks, for any body in any chunking: the bytes reader
// returns the body; the strict reader gives status 4 exactly when the body
// is not valid UTF-8 (and else the lenient text); the lenient text is the
// WHATWG decoding of the whole body, whatever the chunking; and at a limit
// one byte short, every reader gives status 1 and pulls nothing after the
// chunk that crossed it.
func FuzzBodyReaders(f *testing.F) {
	// Pins I54, I64, I66, I70, I72, I73.
	addBodySeeds(f)
	f.Fuzz(func(t *testing.T, body, cuts []byte) {
		chunks := cutChunks(body, cuts)
		want := refDecode(body)
		st, p, _, err := readChunks(chunks, ReadInboundBytes, MaxBodyLimit)
		if err != nil || st != BodyOK || !bytes.Equal(p, body) {
			t.Fatalf("bytes: (%d, %q, %v)", st, p, err)
		}
		st, s, _, err := readChunks(chunks, ReadInboundText, MaxBodyLimit)
		if err != nil || st != BodyOK || s != want {
			t.Fatalf("lenient: (%d, %q, %v), want %q", st, s, err, want)
		}
		st, s, fb, err := readChunks(chunks, ReadInboundStrictText, MaxBodyLimit)
		switch {
		case err != nil:
			t.Fatal(err)
		case !utf8.Valid(body) && (st != BodyInvalidUTF8 || s != ""):
			t.Fatalf("strict on invalid UTF-8: (%d, %q)", st, s)
		case utf8.Valid(body) && (st != BodyOK || s != want):
			t.Fatalf("strict on valid UTF-8: (%d, %q), want %q", st, s, want)
		case utf8.Valid(body) && (fb.Canceled || fb.Pulls != len(chunks)):
			t.Fatalf("strict on valid UTF-8: canceled %v pulls %d of %d", fb.Canceled, fb.Pulls, len(chunks))
		}
		// A Content-Length within the limit, right or wrong, changes nothing
		// but the buffers.
		declared := []int{len(body)}
		if len(cuts) > 0 {
			declared = append(declared, int(cuts[len(cuts)-1])*len(body)/128)
		}
		for _, n := range declared {
			h := http.Header{"Content-Length": {strconv.Itoa(n)}}
			for _, r := range readers[:3] {
				fb := &FakeBody{Chunks: chunks}
				st, p, err := r.read(NewRequestEvent(EventFetch, "POST", "https://example.com/", h, fb), MaxBodyLimit)
				wst, wp := BodyOK, []byte(want)
				switch {
				case r.name == "ReadInboundBytes":
					wp = body
				case r.name == "ReadInboundStrictText" && !utf8.Valid(body):
					wst, wp = BodyInvalidUTF8, nil
				}
				if err != nil || st != wst || !bytes.Equal(p, wp) {
					t.Fatalf("%s, Content-Length %d: (%d, %q, %v), want (%d, %q)", r.name, n, st, p, err, wst, wp)
				}
			}
		}
		if len(body) == 0 {
			return
		}
		limit := len(body) - 1
		if limit == 0 {
			return
		}
		crossing := 0 // pulls up to the chunk that crosses the limit
		for n := 0; n <= limit; crossing++ {
			n += len(chunks[crossing])
		}
		for _, r := range readers[:3] {
			fb := &FakeBody{Chunks: chunks}
			st, p, err := r.read(NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, fb), limit)
			if err != nil || len(p) != 0 || fb.Pulls > crossing || !fb.Canceled {
				t.Fatalf("%s at limit %d: (%d, %q, %v) pulls %d (crossing at %d) canceled %v", r.name, limit, st, p, err, fb.Pulls, crossing, fb.Canceled)
			}
			// Strict may stop earlier, at a bad sequence; the others count to
			// the crossing chunk.
			if st == BodyTooLarge && fb.Pulls != crossing || st != BodyTooLarge && (r.name != "ReadInboundStrictText" || st != BodyInvalidUTF8) {
				t.Fatalf("%s at limit %d: status %d after %d pulls (crossing at %d)", r.name, limit, st, fb.Pulls, crossing)
			}
		}
	})
}

// FuzzBoundedJSON checks that ReadInboundBoundedJSON never fails on any body
// in any chunking: status 4 exactly for invalid UTF-8; otherwise 0 with a
// valid JSON text that does not depend on the chunking, or 5 with a
// SyntaxError reason. ReadInboundJSON gives for the same chunks what the
// bounded function gives for the body's lenient decoding.
func FuzzBoundedJSON(f *testing.F) {
	// Pins I86, I92, I102, I105, I106.
	addBodySeeds(f)
	f.Add([]byte(`{"a":[1,2,{"b":null}],"c":"\u00e9"}`), []byte{2, 2, 2})
	f.Add([]byte("\xef\xbb\xbf[\"\xff\xed\xa0\x80\"]"), []byte{4, 1})
	f.Fuzz(func(t *testing.T, body, cuts []byte) {
		st, s, _, err := readChunks(cutChunks(body, cuts), ReadInboundBoundedJSON, MaxBoundedJSONLimit)
		if err != nil {
			t.Fatal(err)
		}
		checkLenientJSON(t, body, cutChunks(body, cuts))
		st1, s1, _, _ := readChunks([][]byte{body}, ReadInboundBoundedJSON, MaxBoundedJSONLimit)
		if st != st1 || s != s1 {
			t.Fatalf("chunked (%d, %q), whole (%d, %q)", st, s, st1, s1)
		}
		switch {
		case !utf8.Valid(body):
			if st != BodyInvalidUTF8 || s != "" {
				t.Fatalf("invalid UTF-8: (%d, %q)", st, s)
			}
		case st == BodyOK:
			if !json.Valid([]byte(s)) {
				t.Fatalf("status 0 with invalid JSON %q", s)
			}
		case st == BodyInvalidJSON:
			if !strings.HasPrefix(s, SyntaxPrefix) {
				t.Fatalf("status 5 reason %q", s)
			}
		default:
			t.Fatalf("status %d", st)
		}
	})
}

// checkLenientJSON checks ReadInboundJSON on chunks of body against the
// bounded function on the body's lenient decoding (with a BOM in front, the
// one both strip).
func checkLenientJSON(t *testing.T, body []byte, chunks [][]byte) {
	t.Helper()
	got, err := ReadInboundJSON(NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, &FakeBody{Chunks: chunks}))
	text := []byte(utf8BOM + refDecode(body))
	st, want, _, _ := readChunks([][]byte{text}, ReadInboundBoundedJSON, MaxBoundedJSONLimit)
	var e *Error
	switch {
	case st == BodyOK && (err != nil || got != want):
		t.Fatalf("ReadInboundJSON: (%q, %v), want %q", got, err, want)
	case st == BodyInvalidJSON && (!errors.As(err, &e) || e.Msg != MsgJSONBodyInvalid+want):
		t.Fatalf("ReadInboundJSON: (%q, %v), want the error %q", got, err, MsgJSONBodyInvalid+want)
	case st != BodyOK && st != BodyInvalidJSON:
		t.Fatalf("bounded function on the decoded text: status %d", st)
	}
}

// FuzzStrictReadBuffers checks the strict read loop against the spec's
// rule on whole chunks (count, then validate) with Reads cut to several
// sizes: 0 (the readers' own blocks, 512 B up), 1, 2, 3, 5, 8 and 13 bytes.
// A chunk that ends exactly where a Read's buffer ends cannot be told from
// a longer one, so it is joined to the next; on the chunks so joined the
// status and text are the spec's, and with no chunk joined they are the same
// for every size.
// Pins D40.
func FuzzStrictReadBuffers(f *testing.F) {
	// Pins I71.
	addBodySeeds(f)
	f.Add(append([]byte{0xff}, bytes.Repeat([]byte("a"), 700)...), []byte{})
	f.Fuzz(func(t *testing.T, body, cuts []byte) {
		chunks := cutChunks(body, cuts)
		for _, limit := range []int{1, len(body) / 2, max(1, len(body)-1), len(body) + 1} {
			for _, most := range []int{0, 1, 2, 3, 5, 8, 13} {
				fb := &FakeBody{Chunks: chunks}
				rc := &edgeReader{fb: fb, rc: fb.Open(), joined: make([]bool, len(chunks))}
				br := bodyReader{rc: rc, limit: limit, strict: true, most: most}
				st, err := br.read()
				text := ""
				if st == BodyOK {
					text = br.body.string()
				}
				br.body.release()
				wst, wtext := refStrictRead(joinEdges(chunks, rc.joined), limit)
				if err != nil || st != wst || text != wtext {
					t.Fatalf("limit %d, Reads of at most %d, chunks %q (joined %v): (%d, %q, %v), want (%d, %q)",
						limit, most, chunks, rc.joined, st, text, err, wst, wtext)
				}
			}
		}
	})
}

// edgeReader reads a FakeBody and notes each chunk that a Read ended
// exactly where its buffer ended.
type edgeReader struct {
	fb     *FakeBody
	rc     io.Reader
	joined []bool // joined[i]: chunk i ended exactly at a full Read
}

func (r *edgeReader) Read(p []byte) (int, error) {
	k, err := r.rc.Read(p)
	if k > 0 && k == len(p) && len(r.fb.rest) == 0 {
		r.joined[r.fb.next-1] = true
	}
	return k, err
}

// joinEdges joins each chunk i with joined[i] to the chunk after it.
func joinEdges(chunks [][]byte, joined []bool) [][]byte {
	var out [][]byte
	var cur []byte
	for i, c := range chunks {
		cur = append(cur, c...)
		if !joined[i] || i == len(chunks)-1 {
			out = append(out, cur)
			cur = nil
		}
	}
	return out
}

// refStrictRead is the spec's strict read on whole chunks: "逐块累计字节数，
// 一旦超过上限就…返回 1", then a fatal decoder in stream mode throws as soon as
// no continuation could make the bytes so far valid UTF-8 (4), and at the
// end when they are not valid UTF-8 (4).
func refStrictRead(chunks [][]byte, limit int) (BodyStatus, string) {
	var all []byte
	for _, c := range chunks {
		all = append(all, c...)
		if len(all) > limit {
			return BodyTooLarge, ""
		}
		if !validPrefixOrEmpty(all) {
			return BodyInvalidUTF8, ""
		}
	}
	if !utf8.Valid(all) {
		return BodyInvalidUTF8, ""
	}
	return BodyOK, string(all)
}
