package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"hostbridge/internal/conform"
)

// msgRequestURL and msgNoRequest are the exceptions of the URL readers the
// runner derives cases from.
const (
	msgRequestURL = "入站请求网址无效"
	msgNoRequest  = "当前没有 HTTP 请求"
)

// urlReaders are the functions that read the request's URL or method:
// each fails with 当前没有 HTTP 请求 on an event that carries no request.
var urlReaders = []string{"读取入站方法", "读取入站原路径", "读取入站解码路径", "读取入站来源",
	"读取入站主机名", "读取入站原查询", "读取入站查询参数", "入站查询参数存在", "构造入站同源网址"}

// readerCall adds a call of a URL reader with arg (the name, or the path of
// 构造入站同源网址 with both lists empty).
func (c *tcase) readerCall(w want, function, arg string) *tcase {
	switch {
	case function == "构造入站同源网址":
		return c.call(w, function, arg, [][2]string{}, []string{})
	case nameFunctions[function]:
		return c.call(w, function, arg)
	}
	return c.call(w, function)
}

// urlReaderRows: inbound-url.json, and a last row: the adapter's event kinds
// are documented_kinds, and every reader fails with 当前没有 HTTP 请求 on
// each documented kind that carries no request, a request attached.
func urlReaderRows(file string, data []byte) ([]*row, error) {
	var f struct {
		DocumentedKinds []string `json:"documented_kinds"`
		RequestKinds    []string `json:"request_kinds"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	rows, err := fileRows(file, data, levelDecision, func(r *readerVector) (*row, error) {
		ev := fetchEvent(r.URL)
		ev.Kind, ev.Request.Method = r.Kind, conform.Text(r.Method)
		if r.NoRequest {
			ev.Request = nil
		}
		return oneCase(r.Situation, newCase(ev).call(wantText(r.Kind), "读取入站事件种类").readerCall(readerWant(r.Want, r.Error), r.Call, r.Arg))
	})
	return append(rows, kindsRow(file, f.DocumentedKinds, f.RequestKinds)), err
}

type readerVector struct {
	Situation string             `json:"情境"`
	Kind      string             `json:"kind"`
	Method    string             `json:"method"`
	URL       string             `json:"url"`
	NoRequest bool               `json:"no_request"`
	Call      string             `json:"call"`
	Arg       string             `json:"arg"`
	Want      json.RawMessage    `json:"want"`
	Error     *conform.Exception `json:"error"`
}

func kindsRow(file string, documented, requestKinds []string) *row {
	r := &row{name: file + ":documented_kinds#1", label: "the event kinds, and the readers on the kinds without a request", level: levelSpec}
	r.hello = func(h conform.Hello) string {
		if slices.Equal(h.Events, documented) {
			return ""
		}
		return fmt.Sprintf("want the handshake's events %q, got %q", documented, h.Events)
	}
	for _, k := range documented {
		if slices.Contains(requestKinds, k) {
			continue
		}
		ev := fetchEvent("https://example.com/?a=1")
		ev.Kind = k
		tc := newCase(ev).call(wantText(k), "读取入站事件种类")
		for _, fn := range urlReaders {
			tc.readerCall(wantError("failure", msgNoRequest), fn, "/x")
		}
		r.cases = append(r.cases, tc)
	}
	return r
}

// sameOriginRows: inbound-same-origin.json.
func sameOriginRows(file string, data []byte) ([]*row, error) {
	return fileRows(file, data, levelDecision, func(r *struct {
		Situation string             `json:"情境"`
		URL       string             `json:"url"`
		Path      string             `json:"path"`
		Set       [][2]string        `json:"set"`
		Del       []string           `json:"del"`
		Want      json.RawMessage    `json:"want"`
		Error     *conform.Exception `json:"error"`
	}) (*row, error) {
		return oneCase(r.Situation, newCase(fetchEvent(r.URL)).call(readerWant(r.Want, r.Error), "构造入站同源网址", r.Path, nonNil(r.Set), nonNil(r.Del)))
	})
}

// nonNil is s, or an empty list for nil (an argument is a list, never null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// The four readers of a URL's parts, in the order urlParts lists them.
var partReaders = []string{"读取入站来源", "读取入站主机名", "读取入站原路径", "读取入站原查询"}

// partsCase is a fetch event of url and the four part readers, each wanting
// its part, or (parts nil) failing with 入站请求网址无效.
func partsCase(url string, parts []string) *tcase {
	tc := newCase(fetchEvent(url))
	for i, fn := range partReaders {
		w := wantError("failure", msgRequestURL)
		if parts != nil {
			w = wantText(parts[i])
		}
		tc.call(w, fn)
	}
	return tc
}

// urlParseRows: inbound-url-parse.json.
func urlParseRows(file string, data []byte) ([]*row, error) {
	return fileRows(file, data, levelSpec, func(r *struct {
		Situation string `json:"情境"`
		URL       string `json:"url"`
		Want      struct {
			Origin, Hostname, Pathname, Search string
			Error                              bool
		} `json:"want"`
	}) (*row, error) {
		parts := []string{r.Want.Origin, r.Want.Hostname, r.Want.Pathname, r.Want.Search}
		if r.Want.Error {
			parts = nil
		}
		return oneCase(r.Situation, partsCase(r.URL, parts))
	})
}

// requestURLRows: request-url.json. The host makes Request.url from the
// raw target, the Host header and TLS; 构造入站同源网址 with no change gives
// it back.
func requestURLRows(file string, data []byte) ([]*row, error) {
	return fileRows(file, data, levelDecision, func(r *struct {
		Situation string `json:"情境"`
		TLS       bool   `json:"tls"`
		Host      string `json:"host"`
		Target    string `json:"target"`
		Want      string `json:"want"`
	}) (*row, error) {
		target := conform.Text(r.Target)
		ev := &conform.Event{Kind: "fetch", Request: &conform.Request{Method: conform.Text("GET"), Target: &target, TLS: r.TLS,
			Headers: headersOf([][2]string{{"Host", r.Host}})}}
		return oneCase(r.Situation, newCase(ev).readerCall(wantText(r.Want), "构造入站同源网址", ""))
	})
}

// requestSchemes are the schemes a request URL can have; the readers refuse
// any other (the package's rule, testdata/README.md).
var requestSchemes = []string{"ftp", "http", "https", "ws", "wss"}

// isSpecialScheme: the URL Standard's special schemes.
func isSpecialScheme(s string) bool { return slices.Contains(requestSchemes, s) || s == "file" }

// schemeOf is the lower-cased scheme of an absolute URL string, or "".
func schemeOf(s string) string {
	i := strings.IndexByte(s, ':')
	if i < 1 {
		return ""
	}
	for j, c := range s[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return strings.ToLower(s[:i])
}
