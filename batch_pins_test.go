package hostbridge

import (
	"context"
	"strings"
	"testing"
)

// TestBatchPinsTotalOnCanonicalBodies pins what 批量发送队列消息's total
// counts: "全部 body 合计不超过 256000 字节" is measured on the canonical
// bodies, what the platform is sent — not on the input texts, which may be
// longer (escapes, whitespace, "1.0") or shorter ("1e21" is written
// "1e+21").
// Pins D14.
func TestBatchPinsTotalOnCanonicalBodies(t *testing.T) {
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
