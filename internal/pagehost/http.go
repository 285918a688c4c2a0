package pagehost

import (
	"encoding/json"
	"errors"
	"net/http"
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
)

func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ev := hostbridge.HTTPEvent(r)
	method, _ := hostbridge.InboundMethod(ev)
	path, err := hostbridge.InboundRawPath(ev)
	if err != nil {
		reply(w, http.StatusInternalServerError, err.Error())
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
		h.postBatch(w, ev)
	case strings.HasPrefix(path, pagesAt) && len(path) > len(pagesAt):
		if method != http.MethodPost {
			reply(w, http.StatusMethodNotAllowed, msgMethod)
			return
		}
		h.postPage(w, ev, path[len(pagesAt)-1:])
	default:
		reply(w, http.StatusNotFound, msgNotFound)
	}
}

// postPage enqueues the spec's example message for url.
func (h *host) postPage(w http.ResponseWriter, ev hostbridge.Event, url string) {
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
		err = hostbridge.SendQueueMessage(h.store, Binding, string(body), 0)
	}
	if err != nil {
		replyError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"queued": 1})
}

// postBatch reads the body as bounded JSON and sends it as a batch.
func (h *host) postBatch(w http.ResponseWriter, ev hostbridge.Event) {
	status, text, err := hostbridge.ReadInboundBoundedJSON(ev, maxBatch)
	if err != nil {
		replyError(w, err)
		return
	}
	if status != hostbridge.BodyOK {
		code, msg := http.StatusBadRequest, statusText[status]
		switch status {
		case hostbridge.BodyTooLarge:
			code = http.StatusRequestEntityTooLarge
		case hostbridge.BodyInvalidJSON:
			msg = text // the parser's reason
		}
		reply(w, code, msg)
		return
	}
	if err := hostbridge.SendQueueBatch(h.store, Binding, text); err != nil {
		replyError(w, err)
		return
	}
	var n []json.RawMessage
	json.Unmarshal([]byte(text), &n)
	writeJSON(w, http.StatusAccepted, map[string]any{"queued": len(n)})
}

// statusText is the host's answer to a body that is not JSON it can use.
var statusText = map[hostbridge.BodyStatus]string{
	hostbridge.BodyTooLarge:    msgBodyTooLarge,
	hostbridge.BodyNone:        msgNoBody,
	hostbridge.BodyUsed:        msgBodyUsed,
	hostbridge.BodyInvalidUTF8: msgBodyNotUTF8,
}

// replyError answers a hostbridge error with its HTTP status.
func replyError(w http.ResponseWriter, err error) {
	var e *hostbridge.Error
	if !errors.As(err, &e) {
		reply(w, http.StatusInternalServerError, err.Error())
		return
	}
	reply(w, httpStatus(e), e.Msg)
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
