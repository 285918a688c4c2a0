//go:build !hostbridge_ref

package hostbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fast path (canon_fast.go, number_fast.go, jsonstring_fast.go,
// fastScanBatch) is held equal to the reference (canonref*.go,
// refScanBatch), in the default build, where both exist: on every text and
// every option set, the same acceptance, output bytes, depth, first problem
// and its offset, and the same syntax error at the same offset.

// refOptionSets are the option sets the package uses, and the bare one.
var refOptionSets = []struct {
	name string
	o    canonOptions
}{
	{"none", canonOptions{}},
	{"queue producer", bodyOptions},
	{"inbound", canonOptions{syntaxDepthLimit: MaxJSONDepth, infToNull: true, validUTF8: true}},
	{"tight", canonOptions{syntaxDepthLimit: 3, problemDepthLimit: 2, markers: true}},
}

// sameAsReference reports how fastCanonical and refCanonical differ on
// src with o, or "".
func sameAsReference(src []byte, o canonOptions) string {
	if !utf8.Valid(src) {
		o.validUTF8 = false // a promise the caller could not make
	}
	fout, finfo, ferr := fastCanonical(nil, src, &o)
	rout, rinfo, rerr := refCanonical(nil, src, &o)
	switch {
	case fmt.Sprint(ferr) != fmt.Sprint(rerr):
		return fmt.Sprintf("error: fast %v, reference %v", ferr, rerr)
	case !bytes.Equal(fout, rout):
		return fmt.Sprintf("output: fast %q, reference %q", fout, rout)
	case finfo != rinfo:
		return fmt.Sprintf("info: fast %+v, reference %+v", finfo, rinfo)
	}
	return ""
}

// sameBatchAsReference reports how fastScanBatch and refScanBatch differ.
func sameBatchAsReference(src []byte) string {
	fitems, fbodies, ferr := fastScanBatch(src)
	ritems, rbodies, rerr := refScanBatch(src)
	if fmt.Sprint(ferr) != fmt.Sprint(rerr) || len(fitems) != len(ritems) {
		if ferr == nil || rerr == nil || ferr.Error() != rerr.Error() {
			return fmt.Sprintf("fast %d items, %v; reference %d items, %v", len(fitems), ferr, len(ritems), rerr)
		}
	}
	if ferr != nil {
		return "" // the items of a text that is not JSON do not count
	}
	for n := range fitems {
		f, r := fitems[n], ritems[n]
		fb, rb := fbodies[f.bodyStart:f.bodyEnd], rbodies[r.bodyStart:r.bodyEnd]
		f.bodyStart, f.bodyEnd, r.bodyStart, r.bodyEnd = 0, 0, 0, 0
		if f != r || !bytes.Equal(fb, rb) {
			return fmt.Sprintf("item %d: fast %+v %q, reference %+v %q", n, f, fb, r, rb)
		}
	}
	return ""
}

// TestReferenceRandomCorpus: 20,000 documents drawn from a fixed seed by
// genDoc, one in five made invalid, under every option set, and as
// batches. The corpus is generated here, not committed: the seed is the data.
// Pins D8.
func TestReferenceRandomCorpus(t *testing.T) {
	// Pins Q36.
	n := 20000
	if testing.Short() {
		n = 4000
	}
	docs, invalid := refCorpus(n)
	if invalid*5 < n*9/10 || invalid*5 > n*11/10 {
		t.Fatalf("%d of %d documents invalid, want about a fifth", invalid, n)
	}
	fails := 0
	for i, src := range docs {
		for _, s := range refOptionSets {
			if d := sameAsReference(src, s.o); d != "" && fails < 10 {
				fails++
				t.Errorf("doc %d %q, options %s: %s", i, src, s.name, d)
			}
		}
		if i%4 == 0 {
			batch := append(append([]byte(`[{"body":`), src...), `,"delaySeconds":3},1]`...)
			if d := sameBatchAsReference(batch); d != "" && fails < 10 {
				fails++
				t.Errorf("batch of doc %d %q: %s", i, batch, d)
			}
		}
	}
}

// refCorpus draws n documents from seed 11 and returns them and how many
// are not JSON (by json.Valid and utf8.Valid, not by either canonicaliser).
func refCorpus(n int) ([][]byte, int) {
	r := rand.New(rand.NewPCG(11, 2026))
	docs := make([][]byte, n)
	invalid := 0
	for i := range docs {
		var b bytes.Buffer
		genValue(&b, r, 0)
		doc := b.Bytes()
		if i%5 == 4 {
			doc = breakDoc(r, doc)
		}
		if !utf8.Valid(doc) || !json.Valid(doc) {
			invalid++
		}
		docs[i] = doc
	}
	return docs, invalid
}

// genKeys are keys that exercise the rules: array indexes (and strings
// that are not: "01", "-1", 2^32−1), markers written plain and escaped,
// escapes that spell the same key twice.
var genKeys = []string{`"a"`, `"b"`, `"\u0061"`, `"0"`, `"1"`, `"10"`, `"2"`, `"01"`, `"-1"`,
	`"4294967294"`, `"4294967295"`, `"$句柄"`, `"\u0024未定义"`, `"$大整数"`, `"$数字"`, `"$"`,
	`"键"`, `"\ud800"`, `"\ud83d\ude00"`, `"😀"`, `""`, `"a\nb"`, `"\/"`}

// genStrings are string values: escapes of every kind, lone and paired
// surrogates, raw multi-byte text.
var genStrings = []string{`""`, `"x"`, `"\"\\\/\b\f\n\r\t"`, `"\u0000\u001f\u007f\u0080"`, `"\uD800"`,
	`"\udc00x"`, `"\ud83d\ude00"`, `"\ud83d\ud83d\ude00"`, `"\uDE00\uD83D"`, `"é東京😀"`, `"\u2028\u2029"`,
	`"\u00e9t\u00E9"`, `"` + strings.Repeat("long ", 20) + `"`}

// genNumbers are numbers of every form and the edges of Number::toString.
var genNumbers = []string{"0", "-0", "1", "-1", "0.1", "1.0", "1e21", "1e20", "123456789012345678901",
	"0.000001", "0.0000001", "1E+2", "1e-7", "-1.5e-300", "1e400", "-1e400", "1e-400", "4.9e-324",
	"1.7976931348623157e308", "1.7976931348623159e308", "9007199254740993", "0.30000000000000004",
	"1" + strings.Repeat("0", 810) + "e-810", "0." + strings.Repeat("0", 500) + "1e501", "100", "2.50"}

// genValue writes a random JSON value nested at most 6 deep beyond depth.
func genValue(b *bytes.Buffer, r *rand.Rand, depth int) {
	k := r.IntN(10)
	if depth >= 6 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	case 1, 2:
		b.WriteString(genStrings[r.IntN(len(genStrings))])
	case 3:
		b.WriteString(genNumbers[r.IntN(len(genNumbers))])
	case 4:
		b.WriteString(strconv.FormatFloat((r.Float64()-0.5)*float64(r.IntN(1e6)), 'g', -1+r.IntN(20), 64))
	case 5, 6:
		genContainer(b, r, depth, '[', ']', false)
	default:
		genContainer(b, r, depth, '{', '}', true)
	}
}

