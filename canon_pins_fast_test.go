//go:build !hostbridge_ref

package hostbridge

import (
	"fmt"
	"strings"
	"testing"
)

// sameShapeKeys returns n keys of one length and first and last characters
// ("b1000z", "b1001z", …), which share a keyBit: from the second on each is
// looked up, and an object of them is mapped at its 17th key.
func sameShapeKeys(letter string, n int) []string {
	keys := make([]string, n)
	for k := range keys {
		keys[k] = fmt.Sprintf("%s%dz", letter, 1000+k)
	}
	return keys
}

// objectText is {"k0":v,"k1":v,…} with the keys given and each value v.
func objectText(keys []string, v string) string {
	return `{"` + strings.Join(keys, `":`+v+`,"`) + `":` + v + `}`
}

// TestFastKeyMapSpreads: once an object is mapped, each of its distinct
// keys has an entry of its own in the key map, and a repeated key adds
// none, so that a lookup compares one key, not every key so far: an object
// of n keys costs n, not n² (mapKeys). 300 distinct keys, each written
// twice, and an object of keys of every shape.
func TestFastKeyMapSpreads(t *testing.T) {
	for _, keys := range [][]string{
		sameShapeKeys("a", 300),
		strings.Fields("a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc dd ee ff gg hh ii jj kk ll mm nn oo pp qq rr ss tt uu vv ww xx yy zz A B C D E F G H I J K L M N O P Q R S T U V W X Y Z"),
	} {
		twice := append(append([]string(nil), keys...), keys...)
		src := strings.TrimSuffix(objectText(twice, "0"), "}") // left open
		p := &parser{src: []byte(src), o: &canonOptions{}}
		if _, _, err := p.value(0); err == nil || len(p.stack) != 1 || !p.stack[0].mapped {
			t.Fatalf("%d keys: want an unterminated mapped object, got %v, %d open", len(keys), err, len(p.stack))
		}
		if n := len(p.keyMaps[0]); n != len(keys) {
			t.Errorf("%d distinct keys, each twice: %d key map entries, want %d", len(keys), n, len(keys))
		}
	}
}

// TestCanonicalAfterFailedWideObject: a text that fails inside a wide
// object (one the fast path maps) leaves nothing that changes the next
// texts: each later wide object at the same level, whose last key is one
// of the failed object's, is canonicalised as JSON.stringify(JSON.parse())
// writes it (the same text, its keys being distinct and none an index), after
// every kind of failure (the end of the text, a bad byte, a bad key).
// Pins D8.
func TestCanonicalAfterFailedWideObject(t *testing.T) {
	failed := objectText(sameShapeKeys("b", 100), "0")
	failed = failed[:len(failed)-1] // the b keys at members 0 … 99
	good := sameShapeKeys("a", 20)
	for _, tail := range []string{``, `,`, `,"b1099z"`, `,x`, `,"b1099z":tru`, `}]]`} {
		for _, w := range []struct{ open, close string }{{"", ""}, {"[", "]"}, {`{"w":`, "}"}} {
			bad := w.open + failed + tail
			for _, last := range []string{"b1099z", "b1050z", "b1000z"} {
				src := w.open + objectText(append(good[:20:20], last), "1") + w.close
				for round := 0; round < 4; round++ { // the pool hands the parser back
					if _, _, err := fastCanonical(nil, []byte(bad), &canonOptions{}); err == nil {
						t.Fatalf("%q: no error", bad)
					}
					// Distinct keys, none an index: the text is its own
					// canonical form.
					out, info, err := fastCanonical(nil, []byte(src), &canonOptions{})
					if err != nil || string(out) != src || info.depth != 1+len(w.close) {
						t.Fatalf("after %q, %q: %q, depth %d, %v", bad, src, out, info.depth, err)
					}
				}
			}
		}
	}
}

