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
		_ = fs.Parse(strings.Fields(args)) // these flags parse; portPassword's result is what is checked
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

// TestStoreFlagRanges: the durable host's own flags out of range are usage
// errors (exit 2) that name the flag and its range, before any store is
// opened; the bounds themselves pass that check.
func TestStoreFlagRanges(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string // "" when the flags must pass the check
	}{
		{[]string{"-ack-wait", "0s"}, `invalid value "0s" for flag -ack-wait: want more than 0s`},
		{[]string{"-ack-wait", "-1s"}, `invalid value "-1s" for flag -ack-wait: want more than 0s`},
		{[]string{"-sync-interval", "-1ns"}, `invalid value "-1ns" for flag -sync-interval: want 0s or more`},
		{[]string{"-store-port", "-1"}, `invalid value "-1" for flag -store-port: want 0 to 65535`},
		{[]string{"-store-port", "65536"}, `invalid value "65536" for flag -store-port: want 0 to 65535`},
		{[]string{"-ack-wait", "1ns", "-sync-interval", "0s", "-store-port", "65535", "-store-port-password-file", pw}, ""},
		{[]string{"-nats-wait", "-1s"}, `invalid value "-1s" for flag -nats-wait: want 0s or more`},
	} {
		var out strings.Builder
		p := program()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		p.Flags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := p.Check(fs)
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v, want no error", c.args, err)
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: check says %v, want %s", c.args, err, c.want)
		}
		if code := p.Run(t.Context(), append(c.args, "-store", t.TempDir()), &out); code != 2 || !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %s", c.args, code, out.String(), c.want)
		}
	}
}

// TestStoreFlagFiles: the durable host's flags are checked, the files of
// the secured-cluster and -store-port flags read, before any store is
// opened or anything listens: a usage error (exit 2) naming the flag and
// what it wants, then the hint to -h.
func TestStoreFlagFiles(t *testing.T) {
	dir := t.TempDir()
	missing, empty := filepath.Join(dir, "missing"), filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-nats-wait", "30"}, `invalid value "30" for flag -nats-wait: want a duration such as 30s, 500ms or 2m`},
		{[]string{"-store-port", "x"}, `invalid value "x" for flag -store-port: want an integer`},
		{[]string{"-store-port", "4222"}, "flag -store-port needs -store-port-password-file"},
		{[]string{"-store-port", "4222", "-store-port-password-file", missing}, `flag -store-port-password-file "` + missing + `": open ` + missing + `: no such file or directory`},
		{[]string{"-nats-user", "app", "-nats-password-file", empty}, `flag -nats-password-file "` + empty + `": the file is empty`},
		{[]string{"-nats-token-file", missing}, `flag -nats-token-file "` + missing + `": open ` + missing + `: no such file or directory`},
		{[]string{"-nats-user", "app"}, "flags -nats-user and -nats-password-file go together: give both or neither"},
		{[]string{"-nats-cert", empty}, "flags -nats-cert and -nats-key go together: give both or neither"},
		{[]string{"-nats-ca", missing}, "flags -nats-ca, -nats-cert and -nats-key: nats: error loading or parsing rootCA file: open " + missing + ": no such file or directory"},
	} {
		var out strings.Builder
		args := append([]string{"-store", dir, "-addr", "127.0.0.1:0"}, c.args...)
		if code := program().Run(t.Context(), args, &out); code != 2 || out.String() != c.want+"\npagequeue -h lists the flags and their forms.\n" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %s", c.args, code, out.String(), c.want)
		}
	}
}
