// Command clausefold folds testdata/clause-proofs.json, where proofs and
// corrected homes are staged per clause, into testdata/clauses.json: a
// staged home replaces the clause's, staged proofs are added to the
// clause's (one already there is not added twice), and so are the tests
// named in addTests (those a proof relies on that the clause did not list). The staging file is
// then removed. Standard library only; run it from the root module:
//
//	go run ./internal/clausefold
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

const (
	clausesFile = "testdata/clauses.json"
	stagingFile = "testdata/clause-proofs.json"
)

// A clause of clausesFile, its fields in the file's order; only the home
// and the proofs are read.
type clause struct {
	ID        string            `json:"id"`
	Spec      json.RawMessage   `json:"spec"`
	Section   json.RawMessage   `json:"section"`
	Kind      json.RawMessage   `json:"kind"`
	Text      json.RawMessage   `json:"text"`
	Note      json.RawMessage   `json:"note,omitempty"`
	Decisions json.RawMessage   `json:"decisions,omitempty"`
	Home      json.RawMessage   `json:"home"`
	Tests     []string          `json:"tests"`
	Vectors   json.RawMessage   `json:"vectors"`
	Proofs    []json.RawMessage `json:"proofs,omitempty"`
}

// staged is one clause's entry in stagingFile.
type staged struct {
	Home     json.RawMessage   `json:"home,omitempty"`
	Proofs   []json.RawMessage `json:"proofs"`
	AddTests []string          `json:"addTests,omitempty"`
}

func main() {
	var cs []clause
	var st map[string]staged
	read(clausesFile, &cs)
	read(stagingFile, &st)
	index := map[string]int{}
	for i, c := range cs {
		index[c.ID] = i
	}
	homes, proofs := 0, 0
	for id, s := range st {
		i, ok := index[id]
		if !ok {
			fail(fmt.Errorf("%s stages %s, which %s does not have", stagingFile, id, clausesFile))
		}
		if len(s.Home) > 0 {
			cs[i].Home = s.Home
			homes++
		}
		for _, t := range s.AddTests {
			if !slices.Contains(cs[i].Tests, t) {
				cs[i].Tests = append(cs[i].Tests, t)
			}
		}
		for _, p := range s.Proofs {
			if !holds(cs[i].Proofs, p) {
				cs[i].Proofs = append(cs[i].Proofs, p)
				proofs++
			}
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(cs); err != nil {
		fail(err)
	}
	if err := os.WriteFile(clausesFile, out.Bytes(), 0o644); err != nil {
		fail(err)
	}
	if err := os.Remove(stagingFile); err != nil {
		fail(err)
	}
	fmt.Printf("folded %d clauses: %d homes replaced, %d proofs added; %s removed\n", len(st), homes, proofs, stagingFile)
}

// holds reports whether ps holds p (compared compact).
func holds(ps []json.RawMessage, p json.RawMessage) bool {
	var a bytes.Buffer
	if err := json.Compact(&a, p); err != nil {
		fail(err)
	}
	for _, q := range ps {
		var b bytes.Buffer
		if err := json.Compact(&b, q); err == nil && bytes.Equal(a.Bytes(), b.Bytes()) {
			return true
		}
	}
	return false
}

func read(name string, v any) {
	data, err := os.ReadFile(name)
	if err != nil {
		fail(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		fail(fmt.Errorf("%s: %v", name, err))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "clausefold:", err)
	os.Exit(2)
}
