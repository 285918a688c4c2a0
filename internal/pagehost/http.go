package pagehost

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"time"

	"hostbridge"
)

const (
	pagesAt  = "/pages/"
	maxBatch = hostbridge.MaxBatchBytes

	// The routes, as the metrics label them.
	routePages   = pagesAt
	routeBatch   = "/batch"
	routeStats   = "/stats"
	routeMetrics = "/metrics"
	routeOther   = "other" // no route: 404, or a path the host cannot read

	// The host's own answers, beside the spec's exception texts.
	msgNotFound     = "no such route"
	msgMethod       = "method not allowed"
	msgNeedVersion  = "the version query parameter is required"
	msgNoBody       = "the request has no body"
	msgBodyUsed     = "the request body was already read"
	msgBodyNotUTF8  = "the request body is not valid UTF-8"
	msgBodyTooLarge = "the request body is larger than 1 MiB"
	msgBodyNotJSON  = "the request body is not valid JSON"
	msgBodyBroken   = "the request body ended before its length or could not be read"
	msgBodyTimeout  = "the request body did not arrive within the read timeout"
	msgInternal     = "internal error"
	msgUnauthorized = "a bearer token is required: Authorization: Bearer <token>"
)

// ServeHTTP answers r (route) and counts it in the metrics: in flight
// while it runs, then its route, its status and how long it took.
func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.metrics.inFlight.Add(1)
	defer h.metrics.inFlight.Add(-1)
	begin := time.Now()
	sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	route := h.route(sw, r)
	h.metrics.observe(route, sw.code, time.Since(begin))
}

// routeMethods is each route's one method.
var routeMethods = map[string]string{
	routeStats: http.MethodGet, routeMetrics: http.MethodGet, routeBatch: http.MethodPost, routePages: http.MethodPost,
}

// route answers r and returns its route, as the metrics label it. With a
// token, every request must carry it (authorized) before anything else.
func (h *host) route(w http.ResponseWriter, r *http.Request) string {
	ev := hostbridge.HTTPEvent(r)
	method, _ := hostbridge.InboundMethod(ev)
	path, err := hostbridge.InboundRawPath(ev)
	if err != nil {
		h.replyError(w, err)
		return routeOther
	}
	route := routeOf(path)
	if !h.authorized(r) {
		h.unauthorized(w, r)
		return route
	}
	want, ok := routeMethods[route]
	switch {
	case !ok:
		reply(w, http.StatusNotFound, msgNotFound)
	case method != want:
		reply(w, http.StatusMethodNotAllowed, msgMethod)
	case route == routeStats:
		writeJSON(w, http.StatusOK, h.stats())
	case route == routeMetrics:
		h.writeMetrics(w)
	case route == routeBatch:
		h.postBatch(r.Context(), w, ev)
	default:
		h.postPage(r.Context(), w, ev, path[len(pagesAt)-1:])
	}
	return route
}

// routeOf is the route path belongs to.
func routeOf(path string) string {
	switch {
	case path == routeStats, path == routeMetrics, path == routeBatch:
		return path
	case strings.HasPrefix(path, pagesAt) && len(path) > len(pagesAt):
		return routePages
	}
	return routeOther
}

// postPage enqueues the spec's example message for url.
func (h *host) postPage(ctx context.Context, w http.ResponseWriter, ev hostbridge.Event, url string) {
	if ok, _ := hostbridge.InboundQueryParamExists(ev, "version"); !ok {
		reply(w, http.StatusBadRequest, msgNeedVersion)
		return
	}
	version, _ := hostbridge.InboundQueryParam(ev, "version")
	body, err := json.Marshal(struct {
		Kind    string `json:"kind"`
		URL     string `json:"url"`
		Version string `json:"version"`
		Refresh bool   `json:"refresh"`
	}{"page", url, version, true})
	if err == nil {
		err = hostbridge.SendQueueMessage(ctx, h.store, Binding, string(body), 0)
	}
	if err != nil {
		h.replyError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"queued": 1})
}

