// Command clauseproof is the clause matrix's proof check. Every clause of
// testdata/clauses.json that a test pins records, under "proofs", mutants
// of its home: a file of the root package, an exact old text that occurs
// once in it, the new text, the build ("default", "ref" for
// -tags hostbridge_ref, or "both") and the tests that must fail with it.
// The check applies each mutant to the package through `go test -overlay`
// (the work tree is never written), runs the named tests in each of its
// builds, and fails when they all pass, when an old text no longer occurs
// exactly once, or when a named test is not a test of the build.
//
// One test binary per build serves almost every mutant (schema.go): each
// mutant's function gets, ahead of its own body, the mutated body behind
// `if clauseproofActive == k`, and the binary runs once per mutant with
// CLAUSEPROOF_MUTANT=k. A mutant outside a function body is built alone.
//
// What failed (the named tests that failed, per build) is recorded in
// testdata/clauseproof/kills.json, which CLAUSES.md quotes; the check also fails
// when the run differs from that record (-write rewrites it). Standard
// library only; run it from the root module:
//
//	go run ./internal/clauseproof [-write] [-only regexp] [-p n] [-timeout 2m]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// A proof is one recorded mutant, as it sits in a clause's "proofs".
type proof struct {
	File  string   `json:"file"`
	Old   string   `json:"old"`
	New   string   `json:"new"`
	Build string   `json:"build"`
	Tests []string `json:"tests"`
}

// A mutant is a proof located in its file: [start, end) is the old text.
type mutant struct {
	id         string // the clause's
	index      int    // of the proof in the clause's list
	proof      proof
	start, end int
	k          int  // its number in the schema (1…)
	schema     bool // built into the schema, not alone
}

// builds maps a proof's build to the -tags of each build it runs in.
var builds = map[string][]string{
	"default": {"default"},
	"ref":     {"ref"},
	"both":    {"default", "ref"},
}

// tagsOf is the go -tags of a build.
func tagsOf(build string) string {
	if build == "ref" {
		return "hostbridge_ref"
	}
	return ""
}

// A kill is the record of one mutant (the clause's proof number Proof,
// from 0, with its file and old text) in one build: the named tests that
// failed ("timeout" when the run timed out, "crash" when the binary failed
// without naming a test).
type kill struct {
	ID       string   `json:"id"`
	Proof    int      `json:"proof"`
	File     string   `json:"file"`
	Old      string   `json:"old"`
	Build    string   `json:"build"`
	KilledBy []string `json:"killedBy"`
}

const (
	clausesFile = "testdata/clauses.json"
	killsFile   = "testdata/clauseproof/kills.json"
)

func main() {
	write := flag.Bool("write", false, "rewrite "+killsFile+" from this run instead of comparing with it")
	only := flag.String("only", "", "check only the clauses whose id matches this regexp (implies no comparison with the record)")
	jobs := flag.Int("p", 2, "mutants run at once")
	timeout := flag.Duration("timeout", 2*time.Minute, "-test.timeout of each run")
	flag.Parse()
	onlyRE, err := regexp.Compile(*only)
	if err != nil {
		fail(err)
	}
	start := time.Now()
	ms, problems := locate(readProofs(onlyRE))
	for _, p := range problems {
		fmt.Println("FAIL", p)
	}
	r := &runner{jobs: max(*jobs, 1), timeout: *timeout}
	kills, ok := r.runAll(ms)
	ok = ok && len(problems) == 0
	switch {
	case *write:
		writeKills(kills)
	case *only == "":
		ok = compareKills(kills) && ok
	}
	fmt.Printf("%d mutants of %d clauses, %d runs, %.0fs\n", len(ms), countClauses(ms), len(kills), time.Since(start).Seconds())
	if !ok {
		os.Exit(1)
	}
}

