//go:build !hostbridge_ref

package hostbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Tests of the fast path's own tricks (canon_fast.go, canon_fast_number.go,
// canon_fast_string.go), each against the simple code it replaces. What the
// tricks must compute is pinned by the rule tests in canon_test.go, which
// run on the fast path too in this build (the init below), and by
// FuzzReference and TestReferenceRandomCorpus (below), which hold the
// whole fast path equal to the reference.

func init() { canonicalisers["fast"] = fastCanonical }

// TestFastStringRun: the eight-bytes-at-a-time scan stops at the same byte as a
// byte-at-a-time one, and says the same of the bytes before it, for every
// string of up to 11 bytes over the bytes at the edges of its tests (a
// control just below ' ', '"' and '\\' beside their neighbours, bytes
// around 0x80), from every start.
func TestFastStringRun(t *testing.T) {
	alphabet := []byte{0x00, 0x1f, ' ', '!', '"', '#', '[', '\\', ']', 'a', 0x7f, 0x80, 0xc3, 0xff}
	naive := func(src []byte, j int) (int, bool) {
		wide := false
		for ; j < len(src); j++ {
			c := src[j]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			wide = wide || c >= 0x80
		}
		return j, wide
	}
	randomBytes(7, 200000, 11, alphabet, func(src []byte) {
		for j := 0; j <= len(src); j++ {
			gotEnd, gotWide := stringRun(src, j)
			wantEnd, wantWide := naive(src, j)
			if gotEnd != wantEnd || gotWide != wantWide {
				t.Fatalf("stringRun(%q, %d) = %d, %v; want %d, %v", src, j, gotEnd, gotWide, wantEnd, wantWide)
			}
		}
	})
}

// TestFastAlreadyShortest: whenever alreadyShortest says a decimal's digits are
// the ones Number::toString writes for its double, strconv's shortest
// digits of that double are those digits. The decimals are the shortest
// forms of random doubles from 1e-12 to 1e19 (where it should say so, and
// mostly does: the test fails if it says so for fewer than 90%), and those
// forms changed: the last digit moved by one either way, a digit added,
// the last digit dropped.
func TestFastAlreadyShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	var said, tried int
	check := func(m uint64, q int, want bool) {
		got := alreadyShortest(m, q)
		if want {
			tried++
			if got {
				said++
			}
		}
		if !got {
			return
		}
		f, err := strconv.ParseFloat(strconv.FormatUint(m, 10)+"e-"+strconv.Itoa(q), 64)
		if err != nil {
			t.Fatal(err)
		}
		digits, exp := shortestDigits(f)
		if digits != strconv.FormatUint(m, 10) || exp != len(digits)-q {
			t.Fatalf("alreadyShortest(%d, %d) = true, but the double %v is 0.%s × 10^%d", m, q, f, digits, exp)
		}
	}
	for n := 0; n < 400000; n++ {
		f := math.Pow(10, -12+31*r.Float64())
		if n < 3000 {
			// Powers of two and their neighbours, where the gaps to the
			// doubles either side differ.
			f = math.Nextafter(math.Ldexp(1, -40+n/30), math.Inf(n%30-15))
			for k := n % 15; k > 0; k-- {
				f = math.Nextafter(f, math.Inf(n%30-15))
			}
		}
		digits, exp := shortestDigits(f)
		m, _ := strconv.ParseUint(digits, 10, 64)
		q := len(digits) - exp
		if m < 1e15 {
			// Fewer than 16 digits need no vouching. Make it long.
			for m < 1e15 {
				m, q = m*10+uint64(1+r.IntN(9)), q+1
			}
			check(m, q, false)
			continue
		}
		inRange := 0 <= q && q <= maxPow5 && math.Float64bits(f)&(1<<52-1) != 0
		check(m, q, inRange)
		check(m+1, q, false)
		if m%10 != 1 {
			check(m-1, q, false)
		}
		if m < 1e18 {
			check(m*10+uint64(1+r.IntN(9)), q+1, false)
		}
		if m/10%10 != 0 && m >= 1e16 {
			check(m/10, q-1, false)
		}
	}
	if said < tried*9/10 {
		t.Errorf("alreadyShortest said so of %d of %d shortest forms", said, tried)
	}
	t.Logf("alreadyShortest said so of %d of %d shortest forms", said, tried)
}

