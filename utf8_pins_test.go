package hostbridge

import "testing"

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
