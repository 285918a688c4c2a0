package hostbridge

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// grantedOf returns which of names b grants.
func grantedOf(b *Bindings, names ...string) []string {
	var got []string
	for _, n := range names {
		b.mu.Lock()
		if b.granted[n] {
			got = append(got, n)
		}
		b.mu.Unlock()
	}
	return got
}

// TestGrantJSONExactKey: only the key spelled "QUEUE" grants (the spec's
// permission text is {"QUEUE":["PAGE_QUEUE"]}); a key in another case is
// another permission. A key written with escapes is the same key, as
// JSON.parse reads it, and a repeated "QUEUE" counts with its last value.
// Pins D20.
func TestGrantJSONExactKey(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{`{"QUEUE":["A","B"]}`, []string{"A", "B"}},
		{`{"queue":["A"]}`, nil},
		{`{"Queue":["A"],"qUEUE":["B"]}`, nil},
		{`{"QUEUE":["A"],"Queue":["B"]}`, []string{"A"}},
		{`{"Queue":["B"],"QUEUE":["A"]}`, []string{"A"}},
		{`{"\u0051UEUE":["A"]}`, []string{"A"}},
		{`{"QUEUE":["B"],"QUEUE":["A"]}`, []string{"A"}},
		{`{"QUEUE":"x","QUEUE":["A"]}`, []string{"A"}},
		{`{"QUEUE":[]}`, nil},
		{"{ \"QUEUE\" : [ \"A\" ,\n\"B\" ] , \"n\": 1e999 }", []string{"A", "B"}},
		{`{}`, nil},
		{`{"OTHER":["A"]}`, nil},
	} {
		var b Bindings
		if err := b.GrantJSON(c.text); err != nil {
			t.Errorf("GrantJSON(%s): %v", c.text, err)
		}
		if got := grantedOf(&b, "A", "B"); !slices.Equal(got, c.want) {
			t.Errorf("GrantJSON(%s) grants %q, want %q", c.text, got, c.want)
		}
	}
}

// TestGrantJSONErrors: a permission text that is not a JSON object, or whose
// "QUEUE" is not an array of strings, is an error with a fixed text and
// grants nothing, not even the items that are strings.
// Pins D20.
func TestGrantJSONErrors(t *testing.T) {
	const notObject = "hostbridge: permission text is not a JSON object"
	const notStrings = `hostbridge: permission "QUEUE" is not an array of strings`
	for _, c := range []struct{ text, want string }{
		{`{"QUEUE":"A"}`, notStrings},
		{`{"QUEUE":null}`, notStrings},
		{`{"QUEUE":{"A":true}}`, notStrings},
		{`{"QUEUE":["A",1]}`, notStrings},
		{`{"QUEUE":["A",null]}`, notStrings},
		{`{"QUEUE":["A"],"QUEUE":"A"}`, notStrings},
		{`null`, notObject},
		{`["A"]`, notObject},
		{`"QUEUE"`, notObject},
		{`1e999`, notObject},
	} {
		var b Bindings
		err := b.GrantJSON(c.text)
		if err == nil || err.Error() != c.want {
			t.Errorf("GrantJSON(%s): %v, want %q", c.text, err, c.want)
		}
		if got := grantedOf(&b, "A"); got != nil {
			t.Errorf("GrantJSON(%s) grants %q", c.text, got)
		}
	}
	var b Bindings
	err := b.GrantJSON(`{"QUEUE":["A"]`)
	var syntax *json.SyntaxError
	if err == nil || !strings.HasPrefix(err.Error(), notObject+": ") || !errors.As(err, &syntax) {
		t.Errorf("GrantJSON of a text that is not JSON: %v, want %q, then the parser's reason", err, notObject+": ")
	}
}
