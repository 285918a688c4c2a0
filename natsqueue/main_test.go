package natsqueue

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// hosts are the host processes the test binary can be, by the environment
// variable that makes it one (each registered by the file that runs it):
// each runs with the variable's value (a directory), so that the tests can
// SIGKILL a real process that holds the embedded server.
var hosts = map[string]func(dir string) error{}

// TestMain runs the test binary as a host process when one of hosts'
// variables is set, else runs the tests, waitingTests of the parallel ones
// at a time unless -parallel says otherwise.
func TestMain(m *testing.M) {
	for env, run := range hosts {
		if dir := os.Getenv(env); dir != "" {
			if err := run(dir); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		if err := flag.Set("test.parallel", strconv.Itoa(waitingTests)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

// waitingTests is how many parallel tests run at once by default (go
// test's default is GOMAXPROCS): they are the tests that wait on AckWait,
// delays and timeouts (t.Parallel, "waits on timers"), each on an embedded
// server of its own, using little CPU, so that the module's suite takes
// about a minute on 2 cores.
const waitingTests = 4

// longRounds says whether the long fault rounds run: the environment
// variable HOSTBRIDGE_LONG=1 (CI sets it).
var longRounds = os.Getenv("HOSTBRIDGE_LONG") == "1"

// long skips t, saying why, unless HOSTBRIDGE_LONG=1: the fault rounds
// that kill processes, fault clusters or cut the power take minutes, and
// the module's plain `go test` stays near a minute without them.
func long(t testing.TB, what string) {
	t.Helper()
	if !longRounds {
		t.Skip(what + "; HOSTBRIDGE_LONG=1 runs it")
	}
}

// ctxBG is the context of the tests' calls that the Platform's Timeout
// bounds alone.
var ctxBG = context.Background()
