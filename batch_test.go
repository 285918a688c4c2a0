package hostbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestBatchTotalOnCanonicalBodies pins what 批量发送队列消息's total
// counts: "全部 body 合计不超过 256000 字节" is measured on the canonical
// bodies, what the platform is sent — not on the input texts, which may be
// longer (escapes, whitespace, "1.0") or shorter ("1e21" is written
// "1e+21").
// Pins D14.
func TestBatchTotalOnCanonicalBodies(t *testing.T) {
	// Pins Q34.
	str := func(n int) string { return `"` + strings.Repeat("a", n) + `"` } // canonical n+2 bytes
	list := func(elem string, n int) string { return "[" + strings.TrimSuffix(strings.Repeat(elem, n), ",") + "]" }
	for _, c := range []struct {
		name   string
		bodies []string
		ok     bool
	}{
		// 128000 + 127999 + 1 canonical bytes (the input has 2 more).
		{"exactly 256000", []string{str(127998), str(127997), "1.0"}, true},
		{"256001", []string{str(127998), str(127998), "10"}, false},
		// Inputs of 120000 bytes each, canonical bodies of 40001.
		{"long inputs", []string{list("1    ,", 20000), list("1    ,", 20000), list("1    ,", 20000)}, true},
		// Inputs of 85001 bytes each (255003 together), canonical 102001.
		{"short inputs", []string{list("1e21,", 17000), list("1e21,", 17000), list("1e21,", 17000)}, false},
	} {
		p := newVirtual(t)
		items := make([]string, len(c.bodies))
		for i, b := range c.bodies {
			items[i] = `{"body":` + b + `}`
		}
		err := SendQueueBatch(context.Background(), p, "B", "["+strings.Join(items, ",")+"]")
		if c.ok {
			checkError(t, err, nil)
			if n := len(p.Queued("q")); n != len(c.bodies) {
				t.Errorf("%s: %d messages queued", c.name, n)
			}
			continue
		}
		checkError(t, err, &wantError{"violation", MsgBatchBodiesTotal})
		if calls := p.Calls(); len(calls) != 0 {
			t.Errorf("%s: the platform was called: %+v", c.name, calls[0].Method)
		}
	}
}

// TestBatchBodyInputSize pins that an item's body is refused on its
// input size alone: "输入文字与规范化后的文字都不得超过 128000 个 UTF-8 字节"
// holds for each body of a batch (限制同上), so a body of 128001 input bytes
// whose canonical text is short ("[1]") is refused, at its own index, and
// one of exactly 128000 passes. The input is the body's span, whitespace
// inside it counted, around it not.
// Pins D15.
func TestBatchBodyInputSize(t *testing.T) {
	// Pins Q13, Q33.
	body := func(n int) string { return "[1" + strings.Repeat(" ", n-3) + "]" } // n input bytes, canonical [1]
	for _, c := range []struct {
		name string
		body string
		want *wantError
	}{
		{"128000 input bytes", body(128000), nil},
		{"128001 input bytes", body(128001), &wantError{"violation", MsgBodyTooLarge + MsgItemSuffix + "1"}},
		{"128000 with whitespace around", "  " + body(128000) + "  ", nil},
	} {
		p := newVirtual(t)
		err := SendQueueBatch(context.Background(), p, "B", `[{"body":"ab"},{"body":`+c.body+`}]`)
		if d := errorDiff(err, c.want); d != "" {
			t.Errorf("%s: %s", c.name, d)
		}
		if n := len(p.Queued("q")); (c.want == nil) != (n == 2) {
			t.Errorf("%s: %d messages queued", c.name, n)
		}
	}
}

// TestBatchItemIndex pins the index an item's problem names ("：序号
// n", n from 0 in the array's order) whatever the items before it hold:
// here bodies of 4 and 7 canonical bytes before the bad item 2.
// Pins D14.
func TestBatchItemIndex(t *testing.T) {
	// Pins Q29, Q31.
	for _, c := range []struct{ bad, msg string }{
		{`{"body":1,"x":2}`, MsgItemBadKey + "x"},
		{`{"delaySeconds":5}`, MsgItemNoBody},
		{`[]`, MsgItemNotObject},
		{`{"body":1,"delaySeconds":43201}`, MsgDelayRange},
	} {
		p := newVirtual(t)
		err := SendQueueBatch(context.Background(), p, "B", `[{"body":"ab"},{"body":[1,2,3]},`+c.bad+`,{"body":4}]`)
		checkError(t, err, &wantError{"violation", c.msg + MsgItemSuffix + "2"})
	}
}

