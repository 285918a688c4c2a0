package pagehost

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// metricsType is the content type of Prometheus' text exposition format,
// version 0.0.4, which GET /metrics answers in.
const metricsType = "text/plain; version=0.0.4; charset=utf-8"

// metricRoutes are the route labels, in the order /metrics lists them.
var metricRoutes = []string{routePages, routeBatch, routeStats, routeMetrics, routeOther}

// latencyBuckets are the upper bounds, in seconds, of the request latency
// histogram: from a request served from memory to one near -read-timeout.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// metrics counts the requests the handler answered: by route and status,
// and their latency by route. Requests net/http answers itself (headers
// too large, a malformed request line) never reach the handler and are not
// counted.
type metrics struct {
	inFlight atomic.Int64 // requests in the handler now
	mu       sync.Mutex
	requests map[requestKey]int64
	latency  map[string]*histogram // by route
}

type requestKey struct {
	route string
	code  int
}

// histogram counts observations per bucket (the last is +Inf), not yet
// cumulative.
type histogram struct {
	counts []int64
	sum    float64
}

func newMetrics() *metrics {
	m := &metrics{requests: map[requestKey]int64{}, latency: map[string]*histogram{}}
	for _, r := range metricRoutes {
		m.latency[r] = &histogram{counts: make([]int64, len(latencyBuckets)+1)}
	}
	return m
}

func (m *metrics) observe(route string, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[requestKey{route, code}]++
	h := m.latency[route]
	i, _ := slices.BinarySearch(latencyBuckets, d.Seconds())
	h.counts[i]++
	h.sum += d.Seconds()
}

// family writes one metric family's HELP and TYPE lines.
func family(w io.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// write writes the requests in flight, the request counter and the
// latency histogram.
func (m *metrics) write(w io.Writer) {
	family(w, "pagequeue_http_requests_in_flight", "gauge", "HTTP requests being handled now, the one asking included.")
	fmt.Fprintf(w, "pagequeue_http_requests_in_flight %d\n", m.inFlight.Load())
	m.mu.Lock()
	defer m.mu.Unlock()
	family(w, "pagequeue_http_requests_total", "counter", "HTTP requests the host answered, by route and status code.")
	keys := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b requestKey) int {
		return cmp.Or(cmp.Compare(slices.Index(metricRoutes, a.route), slices.Index(metricRoutes, b.route)), cmp.Compare(a.code, b.code))
	})
	for _, k := range keys {
		fmt.Fprintf(w, "pagequeue_http_requests_total{route=%q,code=\"%d\"} %d\n", k.route, k.code, m.requests[k])
	}
	const name = "pagequeue_http_request_duration_seconds"
	family(w, name, "histogram", "Time from the request's headers to the end of the host's answer, by route.")
	for _, r := range metricRoutes {
		h, total := m.latency[r], int64(0)
		for i, n := range h.counts {
			total += n
			le := "+Inf"
			if i < len(latencyBuckets) {
				le = formatFloat(latencyBuckets[i])
			}
			fmt.Fprintf(w, "%s_bucket{route=%q,le=%q} %d\n", name, r, le, total)
		}
		fmt.Fprintf(w, "%s_sum{route=%q} %s\n%s_count{route=%q} %d\n", name, r, formatFloat(h.sum), name, r, total)
	}
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// sample is one of /stats' counters in /metrics.
type sample struct {
	name, typ, help string
	value           int64
}

// samples are /stats' counters as metrics, in /stats' order.
func (s Stats) samples() []sample {
	const c, g = "counter", "gauge"
	return []sample{
		{"pagequeue_messages_sent_total", c, "Messages the queue accepted.", s.Sent},
		{"pagequeue_messages_delivered_total", c, "Deliveries of a message to a consumer, redeliveries included.", s.Delivered},
		{"pagequeue_messages_acked_total", c, "Messages acknowledged.", s.Acked},
		{"pagequeue_messages_retried_total", c, "Deliveries that ended in a retry.", s.Retried},
		{"pagequeue_messages_dead_lettered_total", c, "Messages moved to the dead-letter queue after their last retry.", s.DeadLettered},
		{"pagequeue_messages_dropped_total", c, "Messages dropped after their last retry with no dead-letter queue.", s.Dropped},
		{"pagequeue_messages_pending", g, "Messages on the queue now: ready, delayed or in flight.", s.Pending},
		{"pagequeue_batches_total", c, "Batches the consumers handled.", s.Batches},
		{"pagequeue_dead_letter_queue_messages", g, "Messages on the dead-letter queue now.", s.DeadLetterQueue},
		{"pagequeue_dead_letters_discarded_total", c, "Oldest dead letters discarded to keep the dead-letter queue within -max-dead-letters.", s.DeadLetterDiscarded},
		{"pagequeue_sends_refused_full_total", c, "Sends refused with 503: the queue held -max-pending messages.", s.RefusedFull},
		{"pagequeue_connections_open", g, "Connections open now, the one asking included.", int64(s.Connections)},
		{"pagequeue_log_records_dropped_total", c, "Log records dropped: the log reader was slow or gone.", s.LogDropped},
	}
}

// writeMetrics answers GET /metrics: /stats' counters, then the request
// counter and latency histogram, in Prometheus' text format.
func (h *host) writeMetrics(w http.ResponseWriter) {
	w.Header().Set("Content-Type", metricsType)
	w.WriteHeader(http.StatusOK)
	for _, s := range h.stats().samples() {
		family(w, s.name, s.typ, s.help)
		fmt.Fprintf(w, "%s %d\n", s.name, s.value)
	}
	h.metrics.write(w)
}

// statusWriter records the status a handler answers with.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
