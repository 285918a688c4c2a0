package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// The fates of a mutant.
const (
	killed     = "killed"     // a test failed or timed out
	survived   = "SURVIVED"   // every test passed
	notViable  = "not viable" // it does not compile
	equivalent = "equivalent" // argued in equivalent.txt, not run
)

type runner struct {
	pkg        pkg
	run, tags  string
	timeout    time.Duration
	equivalent map[string]bool
	dir        string // scratch
	checkOnly  bool   // build and test each schema with no mutant on, nothing more
	jobs       int    // schema mutants tested at once
}

// runAll tests every mutant (the schema mutants first, one build per
// file), prints each fate and a summary per file, and reports whether none
// survived.
func (r runner) runAll(all []mutant) bool {
	dir, err := os.MkdirTemp("", "mutate")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	r.dir = dir
	fates := make([]string, len(all))
	var files []string
	schemas := map[string][]int{}
	for i, m := range all {
		if m.schema {
			if schemas[m.file] == nil {
				files = append(files, m.file)
			}
			schemas[m.file] = append(schemas[m.file], i)
		}
	}
	for _, f := range files {
		r.schemaFile(f, all, schemas[f], fates)
	}
	if r.checkOnly {
		fmt.Printf("%d schemas build and pass\n", len(files))
		return true
	}
	for i, m := range all {
		if !m.schema {
			start := time.Now()
			fates[i] = r.test(m)
			fmt.Printf("%-10s %4.0fs %s\n", fates[i], time.Since(start).Seconds(), m.key)
		}
	}
	return summary(all, fates)
}

// subset returns the tests and build for the mutants of file.
func (r runner) subset(file string) (run, tags string) {
	run, tags = r.run, r.tags
	if run == "" {
		run = cmp.Or(r.pkg.subsets[file].run, ".")
	}
	if tags == "" {
		tags = r.pkg.subsets[file].tags
	}
	return run, tags
}

// build builds the package's test binary with the overlay files (the path
// in the package → content) and returns its path, or the build's output.
func (r runner) build(files map[string]string) (string, bool, string) {
	replace := map[string]string{}
	for name, text := range files {
		abs, _ := filepath.Abs(name)
		tmp := filepath.Join(r.dir, filepath.Base(name))
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			fail(err)
		}
		replace[abs] = tmp
	}
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
	ov, bin := filepath.Join(r.dir, "overlay.json"), filepath.Join(r.dir, "pkg.test")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		fail(err)
	}
	_, tags := r.subset(r.fileOf(files))
	out, err := exec.Command("go", "test", "-c", "-o", bin, "-vet=off", "-ldflags=-s -w",
		"-overlay", ov, "-tags", tags, ".").CombinedOutput()
	return bin, err == nil, string(out)
}

// fileOf is the mutated file among the overlay files (the one that exists).
func (r runner) fileOf(files map[string]string) string {
	for name := range files {
		if _, err := os.Stat(name); err == nil {
			return name
		}
	}
	return ""
}

// slowMachine is how many times -timeout a mutant whose tests timed out is
// given again: on a loaded machine a test run can outlast -timeout with
// nothing wrong, and that is no kill; a mutant that makes a test hang
// times out again.
const slowMachine = 6

// runTests runs the test binary with mutant k of the schema on (0: none),
// and reports whether every test passed, running it again with a longer
// timeout when it timed out.
func (r runner) runTests(bin, file string, k int) bool {
	passed, timedOut := r.runOnce(bin, file, k, r.timeout)
	if timedOut {
		passed, _ = r.runOnce(bin, file, k, slowMachine*r.timeout)
	}
	return passed
}

