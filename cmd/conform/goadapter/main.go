// Command goadapter is the conformance adapter of hostbridge itself: it
// answers the runner's cases (CONFORMANCE.md) by calling the package's spec
// functions on fake events and an in-memory platform, so that
//
//	go run ./cmd/conform -expect cmd/conform/goadapter/expect.txt -- go run ./cmd/conform/goadapter
//
// scores the package against every vector row. Its expectations file is
// empty: the package is the reference the rows were written with.
//
// HOSTBRIDGE_CONFORM_FAULT=name makes it a broken host, one fault at a
// time, for the runner's own tests (faults.go lists them).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"

	"hostbridge"
	"hostbridge/internal/conform"
)

func main() {
	f, err := faultFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "goadapter:", err)
		os.Exit(2)
	}
	if err := serve(os.Stdin, os.Stdout, f); err != nil {
		fmt.Fprintln(os.Stderr, "goadapter:", err)
		os.Exit(1)
	}
}

// serve answers every message of in on out, a line each, until in ends.
func serve(in io.Reader, out io.Writer, f fault) error {
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriterSize(out, 1<<16)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return err
		}
		f.beforeMessage(n)
		if _, err := w.Write(append(answer(line, f), '\n')); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// answer is the answer to one message.
func answer(line []byte, f fault) []byte {
	var head struct {
		Type string `json:"type"`
		ID   *int   `json:"id"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return protocolError(nil, "not a JSON object: "+err.Error())
	}
	switch head.Type {
	case conform.TypeHello:
		return mustMarshal(hello())
	case conform.TypeCase:
		var c conform.Case
		if err := json.Unmarshal(line, &c); err != nil {
			return protocolError(head.ID, err.Error())
		}
		res, err := runCase(&c, f)
		if err != nil {
			return protocolError(head.ID, err.Error())
		}
		return mustMarshal(res)
	}
	return protocolError(head.ID, fmt.Sprintf("unknown message type %q", head.Type))
}

func hello() conform.Hello {
	funcs := append(slices.Sorted(maps.Keys(specFunctions)), conform.CanonicalJSON)
	return conform.Hello{
		Type: conform.TypeHello, Protocol: conform.Protocol,
		Adapter:   "hostbridge (Go " + runtime.Version() + ", cmd/conform/goadapter)",
		Specs:     []string{"消息队列 0.1.0", "网页入站 0.8.0"},
		Functions: funcs, Events: hostbridge.EventKinds(),
		Targets: true, Redelivery: true,
	}
}

func protocolError(id *int, msg string) []byte {
	return mustMarshal(conform.Result{Type: conform.TypeProtocolError, ID: id, Message: msg})
}

// mustMarshal marshals one of the protocol's messages, which always can be.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