// TestSyntaxPinsValueStartBytes: a printable ASCII character that starts
// no JSON value (RFC 8259 §3: value = false / null / true / object / array
// / number / string) is reported where a value is due as the unexpected
// token it is, quoted, at its own offset, as V8 reports it: ':' and ';'
// just above the digits no less than '!' or '~'.
// Pins D7.
func TestSyntaxPinsValueStartBytes(t *testing.T) {
	// Pins I103.
	for c := byte('!'); c <= '~'; c++ {
		if strings.IndexByte(`"{[]-0123456789tfn`, c) >= 0 {
			continue
		}
		for src, off := range map[string]string{"[" + string(c) + "]": "1", `{"a":` + string(c) + "}": "5", "[1," + string(c): "3"} {
			want := "SyntaxError: Unexpected token '" + string(c) + "' in JSON at position " + off
			for name, f := range canonicalisers {
				if _, _, err := f(nil, []byte(src), &canonOptions{}); err == nil || err.Error() != want {
					t.Errorf("%s(%q): %v, want %s", name, src, err, want)
				}
			}
		}
	}
}

// TestCanonicalWideObjectsPins: keys of wide objects (16 keys or more,
// which the fast path maps) beside and inside other objects: a repeated
// key keeps its first place and its last value, and a key of another
// object (the parent's, or a sibling's at the same level) is no repeat;
// and an array index key of every first digit comes first, ascending
// (ECMA-262 OrdinaryOwnPropertyKeys; JSON.parse's CreateDataProperty).
// Pins D8.
func TestCanonicalWideObjectsPins(t *testing.T) {
	// Pins I97, I98.
	a, b := sameShapeKeys("a", 40), sameShapeKeys("b", 20)
	inner := objectText(b, "0")
	cases := map[string]string{
		// The inner object repeats its own key "y", also its parent's, as
		// its first key and after its 20 others: its own repeat.
		`{"p0":0,"y":{"y":1,` + inner[1:len(inner)-1] + `,"y":2}}`: `{"p0":0,"y":{"y":2,` + inner[1:] + `}`,
		// "y" as the sixth key and after the 21st, spaced out: each key's
		// offset in the text is past its offset in the output.
		strings.ReplaceAll(strings.ReplaceAll(strings.TrimSuffix(objectText(append(append(b[:5:5], "y"), b[5:]...), "0"), "}")+`,"y":2}`, ":", " : "), ",", " , "): strings.Replace(objectText(append(append(b[:5:5], "y"), b[5:]...), "0"), `"y":0`, `"y":2`, 1),
		// "y" repeated in an object whose values grow (1e20 is 21 digits):
		// each key's offset in the output is past its offset in the text.
		strings.TrimSuffix(objectText(append(append(b[:5:5], "y"), b[5:]...), "1e20"), "}") + `,"y":2}`: strings.Replace(objectText(append(append(b[:5:5], "y"), b[5:]...), "100000000000000000000"), `"y":100000000000000000000`, `"y":2`, 1),
		// A sibling at the same level holds the first one's last key once.
		`[` + objectText(a, "0") + `,` + objectText(append(b[:20:20], "a1039z"), "1") + `]`: `[` + objectText(a, "0") + `,` + objectText(append(b[:20:20], "a1039z"), "1") + `]`,
	}
	for d := '1'; d <= '9'; d++ {
		k := string(d) + "5"
		cases[`{"a":1,"`+k+`":2,"`+string(d)+`":3}`] = `{"` + string(d) + `":3,"` + k + `":2,"a":1}`
	}
	cases[`{"a":1,"05":2,"0":3}`] = `{"0":3,"a":1,"05":2}` // "05" is no index
	for src, want := range cases {
		for name, f := range canonicalisers {
			if out, _, err := f(nil, []byte(src), &canonOptions{}); err != nil || string(out) != want {
				t.Errorf("%s(%.60q…): %.60q…, %v; want %.60q…", name, src, out, err, want)
			}
		}
	}
}

