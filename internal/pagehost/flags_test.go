package pagehost

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseFlags parses args as the host's flags and checks them: the error
// parse returns, or "".
func parseFlags(t *testing.T, args ...string) string {
	t.Helper()
	p := Program{Name: "pagequeue"}
	fs, cfg := p.flagSet()
	if err := p.parse(fs, cfg, args); err != nil {
		return err.Error()
	}
	return ""
}

// TestFlagForms: a value that does not parse is refused with a message
// naming the flag and the form it wants, not the flag package's "parse
// error"; -retry-delay takes a duration in whole seconds or, as it did
// first, a bare number of seconds; a stray argument is refused.
func TestFlagForms(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-batch-timeout", "5"}, `invalid value "5" for flag -batch-timeout: want a duration such as 30s, 500ms or 2m`},
		{[]string{"-read-timeout", "soon"}, `invalid value "soon" for flag -read-timeout: want a duration such as 30s, 500ms or 2m`},
		{[]string{"-retry-delay", "1.5s"}, `invalid value "1.5s" for flag -retry-delay: want whole seconds: a duration such as 30s or 2m, or a number of seconds`},
		{[]string{"-retry-delay", "soon"}, `invalid value "soon" for flag -retry-delay: want whole seconds: a duration such as 30s or 2m, or a number of seconds`},
		{[]string{"-batch-size", "ten"}, `invalid value "ten" for flag -batch-size: want an integer`},
		{[]string{"-seed", "-1"}, `invalid value "-1" for flag -seed: want an integer, 0 or more`},
		{[]string{"-fail", "half"}, `invalid value "half" for flag -fail: want a number`},
		{[]string{"extra"}, `unexpected argument "extra": pagequeue takes flags only`},
		{[]string{"-fail", "0.5", "extra", "-seed", "1"}, `unexpected argument "extra": pagequeue takes flags only`},
	} {
		if got := parseFlags(t, c.args...); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
	for arg, want := range map[string]int{"1s": 1, "2m": 120, "7": 7, "0": 0} {
		p := Program{Name: "pagequeue"}
		fs, cfg := p.flagSet()
		if err := p.parse(fs, cfg, []string{"-retry-delay", arg}); err != nil || cfg.RetryDelay != want {
			t.Errorf("-retry-delay %s: %d seconds, %v; want %d", arg, cfg.RetryDelay, err, want)
		}
	}
}

// TestFlagRanges: every flag with a range takes its bounds and refuses the
// values just past them, with a message naming the flag and the range.
func TestFlagRanges(t *testing.T) {
	for _, c := range []struct {
		flag, want string
		ok, bad    []string
	}{
		{"fail", "0 to 1", []string{"0", "1", "0.3"}, []string{"-0.001", "1.001", "2", "-1", "NaN", "+Inf"}},
		{"retry-delay", "0s to 12h (whole seconds)", []string{"0", "43200", "0s", "12h", "1s", "2m"}, []string{"-1", "43201", "-1s", "12h0m1s"}},
		{"max-retries", "0 to 100", []string{"0", "100"}, []string{"-1", "101"}},
		{"batch-size", "1 to 100", []string{"1", "100"}, []string{"0", "101"}},
		{"batch-timeout", "0s to 1m0s", []string{"0s", "1m"}, []string{"-1ns", "1m0.001s"}},
		{"consumers", "1 to 100", []string{"1", "100"}, []string{"0", "101"}},
		{"max-pending", "1 or more", []string{"1", "1000000000"}, []string{"0", "-1"}},
		{"max-dead-letters", "1 or more", []string{"1"}, []string{"0"}},
		{"read-header-timeout", "more than 0s", []string{"1ns"}, []string{"0s", "-1s"}},
		{"read-timeout", "more than 0s", []string{"1ns"}, []string{"0s", "-1s"}},
		{"idle-timeout", "more than 0s", []string{"1ns"}, []string{"0s", "-1s"}},
		{"shutdown-timeout", "0s or more", []string{"0s", "1h"}, []string{"-1ns"}},
		{"max-header-bytes", "8192 to 1048576", []string{"8192", "1048576"}, []string{"8191", "1048577", "0"}},
		{"max-conns", "0 or more (0: from the open-file limit)", []string{"0", "1", "100000"}, []string{"-1", "-5"}},
	} {
		for _, v := range c.ok {
			if got := parseFlags(t, "-"+c.flag, v); got != "" {
				t.Errorf("-%s %s refused: %s", c.flag, v, got)
			}
		}
		for _, v := range c.bad {
			want := fmt.Sprintf("invalid value %q for flag -%s: want %s", v, c.flag, c.want)
			if got := parseFlags(t, "-"+c.flag, v); got != want {
				t.Errorf("-%s %s: %q, want %q", c.flag, v, got, want)
			}
		}
	}
}

