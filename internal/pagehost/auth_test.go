package pagehost

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestToken: with a token, a request without it or with a wrong one gets
// 401 with WWW-Authenticate: Bearer on every route, and changes nothing
// but the request metrics; with it, every route answers as without a
// token.
func TestToken(t *testing.T) {
	cfg := testConfig()
	cfg.Fail, cfg.Token = 0, []byte("s3cret")
	h, base, _, _ := start(t, cfg)
	h.mem().SetCallLimit(-1)
	do := func(method, path, auth string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(`[{"body":1}]`))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
	}
	routes := []struct{ method, path string }{
		{"POST", "/pages/x?version=1"}, {"POST", "/batch"}, {"GET", "/stats"}, {"GET", "/metrics"}, {"GET", "/nope"},
	}
	for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer s3cre", "Bearer s3cret2", "Basic s3cret", "s3cret", "Bearer S3CRET"} {
		want := `Bearer realm="pagequeue"`
		if auth != "" {
			want += `, error="invalid_token"`
		}
		for _, r := range routes {
			if code, challenge := do(r.method, r.path, auth); code != http.StatusUnauthorized || challenge != want {
				t.Errorf("%s %s with %q: %d %q, want 401 %q", r.method, r.path, auth, code, challenge, want)
			}
		}
	}
	if s := h.stats(); s.Sent != 0 || len(h.mem().Calls()) != 0 {
		t.Errorf("after 401s: %+v, %d platform calls", s, len(h.mem().Calls()))
	}
	for i, auth := range []string{"Bearer s3cret", "bearer s3cret", "BEARER  s3cret"} {
		for _, r := range routes {
			want := map[string]int{"/nope": 404, "/stats": 200, "/metrics": 200}[r.path]
			if want == 0 {
				want = 202
			}
			if code, _ := do(r.method, r.path, auth); code != want {
				t.Errorf("%s %s with %q: %d, want %d", r.method, r.path, auth, code, want)
			}
		}
		if s := h.stats(); s.Sent != int64(2*(i+1)) {
			t.Errorf("with %q: %d sent, want %d", auth, s.Sent, 2*(i+1))
		}
	}
	if n := h.metrics.count(routeBatch, 401); n != 8 {
		t.Errorf("%d 401s counted on /batch, want 8", n)
	}
}

// count is the requests counted for route and code.
func (m *metrics) count(route string, code int) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[requestKey{route, code}]
}
