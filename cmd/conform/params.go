package main

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"hostbridge/internal/conform"
)

// maxSameOriginItems is how many pairs or names 构造入站同源网址 takes in a
// list (the spec's 16).
const maxSameOriginItems = 16

// searchParamsRows: urlsearchparams.json, through the query readers and
// the re-serialisation of 构造入站同源网址 (CONFORMANCE.md, section 10).
func searchParamsRows(file string, data []byte) ([]*row, error) {
	var f struct {
		Parse        []json.RawMessage `json:"parse"`
		Serialize    []json.RawMessage `json:"serialize"`
		Sort         []json.RawMessage `json:"sort"`
		Operations   []json.RawMessage `json:"operations"`
		URLInterplay []json.RawMessage `json:"url_interplay"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	parse, err1 := decodeRows(file, "parse", f.Parse, levelSpec, parseRow)
	serialize, err2 := decodeRows(file, "serialize", f.Serialize, levelSpec, serializeRow)
	sort, err3 := decodeRows(file, "sort", f.Sort, levelSpec, sortRow)
	operations, err4 := decodeRows(file, "operations", f.Operations, levelSpec, operationsRow)
	interplay, err5 := decodeRows(file, "url_interplay", f.URLInterplay, levelSpec, interplayRow)
	return slices.Concat(parse, serialize, sort, operations, interplay), errors.Join(err1, err2, err3, err4, err5)
}

// parseRow: the query "?input" (its leading "?" stripped once, then
// percent-encoded as the URL parser encodes a query) read by name: the
// first value of each name, and a name that is absent.
func parseRow(r *struct {
	Input  string      `json:"input"`
	Output [][2]string `json:"output"`
}) (*row, error) {
	query := strings.TrimPrefix(r.Input, "?")
	tc := newCase(fetchEvent("https://example.com/?" + percentEncodeQuery(query)))
	for i, p := range r.Output {
		if slices.IndexFunc(r.Output, func(q [2]string) bool { return q[0] == p[0] }) != i {
			continue // not the first value of its name
		}
		tc.call(wantText(p[1]), "读取入站查询参数", p[0]).call(wantBool(true), "入站查询参数存在", p[0])
	}
	const absent = "absent\x00名"
	tc.call(wantText(""), "读取入站查询参数", absent).call(wantBool(false), "入站查询参数存在", absent)
	return oneCase(r.Input, tc)
}

// serializeRow: the pairs set on a URL without a query (when their names
// are distinct and there are at most 16 of them).
func serializeRow(r *struct {
	Pairs  [][2]string `json:"pairs"`
	Output string      `json:"output"`
}) (*row, error) {
	rw := &row{label: showPairs(r.Pairs)}
	if len(r.Pairs) > maxSameOriginItems || !conform.DistinctNames(r.Pairs) {
		rw.skip = "the pairs repeat a name or are more than 16: 构造入站同源网址 cannot set them"
		return rw, nil
	}
	want := "https://example.com/" + query(r.Output)
	rw.cases = []*tcase{newCase(fetchEvent("https://example.com/")).call(wantText(want), "构造入站同源网址", "", nonNil(r.Pairs), []string{})}
	return rw, nil
}

func sortRow(r *struct {
	Input string `json:"input"`
}) (*row, error) {
	return &row{label: r.Input, skip: "no spec function sorts a query"}, nil
}

// operationsRow: deletes then sets, on a URL whose query is init.
func operationsRow(r *struct {
	Init   string     `json:"init"`
	Ops    [][]string `json:"ops"`
	Output string     `json:"output"`
}) (*row, error) {
	rw := &row{label: r.Init}
	set, del, ok := conform.DelSet(r.Ops)
	if !ok {
		rw.skip = "not deletes then sets: 构造入站同源网址 cannot make these calls"
		return rw, nil
	}
	tc := newCase(fetchEvent("https://example.com/p?"+r.Init)).call(wantText("https://example.com/p"+query(r.Output)),
		"构造入站同源网址", "", nonNil(set), nonNil(del))
	rw.cases = []*tcase{tc}
	return rw, nil
}

// interplayRow: the initial URL's query and its serialisation unchanged,
// then each prefix of the steps that is deletes then sets. A URL of a
// scheme a request cannot have is refused (a decision).
func interplayRow(r *struct {
	Initial struct{ Href, Search string } `json:"initial"`
	Steps   []struct {
		Step []string `json:"step"`
		Href string   `json:"href"`
	} `json:"steps"`
}) (*row, error) {
	rw := &row{label: r.Initial.Href}
	tc := newCase(fetchEvent(r.Initial.Href))
	rw.cases = []*tcase{tc}
	if !slices.Contains(requestSchemes, schemeOf(r.Initial.Href)) {
		rw.level = levelDecision
		tc.call(wantError("failure", msgRequestURL), "读取入站原查询")
		return rw, nil
	}
	noFrag, _, _ := strings.Cut(r.Initial.Href, "#")
	tc.call(wantText(r.Initial.Search), "读取入站原查询").readerCall(wantText(noFrag), "构造入站同源网址", "")
	var steps [][]string
	for _, s := range r.Steps {
		if len(s.Step) == 0 || s.Step[0] != "searchParams" {
			break
		}
		steps = append(steps, s.Step[1:])
		set, del, ok := conform.DelSet(steps)
		if !ok {
			break
		}
		want, _, _ := strings.Cut(s.Href, "#")
		tc.call(wantText(want), "构造入站同源网址", "", nonNil(set), nonNil(del))
	}
	return rw, nil
}

// query is "?q", or "" for an empty q.
func query(q string) string {
	if q == "" {
		return ""
	}
	return "?" + q
}

func showPairs(pairs [][2]string) string {
	b, _ := json.Marshal(pairs) // strings: cannot fail
	return string(b)
}
