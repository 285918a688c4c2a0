package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"hostbridge"
	"hostbridge/internal/conform"
)

// A fault makes the adapter a broken host in one way, so that the runner's
// tests can check it reports each; the zero fault is the package itself.
// HOSTBRIDGE_CONFORM_FAULT names it:
//
//   - limit: the bounded body readers get a limit one larger than asked;
//   - status-order: the Content-Length precheck (status 1) comes before the
//     checks for no body and a used body (statuses 2 and 3);
//   - text: the exception 入站标头名称无效 says it with a full stop;
//   - batch: a batch with a bad item is still sent (its valid items);
//   - exit:N: the adapter exits before answering its Nth message;
//   - stall:N: the adapter stops answering at its Nth message;
//   - garbage:N: the adapter answers its Nth message with a line that is
//     not JSON.
type fault struct {
	name string
	at   int // the message of exit, stall and garbage
}

// faultFromEnv reads HOSTBRIDGE_CONFORM_FAULT.
func faultFromEnv() (fault, error) {
	v := os.Getenv("HOSTBRIDGE_CONFORM_FAULT")
	name, at, hasAt := strings.Cut(v, ":")
	f := fault{name: name}
	switch name {
	case "", "limit", "status-order", "text", "batch":
		if !hasAt {
			return f, nil
		}
	case "exit", "stall", "garbage":
		n, err := strconv.Atoi(at)
		if err == nil && n > 0 {
			f.at = n
			return f, nil
		}
	}
	return f, fmt.Errorf("HOSTBRIDGE_CONFORM_FAULT=%q: not a fault (limit, status-order, text, batch, exit:N, stall:N, garbage:N)", v)
}

// beforeMessage is called before the nth message is answered.
func (f fault) beforeMessage(n int) {
	if n != f.at {
		return
	}
	switch f.name {
	case "exit":
		os.Exit(3)
	case "stall":
		time.Sleep(time.Hour)
	case "garbage":
		fmt.Println("this is not JSON")
	}
}

// limit is the limit a bounded body reader is called with.
func (f fault) limit(n int) int {
	if f.name == "limit" {
		return n + 1
	}
	return n
}

// precheck is the status the status-order fault answers before the
// package's own checks: 1 when Content-Length declares more than limit.
func (f fault) precheck(ev hostbridge.Event, limit int) (hostbridge.BodyStatus, bool) {
	if f.name != "status-order" || ev == nil || ev.Request() == nil {
		return 0, false
	}
	n, err := strconv.Atoi(ev.Request().Header().Get("Content-Length"))
	return hostbridge.BodyTooLarge, err == nil && n > limit
}

// answer is what the adapter answers for a call that answered a.
func (f fault) answer(_ conform.Call, a conform.Answer) conform.Answer {
	if f.name == "text" && a.Error != nil && a.Error.Message == hostbridge.MsgHeaderName {
		e := *a.Error
		e.Message += "。"
		a.Error = &e
	}
	return a
}

// afterBatch is called after 批量发送队列消息 returned err: the batch fault
// sends an item anyway when the batch failed on one.
func (f fault) afterBatch(p *hostbridge.MemoryPlatform, binding, _ string, err error) {
	if f.name != "batch" || err == nil || !strings.Contains(err.Error(), hostbridge.MsgItemSuffix) {
		return
	}
	_ = p.SendBatch(context.Background(), binding, []hostbridge.BatchMessage{{Body: []byte("1"), ContentType: "json"}})
}
