package conform

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestExpand: every byte builder of testdata/README.md, and what is none.
func TestExpand(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want string
	}{
		{`"ab中"`, "ab中"},
		{`"\ud83d\ude00"`, "😀"},
		{`{"hex": "22FF22"}`, "\x22\xff\x22"},
		{`{"repeat": "ab", "times": 3}`, "ababab"},
		{`{"repeat": "ab", "times": 0}`, ""},
		{`{"concat": ["a", {"hex": "ff"}, {"repeat": "b", "times": 2}]}`, "a\xffbb"},
	} {
		got, err := Expand(json.RawMessage(c.raw))
		if err != nil || string(got) != c.want {
			t.Errorf("Expand(%s) = %q, %v; want %q", c.raw, got, err, c.want)
		}
	}
	for _, raw := range []string{`1`, `null`, `{}`, `{"hex": "f"}`, `{"repeat": "a"}`, `{"repeat": "a", "times": -1}`,
		`"\ud800"`, `"a\udc00"`, `"\ud800x"`, `"\ud800\u0041"`, `{"repeat": "ab", "times": 99999999999}`} {
		if got, err := Expand(json.RawMessage(raw)); err == nil {
			t.Errorf("Expand(%s) = %q, want an error", raw, got)
		}
	}
}

// TestBytesRoundTrip: bytes written by the protocol read back the same,
// as a string when they are UTF-8 and as hex when not; a value made from a
// builder is written as that builder.
func TestBytesRoundTrip(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("a\"\\<\u2028"), {0xff, 0x00}, []byte("\xe4\xb8")} {
		out, err := json.Marshal(Of(b))
		if err != nil {
			t.Fatal(err)
		}
		var back Bytes
		if err := json.Unmarshal(out, &back); err != nil || !bytes.Equal(back.Bytes(), b) {
			t.Errorf("%q written %s, read back %q, %v", b, out, back.Bytes(), err)
		}
		if isHex := strings.HasPrefix(string(out), `{"hex"`); isHex == utf8.Valid(b) {
			t.Errorf("%q written %s", b, out)
		}
	}
	raw := json.RawMessage(`{"repeat":"a","times":1000}`)
	x, err := Builder(raw)
	if out, _ := json.Marshal(x); err != nil || string(out) != string(raw) || len(x.Bytes()) != 1000 {
		t.Errorf("Builder: %s, %d bytes, %v", out, len(x.Bytes()), err)
	}
}
