package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"hostbridge/internal/conform"
)

// The package's adapter, built once for all the tests.
var (
	adapterOnce sync.Once
	adapterBin  string
	adapterErr  error
)

func goAdapter(t *testing.T) string {
	t.Helper()
	adapterOnce.Do(func() {
		dir, err := os.MkdirTemp("", "goadapter")
		if err != nil {
			adapterErr = err
			return
		}
		adapterBin = filepath.Join(dir, "goadapter")
		out, err := exec.Command("go", "build", "-o", adapterBin, "./goadapter").CombinedOutput()
		if err != nil {
			adapterErr = &buildError{err, out}
		}
	})
	if adapterErr != nil {
		t.Fatal(adapterErr)
	}
	return adapterBin
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + ": " + string(e.out) }

func TestMain(m *testing.M) {
	cache := map[string][]*row{}
	loadVectors = func(dir string) ([]*row, error) {
		if rows, ok := cache[dir]; ok {
			return rows, nil
		}
		rows, err := loadRows(dir)
		if err == nil {
			cache[dir] = rows
		}
		return rows, err
	}
	code := m.Run()
	if adapterBin != "" {
		os.RemoveAll(filepath.Dir(adapterBin))
	}
	os.Exit(code)
}

// runConform runs the command with args before "--" and the adapter after it,
// on the repository's vectors: its exit status and output.
func runConform(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	argv := append([]string{"-testdata", "../../testdata"}, args...) // a later -testdata wins
	argv = append(argv, "--", goAdapter(t))
	code := run(argv, &out, &errb)
	return code, out.String() + errb.String()
}