// postBatch sends the request's text, as it came, as a batch: the queue's
// own checks judge it (SendQueueBatch), not a JSON reading before them.
func (h *host) postBatch(ctx context.Context, w http.ResponseWriter, ev hostbridge.Event) {
	status, text, err := hostbridge.ReadInboundStrictText(ev, maxBatch)
	if err != nil {
		h.replyError(w, err)
		return
	}
	if status != hostbridge.BodyOK {
		h.replyStatus(w, status, text)
		return
	}
	if err := hostbridge.SendQueueBatch(ctx, h.store, Binding, text); err != nil {
		h.replyError(w, err)
		return
	}
	var n []json.RawMessage
	json.Unmarshal([]byte(text), &n)
	writeJSON(w, http.StatusAccepted, map[string]any{"queued": len(n)})
}

// replyStatus answers a body the host cannot use: 413 when it is too large,
// else 400, with the host's own text. A parser's reason (status 5) goes to
// the log, not to the client: the spec gives it "供诊断，不宜原样回给客户端".
func (h *host) replyStatus(w http.ResponseWriter, status hostbridge.BodyStatus, reason string) {
	code := http.StatusBadRequest
	switch status {
	case hostbridge.BodyTooLarge:
		code = http.StatusRequestEntityTooLarge
	case hostbridge.BodyInvalidJSON:
		h.log.Info("request body is not JSON", "reason", reason)
	}
	reply(w, code, statusText[status])
}

// statusText is the host's answer to a body that is not one it can use.
var statusText = map[hostbridge.BodyStatus]string{
	hostbridge.BodyTooLarge:    msgBodyTooLarge,
	hostbridge.BodyNone:        msgNoBody,
	hostbridge.BodyUsed:        msgBodyUsed,
	hostbridge.BodyInvalidUTF8: msgBodyNotUTF8,
	hostbridge.BodyInvalidJSON: msgBodyNotJSON,
}

// retryAfter is the Retry-After of a 503 for a full queue, in seconds.
const retryAfter = "1"

// replyError answers a hostbridge error with its HTTP status (httpStatus)
// and the exception's text, but for a body that could not be read: the
// client gave up (400) or was too slow (408); the stream's reason goes to
// the log. A full queue is 503 with Retry-After.
func (h *host) replyError(w http.ResponseWriter, err error) {
	var e *hostbridge.Error
	switch {
	case !errors.As(err, &e):
		h.log.Error("unexpected error", "err", err)
		reply(w, http.StatusInternalServerError, msgInternal)
	case strings.HasPrefix(e.Msg, hostbridge.MsgBodyReadFailed):
		h.log.Info("request body not read", "reason", e.Msg)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			reply(w, http.StatusRequestTimeout, msgBodyTimeout)
			return
		}
		reply(w, http.StatusBadRequest, msgBodyBroken)
	case errors.Is(err, ErrQueueFull):
		h.full.Add(1)
		w.Header().Set("Retry-After", retryAfter)
		reply(w, http.StatusServiceUnavailable, e.Msg)
	default:
		reply(w, httpStatus(e), e.Msg)
	}
}

// httpStatus maps a spec error to an HTTP status.
func httpStatus(e *hostbridge.Error) int {
	switch e.Kind {
	case hostbridge.Failure:
		return http.StatusServiceUnavailable
	case hostbridge.Abort:
		return http.StatusInternalServerError
	}
	for _, big := range []string{hostbridge.MsgBodyTooLarge, hostbridge.MsgBatchTooLarge, hostbridge.MsgBatchBodiesTotal, hostbridge.MsgBatchTooMany} {
		if strings.HasPrefix(e.Msg, big) {
			return http.StatusRequestEntityTooLarge
		}
	}
	return http.StatusBadRequest
}

func reply(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
