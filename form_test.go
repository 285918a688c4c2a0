package hostbridge

import (
	"slices"
	"strings"
	"testing"

	"hostbridge/internal/conform"
)

// searchParamsData is testdata/urlsearchparams.json: the URLSearchParams
// cases the form readers and InboundSameOriginURL are held to.
type searchParamsData struct {
	Parse []struct {
		Input      string
		Output     [][2]string
		Serialized string
	}
	Serialize []struct {
		Pairs  [][2]string
		Output string
	}
	Operations []struct {
		Init   string
		Ops    [][]string
		Output string
	}
	URLInterplay []struct {
		URL     string
		Initial struct{ Href, Search, Params string }
		Steps   []struct {
			Step                 []string
			Href, Search, Params string
		}
	} `json:"url_interplay"`
}

func pairsOf(list []formPair) [][2]string {
	out := [][2]string{}
	for _, p := range list {
		out = append(out, [2]string{p.name, p.value})
	}
	return out
}

// TestURLSearchParams runs the URLSearchParams cases of
// urlsearchparams.json. parse: the WPT and node parse cases, as
// new URLSearchParams(input): the pairs of parseForm, toString of
// serializeForm, and get/has through the readers on a URL whose query is the
// input (the constructor's leading "?" stripped, then percent-encoded as the
// URL parser's query state does, so "#" and controls stay in the query).
// serialize: the serialisation cases through serializeForm and, for pairs
// of distinct names, InboundSameOriginURL. operations: the cases made of
// deletes then sets through InboundSameOriginURL, and through
// formDelete/formSet. interplay: for each url_interplay case, the readers
// on the initial href, and each prefix of steps that is deletes then sets
// through InboundSameOriginURL (compared without the fragment).
// Pins D36, D38.
func TestURLSearchParams(t *testing.T) {
	// Pins I19, I21, I27, I33.
	t.Run("parse", func(t *testing.T) {
		var d searchParamsData
		readTestJSON(t, "urlsearchparams.json", &d)
		for _, c := range d.Parse {
			query := strings.TrimPrefix(c.Input, "?")
			list := parseForm(query)
			if got := pairsOf(list); !slices.Equal(got, c.Output) {
				t.Errorf("parse %q: %q, want %q", c.Input, got, c.Output)
			}
			if got := serializeForm(list); got != c.Serialized {
				t.Errorf("parse %q then toString: %q, want %q", c.Input, got, c.Serialized)
			}
			ev := fetchEvent("https://example.com/?" + percentEncode(query, encodeSpecialQuery))
			for i, p := range c.Output {
				first := slices.IndexFunc(c.Output, func(q [2]string) bool { return q[0] == p[0] })
				if first != i {
					continue
				}
				v, err := InboundQueryParam(ev, p[0])
				ok, err2 := InboundQueryParamExists(ev, p[0])
				if v != p[1] || !ok || err != nil || err2 != nil {
					t.Errorf("parse %q: get(%q) = %q, %v, has = %v, %v; want %q, true", c.Input, p[0], v, err, ok, err2, p[1])
				}
			}
			const absent = "absent\x00名"
			v, err := InboundQueryParam(ev, absent)
			ok, err2 := InboundQueryParamExists(ev, absent)
			if v != "" || ok || err != nil || err2 != nil {
				t.Errorf("parse %q: absent name: %q, %v, %v, %v", c.Input, v, ok, err, err2)
			}
		}
		t.Logf("%d parse cases", len(d.Parse))
	})
	t.Run("serialize", func(t *testing.T) {
		var d searchParamsData
		readTestJSON(t, "urlsearchparams.json", &d)
		for _, c := range d.Serialize {
			var list []formPair
			for _, p := range c.Pairs {
				list = append(list, formPair{p[0], p[1]})
			}
			if got := serializeForm(list); got != c.Output {
				t.Errorf("serialize %q: %q, want %q", c.Pairs, got, c.Output)
			}
			// Through InboundSameOriginURL: setting the pairs (distinct names)
			// on a URL without a query gives the same query.
			if len(c.Pairs) <= MaxSameOriginItems && conform.DistinctNames(c.Pairs) {
				got, err := InboundSameOriginURL(fetchEvent("https://example.com/"), "", c.Pairs, nil)
				want := "https://example.com/"
				if c.Output != "" {
					want += "?" + c.Output
				}
				if got != want || err != nil {
					t.Errorf("set %q: %q, %v; want %q", c.Pairs, got, err, want)
				}
			}
		}
		t.Logf("%d serialize cases", len(d.Serialize))
	})
	t.Run("operations", func(t *testing.T) {
		var d searchParamsData
		readTestJSON(t, "urlsearchparams.json", &d)
		ran := 0
		for _, c := range d.Operations {
			set, del, ok := conform.DelSet(c.Ops)
			if !ok {
				continue
			}
			ran++
			list := parseForm(c.Init)
			for _, k := range del {
				list = formDelete(list, k)
			}
			for _, kv := range set {
				list = formSet(list, kv[0], kv[1])
			}
			if got := serializeForm(list); got != c.Output {
				t.Errorf("operations %q on %q: %q, want %q", c.Ops, c.Init, got, c.Output)
			}
			got, err := InboundSameOriginURL(fetchEvent("https://example.com/p?"+c.Init), "", set, del)
			want := "https://example.com/p"
			if c.Output != "" {
				want += "?" + c.Output
			}
			if got != want || err != nil {
				t.Errorf("InboundSameOriginURL %q on %q: %q, %v; want %q", c.Ops, c.Init, got, err, want)
			}
		}
		t.Logf("%d of %d operations cases are deletes then sets", ran, len(d.Operations))
		if ran < 10 {
			t.Fatal("too few operations cases ran")
		}
	})
	t.Run("interplay", func(t *testing.T) {
		var d searchParamsData
		readTestJSON(t, "urlsearchparams.json", &d)
		ran := 0
		for _, c := range d.URLInterplay {
			href := c.Initial.Href
			ev := fetchEvent(href)
			if _, ok := parseURL(href); !ok {
				// Not a request's URL (a non-special scheme): the readers refuse it.
				_, err := InboundRawQuery(ev)
				checkError(t, err, &wantError{"failure", MsgRequestURL})
				continue
			}
			if got, err := InboundRawQuery(ev); got != c.Initial.Search || err != nil {
				t.Errorf("%s: InboundRawQuery = %q, %v; want %q", href, got, err, c.Initial.Search)
			}
			if got := serializeForm(parseForm(mustParseURL(t, href).query)); got != c.Initial.Params {
				t.Errorf("%s: searchParams.toString() = %q, want %q", href, got, c.Initial.Params)
			}
			noFrag, _, _ := strings.Cut(href, "#")
			if got, err := InboundSameOriginURL(ev, "", nil, nil); got != noFrag || err != nil {
				t.Errorf("%s: InboundSameOriginURL with no change = %q, %v", href, got, err)
			}
			var steps [][]string
			for _, s := range c.Steps {
				if s.Step[0] != "searchParams" {
					break
				}
				steps = append(steps, s.Step[1:])
				set, del, ok := conform.DelSet(steps)
				if !ok {
					break
				}
				ran++
				want, _, _ := strings.Cut(s.Href, "#")
				if got, err := InboundSameOriginURL(ev, "", set, del); got != want || err != nil {
					t.Errorf("%s then %q: %q, %v; want %q", href, steps, got, err, want)
				}
			}
		}
		t.Logf("%d url_interplay steps map onto InboundSameOriginURL", ran)
		if ran < 4 {
			t.Fatal("too few url_interplay steps ran")
		}
	})
}
