package pagehost

import (
	"bytes"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"time"

	"hostbridge"
)

// The flags' ranges that are not the queue's (hostbridge's limits give
// -retry-delay's; -batch-size, -batch-timeout and -max-retries are
// ConsumerSettings' ranges, Cloudflare Queues' limits).
const (
	maxConsumers      = 100     // consumer loops: goroutines, each holding a batch at most
	minHeaderBytes    = 8 << 10 // a request line and a few headers; more than net/http's slack (httpHeaderSlack)
	maxHeaderBytesCap = 1 << 20 // net/http's own default
	maxTokenBytes     = 4 << 10 // of a -token-file
)

// The host's answers to flags it cannot use: each names the flag.
const (
	msgFlagRange   = "invalid value %q for flag -%s: want %s"
	msgFlagAddr    = "invalid value %q for flag -addr: %v"
	msgFlagPort    = "invalid value %q for flag -addr: want host:port with a port from 0 to 65535"
	msgFlagArgs    = "unexpected argument %q: %s takes flags only"
	msgFlagHint    = "%s -h lists the flags and their forms."
	msgFlagExposed = "flag -addr %q is not a loopback address: serve HTTPS there (-tls-cert and -tls-key), or add -insecure-addr if plain HTTP is meant"
	msgFlagTLSPair = "flags -tls-cert and -tls-key go together: give both or neither"
	msgFlagTLSLoad = "flags -tls-cert %q and -tls-key %q: %v"
	msgFlagToken   = "flag -token-file %q: %v"
	msgTokenEmpty  = "the file holds no token"
	msgTokenBad    = "the token must be one line of visible ASCII characters, at most 4096 bytes"
)

// flags defines the host's flags on fs.
func flags(fs *flag.FlagSet) *Config {
	cfg := &Config{}
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8787", "address to listen on; one that is not loopback needs -tls-cert and -tls-key, or -insecure-addr")
	fs.StringVar(&cfg.TLSCert, "tls-cert", "", "PEM certificate chain file: with -tls-key, serve HTTPS and HTTP/2")
	fs.StringVar(&cfg.TLSKey, "tls-key", "", "PEM private key file of -tls-cert")
	fs.BoolVar(&cfg.InsecureAddr, "insecure-addr", false, "serve plain HTTP on an -addr that is not loopback")
	fs.StringVar(&cfg.TokenFile, "token-file", "", "file holding a bearer token: every request must then send it (Authorization: Bearer <token>); without it every route is open to whoever reaches -addr")
	fs.Float64Var(&cfg.Fail, "fail", 0, "share of messages the consumer fails and retries (0 to 1)")
	cfg.RetryDelay = 1
	fs.Var(&secondsValue{n: &cfg.RetryDelay}, "retry-delay", "delay of the consumer's retries, in whole seconds: a duration such as 30s, or a bare number of seconds as before (0s to 12h; 0: the queue's default)")
	fs.IntVar(&cfg.MaxRetries, "max-retries", 3, "retries before a message is dead-lettered (0 to 100)")
	fs.IntVar(&cfg.BatchSize, "batch-size", 10, "messages per batch (1 to 100)")
	fs.DurationVar(&cfg.BatchTimeout, "batch-timeout", time.Second, "how long a batch waits to fill (0s to 1m; Cloudflare's default is 5s)")
	fs.IntVar(&cfg.Consumers, "consumers", 2, "consumer loops (1 to 100)")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed of the failure draws (0: a random one; the listening line gives the seed used)")
	fs.IntVar(&cfg.MaxPending, "max-pending", 10000, "messages pending on the queue at most (1 or more); past it producers get 503 with Retry-After (each message is at most 128 KB)")
	fs.IntVar(&cfg.MaxDeadLetters, "max-dead-letters", 1000, "messages kept on the dead-letter queue (1 or more); past it the oldest are discarded")
	fs.DurationVar(&cfg.ReadHeaderTimeout, "read-header-timeout", 5*time.Second, "time to read a request's headers (more than 0s)")
	fs.DurationVar(&cfg.ReadTimeout, "read-timeout", 30*time.Second, "time to read a whole request, body included (more than 0s; a slower body gets 408)")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", 30*time.Second, "time a keep-alive connection may wait for its next request (more than 0s)")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", 10*time.Second, "time requests in flight get to finish at shutdown before their connections are closed (0s or more)")
	fs.IntVar(&cfg.MaxHeaderBytes, "max-header-bytes", 16<<10, "bytes of a request's line and headers at most, line breaks included (8192 to 1048576; HTTP/1.1 past it gets 431)")
	fs.IntVar(&cfg.MaxConns, "max-conns", 0, "connections open at once; more wait in the kernel's queue (0: the open-file limit less an eighth, at most 10000; the listening line gives the number)")
	return cfg
}

