package hostbridge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestConsumerPinsNotJSONCause pins the cause MsgMessageNotJSON carries: a
// body that is not JSON has the parser's syntax error as its Err (Error:
// "Err the platform's or the parser's cause"), at the offset where the
// body fails; a body that is JSON but holds ±Infinity, or that is no
// json.RawMessage, has no parser's error and so no cause. Msg is the
// message's text exactly, with the failing message's index.
// Pins D7, D23.
func TestConsumerPinsNotJSONCause(t *testing.T) {
	// Pins Q58.
	for _, c := range []struct {
		body any
		off  int // of the syntax error; -1: no cause
	}{
		{json.RawMessage(`[1,`), 3},
		{json.RawMessage("[\"\xff\"]"), 2},
		{json.RawMessage(`{"a" 1}`), 5},
		{json.RawMessage(`[1e400]`), -1},
		{"1", -1},
	} {
		b := &recBatch{queue: "Q", msgs: []Message{{ID: "a", Body: json.RawMessage(`1`)}, {ID: "b", Body: c.body}}}
		_, err := ReadQueueBatch(testEvent{kind: EventQueue, batch: b})
		if d := errorDiff(err, &wantError{"violation", MsgMessageNotJSON + "1"}); d != "" {
			t.Errorf("%q: %s", c.body, d)
			continue
		}
		var se *syntaxError
		switch cause := errors.Unwrap(err); {
		case c.off < 0 && cause != nil:
			t.Errorf("%q: cause %v, want none", c.body, cause)
		case c.off >= 0 && (!errors.As(err, &se) || se.off != c.off || !strings.HasPrefix(se.Error(), SyntaxPrefix)):
			t.Errorf("%q: cause %v, want a syntax error at position %d", c.body, cause, c.off)
		}
	}
}
