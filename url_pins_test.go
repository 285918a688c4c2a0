package hostbridge

import "testing"

// TestURLPinsIPv4Parts pins 读取入站主机名 on hosts that end in a number:
// "读取入站主机名 返回当前请求 URL 的 hostname，依 URL 规则规范化为小写且不含端口".
// The URL Standard's IPv4 parser takes one to four parts (a trailing empty
// part dropped); a fifth part, or a part over its bytes, fails the parser,
// which the package reports as Failure MsgRequestURL.
func TestURLPinsIPv4Parts(t *testing.T) {
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
