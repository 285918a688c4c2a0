// Command pagequeue is a small host on hostbridge and its embedded in-memory
// queue: the producer and consumer of 消息队列 0.1.0 over real HTTP, read with
// the 网页入站 0.8.0 functions. The host itself is hostbridge/internal/pagehost
// (routes, statuses, consumer loop, flags, /stats, shutdown); this main
// gives it the in-memory store.
//
//	go build -o pagequeue ./cmd/pagequeue && ./pagequeue [-addr 127.0.0.1:8787] [-fail 0.1] [-tls-cert cert.pem -tls-key key.pem] [-token-file token]
//
// Run it built: Ctrl-C (SIGINT) or SIGTERM stops it cleanly. Under go run
// the go command passes no signal on, and a script's kill of it leaves the
// host running.
package main

import (
	"hostbridge/internal/pagehost"
)

func main() {
	pagehost.Main(pagehost.Program{
		Name:  "pagequeue",
		Keeps: pagehost.MemoryKeeps,
		Open:  func() (pagehost.Store, error) { return pagehost.NewMemoryStore(), nil },
	})
}
