package hostbridge

import (
	"strings"
	"testing"
)

// TestCanonicalBodyAfterSyntaxError pins that a JSON body's result is its
// own body's canonical text, whatever the read before it did: a body that
// fails to parse (status 5, or MsgJSONBodyInvalid) leaves nothing behind
// that the next read sees. The buffers the JSON readers keep between calls
// must then hold no part of the failed read's text in two places at once:
// a next body whose keys are reordered (array-index keys first: its output
// overtakes its input)
// would be written over itself. Both readers, several rounds, since the
// buffers are pooled.
func TestCanonicalBodyAfterSyntaxError(t *testing.T) {
	// Pins I93.
	const good, want = `{"1":true,"0":false}`, `{"0":false,"1":true}`
	bad := `{"1":true,"0":false` + strings.Repeat(" ", 300) + `x}`
	bounded := func(body string) (BodyStatus, string) {
		ev, _ := post(nil, body)
		st, s, err := ReadInboundBoundedJSON(ev, MaxBoundedJSONLimit)
		if err != nil {
			t.Fatalf("ReadInboundBoundedJSON: %v", err)
		}
		return st, s
	}
	whole := func(body string) (BodyStatus, string) {
		ev, _ := post(nil, body)
		s, err := ReadInboundJSON(ev)
		if err != nil {
			return BodyInvalidJSON, ""
		}
		return BodyOK, s
	}
	for _, r := range []struct {
		name string
		read func(string) (BodyStatus, string)
	}{{"ReadInboundBoundedJSON", bounded}, {"ReadInboundJSON", whole}} {
		for round := range 8 {
			if st, _ := r.read(bad); st != BodyInvalidJSON {
				t.Fatalf("%s round %d: the bad body gave status %d", r.name, round, st)
			}
			if st, s := r.read(good); st != BodyOK || s != want {
				t.Fatalf("%s round %d: after a syntax error (%d, %q), want (0, %q)", r.name, round, st, s, want)
			}
		}
	}
}
