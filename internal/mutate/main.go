// Command mutate is the root package's mutation test. It makes one small
// change at a time (a mutant) to the files it is given, runs the package's
// tests on each, and reports the mutants no test noticed. The mutated files
// reach the build through `go test -overlay`: the work tree is never
// written. Most mutants of a file share one build (schema.go); the rest
// are built one by one. Standard library only.
//
//	go run ./internal/mutate [-files a.go,b.go] [-run regexp] [-tags t]
//	    [-timeout 30s] [-only regexp] [-list]
//
// Run it from the module root. Mutants listed in internal/mutate/equivalent.txt
// (each with the argument that no test can tell it from the code) are not
// run; every other mutant must be killed.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// defaultFiles are the files whose every mutant the README says is killed or
// argued equivalent.
const defaultFiles = "limits.go,canonref.go,queue.go,batch.go,consumer.go,body.go,batchrecord.go,delivery.go"

// subsets are the tests run on a file's mutants (go test -run) and the
// build they run in: the tests that reach the file, so that a mutant costs
// little more than its build. canonref.go is tested in the reference build,
// where every canonical JSON test runs on it. A file not listed runs every
// test. -run and -tags replace these.
var subsets = map[string]struct{ run, tags string }{
	"canonref.go":    {"Canonical|Reference|String|Number|KeyOrder|JCS|IsMarker|Depth|JSONTestSuite|Batch|Producer|Consumer|Syntax", "hostbridge_ref"},
	"queue.go":       {"Producer|Batch|Error|Send|Example|CheckQueue|Memory", ""},
	"batch.go":       {"Producer|Batch|Error|Send|Example|CheckQueue|Memory|Reference|Delay", ""},
	"consumer.go":    {"Consumer|Queue|Memory|Example|CheckQueue|AckRetry", ""},
	"batchrecord.go": {"BatchRecord|Outcome|Consumer|Queue|Memory|AckRetry|CheckQueue|Example", ""},
	"delivery.go":    {"Memory|CheckQueue|Queue|Example|DeadLetter", ""},
	"body.go":        {"Body|Inbound|HTTPEvent|JSON|ContentLength|Lenient|ReadMemory|CountBefore|Block|UTF8|Strict|Example|Header|DeclaredLength|Lock", ""},
}

func main() {
	files := flag.String("files", defaultFiles, "comma-separated files of the root package to mutate")
	run := flag.String("run", "", "go test -run for every mutant (default: the file's tests, in subsets)")
	tags := flag.String("tags", "", "go test -tags for every mutant (default: the file's build, in subsets)")
	timeout := flag.Duration("timeout", 30*time.Second, "go test -timeout for every mutant (a mutant that hangs a test is killed)")
	only := flag.String("only", "", "test only the mutants whose key matches this regexp")
	list := flag.Bool("list", false, "list the mutants, run nothing")
	flag.Parse()

	equiv, err := readEquivalents(filepath.Join("internal", "mutate", "equivalent.txt"))
	if err != nil {
		fail(err)
	}
	onlyRE, err := regexp.Compile(*only)
	if err != nil {
		fail(err)
	}
	var all []mutant
	for _, f := range strings.Split(*files, ",") {
		ms, err := mutantsOf(f)
		if err != nil {
			fail(err)
		}
		for _, m := range ms {
			if onlyRE.MatchString(m.key) {
				all = append(all, m)
			}
		}
	}
	if *list {
		for _, m := range all {
			fmt.Println(m.key)
		}
		return
	}
	r := runner{run: *run, tags: *tags, timeout: *timeout, equivalent: equiv}
	if !r.runAll(all) {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(2)
}
