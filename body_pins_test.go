package hostbridge

import (
	"net/http"
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

// TestBodyPinsLongContentLengthNotDigits pins that only a Content-Length
// of decimal digits throughout counts: one of 19 characters or more with a
// byte that is no digit anywhere in it (below '0' or above '9', not only
// at the start) is another form, ignored ("其余形态的 Content-Length 一概忽略，
// 只按流式计数判断"): the body is read and counted, not refused as 19
// digits would be ("长达 19 位以上").
// Pins D39.
func TestBodyPinsLongContentLengthNotDigits(t *testing.T) {
	// Pins I56, I57.
	for _, cl := range []string{"1234567890123456789/", "1234567890123456789x", "9/00000000000000000000", "0000000000000000000:", "1 234567890123456789"} {
		for _, r := range readers {
			ev, fb := post(http.Header{"Content-Length": {cl}}, `"ab"`)
			if st, got, err := r.read(ev, 100); err != nil || st != BodyOK || string(got) != `"ab"` || fb.Pulls != 1 {
				t.Errorf("%s, Content-Length %q: (%d, %q, %v), pulls %d; want (0, the body)", r.name, cl, st, got, err, fb.Pulls)
			}
		}
	}
	// 19 digits: status 1 before any byte is read.
	ev, fb := post(http.Header{"Content-Length": {"0000000000000000001"}}, `"ab"`)
	if st, _, err := ReadInboundBytes(ev, 100); err != nil || st != BodyTooLarge || fb.Pulls != 0 {
		t.Errorf("19 digits: (%d, %v), pulls %d; want status 1, nothing read", st, err, fb.Pulls)
	}
}