// TestFastAlreadyShortestPowersOfTwo: near a power of two the gaps to the
// doubles either side differ. For every power of two in alreadyShortest's
// range, every decimal of 16 to 19 digits that can read back as it (all
// within a few thousand steps of the nearest one) gets the answer strconv
// gives, whenever alreadyShortest says so.
func TestFastAlreadyShortestPowersOfTwo(t *testing.T) {
	for k := -40; k <= 63; k++ {
		f := math.Ldexp(1, k)
		for digits := 16; digits <= 19; digits++ {
			s := strconv.FormatFloat(f, 'e', digits-1, 64)
			mant, e, _ := strings.Cut(s, "e")
			exp, _ := strconv.Atoi(e)
			m0, _ := strconv.ParseUint(strings.Replace(mant, ".", "", 1), 10, 64)
			q := digits - 1 - exp
			for m := m0 - 3000; m <= m0+3000; m++ {
				if !alreadyShortest(m, q) {
					continue
				}
				g, err := strconv.ParseFloat(strconv.FormatUint(m, 10)+"e-"+strconv.Itoa(q), 64)
				if err != nil {
					t.Fatal(err)
				}
				if d, n := shortestDigits(g); d != strconv.FormatUint(m, 10) || n != len(d)-q {
					t.Fatalf("alreadyShortest(%d, %d) = true, but the double %v is 0.%s × 10^%d", m, q, g, d, n)
				}
			}
		}
	}
}

// TestFastKeysMapped: an object's keys are looked up in a map, not by
// scanning its members, by its 65th key at the latest, whatever the keys
// (keyBit's 64 bits are full by then), and an object of 16 keys or fewer is
// never mapped. Keys of one length and first and last characters share a
// keyBit, so those objects are mapped at their 17th key.
func TestFastKeysMapped(t *testing.T) {
	// mappedAt is the key at which the object {keys…} (left open) is
	// mapped, or 0.
	mappedAt := func(keys []string) int {
		for n := range keys {
			p := &parser{src: []byte(`{"` + strings.Join(keys[:n+1], `":0,"`) + `":0`), o: &canonOptions{}}
			if _, _, err := p.value(0); err == nil || len(p.stack) != 1 {
				t.Fatalf("keys %q: want an unterminated object, got %v", keys[:n+1], err)
			}
			if p.stack[0].mapped {
				return n + 1
			}
		}
		return 0
	}
	r := rand.New(rand.NewPCG(11, 65))
	for trial := 0; trial < 200; trial++ {
		seen := map[string]bool{}
		var keys, same []string
		for len(keys) < 65 {
			if k := strconv.FormatUint(r.Uint64()>>r.IntN(64), 36); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
				same = append(same, "a"+strconv.Itoa(1000+len(keys))+"z")
			}
		}
		if n := mappedAt(keys); n < 17 {
			t.Fatalf("keys %q: mapped at key %d (0: never), want 17 to 65", keys, n)
		}
		if n := mappedAt(same); n != 17 {
			t.Fatalf("keys %q: mapped at key %d (0: never), want 17", same, n)
		}
	}
}

// The fast path (canon_fast.go, canon_fast_number.go, canon_fast_string.go,
// fastScanBatch) is held equal to the reference (canon_ref*.go,
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

// TestNumberLongLeavesTextAlone: numbers of over 700 digits are spelt
// again for strconv in the parser's own buffer, never in the text: after
// two of them and an object whose index key makes it be rewritten, the
// text is byte for byte as it was, and the output is the reference's
// (D8: the canonical form of the text as given).
// Pins D8.
func TestNumberLongLeavesTextAlone(t *testing.T) {
	long := "1" + strings.Repeat("0", 800) + "e-800"
	src := []byte("[" + long + ",-" + strings.Repeat("12345678", 120) + "e-950," + long + `,{"b":1,"1":[true]},"abc"]`)
	orig := bytes.Clone(src)
	want, _, werr := refCanonical(nil, orig, &canonOptions{})
	got, _, err := fastCanonical(nil, src, &canonOptions{})
	if !bytes.Equal(src, orig) {
		t.Errorf("the text changed while it was read")
	}
	if err != nil || werr != nil || !bytes.Equal(got, want) {
		t.Errorf("%q, %v; reference %q, %v", got, err, want, werr)
	}
}

