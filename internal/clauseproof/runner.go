package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

type runner struct {
	jobs    int
	timeout time.Duration
	dir     string // scratch
}

// A job is one mutant run in one build, by the binary bin (k: the number
// to switch on, 0 for a mutant built alone).
type job struct {
	m          mutant
	build, bin string
	k          int
}

// runAll builds the schema in every build a mutant needs, builds the rest
// one by one, runs every mutant's tests and returns the kills in the
// clauses' order, and whether every mutant was killed.
func (r *runner) runAll(ms []mutant) ([]kill, bool) {
	dir, err := os.MkdirTemp("", "clauseproof")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	r.dir = dir
	overlay := schemaSources(ms)
	ok := true
	var jobs []job
	for _, build := range []string{"default", "ref"} {
		var mine []int
		for i, m := range ms {
			if slices.Contains(builds[m.proof.Build], build) {
				mine = append(mine, i)
			}
		}
		if len(mine) == 0 {
			continue
		}
		js, good := r.prepare(build, ms, mine, overlay)
		jobs, ok = append(jobs, js...), ok && good
	}
	kills := r.runJobs(jobs)
	for _, k := range kills {
		if len(k.KilledBy) == 0 {
			ok = false
		}
	}
	return kills, ok
}

// prepare builds the schema binary of a build, checks that it passes the
// named tests with no mutant on and that every named test is one of its
// tests, and returns the jobs of the build's mutants ms[mine] (building the
// ones outside the schema alone).
func (r *runner) prepare(build string, ms []mutant, mine []int, overlay map[string]string) ([]job, bool) {
	start := time.Now()
	bin, _ := r.build(build, overlay, "schema")
	if bin == "" {
		r.dropBroken(build, overlay, ms)
		if bin, _ = r.build(build, overlay, "schema"); bin == "" {
			fail(fmt.Errorf("the schema does not build in the %s build, with no file rewritten", build))
		}
	}
	fmt.Printf("built the %s build's schema in %.0fs\n", build, time.Since(start).Seconds())
	have, files := r.listTests(bin), goFiles(build)
	ok := true
	var all []string
	for _, i := range mine {
		m := ms[i]
		if !files[m.proof.File] {
			fmt.Printf("FAIL %s proof %d: %s is not compiled in the %s build\n", m.id, m.index+1, m.proof.File, build)
			ok = false
		}
		for _, t := range m.proof.Tests {
			if !have[t] {
				fmt.Printf("FAIL %s proof %d: %s is not a test of the %s build\n", m.id, m.index+1, t, build)
				ok = false
			}
			all = append(all, t)
		}
	}
	if failed := r.runTests(bin, 0, sortedUnique(all)); len(failed) > 0 {
		fail(fmt.Errorf("with no mutant on, the %s build fails %s", build, strings.Join(failed, ", ")))
	}
	var jobs []job
	alone := 0
	for _, i := range mine {
		m := ms[i]
		j := job{m: m, build: build, bin: bin, k: m.k}
		if !m.schema {
			j.bin, j.k = r.buildAlone(build, m), 0
			alone++
		}
		jobs = append(jobs, j)
	}
	fmt.Printf("the %s build: %d mutants in the schema, %d built alone, %.0fs\n", build, len(mine)-alone, alone, time.Since(start).Seconds())
	return jobs, ok
}

// dropBroken takes out of the schema each rewritten file that does not
// build in a build (a mutant that does not build, or one the schema cannot
// hold): its mutants are built alone.
func (r *runner) dropBroken(build string, overlay map[string]string, ms []mutant) {
	for file, text := range overlay {
		if file == activeFile {
			continue
		}
		if bin, out := r.build(build, map[string]string{file: text, activeFile: overlay[activeFile]}, "try"); bin == "" {
			fmt.Printf("the schema of %s does not build in the %s build; its mutants are built alone:\n%s", file, build, out)
			delete(overlay, file)
			for i := range ms {
				if ms[i].proof.File == file {
					ms[i].schema = false
				}
			}
		}
	}
}

// buildAlone builds the package with one mutant applied (a mutant that does
// not build is a failed proof: no binary, no kill).
func (r *runner) buildAlone(build string, m mutant) string {
	src, err := os.ReadFile(m.proof.File)
	if err != nil {
		fail(err)
	}
	mutated := string(src[:m.start]) + m.proof.New + string(src[m.end:])
	bin, out := r.build(build, map[string]string{m.proof.File: mutated}, fmt.Sprintf("alone%d", m.k))
	if bin == "" {
		fmt.Printf("FAIL %s proof %d does not build in the %s build:\n%s", m.id, m.index+1, build, out)
	}
	return bin
}

