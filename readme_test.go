package hostbridge

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeFiles returns the fenced blocks of a Markdown text whose first line
// is "// file: NAME", by NAME, without that line.
func readmeFiles(md string) map[string]string {
	files := map[string]string{}
	in, first, name := false, false, ""
	var body []string
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			if in && name != "" {
				files[name] = strings.Join(body, "\n") + "\n"
			}
			in, first, name, body = !in, !in, "", nil
		case first:
			first = false
			if n, ok := strings.CutPrefix(line, "// file: "); ok {
				name = n
			}
		case name != "":
			body = append(body, line)
		}
	}
	return files
}

// TestReadmeGettingStarted writes README.md's Getting started files (the
// blocks marked "// file: NAME") into a scratch module that uses this
// checkout through its replace line, and runs go vet and go test there, so
// the page's code compiles and passes as printed.
func TestReadmeGettingStarted(t *testing.T) {
	if testing.Short() {
		t.Skip("shells out to the go command (go vet, go test on a scratch module); runs without -short, as CI does")
	}
	md, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	files := readmeFiles(string(md))
	for _, name := range []string{"go.mod", "main.go", "main_test.go"} {
		if files[name] == "" {
			t.Fatalf("README.md has no block starting // file: %s (have %d files)", name, len(files))
		}
	}
	checkout, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	replace := regexp.MustCompile(`(?m)^replace hostbridge => \.\./hostbridge$`)
	if !replace.MatchString(files["go.mod"]) {
		t.Fatalf("README's go.mod has no line replace hostbridge => ../hostbridge:\n%s", files["go.mod"])
	}
	files["go.mod"] = replace.ReplaceAllLiteralString(files["go.mod"], "replace hostbridge => "+checkout)
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in README's module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
