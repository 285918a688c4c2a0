package hostbridge

import (
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"hostbridge/internal/conform"
)

// utf8Decoding is testdata/utf8-decoding.json (WHATWG Encoding, TextDecoder).
type utf8Decoding struct {
	Cases []struct {
		Bytes   string
		Lenient string
		Fatal   bool
		Name    string
	}
	Streaming []struct {
		Name      string
		Fatal     bool
		IgnoreBOM bool
		Calls     []struct {
			Bytes  *string
			Stream bool
			Output string
			Throws bool
		}
	}
}

func loadUTF8Decoding(t testing.TB) *utf8Decoding {
	var d utf8Decoding
	readTestJSON(t, "utf8-decoding.json", &d)
	return &d
}

func mustHex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readChunks runs read on a fresh POST whose body arrives as chunks.
func readChunks[T any](chunks [][]byte, read func(Event, int) (BodyStatus, T, error), limit int) (BodyStatus, T, *FakeBody, error) {
	fb := &FakeBody{Chunks: chunks}
	st, v, err := read(NewRequestEvent(EventFetch, "POST", "https://example.com/", nil, fb), limit)
	return st, v, fb, err
}

// TestUTF8Decoding runs the WHATWG decoding data (utf8-decoding.json)
// through the lenient and strict readers. whole: every one-shot case,
// whole and at every chunking: "多字节字符跨块也能正确解码，且结果与如何分块无关".
// streaming: the streaming sequences mapped onto whole body reads: the
// decode calls of one stream, up to the call without stream: true that
// ends it, are one body whose chunks are the calls' bytes. A fatal decoder
// throwing as a chunk arrives is the strict reader's status 4, cancelled
// right after pulling that chunk (the rest of that stream no longer maps
// onto a fresh body and is left out); throwing at the end is status 4
// after the last chunk. Sequences with ignoreBOM, which the readers never
// use, are left out.
// Pins D41.
func TestUTF8Decoding(t *testing.T) {
	// Pins I64, I65, I66, I70, I72.
	t.Run("whole", func(t *testing.T) {
		d := loadUTF8Decoding(t)
		if len(d.Cases) != 1983 {
			t.Fatalf("%d cases, want 1983", len(d.Cases))
		}
		checks := 0
		for _, c := range d.Cases {
			body := mustHex(t, c.Bytes)
			if utf8.Valid(body) == c.Fatal {
				t.Errorf("%s (%s): utf8.Valid disagrees with fatal=%v", c.Name, c.Bytes, c.Fatal)
			}
			for _, chunks := range conform.Chunkings(body) {
				checks++
				st, s, _, err := readChunks(chunks, ReadInboundText, MaxBodyLimit)
				if err != nil || st != BodyOK || s != c.Lenient {
					t.Errorf("%s (%s) in chunks %x: lenient (%d, %q, %v), want %q", c.Name, c.Bytes, chunks, st, s, err, c.Lenient)
				}
				st, s, fb, err := readChunks(chunks, ReadInboundStrictText, MaxBodyLimit)
				switch {
				case err != nil:
					t.Errorf("%s (%s) in chunks %x: strict error %v", c.Name, c.Bytes, chunks, err)
				case c.Fatal && (st != BodyInvalidUTF8 || s != ""):
					t.Errorf("%s (%s) in chunks %x: strict (%d, %q), want (4, \"\")", c.Name, c.Bytes, chunks, st, s)
				case !c.Fatal && (st != BodyOK || s != c.Lenient):
					t.Errorf("%s (%s) in chunks %x: strict (%d, %q), want (0, %q)", c.Name, c.Bytes, chunks, st, s, c.Lenient)
				case c.Fatal && fb.Canceled && (validPrefixOrEmpty(joinChunks(chunks[:fb.Pulls])) || !validPrefixOrEmpty(joinChunks(chunks[:fb.Pulls-1]))):
					// "发现后立即取消读取流": cancelled at the first chunk that
					// no continuation could make valid, not before, not after.
					t.Errorf("%s (%s) in chunks %x: strict cancelled after %d chunks", c.Name, c.Bytes, chunks, fb.Pulls)
				case c.Fatal && !fb.Canceled && (fb.Pulls != len(chunks) || !validPrefixOrEmpty(body)):
					t.Errorf("%s (%s) in chunks %x: strict read to the end (%d pulls) a body bad before its end", c.Name, c.Bytes, chunks, fb.Pulls)
				}
			}
		}
		t.Logf("%d cases, %d chunkings in all, each through both readers", len(d.Cases), checks)
	})
	t.Run("streaming", func(t *testing.T) {
		d := loadUTF8Decoding(t)
		bodies := 0
		for _, s := range d.Streaming {
			if s.IgnoreBOM {
				continue
			}
			var chunks [][]byte
			var out strings.Builder
			skipping := false
			for _, c := range s.Calls {
				if !skipping {
					if c.Bytes != nil {
						chunks = append(chunks, mustHex(t, *c.Bytes))
					}
					out.WriteString(c.Output)
					switch {
					case c.Throws && c.Stream:
						checkStreamingBody(t, s.Name, s.Fatal, chunks, "", throwOnChunk)
						skipping = true
						bodies++
					case c.Throws && c.Bytes == nil:
						checkStreamingBody(t, s.Name, s.Fatal, chunks, "", throwAtFlush)
						bodies++
					case c.Throws:
						checkStreamingBody(t, s.Name, s.Fatal, chunks, "", throwAtLast)
						bodies++
					case !c.Stream:
						checkStreamingBody(t, s.Name, s.Fatal, chunks, out.String(), noThrow)
						bodies++
					}
				}
				if !c.Stream {
					chunks, skipping = nil, false
					out.Reset()
				}
			}
		}
		if bodies < 40 {
			t.Errorf("only %d bodies mapped from the streaming sequences", bodies)
		}
		t.Logf("%d whole-body reads from %d streaming sequences", bodies, len(d.Streaming))
	})
}