// build builds the root package's test binary in a build with the overlay
// (path in the package → content) and returns its path, or "" and the
// build's output.
func (r *runner) build(build string, files map[string]string, name string) (string, string) {
	replace := map[string]string{}
	for path, text := range files {
		abs, _ := filepath.Abs(path)
		tmp := filepath.Join(r.dir, name+"-"+filepath.Base(path))
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			fail(err)
		}
		replace[abs] = tmp
	}
	data, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
	ov := filepath.Join(r.dir, name+"-"+build+"-overlay.json")
	bin := filepath.Join(r.dir, name+"-"+build+".test")
	if err := os.WriteFile(ov, data, 0o644); err != nil {
		fail(err)
	}
	out, err := exec.Command("go", "test", "-c", "-o", bin, "-vet=off", "-overlay", ov,
		"-tags", tagsOf(build), ".").CombinedOutput()
	if err != nil {
		return "", string(out)
	}
	return bin, ""
}

// listTests returns the names of the tests, examples and fuzz tests of a
// test binary.
func (r *runner) listTests(bin string) map[string]bool {
	out, err := exec.Command(bin, "-test.list", ".").Output()
	if err != nil {
		fail(fmt.Errorf("%s -test.list: %v", bin, err))
	}
	have := map[string]bool{}
	for _, line := range strings.Fields(string(out)) {
		have[line] = true
	}
	return have
}

// goFiles returns the package's non-test files compiled in a build.
func goFiles(build string) map[string]bool {
	out, err := exec.Command("go", "list", "-tags", tagsOf(build), "-f", `{{join .GoFiles "\n"}}`, ".").Output()
	if err != nil {
		fail(fmt.Errorf("go list: %v", err))
	}
	files := map[string]bool{}
	for _, f := range strings.Fields(string(out)) {
		files[f] = true
	}
	return files
}

// failRE finds a top-level test's failure in go test's output.
var failRE = regexp.MustCompile(`(?m)^--- FAIL: (\S+)`)

// runTests runs the tests (exact names) with mutant k on and returns those
// that failed: "timeout" when the run timed out, "crash" when it failed
// without naming a test.
func (r *runner) runTests(bin string, k int, tests []string) []string {
	pattern := "^(" + strings.Join(tests, "|") + ")$"
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.count=1", "-test.run", pattern,
		"-test.timeout", r.timeout.String())
	cmd.Env = append(withoutLong(os.Environ()), fmt.Sprintf("CLAUSEPROOF_MUTANT=%d", k))
	cmd.Dir = "."
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil || strings.Contains(string(out), "panic: test timed out after") {
		return []string{"timeout"}
	}
	var failed []string
	for _, m := range failRE.FindAllStringSubmatch(string(out), -1) {
		failed = append(failed, m[1])
	}
	if len(failed) == 0 {
		return []string{"crash"}
	}
	return sortedUnique(failed)
}

// withoutLong drops HOSTBRIDGE_LONG (CI sets it): the proofs run the
// tests' ordinary rounds.
func withoutLong(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(e string) bool {
		return strings.HasPrefix(e, "HOSTBRIDGE_LONG=")
	})
}

// runJobs runs the jobs, r.jobs at a time, printing each fate, and returns
// their kills in the jobs' order.
func (r *runner) runJobs(jobs []job) []kill {
	kills := make([]kill, len(jobs)) // never nil: the record of no proof is []
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := make(chan int)
	for range r.jobs {
		wg.Go(func() {
			for i := range next {
				j, start := jobs[i], time.Now()
				k := kill{ID: j.m.id, Proof: j.m.index, File: j.m.proof.File, Old: j.m.proof.Old, Build: j.build, KilledBy: []string{}}
				if j.bin != "" {
					k.KilledBy = append(k.KilledBy, r.runTests(j.bin, j.k, j.m.proof.Tests)...)
				}
				kills[i] = k
				mu.Lock()
				fate := "killed by " + strings.Join(k.KilledBy, ", ")
				switch {
				case j.bin == "":
					fate = "FAIL: it does not build"
				case len(k.KilledBy) == 0:
					fate = "FAIL SURVIVED: " + strings.Join(j.m.proof.Tests, ", ") + " all pass"
				}
				fmt.Printf("%4.1fs %s proof %d (%s, %s build): %s\n", time.Since(start).Seconds(), j.m.id, j.m.index+1, j.m.proof.File, j.build, fate)
				mu.Unlock()
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	slices.SortStableFunc(kills, func(a, b kill) int { return orderOf(jobs, a) - orderOf(jobs, b) })
	return kills
}

// orderOf is a kill's place in the clauses' order: its mutant's number,
// default build first.
func orderOf(jobs []job, k kill) int {
	for _, j := range jobs {
		if j.m.id == k.ID && j.m.index == k.Proof {
			n := 2 * j.m.k
			if k.Build == "ref" {
				n++
			}
			return n
		}
	}
	return 0
}
