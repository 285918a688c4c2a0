package hostbridge

import (
	"strconv"
	"strings"
	"testing"
)

// TestUTF8PinsShortBOMPrefix pins that only a whole BOM is stripped ("只有整个
// 正文开头的 BOM 被剥除", 读取入站有限正文文字): a body that is just the first two
// bytes of one (EF BB) is an incomplete sequence, one U+FFFD in lenient
// text and not valid UTF-8 for strict text — also right after a body that
// had the whole BOM, whose buffers may be reused.
func TestUTF8PinsShortBOMPrefix(t *testing.T) {
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

// TestUTF8PinsLenientLengthCounted pins how the 16 MiB bound of lenient
// text is measured ("因每个非法字节都变成 3 字节的 U+FFFD，解码后文字可能长于字节数；若超过 16
// MiB，属于违规", 读取入站有限正文文字): on the decoded text, the well-formed
// bytes before, between and after the replaced ones all counted.
func TestUTF8PinsLenientLengthCounted(t *testing.T) {
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

// TestUTF8PinsBadByteOffset pins the position a syntax error gives for a
// JSON string that is not valid UTF-8 (the reason the platform reports, 读取
// 入站有限癸象正文文's status 5 "平台报告的原因", and 发送队列消息's): the offset of
// the first byte of the first ill-formed sequence — not of a well-formed
// U+FFFD before it, nor of a later one.
func TestUTF8PinsBadByteOffset(t *testing.T) {
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
