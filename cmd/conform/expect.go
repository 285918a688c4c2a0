package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
)

// expectations are the rows an adapter is known to fail, each with its
// reason (CONFORMANCE.md, section 9).
type expectations map[string]string

// readExpectations reads an expectations file: "ROW<TAB>reason" a line,
// blank lines and # comments ignored. A missing file is empty.
func readExpectations(path string) (expectations, error) {
	e := expectations{}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return e, nil
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		row, reason, ok := strings.Cut(line, "\t")
		reason = strings.TrimSpace(reason)
		if !ok || reason == "" {
			return nil, fmt.Errorf("%s:%d: want ROW<TAB>reason, got %q", path, n, line)
		}
		if _, dup := e[row]; dup {
			return nil, fmt.Errorf("%s:%d: %s listed twice", path, n, row)
		}
		e[row] = reason
	}
	return e, sc.Err()
}

// writeExpectations writes e to path, rows in the order given, after the
// header that says what the file is.
func writeExpectations(path string, rows []string, e expectations) error {
	var b bytes.Buffer
	b.WriteString(expectHeader)
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%s\n", r, e[r])
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// expectHeader starts every expectations file -fix writes.
const expectHeader = "# The rows this adapter is known to fail (cmd/conform -expect; CONFORMANCE.md, section 9):\n" +
	"# one a line, the row, a tab, the reason. `go run ./cmd/conform -fix -expect FILE -- ADAPTER` rewrites it.\n"

// unknownRows are the rows e lists that no vector file has.
func (e expectations) unknownRows(known map[string]bool) []string {
	var out []string
	for r := range e {
		if !known[r] {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}