// genContainer writes an array or object of a few members (fewer the
// deeper; near the top a few with 20), with whitespace here and there.
func genContainer(b *bytes.Buffer, r *rand.Rand, depth int, open, close byte, object bool) {
	space := func() {
		if r.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n", "\t", "\r\n  "}[r.IntN(4)])
		}
	}
	n := r.IntN(max(7-2*depth, 3))
	if depth < 2 && r.IntN(20) == 0 {
		n = 20 // past the fast path's 16-key threshold
	}
	b.WriteByte(open)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		space()
		if object {
			b.WriteString(genKeys[r.IntN(len(genKeys))])
			space()
			b.WriteByte(':')
			space()
		}
		genValue(b, r, depth+1)
		space()
	}
	b.WriteByte(close)
}

// breakDoc spoils a document: a byte cut, changed or added, the end cut
// off, or invalid UTF-8 or a bad escape put in.
func breakDoc(r *rand.Rand, doc []byte) []byte {
	for try := 0; try < 20; try++ {
		d := bytes.Clone(doc)
		i := r.IntN(len(d) + 1)
		switch r.IntN(6) {
		case 0:
			d = d[:i]
		case 1:
			if i < len(d) {
				d = append(d[:i], d[i+1:]...)
			}
		case 2:
			d = append(d[:i], append([]byte{`{}[]:,"\-.e01tx `[r.IntN(16)]}, d[i:]...)...)
		case 3:
			d = append(d[:i], append([]byte{[]byte("\xff\xc0\xe0\x80\xed\xa0\xf4\x90")[r.IntN(8)]}, d[i:]...)...)
		case 4:
			d = append(d[:i], append([]byte([]string{`\q`, `\u12`, `\u`, `\`, "\x01", `\uZZZZ`}[r.IntN(6)]), d[i:]...)...)
		default:
			d = append(d, []string{" x", ",", "]", "}", " 1", "\x00"}[r.IntN(6)]...)
		}
		if !utf8.Valid(d) || !json.Valid(d) {
			return d
		}
	}
	return append(doc, ']') // no luck: a bracket too many
}

// FuzzReference compares the fast path with the reference on any bytes,
// under every option set, and as a batch.
// Pins D8.
func FuzzReference(f *testing.F) {
	docs, _ := refCorpus(200)
	for _, d := range docs {
		f.Add(d)
	}
	for _, r := range loadOptionsRows(f) {
		if b := build(f, r.Text); len(b) < 4096 {
			f.Add(b)
		}
	}
	// Key order around the array index 0, and a lone trail surrogate after
	// a character.
	for _, s := range []string{`{"1":1,"0":2}`, `{"x":1,"0":2}`, `{"0":1,"x":2}`, `"a\udc00"`} {
		f.Add([]byte(s))
	}
	// Numbers the reference's own scan finds the error in: after a 0, and at
	// an exponent after a fraction whose first digit is 0 or 9.
	for _, s := range []string{"[0.x]", "[0ex]", "[1.0e]", "[1.9e]", "[-0.e]"} {
		f.Add([]byte(s))
	}
	// Batches of 100 and 101 items: the scans keep MaxBatchMessages+1.
	for _, n := range []int{100, 101} {
		f.Add([]byte("[" + strings.Repeat(`{"body":1},`, n-1) + `{"body":1}]`))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, s := range refOptionSets {
			if d := sameAsReference(src, s.o); d != "" {
				t.Fatalf("%q, options %s: %s", src, s.name, d)
			}
		}
		if d := sameBatchAsReference(src); d != "" {
			t.Fatalf("batch %q: %s", src, d)
		}
	})
}