// TestBatchNotArrayCause pins the cause a batch that is not a JSON
// array carries: Msg is MsgBatchNotArray exactly, and its Err the parser's
// syntax error (Error: "Err the platform's or the parser's cause"), at the
// offset where the text fails: the text's length for an unexpected end,
// the first bad byte of invalid UTF-8, 0 for a value that is no array
// (only an array is read), and where V8's JSON.parse stops in an item
// with whitespace around its punctuation (node v20.20.2's positions).
// Pins D7, D14.
func TestBatchNotArrayCause(t *testing.T) {
	// Pins Q28.
	for in, off := range map[string]int{
		`[{"body":1},`:          12,
		`{"body":1}`:            0,
		"[{\"body\":\"\xff\"}]": 10,
		"  ":                    2,
		`[{"body" 1}]`:          9,  // Expected ':' after property name
		`[{"body":1 x}]`:        11, // Expected ',' or '}' after property value
		`[{"body":1 , x}]`:      13, // Expected double-quoted property name
		`[ {"body":1} x]`:       13, // Expected ',' or ']' after array element
	} {
		p := newVirtual(t)
		err := SendQueueBatch(context.Background(), p, "B", in)
		checkError(t, err, &wantError{"violation", MsgBatchNotArray})
		var se *syntaxError
		if !errors.As(err, &se) || se.off != off || !strings.HasPrefix(se.Error(), SyntaxPrefix) {
			t.Errorf("%q: cause %v, want a syntax error at position %d", in, errors.Unwrap(err), off)
		}
	}
}

