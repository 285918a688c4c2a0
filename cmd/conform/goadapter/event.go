package main

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"net/url"

	"hostbridge"
	"hostbridge/internal/conform"
)

// event is an Event of any kind, with or without a request and a batch: the
// package must ignore a request on a kind that carries none.
type event struct {
	kind  string
	req   hostbridge.Request
	batch hostbridge.Batch
}

func (e event) Kind() string                { return e.kind }
func (e event) Request() hostbridge.Request { return e.req }
func (e event) Batch() hostbridge.Batch     { return e.batch }

// request builds the request a case describes, and the fake body it reads
// (nil when it has none).
func request(kind string, r *conform.Request) (hostbridge.Request, *hostbridge.FakeBody, error) {
	if r == nil {
		return nil, nil, nil
	}
	h := http.Header{}
	for _, kv := range r.Headers {
		name := kv[0].String()
		h[name] = append(h[name], kv[1].String()) // as spelt: not canonicalised
	}
	if r.Target != nil {
		if r.Body != nil {
			return nil, nil, errors.New("request: a target with a body is not supported by this adapter")
		}
		return targetRequest(r, h), nil, nil
	}
	if r.URL == nil {
		return nil, nil, errors.New("request: neither url nor target")
	}
	fb, err := fakeBody(r.Body)
	if err != nil || fb == nil {
		// a nil *FakeBody must stay a nil Body: no stream at all
		return hostbridge.NewRequestEvent(kind, r.Method.String(), r.URL.String(), h, nil).Request(), nil, err
	}
	return hostbridge.NewRequestEvent(kind, r.Method.String(), r.URL.String(), h, fb).Request(), fb, nil
}

// fakeBody is the stream of a case's body: its chunks one per pull, then
// its failure if any; opened before the first call when used.
func fakeBody(b *conform.Body) (*hostbridge.FakeBody, error) {
	if b == nil {
		return nil, nil
	}
	chunks, err := b.AllChunks()
	if err != nil {
		return nil, err
	}
	fb := &hostbridge.FakeBody{Chunks: chunks}
	if b.Fail != nil {
		fb.Err = errors.New(b.Fail.String())
	}
	if b.Used {
		fb.Open()
	}
	return fb, nil
}

// targetRequest is the request a net/http server would have received with
// this request line and headers: Request.url is the package's to make
// (HTTPEvent). net/http keeps the Host header in r.Host, not in r.Header.
func targetRequest(r *conform.Request, h http.Header) hostbridge.Request {
	hr := &http.Request{Method: r.Method.String(), RequestURI: r.Target.String(), URL: &url.URL{},
		Header: h, Host: h.Get("Host"), Body: http.NoBody}
	delete(hr.Header, "Host")
	if r.TLS {
		hr.TLS = &tls.ConnectionState{}
	}
	return hostbridge.HTTPEvent(hr.WithContext(context.Background())).Request()
}

// platform is the in-memory queue platform a case sets up.
func platform(p *conform.Platform) (*hostbridge.MemoryPlatform, error) {
	mp := hostbridge.NewMemoryPlatform()
	if p == nil {
		return mp, nil
	}
	for b, q := range p.Bindings {
		mp.Bind(b, q)
	}
	if len(p.Permissions) > 0 {
		if err := mp.GrantJSON(string(p.Permissions)); err != nil {
			return nil, errors.New("platform: permissions: " + err.Error())
		}
	}
	if p.FailNext != nil {
		mp.FailNext(*p.FailNext)
	}
	return mp, nil
}
