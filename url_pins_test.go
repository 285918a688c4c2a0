package hostbridge

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestURLPinsIPv4Parts pins 读取入站主机名 on hosts that end in a number:
// "读取入站主机名 返回当前请求 URL 的 hostname，依 URL 规则规范化为小写且不含端口".
// The URL Standard's IPv4 parser takes one to four parts (a trailing empty
// part dropped); a fifth part, or a part over its bytes, fails the parser,
// which the package reports as Failure MsgRequestURL.
func TestURLPinsIPv4Parts(t *testing.T) {
	// Pins I35.
	for _, c := range []struct{ url, host string }{
		{"http://1.2.3.4/", "1.2.3.4"},
		{"http://1.2.3.4./", "1.2.3.4"},
		{"http://1.2.3.4.5/", ""},
		{"http://1.2.3.4.0/", ""},
		{"http://1.2.3.4.5./", ""},
		{"http://0.0.0.0.0/", ""},
		{"http://1.2.3/", "1.2.0.3"},
		{"http://1.2.65535/", "1.2.255.255"},
		{"http://1.2.65536/", ""},
		{"http://1.16777215/", "1.255.255.255"},
		{"http://1.16777216/", ""},
		{"http://4294967295/", "255.255.255.255"},
		{"http://4294967296/", ""},
		{"http://1.256.3.4/", ""},
		{"http://255.255.255.255/", "255.255.255.255"},
		{"http://0x7f.1/", "127.0.0.1"},
		{"http://0X7F.0.0.01/", "127.0.0.1"},
		{"http://010.0x10.0/", "8.16.0.0"},
		{"http://08.1.1.1/", ""},
		{"http://0x.1.1.1/", "0.1.1.1"},
		{"http://1..2/", ""},
		{"http://a.1/", ""},
		{"http://a.0x1g/", "a.0x1g"},
		{"http://a.0x/", ""},
		{"http://1.2.3.09/", ""},
		{"http://.1/", ""},
	} {
		got, err := InboundHostname(fetchEvent(c.url))
		if c.host == "" {
			checkError(t, err, &wantError{"failure", MsgRequestURL})
			continue
		}
		checkError(t, err, nil)
		if got != c.host {
			t.Errorf("InboundHostname(%q) = %q, want %q", c.url, got, c.host)
		}
	}
}

// TestURLPinsUserinfoLastAt pins 读取入站主机名 and 读取入站来源 on a URL
// whose userinfo holds "@": the URL Standard's authority state takes the
// host after the last "@" of the authority, which ends at the first "/",
// "\", "?" or "#" ("读取入站来源 返回 URL 标准的 origin").
func TestURLPinsUserinfoLastAt(t *testing.T) {
	// Pins I35, I23.
	for _, c := range []struct{ url, host, origin string }{
		{"http://u@v@host.example:8080/p@q", "host.example", "http://host.example:8080"},
		{"http://u:p@w@host.example/", "host.example", "http://host.example"},
		{"http://@host.example/", "host.example", "http://host.example"},
		{"http://u@host.example?x@y", "host.example", "http://host.example"},
		{"http://u@host.example#x@y", "host.example", "http://host.example"},
		{"http://u@host.example\\x@y", "host.example", "http://host.example"},
		{"https://a@b@c@HOST.example:443/", "host.example", "https://host.example"},
	} {
		ev := fetchEvent(c.url)
		host, err := InboundHostname(ev)
		checkError(t, err, nil)
		origin, err := InboundOrigin(ev)
		checkError(t, err, nil)
		if host != c.host || origin != c.origin {
			t.Errorf("%q: hostname %q origin %q, want %q %q", c.url, host, origin, c.host, c.origin)
		}
	}
	_, err := InboundHostname(fetchEvent("http://u@/"))
	checkError(t, err, &wantError{"failure", MsgRequestURL})
}

