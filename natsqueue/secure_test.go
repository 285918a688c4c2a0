package natsqueue

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostbridge"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// tlsFiles are PEM files made for one test: a CA, a server certificate for
// the name "nats.test" only, and a client certificate, all from that CA.
type tlsFiles struct {
	ca, serverCert, serverKey, clientCert, clientKey string
}

// issue makes a key and a certificate from tmpl, signed by parent/parentKey
// (self-signed when parent is nil), written to dir/name.pem and
// dir/name-key.pem.
func issue(t *testing.T, dir, name string, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.Subject = pkix.Name{CommonName: name}
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	keyDER, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", keyDER)
	return cert, key, certFile, keyFile
}

func writePEM(t *testing.T, file, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func makeTLS(t *testing.T) tlsFiles {
	dir := t.TempDir()
	var f tlsFiles
	ca, caKey, caFile, _ := issue(t, dir, "ca", &x509.Certificate{IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}, nil, nil)
	f.ca = caFile
	_, _, f.serverCert, f.serverKey = issue(t, dir, "server", &x509.Certificate{DNSNames: []string{"nats.test"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, ca, caKey)
	_, _, f.clientCert, f.clientKey = issue(t, dir, "client", &x509.Certificate{
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, ca, caKey)
	return f
}

// TestSecuredCluster: a 3-node cluster that requires TLS with client
// certificates, and a user's password or an nkey. natsqueue works with the
// right settings and fails at Open with a clear error with wrong or
// missing ones.
func TestSecuredCluster(t *testing.T) {
	f := makeTLS(t)
	kp, _ := nkeys.CreateUser()
	pub, _ := kp.PublicKey()
	seed, _ := kp.Seed()
	seedFile := filepath.Join(t.TempDir(), "user.nk")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	secure := func(o *server.Options) {
		cfg, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: f.serverCert, KeyFile: f.serverKey, CaFile: f.ca, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		o.TLS, o.TLSVerify, o.TLSConfig, o.TLSTimeout = true, true, cfg, 5
		o.Users = []*server.User{{Username: "app", Password: "right"}}
		o.Nkeys = []*server.NkeyUser{{Nkey: pub}}
	}
	tlsOK := []nats.Option{nats.Secure(&tls.Config{ServerName: "nats.test", MinVersion: tls.VersionTLS12}),
		nats.RootCAs(f.ca), nats.ClientCert(f.clientCert, f.clientKey)}
	nkeyOpt, err := nats.NkeyOptionFromSeed(seedFile)
	if err != nil {
		t.Fatal(err)
	}
	c := startClusterWith(t, secure, append(tlsOK, nats.UserInfo("app", "right"))...)
	open := func(opts ...nats.Option) (*Platform, error) {
		o := testOptions()
		o.URLs, o.Replicas, o.Timeout, o.NATS = c.urls(), 3, 5*time.Second, opts
		return Open(o)
	}
	for name, auth := range map[string]nats.Option{"password": nats.UserInfo("app", "right"), "nkey": nkeyOpt} {
		p, err := open(append(tlsOK, auth)...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p.Bind("Q", "q")
		p.Grant("Q")
		send(t, p, `"`+name+`"`, 0)
		setConsumer(t, p, "q", func(s *hostbridge.ConsumerSettings) { s.MaxBatchTimeout = 50 * time.Millisecond })
		if _, ok := deliverWithin(t, p, "q", 10*time.Second, func(hostbridge.Event) error { return nil }); !ok {
			t.Errorf("%s: nothing delivered", name)
		}
		_ = p.Close() // Close always returns nil
	}
	connect := "natsqueue: connect to " + strings.Join(c.urls(), ",") + ": "
	noIPSAN := connect + "nats: tls error: tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs"
	noCA := []nats.Option{nats.Secure(&tls.Config{ServerName: "nats.test", MinVersion: tls.VersionTLS12}), nats.ClientCert(f.clientCert, f.clientKey)}
	for _, c := range []struct {
		name string
		opts []nats.Option
		want string
	}{
		{"wrong password", append(tlsOK, nats.UserInfo("app", "wrong")), connect + "nats: Authorization Violation"},
		{"no credentials", tlsOK, connect + "nats: Authorization Violation"},
		{"no CA", append(noCA, nats.UserInfo("app", "right")), connect + "nats: tls error: tls: failed to verify certificate: x509: certificate signed by unknown authority"},
		{"no server name", []nats.Option{nats.RootCAs(f.ca), nats.ClientCert(f.clientCert, f.clientKey), nats.UserInfo("app", "right")},
			noIPSAN},
		{"no client certificate", []nats.Option{tlsOK[0], tlsOK[1], nats.UserInfo("app", "right")}, connect}, // the TLS alert or a closed connection
		{"no TLS settings", []nats.Option{nats.UserInfo("app", "right")}, noIPSAN},
	} {
		p, err := open(c.opts...)
		if err == nil {
			_ = p.Close() // Close always returns nil
			t.Errorf("%s: Open succeeded", c.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) || (strings.HasSuffix(c.want, ": ") && len(err.Error()) == len(c.want)) {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
		t.Logf("%s: %v", c.name, err)
	}
}

// TestNoCredentialInClearText: with credentials and nothing said about
// TLS, natsqueue refuses a server that does not offer TLS, and upgrades to
// TLS with one that requires it, before any CONNECT: a listener records
// everything the client sends, and neither the password nor a CONNECT is
// in it.
func TestNoCredentialInClearText(t *testing.T) {
	for _, tlsRequired := range []bool{false, true} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte, 1)
		go func() {
			conn, err := l.Accept()
			if err != nil {
				got <- nil
				return
			}
			defer conn.Close()
			info := `INFO {"server_id":"X","version":"2.15.2","max_payload":1048576,"auth_required":true,"tls_required":` +
				map[bool]string{false: "false", true: "true"}[tlsRequired] + "}\r\n"
			_, _ = conn.Write([]byte(info))                            // a client that got no INFO sends nothing: the test fails on what it reads
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a TCP connection takes a deadline
			b, _ := io.ReadAll(conn)
			got <- b
		}()
		_, err = Open(Options{URLs: []string{"nats://" + l.Addr().String()}, Timeout: 2 * time.Second,
			NATS: []nats.Option{nats.UserInfo("app", "s3cret-password")}})
		_ = l.Close() // nothing written is left to flush
		sent := <-got
		if err == nil || bytes.Contains(sent, []byte("s3cret-password")) || bytes.Contains(sent, []byte("CONNECT")) {
			t.Errorf("tls_required %v: Open %v; the client sent %q", tlsRequired, err, sent)
		}
		t.Logf("tls_required %v: %v; %d bytes sent", tlsRequired, err, len(sent))
	}
}
