package main

import (
	"encoding/json"
	"strings"
	"testing"

	"hostbridge/internal/conform"
)

// TestMalformedMessages: a message the adapter cannot read is answered with
// a protocol_error naming what is wrong (its id when it has one), never a
// result, and the adapter goes on.
func TestMalformedMessages(t *testing.T) {
	for _, c := range []struct{ line, says string }{
		{`not json`, "not a JSON object"},
		{`{"type": "bye", "id": 3}`, `unknown message type "bye"`},
		{`{"type": "case", "id": 4, "event": null, "calls": [{"function": "读取入站方法甲", "args": []}]}`, `unknown function "读取入站方法甲"`},
		{`{"type": "case", "id": 5, "event": null, "calls": [{"function": "确认队列消息", "args": ["one"]}]}`, "args[0]"},
		{`{"type": "case", "id": 6, "event": null, "calls": [{"function": "确认队列消息", "args": [1.5]}]}`, "not an integer"},
		{`{"type": "case", "id": 7, "event": {"kind": "fetch", "request": {"method": "GET", "url": {"hex": "zz"}, "headers": []}}, "calls": []}`, "hex"},
		{`{"type": "case", "id": 8, "event": {"kind": "fetch", "request": {"method": "GET", "url": "\ud800", "headers": []}}, "calls": []}`, "lone surrogate"},
		{`{"type": "case", "id": 9, "event": {"kind": "fetch", "request": {"method": "GET", "headers": []}}, "calls": []}`, "neither url nor target"},
	} {
		var res conform.Result
		if err := json.Unmarshal(answer([]byte(c.line), fault{}), &res); err != nil {
			t.Fatal(err)
		}
		if res.Type != conform.TypeProtocolError || !strings.Contains(res.Message, c.says) {
			t.Errorf("%s: answered %+v, want a protocol error saying %q", c.line, res, c.says)
		}
	}
}

// TestHello: the handshake lists the 22 spec functions and canonicalJSON,
// both specs, and the package's event kinds.
func TestHello(t *testing.T) {
	var h conform.Hello
	if err := json.Unmarshal(answer([]byte(`{"type": "hello", "protocol": 1}`), fault{}), &h); err != nil {
		t.Fatal(err)
	}
	if h.Protocol != 1 || len(h.Functions) != 23 || h.Functions[22] != "canonicalJSON" || len(h.Specs) != 2 || len(h.Events) != 29 || !h.Targets || !h.Redelivery {
		t.Errorf("hello: %+v", h)
	}
}
