package hostbridge

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Benchmarks of canonical on deterministic "realistic" documents, with
// json.Valid on the same bytes as a floor. testdata/gen/bench-canon.sh runs
// them beside node's JSON.stringify(JSON.parse(text)) on the same documents
// (testdata/gen/bench-node.js) and prints a table.

var benchSizes = []struct {
	name string
	size int
}{
	{"128KB", 128 << 10},
	{"1MiB", 1 << 20},
	{"8MiB", 8 << 20},
}

var benchDocs sync.Map // size → []byte

// benchDoc returns a deterministic JSON document of about size bytes: an
// array of records with floats, integers, strings with non-ASCII text and
// escapes, objects with array-index keys, and nesting up to 6 levels; some
// records compact, some with whitespace.
func benchDoc(size int) []byte {
	if b, ok := benchDocs.Load(size); ok {
		return b.([]byte)
	}
	r := rand.New(rand.NewPCG(20240601, uint64(size)))
	var b bytes.Buffer
	b.Grow(size + 4096)
	b.WriteString("[\n")
	for i := 0; b.Len() < size-2048; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		writeBenchRecord(&b, r, i)
	}
	b.WriteString("\n]\n")
	doc := b.Bytes()
	benchDocs.Store(size, doc)
	return doc
}

var benchWords = []string{
	"alpha", "beta", "gamma", "café", "naïve", "Grüße", "niño", "東京", "北京市",
	"数据", "Δέλτα", "Привет", "😀", "🎉party", "a/b", "x<y>", "tab\\tsep", "line\\nbreak",
	"\\\"quoted\\\"", "back\\\\slash", "\\u00e9t\\u00e9", "\\ud83d\\ude00", "\\u2028", "plain",
}

func benchString(b *bytes.Buffer, r *rand.Rand, words int) {
	b.WriteByte('"')
	for i := 0; i < words; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[r.IntN(len(benchWords))])
	}
	b.WriteByte('"')
}

func benchFloat(b *bytes.Buffer, r *rand.Rand) {
	var s []byte
	switch r.IntN(6) {
	case 0:
		s = strconv.AppendFloat(nil, r.Float64()*1000, 'f', 2, 64) // a price
	case 1:
		s = strconv.AppendFloat(nil, (r.Float64()-0.5)*360, 'f', 7, 64) // a coordinate
	case 2:
		s = strconv.AppendFloat(nil, r.NormFloat64(), 'g', -1, 64)
	case 3:
		s = strconv.AppendFloat(nil, r.Float64()*1e-9, 'e', -1, 64)
	case 4:
		s = strconv.AppendFloat(nil, r.ExpFloat64()*1e22, 'E', 10, 64)
	default:
		s = strconv.AppendInt(nil, 1690000000000+r.Int64N(1e10), 10) // a timestamp
	}
	b.Write(s)
}

func writeBenchRecord(b *bytes.Buffer, r *rand.Rand, id int) {
	sep, colon := ",", ":"
	if r.IntN(3) == 0 {
		sep, colon = ", ", ": "
	}
	key := func(k string) {
		b.WriteByte('"')
		b.WriteString(k)
		b.WriteByte('"')
		b.WriteString(colon)
	}
	b.WriteByte('{')
	key("id")
	b.WriteString(strconv.Itoa(id))
	b.WriteString(sep)
	key("name")
	benchString(b, r, 1+r.IntN(4))
	b.WriteString(sep)
	key("price")
	benchFloat(b, r)
	b.WriteString(sep)
	key("active")
	b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	b.WriteString(sep)
	key("tags")
	b.WriteByte('[')
	for i, n := 0, r.IntN(5); i < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		benchString(b, r, 1)
	}
	b.WriteByte(']')
	b.WriteString(sep)
	key("geo")
	b.WriteByte('{')
	key("lat")
	benchFloat(b, r)
	b.WriteString(sep)
	key("lon")
	benchFloat(b, r)
	b.WriteByte('}')
	b.WriteString(sep)
	// Array-index keys out of order, among named ones.
	key("attrs")
	b.WriteByte('{')
	key("color")
	benchString(b, r, 1)
	for i, n := 0, r.IntN(4); i < n; i++ {
		b.WriteString(sep)
		key(strconv.Itoa(r.IntN(20)))
		benchFloat(b, r)
	}
	b.WriteByte('}')
	b.WriteString(sep)
	key("desc")
	benchString(b, r, 3+r.IntN(12))
	b.WriteString(sep)
	key("history")
	b.WriteByte('[')
	for i, n := 0, r.IntN(4); i < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteByte('{')
		key("t")
		benchFloat(b, r)
		b.WriteString(sep)
		key("v")
		benchFloat(b, r)
		b.WriteString(sep)
		key("meta")
		b.WriteByte('{')
		key("src")
		b.WriteByte('{')
		key("path")
		b.WriteByte('[')
		benchString(b, r, 1)
		b.WriteString(sep)
		b.WriteString(strconv.Itoa(r.IntN(1000)))
		b.WriteByte(']')
		b.WriteByte('}')
		b.WriteByte('}')
		b.WriteByte('}')
	}
	b.WriteByte(']')
	b.WriteByte('}')
}

// BenchmarkCanonical canonicalises the realistic documents as the inbound
// JSON functions do (±Infinity as null), and the 128KB one also with the
// queue producer's checks.
func BenchmarkCanonical(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) { benchCanonical(b, benchDoc(s.size), &canonOptions{infToNull: true}) })
	}
	b.Run("128KB/queue", func(b *testing.B) {
		benchCanonical(b, benchDoc(benchSizes[0].size), &canonOptions{problemDepthLimit: MaxMessageDepth, markers: true})
	})
}