func joinChunks(chunks [][]byte) []byte {
	var b []byte
	for _, c := range chunks {
		b = append(b, c...)
	}
	return b
}

// validPrefixOrEmpty is a slow reference: can p be continued into valid
// UTF-8?
func validPrefixOrEmpty(p []byte) bool {
	for _, tail := range []string{"", "\x80", "\x80\x80", "\x80\x80\x80", "\xa0\x80", "\x90\x80\x80", "\xbf", "\xbf\xbf", "\x8f\xbf\xbf", "\x9f\xbf"} {
		if utf8.Valid(append(append([]byte(nil), p...), tail...)) {
			return true
		}
	}
	return false
}

type throwKind int

const (
	noThrow      throwKind = iota
	throwOnChunk           // when the last chunk arrived: cancelled
	throwAtFlush           // at the end of the stream: not cancelled
	throwAtLast            // in the last call, which ends the stream: either
)

func checkStreamingBody(t *testing.T, name string, fatal bool, chunks [][]byte, want string, throw throwKind) {
	t.Helper()
	where := name + ": chunks " + hex.EncodeToString(joinChunks(chunks))
	if !fatal {
		st, s, _, err := readChunks(chunks, ReadInboundText, MaxBodyLimit)
		if err != nil || st != BodyOK || s != want {
			t.Errorf("%s: lenient (%d, %q, %v), want %q", where, st, s, err, want)
		}
		return
	}
	st, s, fb, err := readChunks(chunks, ReadInboundStrictText, MaxBodyLimit)
	switch {
	case err != nil:
		t.Errorf("%s: strict error %v", where, err)
	case throw == noThrow && (st != BodyOK || s != want):
		t.Errorf("%s: strict (%d, %q), want (0, %q)", where, st, s, want)
	case throw != noThrow && (st != BodyInvalidUTF8 || s != ""):
		t.Errorf("%s: strict (%d, %q), want 4", where, st, s)
	case fb.Pulls != len(chunks):
		t.Errorf("%s: strict pulled %d chunks, want %d", where, fb.Pulls, len(chunks))
	case throw == throwOnChunk && !fb.Canceled, throw == throwAtFlush && fb.Canceled:
		t.Errorf("%s: canceled %v", where, fb.Canceled)
	}
}

// TestValidUTF8: the DFA agrees with utf8.Valid on every sequence of one
// to three bytes, on every lead of four bytes with each second byte and a
// few continuations, and on random strings over the bytes at the edges of
// Table 3-7's ranges.
func TestValidUTF8(t *testing.T) {
	// Pins I70.
	var b [4]byte
	for n := 1; n <= 3; n++ {
		for x := 0; x < 1<<(8*n); x++ {
			for k := 0; k < n; k++ {
				b[k] = byte(x >> (8 * k))
			}
			if validUTF8(b[:n]) != utf8.Valid(b[:n]) {
				t.Fatalf("validUTF8(% x) = %v", b[:n], validUTF8(b[:n]))
			}
		}
	}
	for x := 0; x < 1<<16; x++ {
		for _, tail := range [][2]byte{{0x80, 0x80}, {0xbf, 0xbf}, {0x80, 0x7f}, {0xc0, 0x80}} {
			b = [4]byte{byte(x >> 8), byte(x), tail[0], tail[1]}
			if validUTF8(b[:]) != utf8.Valid(b[:]) {
				t.Fatalf("validUTF8(% x) = %v", b, validUTF8(b[:]))
			}
		}
	}
	edges := []byte{0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
		0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff, 'a'}
	randomBytes(41, 500000, 24, edges, func(p []byte) {
		if validUTF8(p) != utf8.Valid(p) {
			t.Fatalf("validUTF8(% x) = %v", p, validUTF8(p))
		}
	})
}