var closing = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) skipped\n\z`)

// counts reads the closing line, which must end the output.
func counts(t *testing.T, out string) (passed, failed, skipped int) {
	t.Helper()
	m := closing.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no closing line at the end of:\n%s", clip(out))
	}
	passed, _ = strconv.Atoi(m[1])
	failed, _ = strconv.Atoi(m[2])
	skipped, _ = strconv.Atoi(m[3])
	return passed, failed, skipped
}

// TestGoAdapterEveryRow: the package, through its adapter, passes every
// vector row the runner makes a case of, with an empty expectations file;
// the rows without a case are the 22 the runner cannot express
// (CONFORMANCE.md, section 10).
// Pins D53.
func TestGoAdapterEveryRow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs all 41,712 rows through the adapter")
	}
	rows, err := loadRows("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	code, out := runConform(t, "-expect", "goadapter/expect.txt")
	passed, failed, skipped := counts(t, out)
	if code != 0 || failed != 0 || skipped != 22 || passed+skipped != len(rows) {
		t.Fatalf("exit %d, %d passed, %d failed, %d skipped of %d rows:\n%s", code, passed, failed, skipped, len(rows), clip(out))
	}
	if passed < 41600 {
		t.Errorf("only %d rows passed", passed)
	}
	t.Log(strings.SplitN(out, "\n", 2)[0])
}

// TestBrokenAdapters: an adapter with one fault fails the run, and a FAIL
// line names a row that shows the fault.
// Pins D53.
func TestBrokenAdapters(t *testing.T) {
	for _, c := range []struct {
		fault, rows, row, shows string
	}{
		{"limit", "inbound-conformance", "inbound-conformance.json:跨宿主一致性#3", "want status 1"},
		{"status-order", "inbound-body", "inbound-body.json:状态的检查顺序#3", "want status 3, value null, got status 1"},
		{"text", "inbound-headers", "inbound-headers.json#10", `got violation exception "入站标头名称无效。"`},
		{"batch", "queue-producer", "queue-producer.json#6", `platform calls: want [], got [{"method":"sendBatch"`},
		{"exit:5", "inbound-headers", "inbound-headers.json#4", "adapter died: exit status 3"},
		{"stall:5", "inbound-headers", "inbound-headers.json#4", "adapter stalled: no answer within 5s"},
		{"garbage:5", "inbound-headers", "inbound-headers.json#4", "protocol error: not a result"},
	} {
		t.Run(c.fault, func(t *testing.T) {
			t.Setenv("HOSTBRIDGE_CONFORM_FAULT", c.fault)
			// Only the stall waits for the time limit: 5 s, far beyond an
			// answer of the adapter on a loaded machine. The others must not
			// depend on time at all (a death is seen by its end of output,
			// not by a timer), so they get a limit no case comes near.
			limit := "60s"
			if strings.HasPrefix(c.fault, "stall") {
				limit = "5s"
			}
			code, out := runConform(t, "-timeout", limit, "-run", c.rows)
			_, failed, _ := counts(t, out)
			line := regexp.MustCompile(`(?m)^FAIL \[\w+\] ` + regexp.QuoteMeta(c.row) + ` «.*$`).FindString(out)
			if code != 1 || failed == 0 || !strings.Contains(line, c.shows) {
				t.Fatalf("exit %d, %d failed; want a FAIL line of %s showing %q:\n%s", code, failed, c.row, c.shows, clip(out))
			}
		})
	}
}

// TestAdapterGivenUp: an adapter that dies at every case is started again
// 3 times, then the rows left are failed without it: the run ends.
// Pins D53.
func TestAdapterGivenUp(t *testing.T) {
	t.Setenv("HOSTBRIDGE_CONFORM_FAULT", "exit:2")
	code, out := runConform(t, "-run", "inbound-headers")
	_, failed, _ := counts(t, out)
	if code != 1 || failed != 20 || strings.Count(out, "ADAPTER adapter died") != 4 ||
		!strings.Contains(out, "case 1 of 1: not run: the adapter broke 4 times") {
		t.Fatalf("exit %d, %d failed:\n%s", code, failed, out)
	}
}

// TestExpectations: -fix lists the rows that fail; with that list they are
// expected failures and the run passes; the same list against the package
// itself names rows that pass, and fails the run. (On a directory of one
// vector file, so that -fix, which runs every row, is quick.)
// Pins D53.
func TestExpectations(t *testing.T) {
	dir, file := t.TempDir(), filepath.Join(t.TempDir(), "expect.txt")
	data, err := os.ReadFile("../../testdata/inbound-headers.json")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "inbound-headers.json"), data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOSTBRIDGE_CONFORM_FAULT", "text")
	if code, out := runConform(t, "-testdata", dir, "-fix", "-expect", file); code != 0 {
		t.Fatalf("-fix: exit %d:\n%s", code, clip(out))
	}
	exp, err := readExpectations(file)
	if err != nil || len(exp) != 8 || !strings.HasPrefix(exp["inbound-headers.json#10"], "TODO: case 1 of 1: call 1 入站标头存在") {
		t.Fatalf("-fix wrote %d rows (%v): %q", len(exp), err, exp)
	}
	code, out := runConform(t, "-testdata", dir, "-expect", file)
	if _, failed, _ := counts(t, out); code != 0 || failed != 8 || len(regexp.MustCompile(`(?m)^XFAIL `).FindAllString(out, -1)) != 8 {
		t.Fatalf("with the list: exit %d, %d failed:\n%s", code, failed, out)
	}
	t.Setenv("HOSTBRIDGE_CONFORM_FAULT", "")
	code, out = runConform(t, "-testdata", dir, "-expect", file)
	if code != 1 || strings.Count(out, "XPASS ") != 8 {
		t.Fatalf("the package with the list: exit %d:\n%s", code, out)
	}
}

// TestJSONReport: -json prints one object with the counts and every row
// that did not simply pass.
func TestJSONReport(t *testing.T) {
	t.Setenv("HOSTBRIDGE_CONFORM_FAULT", "text")
	code, out := runConform(t, "-json", "-run", "inbound-headers|urlsearchparams.json:sort")
	var rep struct {
		Passed, Failed, Skipped, Unexpected int
		Levels                              map[string]levelCounts
		Rows                                []jsonRow
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if code != 1 || rep.Passed != 12 || rep.Failed != 8 || rep.Skipped != 8 || rep.Unexpected != 8 || len(rep.Rows) != 16 ||
		rep.Rows[0].Status != statusFail || rep.Rows[0].Level != levelSpec ||
		rep.Levels[levelSpec] != (levelCounts{Passed: 12, Failed: 8, Skipped: 8}) || rep.Levels[levelDecision] != (levelCounts{}) {
		t.Fatalf("exit %d: %+v", code, rep)
	}
}

// TestUnknownVectorFile: a vector file the runner does not know fails the
// run before any case, so that no file goes unscored.
// Pins D53.
func TestUnknownVectorFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "new-vectors.json"), []byte(`{"rows": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"-testdata", dir, "--", "true"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "new-vectors.json: a vector file this runner does not know") {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
}

// TestUnknownListedRow: an expectations file naming a row no vector file
// has fails a whole run; a -run selection does not judge it.
// Pins D53.
func TestUnknownListedRow(t *testing.T) {
	r := &row{name: "inbound-headers.json#1", level: levelSpec}
	exp := expectations{"inbound-headers.json#999": "a row that was renumbered"}
	results := []result{{row: r, status: statusPass}}
	if rep := newReport("a", results, exp, 0, true); rep.unexpected != 1 || len(rep.unknown) != 1 {
		t.Errorf("whole run: %d unexpected, unknown %q", rep.unexpected, rep.unknown)
	}
	if rep := newReport("a", results, exp, 0, false); rep.unexpected != 0 {
		t.Errorf("a selection: %d unexpected", rep.unexpected)
	}
}

// TestBodyObservations: an adapter that lists bodyObservations is compared
// on those alone; one that lists none is compared on all three, and a
// listed observation that differs still fails.
// Pins D53.
func TestBodyObservations(t *testing.T) {
	no := false
	want := &bodyWant{pulls: 2, canceled: &no, used: true}
	got := &conform.BodyState{Pulls: 0, Canceled: true, Used: true}
	all := conform.Hello{}
	usedOnly := conform.Hello{BodyObservations: []string{"used"}}
	if want.ok(got, all.Observes) {
		t.Error("pulls 0 and a cancel passed an adapter that observes all three")
	}
	if !want.ok(got, usedOnly.Observes) {
		t.Error("an adapter that observes only used failed on pulls or canceled")
	}
	got.Used = false
	if want.ok(got, usedOnly.Observes) {
		t.Error("used false passed an adapter that observes used")
	}
	if want.ok(nil, usedOnly.Observes) {
		t.Error("no body state passed")
	}
}