// TestFlagAddr: plain HTTP only on loopback unless -insecure-addr says
// so; TLS anywhere; the two TLS flags together.
func TestFlagAddr(t *testing.T) {
	exposed := func(addr string) string {
		return `flag -addr "` + addr + `" is not a loopback address: serve HTTPS there (-tls-cert and -tls-key), or add -insecure-addr if plain HTTP is meant`
	}
	pair := "flags -tls-cert and -tls-key go together: give both or neither"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-addr", "127.0.0.1:0"}, ""},
		{[]string{"-addr", "127.8.9.10:80"}, ""},
		{[]string{"-addr", "[::1]:0"}, ""},
		{[]string{"-addr", "localhost:8787"}, ""},
		{[]string{"-addr", "0.0.0.0:8787"}, exposed("0.0.0.0:8787")},
		{[]string{"-addr", ":8787"}, exposed(":8787")},
		{[]string{"-addr", "[::]:8787"}, exposed("[::]:8787")},
		{[]string{"-addr", "192.0.2.7:443"}, exposed("192.0.2.7:443")},
		{[]string{"-addr", "example.com:443"}, exposed("example.com:443")},
		{[]string{"-addr", ":8787", "-insecure-addr"}, ""},
		{[]string{"-addr", ":8443", "-tls-cert", "c.pem", "-tls-key", "k.pem"}, ""},
		{[]string{"-tls-cert", "c.pem"}, pair},
		{[]string{"-tls-key", "k.pem"}, pair},
		{[]string{"-addr", "8787"}, `invalid value "8787" for flag -addr: address 8787: missing port in address`},
		{[]string{"-addr", "127.0.0.1:65535"}, ""},
		{[]string{"-addr", "127.0.0.1:"}, ""},
		{[]string{"-addr", "127.0.0.1:99999"}, `invalid value "127.0.0.1:99999" for flag -addr: want host:port with a port from 0 to 65535`},
		{[]string{"-addr", "127.0.0.1:65536"}, `invalid value "127.0.0.1:65536" for flag -addr: want host:port with a port from 0 to 65535`},
		{[]string{"-addr", "127.0.0.1:-1"}, `invalid value "127.0.0.1:-1" for flag -addr: want host:port with a port from 0 to 65535`},
		{[]string{"-addr", "localhost:http"}, `invalid value "localhost:http" for flag -addr: want host:port with a port from 0 to 65535`},
	} {
		if got := parseFlags(t, c.args...); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
}

// TestTokenFile: the token is the file's text less the white space around
// it; a file that is missing, empty or holds more than one visible word is
// refused by Run with exit 2 and the flag's name, before anything listens.
func TestTokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	if tok, err := readToken(write("ok", "  s3cret-Token_~+/=\n")); err != nil || string(tok) != "s3cret-Token_~+/=" {
		t.Errorf("readToken: %q %v", tok, err)
	}
	for _, c := range []struct{ file, want string }{
		{filepath.Join(dir, "missing"), "no such file or directory"},
		{write("empty", ""), msgTokenEmpty},
		{write("blank", " \n\t\n"), msgTokenEmpty},
		{write("two", "a b\n"), msgTokenBad},
		{write("lines", "a\nb\n"), msgTokenBad},
		{write("utf8", "clé\n"), msgTokenBad},
		{write("long", strings.Repeat("a", 4097)), msgTokenBad},
	} {
		var out bytes.Buffer
		p := Program{Name: "pagequeue", Open: func() (Store, error) { t.Fatal("opened"); return nil, nil }}
		code := p.Run(context.Background(), []string{"-addr", "127.0.0.1:0", "-token-file", c.file}, &out)
		if want := fmt.Sprintf("flag -token-file %q: ", c.file); code != 2 || !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: exit %d, %q", c.file, code, out.String())
		}
	}
	if _, err := readToken(write("max", strings.Repeat("a", 4096))); err != nil {
		t.Errorf("a 4096-byte token: %v", err)
	}
}

// TestListeningLine: the first line names the store (store=memory unless
// Program.Describe says otherwise), the connection cap and the seed
// actually used when the flags leave them to the host (0).
func TestListeningLine(t *testing.T) {
	for _, c := range []struct {
		describe func() []any
		args     []string
		want     []string
	}{
		{nil, []string{"-seed", "7", "-max-conns", "5"}, []string{" store=memory ", " maxConns=5 ", " seed=7\n"}},
		{func() []any { return []any{"store", "nats", "sync", "every 2m0s"} }, nil, []string{` store=nats sync="every 2m0s" `}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // stop once listening
		var out bytes.Buffer
		p := Program{Name: "pagequeue", Describe: c.describe, Open: func() (Store, error) { return NewMemoryStore(), nil }}
		if code := p.Run(ctx, append([]string{"-addr", "127.0.0.1:0"}, c.args...), &out); code != 0 {
			t.Fatalf("exit %d: %s", code, out.String())
		}
		first, _, _ := strings.Cut(out.String(), "\n")
		for _, want := range c.want {
			if !strings.Contains(first+"\n", want) {
				t.Errorf("listening line lacks %q: %s", want, first)
			}
		}
		if strings.Contains(first, " seed=0") || strings.Contains(first, " maxConns=0 ") {
			t.Errorf("listening line gives 0, not the value used: %s", first)
		}
	}
}