// readProofs returns the proofs of the clauses whose id matches only, in
// the file's order.
func readProofs(only *regexp.Regexp) []mutant {
	data, err := os.ReadFile(clausesFile)
	if err != nil {
		fail(err)
	}
	var cs []struct {
		ID     string  `json:"id"`
		Proofs []proof `json:"proofs"`
	}
	if err := json.Unmarshal(data, &cs); err != nil {
		fail(fmt.Errorf("%s: %v", clausesFile, err))
	}
	var ms []mutant
	for _, c := range cs {
		if !only.MatchString(c.ID) {
			continue
		}
		for i, p := range c.Proofs {
			ms = append(ms, mutant{id: c.ID, index: i, proof: p})
		}
	}
	return ms
}

// locate finds each mutant's old text in its file, and lists the proofs
// that cannot run: an old text not found exactly once, an unknown build,
// no test named.
func locate(ms []mutant) ([]mutant, []string) {
	var ok []mutant
	var problems []string
	for _, m := range ms {
		name := fmt.Sprintf("%s proof %d (%s)", m.id, m.index+1, m.proof.File)
		src, err := os.ReadFile(m.proof.File)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", name, err))
		case builds[m.proof.Build] == nil:
			problems = append(problems, fmt.Sprintf("%s: build %q is none of default, ref, both", name, m.proof.Build))
		case len(m.proof.Tests) == 0:
			problems = append(problems, name+": names no test")
		case m.proof.Old == "" || m.proof.Old == m.proof.New:
			problems = append(problems, name+": the old text is empty or the same as the new")
		case bytes.Count(src, []byte(m.proof.Old)) != 1:
			problems = append(problems, fmt.Sprintf("%s: the old text occurs %d times, not once: %q",
				name, bytes.Count(src, []byte(m.proof.Old)), m.proof.Old))
		default:
			m.start = bytes.Index(src, []byte(m.proof.Old))
			m.end = m.start + len(m.proof.Old)
			ok = append(ok, m)
		}
	}
	for i := range ok {
		ok[i].k = i + 1
	}
	return ok, problems
}

func countClauses(ms []mutant) int {
	ids := map[string]bool{}
	for _, m := range ms {
		ids[m.id] = true
	}
	return len(ids)
}

func writeKills(kills []kill) {
	data, err := json.MarshalIndent(kills, "", " ")
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(killsFile, append(data, '\n'), 0o644); err != nil {
		fail(err)
	}
	fmt.Println("wrote", killsFile)
}

// compareKills reports whether the run gave what killsFile records, and
// prints each difference.
func compareKills(kills []kill) bool {
	data, err := os.ReadFile(killsFile)
	if err != nil {
		fmt.Printf("FAIL %v: run go run ./internal/clauseproof -write\n", err)
		return false
	}
	var rec []kill
	if err := json.Unmarshal(data, &rec); err != nil {
		fail(fmt.Errorf("%s: %v", killsFile, err))
	}
	key := func(k kill) string {
		return fmt.Sprintf("%s proof %d (%s %q) in %s", k.ID, k.Proof+1, k.File, k.Old, k.Build)
	}
	want := map[string]string{}
	for _, k := range rec {
		want[key(k)] = strings.Join(k.KilledBy, ", ")
	}
	ok := len(rec) == len(kills)
	if !ok {
		fmt.Printf("FAIL %s records %d runs, this run made %d\n", killsFile, len(rec), len(kills))
	}
	for _, k := range kills {
		if got := strings.Join(k.KilledBy, ", "); want[key(k)] != got {
			fmt.Printf("FAIL %s: %s records killed by [%s], this run [%s]\n", key(k), killsFile, want[key(k)], got)
			ok = false
		}
	}
	if !ok {
		fmt.Println("(go run ./internal/clauseproof -write records this run, then go test -run TestClausesMarkdown -update . renders it)")
	}
	return ok
}

// sortedUnique returns the strings sorted, once each.
func sortedUnique(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "clauseproof:", err)
	os.Exit(2)
}
