#!/bin/sh
# hostile.sh: cmd/pagequeue under hostile clients, on loopback, with figures.
# Builds the host and testdata/hostile, then runs three scenarios, each on a
# fresh host, and prints what the clients saw and the host's memory
# (VmRSS now, VmHWM the peak, from /proc/PID/status; Linux only):
#
#   1. slow bodies: 1000 connections declare Content-Length: 1048576 and
#      send 1 byte, held 5 s (the host must stay under 200 MB RSS);
#   2. idle flood under `ulimit -n 1024`: 1100 silent connections, redialled
#      when the host closes them, while 300 good requests post pages;
#   3. producer flood: 64 clients post pages for 10 s to a consumer that
#      retries everything after 60 s (the queue fills: 503 + Retry-After).
#
# Usage: sh cmd/pagequeue/hostile.sh   (from anywhere, under sh, dash or
# bash; 74 s on the 2-core VM on 2026-12-02, the idle flood taking most)
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/pagequeue" ./cmd/pagequeue
go build -o "$tmp/hostile" ./cmd/pagequeue/testdata/hostile
addr=127.0.0.1:18787

# host [ulimit] [flags…]: starts the host (under ulimit -n when given) and
# waits for its listening line.
host() {
  local files=$1; shift
  (ulimit -n "$files"; exec "$tmp/pagequeue" -addr "$addr" "$@") 2>"$tmp/log" &
  pid=$!
  for _ in $(seq 100); do grep -q listening "$tmp/log" && return; sleep 0.1; done
  echo "host did not start:"; cat "$tmp/log"; exit 1
}
mem() { echo "host memory: $(grep -E 'VmRSS|VmHWM' /proc/$pid/status | tr -s ' \t' ' ' | tr '\n' ' ')"; }
stop() {
  kill -INT "$pid"; wait "$pid" && echo "host exit 0" || echo "host exit $?"
  pid=
  tail -n 1 "$tmp/log" | cut -c1-200
}

echo "== 1. slow bodies"
host 20000
mem
"$tmp/hostile" -addr "$addr" -mode slowbody -n 1000 -hold 5s &
client=$!
sleep 4
echo "while held: $(curl -s "http://$addr/stats")"
mem
wait $client
stop

echo "== 2. idle flood under ulimit -n 1024"
host 1024
grep -o 'maxConns=[0-9]*' "$tmp/log"
"$tmp/hostile" -addr "$addr" -mode idle -n 1100 -good 300 -timeout 10s
mem
stop

echo "== 3. producer flood, consumer retrying everything after 60 s"
host 20000 -fail 1 -retry-delay 60s -max-pending 10000
"$tmp/hostile" -addr "$addr" -mode flood -c 64 -for 10s
echo "after: $(curl -s "http://$addr/stats")"
mem
stop