// BenchmarkReference canonicalises the same documents with the reference
// (canon_ref.go), as the hostbridge_ref build does.
func BenchmarkReference(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) { benchWith(b, refCanonical, benchDoc(s.size), &canonOptions{infToNull: true}) })
	}
}

func benchCanonical(b *testing.B, src []byte, o *canonOptions) { benchWith(b, canonical, src, o) }

func benchWith(b *testing.B, canonical func(dst, src []byte, o *canonOptions) ([]byte, valueReport, error), src []byte, o *canonOptions) {
	dst, _, err := canonical(nil, src, o)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		dst, _, err = canonical(dst[:0], src, o)
	}
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkJSONValid(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			src := benchDoc(s.size)
			if !json.Valid(src) {
				b.Fatal("benchmark document is not valid JSON")
			}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				json.Valid(src)
			}
		})
	}
}

// TestBenchDoc: the benchmark documents are valid JSON of about their size,
// the same on every call.
func TestBenchDoc(t *testing.T) {
	s := benchSizes[0].size
	d := benchDoc(s)
	if !json.Valid(d) || len(d) < s-4096 || len(d) > s+4096 {
		t.Fatalf("benchmark document: valid %v, %d bytes", json.Valid(d), len(d))
	}
	benchDocs.Delete(s)
	if !bytes.Equal(benchDoc(s), d) {
		t.Fatal("benchmark document is not deterministic")
	}
}

// TestWriteBenchDocs writes the benchmark documents, and canonical's output
// for each, to $HOSTBRIDGE_BENCH_DIR for testdata/gen/bench-node.js.
func TestWriteBenchDocs(t *testing.T) {
	dir := os.Getenv("HOSTBRIDGE_BENCH_DIR")
	if dir == "" {
		t.Skip("HOSTBRIDGE_BENCH_DIR not set")
	}
	for _, s := range benchSizes {
		src := benchDoc(s.size)
		if err := os.WriteFile(filepath.Join(dir, "bench-"+s.name+".json"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		out, _, err := canonical(nil, src, &canonOptions{infToNull: true})
		if err != nil {
			t.Logf("%s: canonical: %v", s.name, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "bench-"+s.name+".canonical"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// BenchmarkScanBatch1MiB's batch text, and the canonical form of each
	// item's body, one per line (the scan itself keeps only the first 101:
	// the batch has far more items than can be sent).
	batch := []byte(benchBatch(MaxBatchBytes - 200))
	if err := os.WriteFile(filepath.Join(dir, "batch-1MiB.json"), batch, 0o644); err != nil {
		t.Fatal(err)
	}
	var items []struct{ Body json.RawMessage }
	if err := json.Unmarshal(batch, &items); err != nil {
		t.Fatal(err)
	}
	var bodies []byte
	for _, it := range items {
		out, _, err := canonical(nil, it.Body, &canonOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(append(bodies, out...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "batch-1MiB.canonical"), bodies, 0o644); err != nil {
		t.Fatal(err)
	}
}

// worstDocs returns adversarial documents of about size bytes: an object of
// array-index keys in descending order (canonical sorts them), an object of
// distinct keys each repeated once, and size/2 nested arrays.
func worstDocs(size int) []struct {
	name string
	src  []byte
} {
	var desc, dup bytes.Buffer
	desc.WriteByte('{')
	n := 0
	for i := size / 9; desc.Len() < size-16 && i > 0; i-- {
		if n > 0 {
			desc.WriteByte(',')
		}
		desc.WriteString(`"` + strconv.Itoa(i) + `":0`)
		n++
	}
	desc.WriteByte('}')
	dup.WriteByte('{')
	for i := 0; dup.Len() < size-32; i++ {
		if i > 0 {
			dup.WriteByte(',')
		}
		dup.WriteString(`"k` + strconv.Itoa(i) + `":0,"k` + strconv.Itoa(i/2) + `":1`)
	}
	dup.WriteByte('}')
	nest := append(bytes.Repeat([]byte("["), size/2), bytes.Repeat([]byte("]"), size/2)...)
	return []struct {
		name string
		src  []byte
	}{{"indexKeysDesc", desc.Bytes()}, {"dupKeys", dup.Bytes()}, {"nested", nest}}
}

// BenchmarkCanonicalWorstCase measures adversarial inputs of the queue
// producer's input limit (128000 bytes) with its options.
func BenchmarkCanonicalWorstCase(b *testing.B) {
	for _, d := range worstDocs(MaxMessageBytes) {
		b.Run(d.name, func(b *testing.B) {
			o := &canonOptions{problemDepthLimit: MaxMessageDepth, markers: true}
			dst, _, err := canonical(nil, d.src, o)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(d.src)))
			b.ReportAllocs()
			for b.Loop() {
				dst, _, _ = canonical(dst[:0], d.src, o)
			}
		})
	}
}

// BenchmarkCanonicalProse is a document of long strings (English, Cyrillic,
// CJK, a URL): the string scanner's eight-bytes-at-a-time path.
func BenchmarkCanonicalProse(b *testing.B) {
	unit := `{"title":"` + strings.Repeat("The quick brown fox jumps over the lazy dog. ", 6) +
		`","body":"` + strings.Repeat("Съешь же ещё этих мягких французских булок, да выпей чаю. 中文字符测试。", 4) +
		`","url":"https://example.com/a/b/c?x=1&y=2"}`
	doc := []byte("[" + strings.Repeat(unit+",", 2000) + unit + "]")
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	dst := make([]byte, 0, len(doc)+16)
	for b.Loop() {
		if _, _, err := canonical(dst[:0], doc, &canonOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
