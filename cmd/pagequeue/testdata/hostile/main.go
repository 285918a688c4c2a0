// Command hostile plays the hostile clients of cmd/pagequeue/hostile.sh
// against a running pagequeue host and prints what it saw. It is a script
// helper, not a test: hostile.sh builds and runs it.
//
//	hostile -mode slowbody -n 1000 -hold 5s     # n connections declare a 1 MiB body and send 1 byte
//	hostile -mode idle -n 1100 -good 300        # n silent connections, kept open, while good clients post
//	hostile -mode flood -c 64 -for 10s          # c clients post pages as fast as they can
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8787", "the host")
	mode := flag.String("mode", "slowbody", "slowbody, idle or flood")
	n := flag.Int("n", 1000, "hostile connections (slowbody, idle)")
	hold := flag.Duration("hold", 5*time.Second, "how long slowbody holds its connections")
	good := flag.Int("good", 300, "good requests (idle)")
	timeout := flag.Duration("timeout", 10*time.Second, "a good request's timeout")
	clients := flag.Int("c", 64, "clients (flood)")
	dur := flag.Duration("for", 10*time.Second, "how long flood posts")
	flag.Parse()
	switch *mode {
	case "slowbody":
		slowBody(*addr, *n, *hold)
	case "idle":
		idle(*addr, *n, *good, *timeout)
	case "flood":
		flood(*addr, *clients, *dur)
	default:
		fmt.Fprintln(os.Stderr, "hostile: unknown mode", *mode)
		os.Exit(2)
	}
}

// slowBody opens n connections that each declare a 1 MiB batch and send
// its first byte, holds them, then closes them.
func slowBody(addr string, n int, hold time.Duration) {
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			fmt.Println("slowbody: dial:", err)
			break
		}
		io.WriteString(c, "POST /batch HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n[")
		conns = append(conns, c)
	}
	fmt.Printf("slowbody: %d connections each declared 1 MiB and sent 1 byte; holding %v\n", len(conns), hold)
	time.Sleep(hold)
	for _, c := range conns {
		c.Close()
	}
}

// idle keeps n silent connections open (dialling again when the host
// closes one) while good clients post pages on new connections.
func idle(addr string, n, good int, timeout time.Duration) {
	stop := make(chan struct{})
	var open atomic.Int64
	for range n {
		go func() {
			for {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				open.Add(1)
				c.Read(make([]byte, 1)) // until the host closes it
				c.Close()
				open.Add(-1)
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	time.Sleep(time.Second) // let the silent ones take their places first
	fmt.Printf("idle: %d silent connections open\n", open.Load())
	c := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	var mu sync.Mutex
	var lat []time.Duration
	failed := 0
	var wg sync.WaitGroup
	for w := range 10 {
		wg.Go(func() {
			for i := w; i < good; i += 10 {
				t0 := time.Now()
				resp, err := c.Post(fmt.Sprintf("http://%s/pages/good/%d?version=1", addr, i), "", nil)
				ok := err == nil && resp.StatusCode == 202
				if err == nil {
					resp.Body.Close()
				}
				mu.Lock()
				if ok {
					lat = append(lat, time.Since(t0))
				} else {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	slices.Sort(lat)
	fmt.Printf("idle: %d of %d good requests answered 202, %d failed or timed out (timeout %v)", len(lat), good, failed, timeout)
	if len(lat) > 0 {
		fmt.Printf("; latency p50 %v, p99 %v, max %v", lat[len(lat)/2].Round(time.Millisecond),
			lat[len(lat)*99/100].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	}
	fmt.Println()
}

// flood posts pages from c clients for d and counts the answers.
func flood(addr string, c int, d time.Duration) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: c}}
	var mu sync.Mutex
	codes := map[string]int{}
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range c {
		wg.Go(func() {
			for i := 0; time.Now().Before(end); i++ {
				code := "error"
				resp, err := client.Post(fmt.Sprintf("http://%s/pages/flood/%d/%d?version=%s", addr, w, i, strings.Repeat("v", 1000)), "", nil)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					code = fmt.Sprint(resp.StatusCode)
					if resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "" {
						code += " with Retry-After"
					}
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	fmt.Printf("flood: %d clients for %v: %v\n", c, d, codes)
}
