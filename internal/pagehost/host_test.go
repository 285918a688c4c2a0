package pagehost

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hostbridge"
)

// start runs a pagequeue host on a loopback port until the test ends.
func start(t *testing.T, cfg Config) (*host, string, context.CancelFunc, chan error) {
	t.Helper()
	return startLog(t, cfg, io.Discard)
}

// startLog is start, logging to log.
func startLog(t *testing.T, cfg Config, log io.Writer) (*host, string, context.CancelFunc, chan error) {
	t.Helper()
	h, err := newHost(cfg, NewMemoryStore(), slog.New(slog.NewTextHandler(log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	base, cancel, done := serveTest(t, h)
	return h, base, cancel, done
}

// serveTest runs h on a loopback port until the test ends.
func serveTest(t *testing.T, h *host) (string, context.CancelFunc, chan error) {
	t.Helper()
	h.keeps = MemoryKeeps
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String(), cancel, done
}

// testConfig is the flags' defaults, with failures on and short batches.
func testConfig() Config {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	cfg := flags(fs)
	if err := fs.Parse(nil); err != nil {
		panic(err)
	}
	cfg.Fail, cfg.RetryDelay, cfg.BatchTimeout, cfg.Seed = 0.3, 0, 5*time.Millisecond, 1
	return *cfg
}

// mem is the host's store, a MemoryStore in these tests.
func (h *host) mem() *MemoryStore { return h.store.(*MemoryStore) }

func post(t testing.TB, c *http.Client, url, body string) (int, map[string]any) {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	json.NewDecoder(resp.Body).Decode(&v)
	return resp.StatusCode, v
}

// settle waits until every sent message is acked or dead-lettered; a
// deadline only stops a hang.
func settle(t *testing.T, h *host, n int64) Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := h.mem().Wait(ctx, func() bool {
		s := h.stats()
		return s.Sent == n && s.Pending == 0
	})
	s := h.stats()
	if err != nil {
		t.Fatalf("not settled: %+v", s)
	}
	return s
}

// checkCounts: every message ends acked or dead-lettered once, and every
// delivery ends in exactly one outcome.
func checkCounts(t *testing.T, s Stats, n int64) {
	t.Helper()
	if s.Sent != n || s.Acked+s.DeadLettered != n || s.Dropped != 0 || s.Pending != 0 {
		t.Errorf("counts %+v: want %d sent, all acked or dead-lettered", s, n)
	}
	if s.Delivered != s.Acked+s.Retried+s.DeadLettered {
		t.Errorf("counts %+v: delivered != acked + retried + dead-lettered", s)
	}
}

func TestThousandPagesWithFailures(t *testing.T) {
	h, base, _, _ := start(t, testConfig())
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	t.Cleanup(c.CloseIdleConnections)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 1000; i += 8 {
				if code, v := post(t, c, fmt.Sprintf("%s/pages/release/%d?version=v8", base, i), ""); code != http.StatusAccepted {
					t.Errorf("page %d: %d %v", i, code, v)
				}
			}
		}()
	}
	wg.Wait()
	s := settle(t, h, 1000)
	checkCounts(t, s, 1000)
	if s.Retried == 0 {
		t.Error("failures were on, yet nothing was retried")
	}
	// GET /stats says the same.
	resp, err := c.Get(base + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got Stats
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got != h.stats() {
		t.Errorf("/stats %+v (%v), want %+v", got, err, h.stats())
	}
}

// TestMessageShape: a posted page reaches the consumer as the spec's
// example message.
func TestMessageShape(t *testing.T) {
	cfg := testConfig()
	cfg.Fail = 0
	h, base, _, _ := start(t, cfg)
	h.mem().SetCallLimit(-1)
	if code, v := post(t, http.DefaultClient, base+"/pages/release/x?version=v8", ""); code != http.StatusAccepted {
		t.Fatalf("%d %v", code, v)
	}
	calls := h.mem().Calls()
	if len(calls) != 1 || string(calls[0].Messages[0].Body) != `{"kind":"page","url":"/release/x","version":"v8","refresh":true}` {
		t.Fatalf("platform calls %+v", calls)
	}
	settle(t, h, 1)
}

func TestStatuses(t *testing.T) {
	h, base, _, _ := start(t, testConfig())
	big := `[{"body":"` + strings.Repeat("a", hostbridge.MaxBatchBytes) + `"}]`
	many := "[" + strings.Repeat(`{"body":1},`, 100) + `{"body":1}]`
	for _, c := range []struct {
		method, path, body string
		code               int
		msg                string
	}{
		{"POST", "/pages/x", "", 400, msgNeedVersion},
		{"GET", "/pages/x?version=1", "", 405, msgMethod},
		{"POST", "/nope", "", 404, msgNotFound},
		{"POST", "/batch", `{bad`, 400, hostbridge.MsgBatchNotArray},
		{"POST", "/batch", "", 400, hostbridge.MsgBatchNotArray},
		{"POST", "/batch", `[{"body":1e999}]`, 400, hostbridge.MsgBodyNotFinite + "：序号 0"},
		{"POST", "/batch", "\xff", 400, msgBodyNotUTF8},
		{"POST", "/batch", big, 413, msgBodyTooLarge},
		{"POST", "/batch", many, 413, hostbridge.MsgBatchTooMany},
		{"POST", "/batch", `{"body":1}`, 400, hostbridge.MsgBatchNotArray},
		{"POST", "/batch", `[{"body":1,"contentType":"json"}]`, 400, hostbridge.MsgItemBadKey + "contentType：序号 0"},
		{"POST", "/batch", `[{"body":{"$句柄":1}}]`, 400, hostbridge.MsgBodyMarker + "：序号 0"},
		{"POST", "/batch", `[{"body":{"n":1}},{"body":2,"delaySeconds":30}]`, 202, ""},
	} {
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if resp.StatusCode != c.code || c.msg != "" && v["error"] != c.msg {
			t.Errorf("%s %s %.40q: %d %v, want %d %q", c.method, c.path, c.body, resp.StatusCode, v, c.code, c.msg)
		}
	}
	// A platform failure is 503.
	h.mem().FailNext("Queue is full")
	if code, v := post(t, http.DefaultClient, base+"/pages/x?version=1", ""); code != 503 || v["error"] != hostbridge.MsgSendFailed+"Queue is full" {
		t.Errorf("platform failure: %d %v", code, v)
	}
}

// TestShutdownSaysWhatIsLost: ending the host delivers nothing more, and
// its final log line counts the messages still pending and says what the
// store keeps of them (the in-memory store: nothing).
func TestShutdownSaysWhatIsLost(t *testing.T) {
	cfg := testConfig()
	cfg.BatchSize, cfg.BatchTimeout = 100, time.Minute // nothing is ready before shutdown
	var log syncBuffer
	h, base, cancel, done := startLog(t, cfg, &log)
	for i := range 50 {
		if code, _ := post(t, http.DefaultClient, fmt.Sprintf("%s/pages/p%d?version=1", base, i), ""); code != 202 {
			t.Fatal(code)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	done <- nil // for the cleanup
	if s := h.stats(); s.Sent != 50 || s.Pending != 50 || s.Delivered != 0 {
		t.Errorf("after shutdown %+v, want 50 sent and pending", s)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `msg="stopped: 50 messages still pending or waiting for a retry"`) ||
		!strings.Contains(last, "are lost") || !strings.Contains(last, "natsqueue/cmd/pagequeue") {
		t.Errorf("final log line %q", last)
	}
}

// TestLoad: 32 clients post 10 000 pages to the running host; every page
// ends acked or dead-lettered, none lost or doubled. It logs requests/s and
// the p99 latency (figures, not assertions).
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const clients, pages = 32, 10000
	h, base, _, _ := start(t, testConfig())
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	t.Cleanup(c.CloseIdleConnections) // a spare connection that never sent a request would hold up shutdown
	lat := make([][]time.Duration, clients)
	begin := time.Now()
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < pages; i += clients {
				t0 := time.Now()
				code, v := post(t, c, fmt.Sprintf("%s/pages/load/%d?version=v1", base, i), "")
				lat[w] = append(lat[w], time.Since(t0))
				if code != http.StatusAccepted {
					t.Errorf("page %d: %d %v", i, code, v)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)
	all := slices.Concat(lat...)
	slices.Sort(all)
	s := settle(t, h, pages)
	checkCounts(t, s, pages)
	t.Logf("%d requests from %d clients in %v: %.0f requests/s, p50 %v, p99 %v; %d batches, %d retried, %d dead-lettered",
		len(all), clients, elapsed.Round(time.Millisecond), float64(len(all))/elapsed.Seconds(),
		all[len(all)/2], all[len(all)*99/100], s.Batches, s.Retried, s.DeadLettered)
}
