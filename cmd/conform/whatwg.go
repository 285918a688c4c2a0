package main

import (
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
)

// urlEntry is an entry of WPT's urltestdata.json.
type urlEntry struct {
	Input    string  `json:"input"`
	Base     *string `json:"base"`
	Href     string  `json:"href"`
	Origin   *string `json:"origin"`
	Protocol string  `json:"protocol"`
	Hostname string  `json:"hostname"`
	Pathname string  `json:"pathname"`
	Search   string  `json:"search"`
	Hash     string  `json:"hash"`
	Failure  bool    `json:"failure"`
}

// urlTestDataRows: urltestdata.json, through the URL readers (CONFORMANCE.md,
// section 10). The strings of the file are comments, not rows.
func urlTestDataRows(file string, data []byte) ([]*row, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, err
	}
	objects := slices.DeleteFunc(entries, func(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' })
	return decodeRows(file, "", objects, levelSpec, func(e *urlEntry) (*row, error) { return e.row(), nil })
}

func (e *urlEntry) row() *row {
	r := &row{label: e.Input, level: levelSpec}
	if !e.Failure {
		r.cases = e.hrefCases(r)
	}
	if tc := e.inputCase(r); tc != nil {
		r.cases = append(r.cases, tc)
	}
	if len(r.cases) == 0 {
		r.skip = "a failure that might not fail without its base: no Request.url stands for it"
	}
	return r
}

// hrefCases: the entry's href, and the href without its fragment, as
// Request.url. A scheme a request cannot have is refused (a decision).
func (e *urlEntry) hrefCases(r *row) []*tcase {
	var parts []string
	if slices.Contains(requestSchemes, strings.TrimSuffix(e.Protocol, ":")) {
		parts = e.parts()
	} else {
		r.level = levelDecision
	}
	out := []*tcase{partsCaseAny(e.Href, parts)}
	if e.Hash != "" {
		out = append(out, partsCaseAny(strings.TrimSuffix(e.Href, e.Hash), parts))
	}
	return out
}

// inputCase: the input itself as Request.url, unparsed, when it is an
// absolute URL of a special scheme other than file whose base does not
// matter; or a failure that fails without its base too (no base, no scheme,
// or a scheme other than the base's). Nil when neither.
func (e *urlEntry) inputCase(r *row) *tcase {
	in := strings.ToLower(tabNewline.Replace(strings.TrimLeft(e.Input, c0OrSpace)))
	scheme, _, _ := strings.Cut(in, ":")
	absolute := isSpecialScheme(scheme) && scheme != "file" && (e.Base == nil || strings.HasPrefix(in, scheme+"://"))
	switch {
	case !absolute && e.Failure && (e.Base == nil || schemeOf(in) != schemeOf(*e.Base)):
		return partsCaseAny(e.Input, nil)
	case !absolute:
		return nil
	case e.Failure:
		return partsCaseAny(e.Input, nil)
	case needsIDNA(e.Input):
		r.level = levelDecision
		return partsCaseAny(e.Input, nil)
	}
	return partsCaseAny(e.Input, e.parts())
}

// tabNewline removes what the URL parser removes from anywhere in its input.
var tabNewline = strings.NewReplacer("\t", "", "\n", "", "\r", "")

// parts are origin, hostname, pathname and search; "" origin when the entry
// gives none (not compared).
func (e *urlEntry) parts() []string {
	origin := "\x00any"
	if e.Origin != nil {
		origin = *e.Origin
	}
	return []string{origin, e.Hostname, e.Pathname, e.Search}
}

// partsCaseAny is partsCase where a part "\x00any" is not compared.
func partsCaseAny(url string, parts []string) *tcase {
	tc := partsCase(url, parts)
	for i := range parts {
		if parts[i] == "\x00any" {
			tc.wants[i] = want{}
		}
	}
	return tc
}

// c0OrSpace are the bytes the URL parser trims from an input's ends.
const c0OrSpace = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f" +
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "

// needsIDNA reports whether the host of the absolute URL s is not ASCII
// once percent-decoded: the package refuses such a URL (it does no IDNA).
func needsIDNA(s string) bool {
	s = tabNewline.Replace(s)
	_, rest, _ := strings.Cut(s, ":")
	rest = strings.TrimLeft(rest, `/\`)
	if end := strings.IndexAny(rest, `/\?#`); end >= 0 {
		rest = rest[:end]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	return strings.ContainsFunc(percentDecode(rest), func(r rune) bool { return r > 0x7F })
}

// percentDecode decodes each %XX; a % without two hex digits stays.
func percentDecode(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if h, err := hex.DecodeString(s[i+1 : min(i+3, len(s))]); s[i] == '%' && err == nil && len(h) == 1 {
			b = append(b, h[0])
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// percentEncodeQuery is s percent-encoded with the special-query
// percent-encode set, as the URL parser encodes a special URL's query.
func percentEncodeQuery(s string) string {
	const hexUpper = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c > '~' || strings.IndexByte(`"#<>'`, c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hexUpper[c>>4])
			b.WriteByte(hexUpper[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
