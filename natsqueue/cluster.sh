#!/bin/sh
# cluster.sh starts a local 3-node NATS cluster (R3 streams, every port on
# 127.0.0.1), the durable host on it, posts one page, reads /stats, and
# stops everything however it ends. Run it from the repository root with
# nats-server 2.12.5 or newer first on PATH:
#
#	sh natsqueue/cluster.sh [ADDR]   # ADDR: the host's, 127.0.0.1:8789
#
# It exits 0 when the page was taken and the host stopped cleanly; on any
# failure it says what failed, prints the end of each log (the servers'
# and the host's) and exits 1. The servers use the ports 4221-4223 (clients),
# 6221-6223 (routes) and 8221-8223 (monitoring).
set -eu
addr=${1:-127.0.0.1:8789}
need=2.12.5

# The version first: an older server (Debian's 2.9.10) starts, and the
# host then refuses it.
v=$(nats-server --version 2>/dev/null | sed -n 's/^nats-server: v//p') || v=
if [ -z "$v" ]; then
	echo "cluster.sh: no nats-server on PATH (go install github.com/nats-io/nats-server/v2@v2.15.2)" >&2
	exit 1
fi
if [ "$(printf '%s\n%s\n' "$need" "$v" | sort -V | head -n 1)" != "$need" ]; then
	echo "cluster.sh: nats-server $v ($(command -v nats-server)) is too old: natsqueue needs $need or newer" >&2
	exit 1
fi
echo "nats-server $v"

tmp=$(mktemp -d)
: >"$tmp/servers"
host=
# fail REASON: the reason and the end of every log, then exit 1 (the trap
# stops what runs and removes the logs after they are printed).
fail() {
	echo "cluster.sh: $1" >&2
	for f in "$tmp"/*.log; do
		[ -s "$f" ] || continue
		echo "--- ${f##*/}" >&2
		tail -n 15 "$f" >&2
	done
	exit 1
}
trap 'set +e; [ -z "$host" ] || { kill $host; wait $host; } 2>/dev/null
	kill $(cat "$tmp/servers") 2>/dev/null; wait; rm -rf "$tmp"' EXIT

(cd natsqueue && go build -o "$tmp/pagequeue" ./cmd/pagequeue) || fail "building the host failed"
for i in 1 2 3; do
	nats-server -js -sd "$tmp/n$i" -n n$i -a 127.0.0.1 -p 422$i -m 822$i --cluster_name hb \
		--cluster nats://127.0.0.1:622$i \
		--routes nats://127.0.0.1:6221,nats://127.0.0.1:6222,nats://127.0.0.1:6223 2>"$tmp/n$i.log" &
	echo $! >>"$tmp/servers"
done
# Healthy: JetStream is up and the cluster has a meta leader (a few seconds).
for i in 1 2 3; do
	n=0
	until curl -sf "http://127.0.0.1:822$i/healthz" >/dev/null 2>&1; do
		n=$((n + 1))
		[ $n -le 60 ] || fail "node n$i not healthy after 30 s"
		sleep 0.5
	done
done
echo "n1, n2, n3 healthy"

"$tmp/pagequeue" -addr "$addr" -nats nats://127.0.0.1:4221,nats://127.0.0.1:4222,nats://127.0.0.1:4223 2>"$tmp/host.log" &
host=$!
n=0
until curl -sf -o /dev/null "http://$addr/stats" 2>/dev/null; do
	kill -0 $host 2>/dev/null || { wait $host || true; host=; fail "the host exited before it listened"; }
	n=$((n + 1))
	[ $n -le 60 ] || fail "the host did not listen on $addr within 30 s"
	sleep 0.5
done
echo "host listening on http://$addr"
curl -sS --fail-with-body -X POST "http://$addr/pages/release/x?version=v8" || fail "the page was refused"
curl -sS --fail-with-body "http://$addr/stats" | grep -o '"sent":[0-9]*' || fail "/stats failed"
kill -INT $host
rc=0
wait $host || rc=$?
host=
[ $rc = 0 ] || fail "the host exited $rc after SIGINT"
echo "host stopped (exit 0)"
