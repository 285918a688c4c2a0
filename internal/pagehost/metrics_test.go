package pagehost

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Prometheus' text exposition format 0.0.4: metric and label names, and a
// sample line: name, optional {label="value",…}, value.
var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\})? (\S+)$`)
	labelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"`)
)

// scrape reads /metrics and checks its format line by line; it returns
// each series (its line less the value) with its value.
func scrape(t *testing.T, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Fatalf("%d %q", resp.StatusCode, ct)
	}
	text := string(b)
	if !strings.HasSuffix(text, "\n") {
		t.Fatal("the text does not end with a newline")
	}
	return checkExposition(t, strings.Split(strings.TrimSuffix(text, "\n"), "\n"))
}

// checkExposition checks lines: every family has HELP then TYPE before its
// samples and appears once; names are valid; counters end in _total; a
// sample belongs to the family just declared; a histogram's buckets, per
// label set, rise with le, are cumulative and end in +Inf, equal to _count.
func checkExposition(t *testing.T, lines []string) map[string]float64 {
	t.Helper()
	series := map[string]float64{}
	seen := map[string]bool{}
	var fam, typ string
	var buckets map[string][]float64 // a histogram's bucket counts by label set less le
	var les map[string][]string
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "# HELP "):
			f := strings.SplitN(line, " ", 4)
			if len(f) != 4 || !metricName.MatchString(f[2]) || seen[f[2]] || f[3] == "" {
				t.Fatalf("line %d: %q", i, line)
			}
			fam, typ, seen[fam] = f[2], "", true
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "# TYPE "+fam+" ") {
				t.Fatalf("line %d: HELP %s not followed by its TYPE", i, fam)
			}
			buckets, les = map[string][]float64{}, map[string][]string{}
		case strings.HasPrefix(line, "# TYPE "):
			typ = strings.TrimPrefix(line, "# TYPE "+fam+" ")
			if typ != "counter" && typ != "gauge" && typ != "histogram" || typ == "counter" && !strings.HasSuffix(fam, "_total") {
				t.Fatalf("line %d: %q", i, line)
			}
		default:
			checkSample(t, i, line, fam, typ, series, buckets, les)
		}
		if i+1 == len(lines) || strings.HasPrefix(lines[i+1], "# HELP ") {
			checkBuckets(t, fam, series, buckets, les)
		}
	}
	return series
}

// checkSample checks a sample line of family fam, of type typ, and records
// it in series and, for a bucket, in buckets and les.
func checkSample(t *testing.T, i int, line, fam, typ string, series map[string]float64, buckets map[string][]float64, les map[string][]string) {
	t.Helper()
	m := sampleLine.FindStringSubmatch(line)
	if m == nil || typ == "" {
		t.Fatalf("line %d: %q is no sample of a declared family", i, line)
	}
	name, labels := m[1], m[2]
	v, err := strconv.ParseFloat(m[3], 64)
	if err != nil || typ != "gauge" && v < 0 {
		t.Fatalf("line %d: value %q", i, m[3])
	}
	series[strings.TrimSuffix(line, " "+m[3])] = v
	if typ != "histogram" {
		if name != fam {
			t.Fatalf("line %d: %s in family %s", i, name, fam)
		}
		return
	}
	switch name {
	case fam + "_bucket":
		var le string
		var rest []string
		for _, p := range labelPair.FindAllStringSubmatch(labels, -1) {
			if p[1] == "le" {
				le = p[2]
			} else {
				rest = append(rest, p[0])
			}
		}
		key := strings.Join(rest, ",")
		buckets[key], les[key] = append(buckets[key], v), append(les[key], le)
	case fam + "_sum", fam + "_count":
	default:
		t.Fatalf("line %d: %s in histogram %s", i, name, fam)
	}
}

// checkBuckets checks a histogram's buckets once its family has ended.
func checkBuckets(t *testing.T, fam string, series map[string]float64, buckets map[string][]float64, les map[string][]string) {
	t.Helper()
	for key, counts := range buckets {
		l := les[key]
		if len(l) < 2 || l[len(l)-1] != "+Inf" {
			t.Fatalf("%s{%s}: buckets %v do not end in +Inf", fam, key, l)
		}
		for j := 1; j < len(counts); j++ {
			prev, _ := strconv.ParseFloat(l[j-1], 64)
			cur, _ := strconv.ParseFloat(l[j], 64)
			if cur <= prev || counts[j] < counts[j-1] {
				t.Fatalf("%s{%s}: le %v counts %v not rising and cumulative", fam, key, l, counts)
			}
		}
		if n, ok := series[fam+"_count{"+key+"}"]; !ok || n != counts[len(counts)-1] {
			t.Fatalf("%s{%s}: _count %v, +Inf bucket %v", fam, key, n, counts[len(counts)-1])
		}
		if _, ok := series[fam+"_sum{"+key+"}"]; !ok {
			t.Fatalf("%s{%s}: no _sum", fam, key)
		}
	}
}

// TestMetrics: /metrics is in the text format, has every /stats counter
// and the host's request metrics, and its values move with the requests.
func TestMetrics(t *testing.T) {
	cfg := testConfig()
	cfg.Fail = 0
	h, base, _, _ := start(t, cfg)
	before := scrape(t, base)
	for _, name := range []string{
		"pagequeue_messages_sent_total", "pagequeue_messages_pending", "pagequeue_messages_acked_total",
		"pagequeue_connections_open", "pagequeue_log_records_dropped_total", "pagequeue_sends_refused_full_total",
		`pagequeue_http_request_duration_seconds_bucket{route="/pages/",le="+Inf"}`,
	} {
		if _, ok := before[name]; !ok {
			t.Errorf("no %s", name)
		}
	}
	post(t, http.DefaultClient, base+"/pages/a?version=1", "")
	post(t, http.DefaultClient, base+"/pages/b?version=1", "")
	post(t, http.DefaultClient, base+"/batch", "{bad")
	settle(t, h, 2)
	after := scrape(t, base)
	for name, want := range map[string]float64{
		"pagequeue_messages_sent_total":                                           2,
		"pagequeue_messages_acked_total":                                          2,
		"pagequeue_messages_pending":                                              0,
		"pagequeue_http_requests_in_flight":                                       1,
		`pagequeue_http_requests_total{route="/pages/",code="202"}`:               2,
		`pagequeue_http_requests_total{route="/batch",code="400"}`:                1,
		`pagequeue_http_requests_total{route="/metrics",code="200"}`:              1,
		`pagequeue_http_request_duration_seconds_count{route="/pages/"}`:          2,
		`pagequeue_http_request_duration_seconds_bucket{route="/pages/",le="30"}`: 2,
	} {
		if got, ok := after[name]; !ok || got != want {
			t.Errorf("%s = %v (%v), want %v", name, got, ok, want)
		}
	}
	if after[`pagequeue_http_request_duration_seconds_sum{route="/pages/"}`] <= 0 {
		t.Error("the /pages/ latency sum did not move")
	}
}