// TestStringSurrogateEscapeFollowers: a high-surrogate escape (\ud800,
// \udbff) followed by each thing that can come after it — the end of the
// text, a lone backslash at the end, "\u" cut short, a second escape whose
// value is just below, at, inside, at the top of and just above the low
// surrogates (U+DBFF, U+DC00, U+DFFF, U+E000), another high surrogate, a
// bad hex digit, another escape, the closing quote — is read by the fast
// path as by the reference: a pair becomes its code point, anything else
// leaves the lone surrogate as a \udxxx escape, and a text cut short fails
// with the same reason at the same offset (D7, D8).
func TestStringSurrogateEscapeFollowers(t *testing.T) {
	followers := []string{
		``, `\`, `\u`, `\ud`, `\udc0`, `\udbff`, `\udc00`, `\udfff`, `\ue000`,
		`\ud800`, `\udcg0`, `\n`, `\"`, `x`, `"`,
	}
	for _, high := range []string{`\ud800`, `\udbff`, `\udc00`} {
		for _, f := range followers {
			for _, tail := range []string{``, `"`, `"]`} {
				for _, wrap := range []string{"", "["} {
					src := wrap + `"` + high + f + tail
					for _, set := range refOptionSets {
						if d := sameAsReference([]byte(src), set.o); d != "" {
							t.Errorf("%q (%s): %s", src, set.name, d)
						}
					}
				}
			}
		}
	}
	// Two results pinned as literals: a pair, and a high surrogate
	// followed by another high one (U+DBFF is not a low surrogate).
	for src, want := range map[string]string{
		`"\ud800\udc00"`: "\"\U00010000\"",
		`"\ud800\udbff"`: `"\ud800\udbff"`,
	} {
		out, _, err := fastCanonical(nil, []byte(src), &canonOptions{})
		if err != nil || string(out) != want {
			t.Errorf("%s: %q, %v; want %q", src, out, err, want)
		}
	}
}

// TestStringCopyBesideOutputOffset: a string's plain bytes are copied as
// they are whatever the output's length and spare capacity, and wherever
// the string sits in the text: after values whose canonical form is longer
// than their source (1e20 is 21 digits) or shorter (whitespace, \u00e9),
// appended to a prefix of several lengths with no, exact or extra spare
// capacity, with runs of every length from 0 to 72 before and after an
// escape, and a padding of every length after the string. The result is
// the prefix then the reference's output (D8).
func TestStringCopyBesideOutputOffset(t *testing.T) {
	heads := []string{"", "1e20,", "1e20,1e20,", "1e20,1e20,1e20,", "  1  ,  ", `"\u00e9\u00e9\u00e9\u00e9",`}
	for _, head := range heads {
		for n := 0; n <= 72; n++ {
			run := strings.Repeat("abcdefgh", 10)[:n]
			for _, body := range []string{run, run + `\n` + run, `\t` + run} {
				for pad := 0; pad <= 72; pad += 3 {
					src := "[" + head + `"` + body + `","` + strings.Repeat("z", pad) + `"]`
					checkAppendedAsReference(t, []byte(src))
				}
			}
		}
	}
}

// checkAppendedAsReference canonicalises src after prefixes of 0, 40 and
// 200 bytes with no, exact and extra spare capacity, and compares each
// result with the prefix followed by the reference's output.
func checkAppendedAsReference(t *testing.T, src []byte) {
	t.Helper()
	want, _, werr := refCanonical(nil, src, &canonOptions{})
	for _, size := range []int{0, 40, 200} {
		for _, spare := range []int{0, len(src) + 16, len(src) + 80} {
			dst := make([]byte, size, size+spare)
			for k := range dst {
				dst[k] = '#'
			}
			got, _, err := fastCanonical(dst, src, &canonOptions{})
			if (err == nil) != (werr == nil) {
				t.Fatalf("%q after %d (+%d): error %v, reference %v", src, size, spare, err, werr)
			}
			if err == nil && !bytes.Equal(got, append(bytes.Repeat([]byte("#"), size), want...)) {
				t.Fatalf("%q after %d (+%d): %q, reference %q", src, size, spare, got, want)
			}
		}
	}
}

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

// TestCanonicalWideObjects: keys of wide objects (16 keys or more,
// which the fast path maps) beside and inside other objects: a repeated
// key keeps its first place and its last value, and a key of another
// object (the parent's, or a sibling's at the same level) is no repeat;
// and an array index key of every first digit comes first, ascending
// (ECMA-262 OrdinaryOwnPropertyKeys; JSON.parse's CreateDataProperty).
// Pins D8.
func TestCanonicalWideObjects(t *testing.T) {
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

// collidingKeys are two keys whose texts, quotes included, have the same
// 64-bit FNV-1a hash (0x22fb54649713e66b; found by a distinguished-point
// search over 16-hex-digit keys): in an object the fast path
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