// FuzzBatchSplit: the scan accepts exactly the texts that are JSON arrays,
// finds one item per element (up to MaxBatchMessages+1), and each body it scanned is the canonical
// form of that element's body as a JSON parser sees it.
// Pins D15.
func FuzzBatchSplit(f *testing.F) {
	// Pins Q82.
	for _, s := range []string{
		`[{"body":"],["},{"body":{"body":1}},{"body":"say \"hi\" \\ ],[ {\"body\":1}"}]`,
		`[{"body":1,"delaySeconds":30.0},{"body":2,"body":[3]}]`,
		`[ 1 , {"bo\u0064y" : {"a":[1,2,{"b":null}]} } ,[{"body":1}]]`,
		`[{"body":{"$句柄":1},"body":2}]`, `[]`, `{}`, `[{"body":1}] x`, `[{"body":"\ud800"}]`,
		// Cut short at every point of the scan, and two malformed objects.
		`[`, `[ `, `[{`, `[{ `, `[{"a"`, `[{"a" `, `[{"a":`, `[{"body":1`, `[{"body":1,`, `[{"body":1 `,
		`[{"body":1}`, `[{"body":1},`, `[{"body" 1}]`, `[{"body":1,}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		items, bodies, err := scanBatch(text)
		trimmed := bytes.TrimLeft(text, " \t\r\n")
		isArray := utf8.Valid(text) && json.Valid(text) && len(trimmed) > 0 && trimmed[0] == '['
		if (err == nil) != isArray {
			t.Fatalf("scan error %v, but utf8+json.Valid array = %v", err, isArray)
		}
		if err != nil {
			return
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(text, &elems); err != nil {
			t.Fatal(err)
		}
		if want := min(len(elems), MaxBatchMessages+1); len(items) != want {
			t.Fatalf("%d items of %d elements, want %d", len(items), len(elems), want)
		}
		for n, el := range elems[:len(items)] {
			var obj map[string]json.RawMessage
			isObj := json.Unmarshal(el, &obj) == nil && bytes.TrimLeft(el, " \t\r\n")[0] == '{'
			if items[n].notObject == isObj {
				t.Fatalf("item %d: notObject %v for %s", n, items[n].notObject, el)
			}
			body, ok := obj["body"]
			if !isObj || ok != items[n].hasBody {
				continue
			}
			if !ok {
				continue
			}
			want, _, err := canonical(nil, body, &canonOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := bodies[items[n].bodyStart:items[n].bodyEnd]; !bytes.Equal(got, want) {
				t.Fatalf("item %d body %s, want %s", n, got, want)
			}
		}
	})
}

// TestScanBatchPastTheLimit: past MaxBatchMessages+1 items the scan keeps
// nothing more, yet still parses to the end: a syntax error there is the
// batch's error, and without one the batch has too many items.
// Pins D14.
func TestScanBatchPastTheLimit(t *testing.T) {
	// Pins Q32.
	p := NewMemoryPlatform()
	p.Bind("Q", "q")
	p.Grant("Q")
	items := strings.Repeat(`{"body":{"a":[1,"x"]},"delaySeconds":5},`, 150)
	text := "[" + items + `{"body":2}]`
	got, bodies, err := scanBatch([]byte(text))
	if err != nil || len(got) != MaxBatchMessages+1 || len(bodies) != (MaxBatchMessages+1)*len(`{"a":[1,"x"]}`) {
		t.Fatalf("scanBatch: %d items, %d bytes of bodies, %v", len(got), len(bodies), err)
	}
	checkError(t, SendQueueBatch(context.Background(), p, "Q", text), &wantError{"violation", MsgBatchTooMany})
	checkError(t, SendQueueBatch(context.Background(), p, "Q", "["+items+`{"body":2},]`), &wantError{"violation", MsgBatchNotArray})
	checkError(t, SendQueueBatch(context.Background(), p, "Q", "["+items+`{"body":"\x"}]`), &wantError{"violation", MsgBatchNotArray})
	if calls := p.Calls(); len(calls) != 0 {
		t.Fatalf("platform called: %v", calls)
	}
}

// BenchmarkScanBatch1MiB scans and canonicalises a 1 MiB batch text (too
// many items to send: the scan is what is measured).
func BenchmarkScanBatch1MiB(b *testing.B) { benchScanBatch(b, scanBatch) }

// BenchmarkReferenceScanBatch1MiB is the same on the reference.
func BenchmarkReferenceScanBatch1MiB(b *testing.B) { benchScanBatch(b, refScanBatch) }

func benchScanBatch(b *testing.B, scan func([]byte) ([]batchItem, []byte, error)) {
	text := []byte(benchBatch(MaxBatchBytes - 200))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := scan(text); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDelayValue: an item's delaySeconds, as canonical text, is an integer
// from 0 to 43200; anything else, however long, is not a delay.
// Pins D16.
func TestDelayValue(t *testing.T) {
	// Pins Q23, Q29.
	for in, want := range map[string]int{"0": 0, "1": 1, "43200": 43200, "43201": -1, "100000": -1, "1234567": -1,
		"-1": -1, "1.5": -1, "1e+21": -1, "null": -1, `"5"`: -1, "": -1} {
		d, ok := delayValue([]byte(in))
		if ok != (want >= 0) || ok && d != want {
			t.Errorf("delayValue(%q) = %d, %v; want %d", in, d, ok, want)
		}
	}
}

// TestBatchItemBodyDepth: a batch item's body nested 25 levels (arrays or
// objects, each one level) is refused, naming the item; 24 levels are sent.
// Both builds: the fast scan and the reference's each judge the depth.
func TestBatchItemBodyDepth(t *testing.T) {
	// Pins Q36.
	nests := map[string]func(n int) string{
		"arrays":  func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) },
		"objects": func(n int) string { return strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1) },
	}
	for name, nest := range nests {
		p := newVirtual(t)
		if err := SendQueueBatch(context.Background(), p, "B", `[{"body":1},{"body":`+nest(24)+`}]`); err != nil {
			t.Errorf("%s, 24 levels: %v", name, err)
		} else if q := p.Queued("q"); len(q) != 2 || !rawIs(q[1].Body, nest(24)) {
			t.Errorf("%s, 24 levels: queued %v", name, q)
		}
		err := SendQueueBatch(context.Background(), newVirtual(t), "B", `[{"body":1},{"body":`+nest(25)+`}]`)
		checkError(t, err, &wantError{"violation", "消息体嵌套超过 24 层" + MsgItemSuffix + "1"})
	}
}
