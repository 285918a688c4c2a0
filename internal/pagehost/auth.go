package pagehost

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// realm is the WWW-Authenticate realm of a 401.
const realm = `Bearer realm="pagequeue"`

// tokenSum is the SHA-256 of a bearer token, or nil when the host has none.
// Requests are compared with it by their token's sum, in constant time: the
// comparison tells neither where the tokens differ nor, since both sums
// have 32 bytes, how long the token is.
func tokenSum(token []byte) *[sha256.Size]byte {
	if len(token) == 0 {
		return nil
	}
	sum := sha256.Sum256(token)
	return &sum
}

// authorized reports whether r may be served: the host has no token, or r
// carries it as "Authorization: Bearer <token>" (the scheme in any case).
func (h *host) authorized(r *http.Request) bool {
	if h.token == nil {
		return true
	}
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	sum := sha256.Sum256([]byte(strings.TrimLeft(cred, " ")))
	match := subtle.ConstantTimeCompare(sum[:], h.token[:]) == 1
	return match && strings.EqualFold(scheme, "Bearer")
}

// unauthorized answers a request without the token (or with a wrong one,
// RFC 6750's invalid_token) with 401 and WWW-Authenticate, before anything
// is read or changed.
func (h *host) unauthorized(w http.ResponseWriter, r *http.Request) {
	challenge := realm
	if r.Header.Get("Authorization") != "" {
		challenge += `, error="invalid_token"`
	}
	w.Header().Set("WWW-Authenticate", challenge)
	reply(w, http.StatusUnauthorized, msgUnauthorized)
}
