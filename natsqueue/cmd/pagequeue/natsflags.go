package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/nats.go"
)

// The durable host's answers to flags it cannot use: each names the flag.
const (
	msgPairCert     = "flags -nats-cert and -nats-key go together: give both or neither"
	msgPairUser     = "flags -nats-user and -nats-password-file go together: give both or neither"
	msgOneAuth      = "flags -nats-creds, -nats-nkey, -nats-user and -nats-token-file: give one at most"
	msgPortPassword = "flag -store-port needs -store-port-password-file"
	msgFlagFile     = "flag -%s %q: %v"
	msgTLSFlags     = "flags -nats-ca, -nats-cert and -nats-key: %v"
	msgSecretEmpty  = "the file is empty"
)

// natsFlags are how the host reaches a secured cluster (-nats) and who may
// use the embedded server's port (-store-port). Secrets come only from
// files, so they never appear in the process list.
type natsFlags struct {
	creds, nkey, user, passwordFile, tokenFile string
	ca, cert, key, serverName                  string
	portUser, portPasswordFile                 string
	port                                       int
}

func (f *natsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.creds, "nats-creds", "", "credentials file (JWT and nkey seed) for -nats")
	fs.StringVar(&f.nkey, "nats-nkey", "", "nkey seed file for -nats")
	fs.StringVar(&f.user, "nats-user", "", "user name for -nats (its password from -nats-password-file)")
	fs.StringVar(&f.passwordFile, "nats-password-file", "", "file holding -nats-user's password")
	fs.StringVar(&f.tokenFile, "nats-token-file", "", "file holding the token for -nats")
	fs.StringVar(&f.ca, "nats-ca", "", "CA certificates (PEM) that -nats servers' certificates must chain to")
	fs.StringVar(&f.cert, "nats-cert", "", "client certificate (PEM) for -nats, with -nats-key")
	fs.StringVar(&f.key, "nats-key", "", "client certificate's key (PEM) for -nats")
	fs.StringVar(&f.serverName, "nats-server-name", "", "name -nats servers' certificates must carry (default: the URL's host)")
	fs.IntVar(&f.port, "store-port", 0, "let the embedded server take NATS connections on 127.0.0.1:PORT (with -store-port-password-file; default: no port)")
	fs.StringVar(&f.portUser, "store-port-user", "pagequeue", "user name -store-port requires")
	fs.StringVar(&f.portPasswordFile, "store-port-password-file", "", "file holding the password -store-port requires")
}

// options are the nats.go options the flags ask for, secrets read from
// their files. With credentials the connection requires TLS (natsqueue
// adds that).
func (f *natsFlags) options() ([]nats.Option, error) {
	var opts []nats.Option
	if f.serverName != "" {
		opts = append(opts, nats.Secure(&tls.Config{ServerName: f.serverName, MinVersion: tls.VersionTLS12}))
	}
	if f.ca != "" {
		opts = append(opts, nats.RootCAs(f.ca))
	}
	if (f.cert == "") != (f.key == "") {
		return nil, errors.New(msgPairCert)
	}
	if f.cert != "" {
		opts = append(opts, nats.ClientCert(f.cert, f.key))
	}
	o := nats.GetDefaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil { // the files are read now, not at connect
			return nil, fmt.Errorf(msgTLSFlags, err)
		}
	}
	auth, err := f.auth()
	return append(opts, auth...), err
}

// auth is the credential the flags name: at most one kind.
func (f *natsFlags) auth() ([]nats.Option, error) {
	var opts []nats.Option
	if f.creds != "" {
		opts = append(opts, nats.UserCredentials(f.creds))
	}
	if f.nkey != "" {
		o, err := nats.NkeyOptionFromSeed(f.nkey)
		if err != nil {
			return nil, fmt.Errorf(msgFlagFile, "nats-nkey", f.nkey, err)
		}
		opts = append(opts, o)
	}
	if (f.user == "") != (f.passwordFile == "") {
		return nil, errors.New(msgPairUser)
	}
	if f.user != "" {
		pw, err := secret("nats-password-file", f.passwordFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.UserInfo(f.user, pw))
	}
	if f.tokenFile != "" {
		tok, err := secret("nats-token-file", f.tokenFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.Token(tok))
	}
	if len(opts) > 1 {
		return nil, errors.New(msgOneAuth)
	}
	return opts, nil
}

// portPassword is the password -store-port requires, from its file.
func (f *natsFlags) portPassword() (string, error) {
	if f.port == 0 {
		return "", nil
	}
	if f.portPasswordFile == "" {
		return "", errors.New(msgPortPassword)
	}
	return secret("store-port-password-file", f.portPasswordFile)
}

// secret is the content of flag's file without its final line break; an
// error, an empty file included, names the flag and the file.
func secret(flag, file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf(msgFlagFile, flag, file, err)
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", fmt.Errorf(msgFlagFile, flag, file, msgSecretEmpty)
	}
	return s, nil
}