// runOnce runs the test binary once with mutant k on and a timeout, and
// reports whether every test passed and whether the run timed out.
func (r runner) runOnce(bin, file string, k int, timeout time.Duration) (passed, timedOut bool) {
	run, _ := r.subset(file)
	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.count=1", fmt.Sprintf("-test.short=%v", r.pkg.short),
		"-test.failfast", "-test.run", run, "-test.timeout", timeout.String())
	cmd.Env = append(os.Environ(), fmt.Sprintf("MUTATE_ACTIVE=%d", k))
	if !r.pkg.short {
		cmd.Env = append(cmd.Env, "HOSTBRIDGE_LONG=1") // natsqueue's long rounds (TestPowerCut) kill mutants
	}
	out, err := cmd.CombinedOutput()
	return err == nil, ctx.Err() != nil || bytes.Contains(out, []byte("panic: test timed out after"))
}

// schemaFile builds file with its schema mutants (all[idx]) and tests each.
func (r runner) schemaFile(file string, all []mutant, idx []int, fates []string) {
	src, err := os.ReadFile(file)
	if err != nil {
		fail(err)
	}
	ms := make([]mutant, len(idx))
	for j, i := range idx {
		ms[j] = all[i]
	}
	pkg := packageName(src)
	bin, ok, out := r.build(map[string]string{
		file:                  schemaSource(src, ms),
		"zz_mutant_active.go": fmt.Sprintf(activeVar, pkg),
	})
	if !ok {
		fail(fmt.Errorf("the schema of %s does not build:\n%s", file, out))
	}
	if !r.runTests(bin, file, 0) {
		fail(fmt.Errorf("the schema of %s fails its tests with no mutant on", file))
	}
	if r.checkOnly {
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex // one line printed at a time
	jobs := make(chan int)
	for range max(r.jobs, 1) {
		wg.Go(func() {
			for j := range jobs {
				i, start := idx[j], time.Now()
				switch {
				case r.equivalent[all[i].key]:
					fates[i] = equivalent
				case r.runTests(bin, file, j+1):
					fates[i] = survived
				default:
					fates[i] = killed
				}
				mu.Lock()
				fmt.Printf("%-10s %4.0fs %s\n", fates[i], time.Since(start).Seconds(), all[i].key)
				mu.Unlock()
			}
		})
	}
	for j := range idx {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
}

// test builds one mutant on its own and runs the tests on it.
func (r runner) test(m mutant) string {
	if r.equivalent[m.key] {
		return equivalent
	}
	src, err := os.ReadFile(m.file)
	if err != nil {
		fail(err)
	}
	bin, ok, _ := r.build(map[string]string{m.file: string(src[:m.start]) + m.repl + string(src[m.end:])})
	switch {
	case !ok:
		return notViable
	case r.runTests(bin, m.file, 0):
		return survived
	}
	return killed
}

// packageName is the name in the package clause of src.
func packageName(src []byte) string {
	for _, line := range strings.Split(string(src), "\n") {
		if name, ok := strings.CutPrefix(line, "package "); ok {
			return strings.TrimSpace(name)
		}
	}
	return "main"
}

// summary prints the counts per file and the score, and reports whether no
// mutant survived.
func summary(all []mutant, fates []string) bool {
	per := map[string]map[string]int{}
	for i, m := range all {
		if per[m.file] == nil {
			per[m.file] = map[string]int{}
		}
		per[m.file][fates[i]]++
	}
	files := make([]string, 0, len(per))
	for f := range per {
		files = append(files, f)
	}
	sort.Strings(files)
	total := map[string]int{}
	fmt.Println()
	for _, f := range files {
		c := per[f]
		fmt.Printf("%-16s killed %3d  survived %3d  equivalent %3d  not viable %3d\n", f, c[killed], c[survived], c[equivalent], c[notViable])
		for k, n := range c {
			total[k] += n
		}
	}
	tested := total[killed] + total[survived]
	fmt.Printf("score: %d of %d mutants killed (%.1f%%); %d argued equivalent, %d not viable\n",
		total[killed], tested, 100*float64(total[killed])/float64(max(tested, 1)), total[equivalent], total[notViable])
	return total[survived] == 0
}

// readEquivalents reads the mutants argued equivalent: each key on a line of
// its own, the argument on the indented lines below it.
func readEquivalents(name string) (map[string]bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	keys := map[string]bool{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if line != "" && !strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "//") {
			keys[line] = true
		}
	}
	return keys, s.Err()
}