// TestURLPinsEveryAbsoluteInput pins the URL readers (读取入站主机名,
// 读取入站来源, …) on every WPT urltestdata.json entry parsed with no base,
// whatever its scheme: a request URL is parsed as new URL parses it, and one
// whose scheme is not ftp, http, https, ws or wss (file included), or that
// new URL rejects, is Failure MsgRequestURL (the package's decision: the
// spec's readers are defined for a Request's URL, which has such a scheme).
// A host that needs IDNA is refused too, a documented difference.
func TestURLPinsEveryAbsoluteInput(t *testing.T) {
	var entries []json.RawMessage
	readTestJSON(t, "urltestdata.json", &entries)
	special := map[string]bool{"ftp:": true, "http:": true, "https:": true, "ws:": true, "wss:": true}
	ran, refused := 0, 0
	for _, raw := range entries {
		var c struct {
			Input, Protocol, Origin, Hostname, Pathname, Search string
			Base                                                *string
			Failure                                             bool
		}
		if json.Unmarshal(raw, &c) != nil || c.Base != nil {
			continue // comments, and inputs parsed against a base
		}
		ran++
		ev := fetchEvent(c.Input)
		got, errs := readURLPieces(ev)
		if c.Failure || !special[c.Protocol] {
			refused++
			for _, err := range errs {
				checkError(t, err, &wantError{"failure", MsgRequestURL})
			}
			continue
		}
		if errs[0] != nil && needsIDNA(c.Input) {
			continue
		}
		if c.Origin == "" {
			got[0] = "" // the entry does not say
		}
		if want := [4]string{c.Origin, c.Hostname, c.Pathname, c.Search}; got != want || errs != [4]error{} {
			t.Errorf("new URL(%q): got %q %v, want %q", c.Input, got, errs, want)
		}
	}
	if ran < 500 || refused < 250 {
		t.Fatalf("only %d entries, %d refused", ran, refused)
	}
}

// TestURLPinsNoScheme pins the URL readers on request URLs without a
// scheme new URL accepts (no ":", an empty scheme, one that does not start
// with a letter or holds a byte no scheme holds): Failure MsgRequestURL,
// never a panic, as new URL throws on them with no base.
func TestURLPinsNoScheme(t *testing.T) {
	for _, u := range []string{"", " ", "example.com", "example.com/a:b", "//example.com/", ":", "://example.com/",
		"a:", "1http://example.com/", "ht_tp://example.com/", "h\x80ttp://example.com/", "\x00"} {
		_, err := InboundHostname(fetchEvent(u))
		checkError(t, err, &wantError{"failure", MsgRequestURL})
	}
	for _, u := range []string{"HTTP://example.com/", "hTtPs://example.com/", " \x01http://example.com/\x1f ", "ht\ttp://example.com/"} {
		if h, err := InboundHostname(fetchEvent(u)); err != nil || h != "example.com" {
			t.Errorf("InboundHostname(%q) = %q, %v", u, h, err)
		}
	}
}

// TestURLPinsHostMissing pins the URL readers on special URLs whose host
// is empty once the authority is cut where it ends (at "/", "\", "?" or
// "#", even before an "@") or before its port: new URL fails them
// ("host-missing"), so they are Failure MsgRequestURL.
func TestURLPinsHostMissing(t *testing.T) {
	for _, u := range []string{"http://?@host.example/", "http://#@host.example/", "http://?@host.example", "http://#@host.example", "http://:80/", "http://u@:80/",
		"http://u@/", "https://:/", "ws://?x"} {
		_, err := InboundHostname(fetchEvent(u))
		checkError(t, err, &wantError{"failure", MsgRequestURL})
	}
}

// TestURLPinsControlBytesEncoded pins how a path and a query keep a C0
// control byte new URL leaves in them (one not at either end): it is
// percent-encoded, as every C0 control is in the path and query
// percent-encode sets (读取入站原路径, 读取入站原查询: "返回原请求的查询串，非空时保留开头 ?").
func TestURLPinsControlBytesEncoded(t *testing.T) {
	for _, c := range []byte{0x01, 0x1e, 0x1f, 0x7f} {
		ev := fetchEvent("http://x/a" + string(c) + "b?c" + string(c) + "d")
		path, err := InboundRawPath(ev)
		checkError(t, err, nil)
		query, err := InboundRawQuery(ev)
		checkError(t, err, nil)
		enc := fmt.Sprintf("%%%02X", c)
		if path != "/a"+enc+"b" || query != "?c"+enc+"d" {
			t.Errorf("byte %#x: path %q query %q", c, path, query)
		}
	}
}

// TestURLPinsHostLowercase pins 读取入站主机名's "依 URL 规则规范化为小写": every
// ASCII upper-case letter of the host is lowered, Z included, wherever it
// stands.
func TestURLPinsHostLowercase(t *testing.T) {
	// Pins I35.
	for in, want := range map[string]string{"z.Z": "z.z", "A.Z": "a.z", "ZZ": "zz", "aZ.b": "az.b", "[a]Z": "", "Az[": ""} {
		got, err := InboundHostname(fetchEvent("http://" + in + "/"))
		if want == "" {
			checkError(t, err, &wantError{"failure", MsgRequestURL})
			continue
		}
		checkError(t, err, nil)
		if got != want {
			t.Errorf("host %q: %q, want %q", in, got, want)
		}
	}
}