// check returns the first flag of fs out of its range, as a usage error
// that names the flag and the range; then checkAddr.
func (c *Config) check(fs *flag.FlagSet) error {
	err := CheckRanges(fs, []FlagRange{
		{"fail", !(c.Fail >= 0 && c.Fail <= 1), "0 to 1"}, // NaN too
		{"retry-delay", c.RetryDelay < 0 || c.RetryDelay > hostbridge.MaxDelaySeconds, "0s to 12h (whole seconds)"},
		{"max-retries", c.MaxRetries < 0 || c.MaxRetries > 100, "0 to 100"},
		{"batch-size", c.BatchSize < 1 || c.BatchSize > 100, "1 to 100"},
		{"batch-timeout", c.BatchTimeout < 0 || c.BatchTimeout > time.Minute, "0s to 1m0s"},
		{"consumers", c.Consumers < 1 || c.Consumers > maxConsumers, "1 to 100"},
		{"max-pending", c.MaxPending < 1, "1 or more"},
		{"max-dead-letters", c.MaxDeadLetters < 1, "1 or more"},
		{"read-header-timeout", c.ReadHeaderTimeout <= 0, "more than 0s"},
		{"read-timeout", c.ReadTimeout <= 0, "more than 0s"},
		{"idle-timeout", c.IdleTimeout <= 0, "more than 0s"},
		{"shutdown-timeout", c.ShutdownTimeout < 0, "0s or more"},
		{"max-header-bytes", c.MaxHeaderBytes < minHeaderBytes || c.MaxHeaderBytes > maxHeaderBytesCap, "8192 to 1048576"},
		{"max-conns", c.MaxConns < 0, "0 or more (0: from the open-file limit)"},
	})
	if err != nil {
		return err
	}
	return c.checkAddr()
}

// FlagRange is one flag's range check: Bad says its value is out of Want,
// which the usage error quotes.
type FlagRange struct {
	Flag string
	Bad  bool
	Want string
}

// CheckRanges returns a usage error naming the first flag of fs whose
// range check is Bad, its value and its range; nil when none is.
func CheckRanges(fs *flag.FlagSet, ranges []FlagRange) error {
	for _, r := range ranges {
		if r.Bad {
			return fmt.Errorf(msgFlagRange, fs.Lookup(r.Flag).Value.String(), r.Flag, r.Want)
		}
	}
	return nil
}

// checkAddr refuses half a TLS pair, and plain HTTP on an address that is
// not loopback unless InsecureAddr says it is meant.
func (c *Config) checkAddr() error {
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New(msgFlagTLSPair)
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf(msgFlagAddr, c.Addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil && port != "" { // "": any port, as 0
		return fmt.Errorf(msgFlagPort, c.Addr)
	}
	if c.TLSCert == "" && !c.InsecureAddr && !loopback(host) {
		return fmt.Errorf(msgFlagExposed, c.Addr)
	}
	return nil
}

// loopback reports whether host names only the loopback interface:
// "localhost" or a loopback IP. "" (every interface) and other names do
// not.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// load reads the files the flags name: the certificate and key, and the
// token.
func (c *Config) load() error {
	if c.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return fmt.Errorf(msgFlagTLSLoad, c.TLSCert, c.TLSKey, err)
		}
		c.Certificate = &cert
	}
	if c.TokenFile != "" {
		token, err := readToken(c.TokenFile)
		if err != nil {
			return fmt.Errorf(msgFlagToken, c.TokenFile, err)
		}
		c.Token = token
	}
	return nil
}

// readToken reads a bearer token from file: its text less the white space
// around it, one line of visible ASCII (RFC 6750's b64token is a subset).
func readToken(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	token := bytes.TrimSpace(b)
	if len(token) == 0 {
		return nil, errors.New(msgTokenEmpty)
	}
	if len(token) > maxTokenBytes {
		return nil, errors.New(msgTokenBad)
	}
	for _, ch := range token {
		if ch < 0x21 || ch > 0x7e {
			return nil, errors.New(msgTokenBad)
		}
	}
	return token, nil
}
