package pagehost

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeCert writes a self-signed certificate for 127.0.0.1, ::1 and
// localhost, and its key, as PEM files in a temporary directory; it returns
// their paths and a pool that trusts the certificate.
func writeCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "pagequeue test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:    []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// h2Client is an HTTP/2 client that trusts pool.
func h2Client(t *testing.T, pool *x509.CertPool) *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// TestTLS: with -tls-cert and -tls-key the host serves HTTPS and HTTP/2:
// a page and a batch (its body read from an HTTP/2 stream) are enqueued,
// and every request shares one connection. Plain HTTP to the port gets 400.
func TestTLS(t *testing.T) {
	certFile, keyFile, pool := writeCert(t)
	cfg := testConfig()
	cfg.Fail, cfg.TLSCert, cfg.TLSKey = 0, certFile, keyFile
	if err := cfg.load(); err != nil {
		t.Fatal(err)
	}
	h, base, _, _ := start(t, cfg)
	tlsBase := "https://" + strings.TrimPrefix(base, "http://")
	c := h2Client(t, pool)
	for _, r := range []struct{ path, body string }{
		{"/pages/release/x?version=v8", ""},
		{"/batch", `[{"body":{"n":1}},{"body":"` + strings.Repeat("é", 20000) + `"}]`},
	} {
		resp, err := c.Post(tlsBase+r.path, "application/json", strings.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted || resp.ProtoMajor != 2 {
			t.Errorf("%s: %s %d %s", r.path, resp.Proto, resp.StatusCode, b)
		}
	}
	resp, err := c.Get(tlsBase + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	var s Stats
	json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if s.Sent != 3 || s.Connections != 1 || resp.ProtoMajor != 2 {
		t.Errorf("%s %+v: want 3 sent over one connection", resp.Proto, s)
	}
	settle(t, h, 3)
	resp, err = http.Get(base + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("plain HTTP to the TLS port: %d, want 400", resp.StatusCode)
	}
}
