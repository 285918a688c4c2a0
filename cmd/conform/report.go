package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// result is how one row went.
type result struct {
	row    *row
	status string
	detail string // a failure's want and got, a skip's reason
}

// report is the outcome of a run, set against the expectations.
type report struct {
	adapter                 string
	results                 []result
	exp                     expectations
	unknown                 []string // listed rows no vector file has
	passed, failed, skipped int
	unexpected              int // unlisted failures, listed passes, unknown rows
	seconds                 float64
	levels                  map[string]*levelCounts
}

// levelCounts are the rows of one level by status.
type levelCounts struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// newReport sets results against exp; with all, a listed row that no
// vector file has is unexpected too.
func newReport(adapter string, results []result, exp expectations, took time.Duration, all bool) *report {
	rep := &report{adapter: adapter, results: results, exp: exp, seconds: took.Seconds(),
		levels: map[string]*levelCounts{levelSpec: {}, levelDecision: {}}}
	known := map[string]bool{}
	for _, r := range results {
		known[r.row.name] = true
		_, listed := exp[r.row.name]
		lc := rep.levels[r.row.level]
		if lc == nil {
			lc = &levelCounts{}
			rep.levels[r.row.level] = lc
		}
		switch r.status {
		case statusPass:
			rep.passed++
			lc.Passed++
			if listed {
				rep.unexpected++
			}
		case statusFail:
			rep.failed++
			lc.Failed++
			if !listed {
				rep.unexpected++
			}
		case statusSkip:
			rep.skipped++
			lc.Skipped++
		}
	}
	if all {
		rep.unknown = exp.unknownRows(known)
		rep.unexpected += len(rep.unknown)
	}
	return rep
}

// writeText prints a line per row that is not a plain pass, then the
// closing line.
func (rep *report) writeText(w io.Writer, verbose bool) {
	for _, r := range rep.results {
		reason, listed := rep.exp[r.row.name]
		head := fmt.Sprintf("[%s] %s «%s»", r.row.level, r.row.name, clip(r.row.label))
		switch {
		case r.status == statusFail && listed:
			fmt.Fprintf(w, "XFAIL %s: %s (expected: %s)\n", head, r.detail, reason)
		case r.status == statusFail:
			fmt.Fprintf(w, "FAIL %s: %s\n", head, r.detail)
		case r.status == statusPass && listed:
			fmt.Fprintf(w, "XPASS %s: listed as failing (%s), but it passes\n", head, reason)
		case r.status == statusSkip && verbose:
			fmt.Fprintf(w, "SKIP %s: %s\n", head, r.detail)
		}
	}
	for _, u := range rep.unknown {
		fmt.Fprintf(w, "UNKNOWN %s: listed in the expectations, but no vector file has this row\n", u)
	}
	fmt.Fprintf(w, "%s: %d rows in %.1fs; %d not as expected\n", rep.adapter, len(rep.results), rep.seconds, rep.unexpected)
	for _, l := range []string{levelSpec, levelDecision} {
		c := rep.levels[l]
		fmt.Fprintf(w, "  %s rows: %d passed, %d failed, %d skipped\n", l, c.Passed, c.Failed, c.Skipped)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", rep.passed, rep.failed, rep.skipped)
}

// jsonRow is a row of the JSON report.
type jsonRow struct {
	Row      string `json:"row"`
	Level    string `json:"level"`
	Status   string `json:"status"` // fail, skip, xpass or unknown
	Expected bool   `json:"expected,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

// writeJSON prints the report as one JSON object: the counts and every row
// that did not simply pass.
func (rep *report) writeJSON(w io.Writer) {
	out := struct {
		Adapter    string                  `json:"adapter"`
		Protocol   int                     `json:"protocol"`
		Passed     int                     `json:"passed"`
		Failed     int                     `json:"failed"`
		Skipped    int                     `json:"skipped"`
		Unexpected int                     `json:"unexpected"`
		Seconds    float64                 `json:"seconds"`
		Levels     map[string]*levelCounts `json:"levels"`
		Rows       []jsonRow               `json:"rows"`
	}{rep.adapter, 1, rep.passed, rep.failed, rep.skipped, rep.unexpected, rep.seconds, rep.levels, []jsonRow{}}
	for _, r := range rep.results {
		reason, listed := rep.exp[r.row.name]
		jr := jsonRow{Row: r.row.name, Level: r.row.level, Status: r.status, Expected: listed, Reason: reason, Detail: r.detail}
		switch {
		case r.status == statusPass && listed:
			jr.Status = "xpass"
		case r.status == statusPass:
			continue
		}
		out.Rows = append(out.Rows, jr)
	}
	for _, u := range rep.unknown {
		out.Rows = append(out.Rows, jsonRow{Row: u, Status: "unknown", Expected: true, Reason: rep.exp[u]})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	_ = enc.Encode(out) // a write error shows as a short report
}

// fix rewrites the expectations file to list the rows that failed, and
// returns the exit status: 0, or 2 when the file cannot be written.
func (rep *report) fix(path string, stderr io.Writer) int {
	var rows []string
	e := expectations{}
	for _, r := range rep.results {
		if r.status != statusFail {
			continue
		}
		rows = append(rows, r.row.name)
		e[r.row.name] = rep.exp[r.row.name]
		if e[r.row.name] == "" {
			e[r.row.name] = "TODO: " + clip(r.detail)
		}
	}
	if err := writeExpectations(path, rows, e); err != nil {
		fmt.Fprintln(stderr, "conform:", err)
		return 2
	}
	fmt.Fprintf(stderr, "conform: %s lists %d rows (%d passed, %d failed, %d skipped)\n", path, len(rows), rep.passed, rep.failed, rep.skipped)
	return 0
}
