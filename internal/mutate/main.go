// Command mutate is the mutation test of the root package and of
// natsqueue. It makes one small change at a time (a mutant) to the files
// it is given, runs the package's tests on each, and reports the mutants no
// test noticed. The mutated files reach the build through `go test
// -overlay`: the work tree is never written. Most mutants of a file share
// one build (schema.go); the rest are built one by one. The operators are
// in mutants.go and, those that need types (go/types), in ops.go. Standard
// library only.
//
//	go run ./internal/mutate [-dir natsqueue] [-files a.go,b.go] [-run regexp]
//	    [-tags t] [-timeout 30s] [-only regexp] [-list] [-check] [-p n]
//
// -check builds each file's schema and runs its tests with none on (the
// schema compiles and changes nothing). Run it from the root module. -dir is the directory of the package whose
// files are mutated and whose tests run (default ".", the root package;
// "natsqueue", a module of its own, is built and tested in its directory);
// -files are in that directory. Each package has its default files, test
// subsets and equivalents file (packages.go): mutants listed there
// (internal/mutate/equivalent.txt for the root package,
// natsqueue/mutate-equivalent.txt for natsqueue), each with the argument
// that no test can tell it from the code, are not run; every other mutant
// must be killed.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	dir := flag.String("dir", ".", "directory (from the root module) of the package to mutate and test: . or natsqueue")
	files := flag.String("files", "", "comma-separated files of the package to mutate (default: the package's, in packages.go)")
	run := flag.String("run", "", "go test -run for every mutant (default: the file's tests, in packages.go)")
	tags := flag.String("tags", "", "go test -tags for every mutant (default: the file's build, in packages.go)")
	timeout := flag.Duration("timeout", 30*time.Second, "go test -timeout for every mutant (one that times out runs again with 6 times as long; timing out twice kills it)")
	only := flag.String("only", "", "test only the mutants whose key matches this regexp")
	list := flag.Bool("list", false, "list the mutants, run nothing")
	jobs := flag.Int("p", 1, "how many of a file's schema mutants are tested at once (each runs its own test process)")
	check := flag.Bool("check", false, "build each file's schema and run its tests with no mutant on, run no mutant")
	flag.Parse()

	p, ok := pkgs[*dir]
	if !ok {
		fail(fmt.Errorf("-dir %q: not a package of packages.go (%s)", *dir, strings.Join(slices.Sorted(maps.Keys(pkgs)), ", ")))
	}
	equiv, err := readEquivalents(p.equivalents)
	if err != nil {
		fail(err)
	}
	if err := os.Chdir(*dir); err != nil {
		fail(err)
	}
	all := selectMutants(p, strings.Split(cmp.Or(*files, p.files), ","), *tags, *only)
	if *list {
		for _, m := range all {
			fmt.Println(m.key)
		}
		return
	}
	r := runner{pkg: p, run: *run, tags: *tags, timeout: *timeout, equivalent: equiv, checkOnly: *check, jobs: *jobs}
	if !r.runAll(all) {
		os.Exit(1)
	}
}

// selectMutants returns the mutants of files (in the package's directory)
// whose key matches only; the typed operators see each file in the build
// its tests run in (tags, or the file's subset's).
func selectMutants(p pkg, files []string, tags, only string) []mutant {
	onlyRE, err := regexp.Compile(only)
	if err != nil {
		fail(err)
	}
	var all []mutant
	for _, f := range files {
		ms, err := mutantsOf(f, checkedFor(cmp.Or(tags, p.subsets[f].tags)))
		if err != nil {
			fail(err)
		}
		for _, m := range ms {
			if onlyRE.MatchString(m.key) {
				all = append(all, m)
			}
		}
	}
	return all
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(2)
}
