package natsqueue

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
)

// minServer is the oldest nats-server natsqueue runs on: message schedules
// (delays) came in 2.12.0; 2.12.5 is the first with the fix for messages
// lost from work-queue streams at R3 (nats-server#7845). An older server
// accepts a delayed message and never delivers it.
var minServer = [3]int{2, 12, 5}

// checkVersion fails on a server older than minServer (or whose version
// cannot be read), naming the version found and the minimum.
func checkVersion(v string) error {
	min := fmt.Sprintf("%d.%d.%d", minServer[0], minServer[1], minServer[2])
	got, ok := parseVersion(v)
	if !ok {
		return fmt.Errorf(msgServerTooOld, strconv.Quote(v), min)
	}
	for i := range got {
		if got[i] != minServer[i] {
			if got[i] < minServer[i] {
				return fmt.Errorf(msgServerTooOld, v, min)
			}
			return nil
		}
	}
	return nil
}

// parseVersion reads "2.15.2" (or "2.15.2-beta.1") as its three numbers.
func parseVersion(v string) ([3]int, bool) {
	var n [3]int
	core, _, _ := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return n, false
	}
	for i, s := range parts {
		x, err := strconv.Atoi(s)
		if err != nil || x < 0 {
			return n, false
		}
		n[i] = x
	}
	return n, true
}

// secured is opts, and when they or the URLs carry credentials, the
// requirement that the connection be TLS: nats.go then refuses a server that does not offer
// TLS before it sends its CONNECT, so a credential never travels in clear
// text.
func secured(urls []string, opts []nats.Option) []nats.Option {
	o := nats.GetDefaultOptions()
	for _, opt := range opts {
		if opt != nil && opt(&o) != nil {
			return opts // nats.Connect reports the bad option
		}
	}
	if !strings.Contains(strings.Join(urls, ","), "@") && o.User == "" && o.Password == "" && o.Token == "" && o.TokenHandler == nil && o.UserInfo == nil &&
		o.Nkey == "" && o.UserJWT == nil {
		return opts
	}
	return append(opts[:len(opts):len(opts)], nats.Secure())
}