// TestUTF8ShortBOMPrefix pins that only a whole BOM is stripped ("只有整个
// 正文开头的 BOM 被剥除", 读取入站有限正文文字): a body that is just the first two
// bytes of one (EF BB) is an incomplete sequence, one U+FFFD in lenient
// text and not valid UTF-8 for strict text — also right after a body that
// had the whole BOM, whose buffers may be reused.
func TestUTF8ShortBOMPrefix(t *testing.T) {
	for range 3 {
		ev, _ := post(nil, "\xef\xbb\xbfhi")
		if st, s, err := ReadInboundText(ev, 100); err != nil || st != BodyOK || s != "hi" {
			t.Fatalf("a whole BOM: (%d, %q, %v)", st, s, err)
		}
		ev, _ = post(nil, "\xef\xbb")
		if st, s, err := ReadInboundText(ev, 100); err != nil || st != BodyOK || s != "\ufffd" {
			t.Errorf("EF BB as lenient text: (%d, %q, %v)", st, s, err)
		}
		ev, _ = post(nil, "\xef\xbb")
		if st, s, err := ReadInboundStrictText(ev, 100); err != nil || st != BodyInvalidUTF8 || s != "" {
			t.Errorf("EF BB as strict text: (%d, %q, %v)", st, s, err)
		}
		ev, _ = post(nil, "\xef\xbb")
		if st, b, err := ReadInboundBytes(ev, 100); err != nil || st != BodyOK || string(b) != "\xef\xbb" {
			t.Errorf("EF BB as bytes: (%d, %q, %v)", st, b, err)
		}
	}
}

// TestUTF8LenientLengthCounted pins how the 16 MiB bound of lenient
// text is measured ("因每个非法字节都变成 3 字节的 U+FFFD，解码后文字可能长于字节数；若超过 16
// MiB，属于违规", 读取入站有限正文文字): on the decoded text, the well-formed
// bytes before, between and after the replaced ones all counted.
func TestUTF8LenientLengthCounted(t *testing.T) {
	n := 16777215 / 3 // bytes of FF giving 16777215 bytes of U+FFFD
	half := n / 2
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{"a" + strings.Repeat("\xff", n), true},
		{"ab" + strings.Repeat("\xff", n), false},
		{strings.Repeat("\xff", half) + "a" + strings.Repeat("\xff", n-half), true},
		{strings.Repeat("\xff", half) + "ab" + strings.Repeat("\xff", n-half), false},
		{strings.Repeat("\xff", n) + "é", false},
	} {
		ev, _ := post(nil, c.body)
		st, s, err := ReadInboundText(ev, 16777216)
		if c.ok {
			if err != nil || st != BodyOK || len(s) != 16777216 {
				t.Errorf("%d bytes: (%d, %d bytes, %v), want 16 MiB of text", len(c.body), st, len(s), err)
			}
			continue
		}
		wantBodyError(t, "over 16 MiB decoded", err, Violation, MsgLenientTooLong)
	}
}

// TestUTF8BadByteOffset pins the position a syntax error gives for a
// JSON string that is not valid UTF-8 (the reason the platform reports, 读取
// 入站有限癸象正文文's status 5 "平台报告的原因", and 发送队列消息's): the offset of
// the first byte of the first ill-formed sequence — not of a well-formed
// U+FFFD before it, nor of a later one.
func TestUTF8BadByteOffset(t *testing.T) {
	for _, c := range []struct {
		src string
		off int
	}{
		{"\"abcdefghijk\xffxyz\"", 12},
		{"\"ab\xef\xbf\xbdcd\xffxyz\"", 8},
		{"[\"\xef\xbf\xbd\", \"ok\xe0\x80zz\xff\"]", 11},
		{"\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xed\xa0\x80\xc3\xa9\"", 15},
	} {
		_, _, err := canonical(nil, []byte(c.src), &canonOptions{syntaxDepthLimit: MaxJSONDepth})
		if err == nil || !strings.HasSuffix(err.Error(), " "+strconv.Itoa(c.off)) {
			t.Errorf("%q: %v, want the position %d", c.src, err, c.off)
		}
	}
}
