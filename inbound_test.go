package hostbridge

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestHeaderVectors runs testdata/inbound-headers.json.
// Pins D37.
func TestHeaderVectors(t *testing.T) {
	// Pins I1, I6, I7, I13, I18, I38, I39, I40, I42, I43, I44, I136, I145.
	var f struct {
		Rows []struct {
			Situation string          `json:"情境"`
			Kind      string          `json:"kind"`
			Headers   [][2]string     `json:"headers"`
			Call      string          `json:"call"`
			Arg       json.RawMessage `json:"arg"`
			Want      any             `json:"want"`
			Error     *wantError      `json:"error"`
		} `json:"rows"`
	}
	readTestJSON(t, "inbound-headers.json", &f)
	for _, row := range f.Rows {
		t.Run(row.Situation, func(t *testing.T) {
			h := http.Header{}
			for _, kv := range row.Headers {
				h[kv[0]] = append(h[kv[0]], kv[1]) // as the host spelled it, not canonicalised
			}
			ev := NewRequestEvent(row.Kind, "GET", "https://example.com/", h, nil)
			name := string(build(t, row.Arg))
			r, err := callSpec(t, row.Call, specArgs{Event: ev, Text: name})
			checkError(t, err, row.Error)
			if got := r.Value; row.Error == nil && got != row.Want {
				t.Errorf("%s(%.40q) = %#v, want %#v", row.Call, name, got, row.Want)
			}
		})
	}
}