// TestSyntaxPinsLiteralCutShort: a literal name (RFC 8259 §3: false,
// null, true) cut short by the end of the text, alone or after other
// values, fails as V8 reports it: Unexpected end of input, at the
// text's length, wherever the output stands.
// Pins D7.
func TestSyntaxPinsLiteralCutShort(t *testing.T) {
	// Pins I103.
	for _, word := range []string{"true", "false", "null"} {
		for n := 1; n < len(word); n++ {
			for _, head := range []string{"", "[", `["abcdefgh",1e20,`, "   "} {
				src := head + word[:n]
				want := "SyntaxError: Unexpected end of input in JSON at position " + fmt.Sprint(len(src))
				for name, f := range canonicalisers {
					if _, _, err := f(nil, []byte(src), &canonOptions{}); err == nil || err.Error() != want {
						t.Errorf("%s(%q): %v, want %s", name, src, err, want)
					}
				}
			}
		}
	}
}

// TestSyntaxPinsMissingColon: an object key not followed by its colon
// (RFC 8259 §4: member = string name-separator value) fails at the byte
// where the colon is due, after any whitespace, or at the end of the text.
// Pins D7.
func TestSyntaxPinsMissingColon(t *testing.T) {
	// Pins I103.
	for src, want := range map[string]string{
		`{"a" 1}`:          "Unexpected token '1' in JSON at position 5",
		`{"a"}`:            "Unexpected token '}' in JSON at position 4",
		`{"a",`:            "Unexpected token ',' in JSON at position 4",
		`[1,{"bcd"  x}]`:   "Unexpected token 'x' in JSON at position 11",
		`{"a":1,"b" "c"}`:  "Unexpected token '\"' in JSON at position 11",
		`{"a"`:             "Unexpected end of input in JSON at position 4",
		`{"a":{"b":0,"c" `: "Unexpected end of input in JSON at position 16",
	} {
		for name, f := range canonicalisers {
			if _, _, err := f(nil, []byte(src), &canonOptions{}); err == nil || err.Error() != "SyntaxError: "+want {
				t.Errorf("%s(%q): %v, want SyntaxError: %s", name, src, err, want)
			}
		}
	}
}

// collidingKeys are two keys whose texts, quotes included, have the same
// 64-bit FNV-1a hash (0x22fb54649713e66b; found by a distinguished-point
// search over 16-hex-digit keys, 2026-12-02): in an object the fast path
// maps, the second is looked up under the first's entry.
var collidingKeys = [2]string{"a24438f05a3d93e0", "267adcd6150a95db"}

// TestCanonicalKeyHashCollision: two distinct keys of a wide object whose
// hashes collide are two members, each keeping its first place and its
// last value (JSON.parse, then JSON.stringify in insertion order), also
// where the text before them is spaced so that the second key's text
// stands, in the input, where the first key stands in the output.
// Pins D8.
func TestCanonicalKeyHashCollision(t *testing.T) {
	// Pins I97, I98.
	k1, k2 := `"`+collidingKeys[0]+`"`, `"`+collidingKeys[1]+`"`
	if keyHash([]byte(k1)) != keyHash([]byte(k2)) {
		t.Fatalf("%s and %s: hashes %x and %x, want one collision", k1, k2, keyHash([]byte(k1)), keyHash([]byte(k2)))
	}
	fill := strings.TrimSuffix(objectText(sameShapeKeys("a", 20), "0"), "}")
	// In the output "n":{k2:0}, takes 22 bytes from k2 to k1's place; 22
	// spaces before the inner k2 put it there in the input.
	for _, pad := range []string{"", strings.Repeat(" ", 22)} {
		src := fill + `,"n":{` + pad + k2 + `:0},` + k1 + `:1,` + k2 + `:2,` + k1 + `:3,` + k2 + `:4}`
		want := fill + `,"n":{` + k2 + `:0},` + k1 + `:3,` + k2 + `:4}`
		for name, f := range canonicalisers {
			if out, _, err := f(nil, []byte(src), &canonOptions{}); err != nil || string(out) != want {
				t.Errorf("%s, pad %d: %.80q…, %v; want %.80q…", name, len(pad), out, err, want)
			}
		}
	}
}
