package pagehost

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"

	"hostbridge"
)

const (
	pagesAt  = "/pages/"
	maxBatch = hostbridge.MaxBatchBytes

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
)

func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ev := hostbridge.HTTPEvent(r)
	method, _ := hostbridge.InboundMethod(ev)
	path, err := hostbridge.InboundRawPath(ev)
	if err != nil {
		h.replyError(w, err)
		return
	}
	switch {
	case path == "/stats":
		if method != http.MethodGet {
			reply(w, http.StatusMethodNotAllowed, msgMethod)
			return
		}
		writeJSON(w, http.StatusOK, h.stats())
	case path == "/batch":
		if method != http.MethodPost {
			reply(w, http.StatusMethodNotAllowed, msgMethod)
			return
		}
		h.postBatch(r.Context(), w, ev)
	case strings.HasPrefix(path, pagesAt) && len(path) > len(pagesAt):
		if method != http.MethodPost {
			reply(w, http.StatusMethodNotAllowed, msgMethod)
			return
		}
		h.postPage(r.Context(), w, ev, path[len(pagesAt)-1:])
	default:
		reply(w, http.StatusNotFound, msgNotFound)
	}
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
