package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// parseNATS parses args into natsFlags and applies their options to
// nats.go's defaults.
func parseNATS(t *testing.T, args ...string) (nats.Options, error) {
	t.Helper()
	var f natsFlags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	o := nats.GetDefaultOptions()
	opts, err := f.options()
	if err != nil {
		return o, err
	}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// TestNATSFlags: the secured-cluster flags become nats.go's options, with
// secrets read from files (the final line break dropped), and refuse what
// does not go together.
func TestNATSFlags(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pw, tok, empty := file("pw", "s3cret\n"), file("tok", "t0ken\n"), file("empty", "\n")
	kp, _ := nkeys.CreateUser()
	seed, _ := kp.Seed()
	nk := file("user.nk", string(seed))
	o, err := parseNATS(t, "-nats-user", "app", "-nats-password-file", pw, "-nats-server-name", "nats.test")
	if err != nil || o.User != "app" || o.Password != "s3cret" || !o.Secure || o.TLSConfig == nil || o.TLSConfig.ServerName != "nats.test" {
		t.Errorf("user: %v %+v", err, o)
	}
	if o, err := parseNATS(t, "-nats-token-file", tok); err != nil || o.Token != "t0ken" {
		t.Errorf("token: %v %q", err, o.Token)
	}
	if o, err := parseNATS(t, "-nats-nkey", nk); err != nil || o.Nkey == "" {
		t.Errorf("nkey: %v", err)
	}
	if o, err := parseNATS(t, "-nats-creds", file("x.creds", "")); err != nil || o.UserJWT == nil {
		t.Errorf("creds: %v", err)
	}
	for args, want := range map[string]string{"-store-port 4222": "", "-store-port 4222 -store-port-password-file " + pw: "s3cret", "": ""} {
		var f natsFlags
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f.register(fs)
		_ = fs.Parse(strings.Fields(args))
		got, err := f.portPassword()
		if got != want || (err == nil) != (want != "" || args == "") {
			t.Errorf("%s: %q %v", args, got, err)
		}
	}
	for _, bad := range [][]string{
		{"-nats-user", "app"}, {"-nats-password-file", pw}, {"-nats-cert", pw}, {"-nats-key", pw},
		{"-nats-token-file", empty}, {"-nats-token-file", filepath.Join(dir, "missing")},
		{"-nats-token-file", tok, "-nats-user", "app", "-nats-password-file", pw}, {"-nats-ca", empty},
	} {
		if _, err := parseNATS(t, bad...); err == nil {
			t.Errorf("%s: no error", strings.Join(bad, " "))
		}
	}
}
