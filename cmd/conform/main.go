// Command conform scores a host against every vector row of testdata/: it
// starts the host's adapter, speaks the protocol of CONFORMANCE.md with it
// over its standard input and output, and compares each answer with the
// row.
//
//	go run ./cmd/conform [-expect FILE] [-fix] [-json] [-v] [-timeout 5s] [-run REGEXP] -- ADAPTER COMMAND…
//
// It prints a line per failed row, then "N passed, N failed, N skipped".
// It exits 0 when every row is as the expectations file says, 1 when one
// is not (an unlisted failure, a listed row that passes, a listed row no
// file has), and 2 when the run could not be made.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"
)

// The statuses of a row.
const (
	statusPass = "pass"
	statusFail = "fail"
	statusSkip = "skip"
)

type options struct {
	expect   string
	fix      bool
	json     bool
	verbose  bool
	timeout  time.Duration
	testdata string
	only     *regexp.Regexp // the rows to run, by name (nil: all)
	argv     []string
}

// loadVectors reads the rows of a directory of vector files (the tests
// read them once for all their runs).
var loadVectors = loadRows

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	rows, err := loadVectors(o.testdata)
	if err != nil {
		fmt.Fprintln(stderr, "conform:", err)
		return 2
	}
	if o.only != nil {
		var kept []*row
		for _, r := range rows {
			if o.only.MatchString(r.name) {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	exp, err := readExpectations(o.expect)
	if err != nil {
		fmt.Fprintln(stderr, "conform:", err)
		return 2
	}
	log := stdout
	if o.json {
		log = stderr
	}
	rn := &runner{argv: o.argv, timeout: o.timeout, log: log}
	start := time.Now()
	if err := rn.start(); err != nil {
		fmt.Fprintln(stderr, "conform: the adapter's handshake failed:", err)
		return 2
	}
	results := rn.runRows(rows)
	rn.a.close()
	rep := newReport(rn.hello.Adapter, results, exp, time.Since(start), o.only == nil)
	if o.fix {
		return rep.fix(o.expect, stderr)
	}
	if o.json {
		rep.writeJSON(stdout)
	} else {
		rep.writeText(stdout, o.verbose)
	}
	if rep.unexpected > 0 {
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.expect, "expect", "", "the adapter's expectations `file` (rows it is known to fail)")
	fs.BoolVar(&o.fix, "fix", false, "rewrite the expectations file to list exactly the rows that failed")
	fs.BoolVar(&o.json, "json", false, "print a JSON report instead of text")
	fs.BoolVar(&o.verbose, "v", false, "also print each skipped row and its reason")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Second, "how long the adapter may take to answer one case")
	fs.StringVar(&o.testdata, "testdata", "testdata", "the `directory` of the vector files")
	run := fs.String("run", "", "run only the rows whose names match this `regexp` (expectations of other rows are then not checked)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conform [-expect FILE] [-fix] [-json] [-v] [-timeout 5s] [-run REGEXP] -- ADAPTER COMMAND…")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.argv = fs.Args()
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			fmt.Fprintln(stderr, "conform: -run:", err)
			return nil, err
		}
		o.only = re
	}
	switch {
	case len(o.argv) == 0:
		fs.Usage()
		return nil, fmt.Errorf("no adapter command")
	case o.fix && o.expect == "":
		fmt.Fprintln(stderr, "conform: -fix needs -expect FILE")
		return nil, fmt.Errorf("-fix without -expect")
	case o.fix && o.only != nil:
		fmt.Fprintln(stderr, "conform: -fix rewrites the whole list: it cannot be used with -run")
		return nil, fmt.Errorf("-fix with -run")
	case o.timeout <= 0:
		fmt.Fprintln(stderr, "conform: -timeout must be positive")
		return nil, fmt.Errorf("bad -timeout")
	}
	return o, nil
}
