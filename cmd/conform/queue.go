package main

import (
	"encoding/json"
	"fmt"

	"hostbridge/internal/conform"
	"hostbridge/internal/queuevectors"
)

// producerRows: queue-producer.json and queue-producer-limits.json. Each
// case of a row is one call on a fresh platform, no event.
func producerRows(file string, data []byte) ([]*row, error) {
	var f struct {
		Platform struct {
			Permissions json.RawMessage   `json:"permissions"`
			Bindings    map[string]string `json:"bindings"`
		} `json:"platform"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	def := levelSpec
	if file == "queue-producer-limits.json" {
		def = levelDecision
	}
	return fileRows(file, data, def, func(r *struct {
		Situation string            `json:"情境"`
		Cases     []json.RawMessage `json:"cases"`
	}) (*row, error) {
		rw := &row{label: r.Situation}
		for _, c := range r.Cases {
			tc, err := producerCase(c, f.Platform.Permissions, f.Platform.Bindings)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", r.Situation, err)
			}
			rw.cases = append(rw.cases, tc)
		}
		return rw, nil
	})
}

type producerVector struct {
	Call          string          `json:"call"`
	Binding       string          `json:"binding"`
	Body          json.RawMessage `json:"body"`
	Batch         json.RawMessage `json:"batch"`
	DelaySeconds  int             `json:"delaySeconds"`
	PlatformFails *string         `json:"platformFails"`
	Expect        struct {
		Error *conform.Exception `json:"error"`
		Calls []struct {
			Method   string `json:"method"`
			Binding  string `json:"binding"`
			Error    string `json:"error"`
			Messages []struct {
				Body    json.RawMessage `json:"body"`
				Options struct {
					ContentType  string `json:"contentType"`
					DelaySeconds int    `json:"delaySeconds"`
				} `json:"options"`
			} `json:"messages"`
		} `json:"calls"`
	} `json:"expect"`
}

func producerCase(raw json.RawMessage, perms json.RawMessage, bindings map[string]string) (*tcase, error) {
	var v producerVector
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	tc := newCase(nil)
	tc.msg.Platform = &conform.Platform{Permissions: perms, Bindings: bindings, FailNext: v.PlatformFails}
	w := wantNone()
	if v.Expect.Error != nil {
		w = wantError(v.Expect.Error.Kind, v.Expect.Error.Message)
	}
	switch v.Call {
	case "发送队列消息":
		body, err := conform.Builder(v.Body)
		if err != nil {
			return nil, err
		}
		tc.call(w, v.Call, v.Binding, body, v.DelaySeconds)
	case "批量发送队列消息":
		batch, err := conform.Builder(v.Batch)
		if err != nil {
			return nil, err
		}
		tc.call(w, v.Call, v.Binding, batch)
	default:
		return nil, fmt.Errorf("call %q is not a producer function", v.Call)
	}
	calls := []conform.PlatformCall{}
	for _, c := range v.Expect.Calls {
		pc := conform.PlatformCall{Method: c.Method, Binding: c.Binding}
		if c.Error != "" {
			pc.Error = &c.Error
		}
		for _, m := range c.Messages {
			body, err := conform.Builder(m.Body)
			if err != nil {
				return nil, err
			}
			o := conform.Options{ContentType: &m.Options.ContentType}
			if m.Options.DelaySeconds != 0 {
				o.DelaySeconds = &m.Options.DelaySeconds
			}
			pc.Messages = append(pc.Messages, conform.SentMessage{Body: body, Options: o})
		}
		calls = append(calls, pc)
	}
	tc.platform = &calls
	return tc, nil
}

// consumerRows: queue-consumer.json. Each row is one case: its event, with
// the batch the platform holds, the steps as calls, how the handler ends.
func consumerRows(file string, data []byte) ([]*row, error) {
	return fileRows(file, data, levelSpec, func(r *queuevectors.Row) (*row, error) { return oneCase(r.Situation, consumerCase(r)) })
}

// consumerCase is a row of queue-consumer.json as a case: the batch as the
// platform holds it, the handler's calls, and what the platform must see.
func consumerCase(r *queuevectors.Row) *tcase {
	ev := &conform.Event{Kind: r.Event}
	tc := newCase(ev)
	if r.Batch != nil {
		ev.Batch = &conform.Batch{Queue: r.Queue, Messages: []conform.Message{}}
		for _, m := range r.Batch {
			ev.Batch.Messages = append(ev.Batch.Messages, conform.Message{ID: m.ID, Attempts: m.Attempts,
				Timestamp: m.Timestamp, Body: conform.Text(m.Body)})
		}
		tc.msg.End = &conform.End{Throws: r.Throws}
		tc.outcome = r.Outcome
		again := []conform.Redelivery{}
		for _, m := range r.Redelivered {
			again = append(again, conform.Redelivery(m))
		}
		tc.redelivered = &again
	}
	for _, s := range r.Steps {
		w := wantNone()
		switch {
		case s.Error != nil:
			w = wantError(s.Error.Kind, s.Error.Message)
		case s.Expect != nil:
			w = wantText(*s.Expect)
		}
		switch s.Call {
		case "确认队列消息":
			tc.call(w, s.Call, s.N)
		case "重试队列消息":
			tc.call(w, s.Call, s.N, s.DelaySeconds)
		default:
			tc.call(w, s.Call)
		}
	}
	calls := []conform.PlatformCall{}
	for _, c := range r.Platform {
		pc := conform.PlatformCall{Method: c.Call, N: &c.N}
		if c.DelaySeconds != 0 {
			pc.Options = &conform.Options{DelaySeconds: &c.DelaySeconds}
		}
		calls = append(calls, pc)
	}
	tc.platform = &calls
	return tc
}
