#!/bin/bash
# bench-host.sh measures the durable pagequeue host's pages/s from outside
# the process, as its clients see it: wrk (a separate process; Debian's
# package "wrk") keeps N keep-alive connections posting one page a request
# to a host on a fresh -store, while the host's consumers deliver and ack.
# Each round runs every variant once, one after the other, so that the
# variants share the machine's state of the moment; compare within a round.
#
#	cd natsqueue && ./bench-host.sh [-r ROUNDS] [-d DURATION] [-c "32 128"] [-b GITREV]
#
# A host that does not start or listen, or a wrk that fails, stops it: the
# reason and the end of the host's log on stderr, exit 1.
#
# Variants: "synced" (the default: each page synced to disk before its
# 202) and "2m" (-sync-interval 2m: nats-server's periodic sync). -b GITREV
# adds a third, the host built from GITREV with its default settings (for
# example the code before a change).
set -eu
rounds=3 duration=15s clients="32 128" base=""
while getopts r:d:c:b: o; do
	case $o in
	r) rounds=$OPTARG ;;
	d) duration=$OPTARG ;;
	c) clients=$OPTARG ;;
	b) base=$OPTARG ;;
	*) exit 2 ;;
	esac
done
command -v wrk >/dev/null || { echo "bench-host.sh needs wrk (apt-get install wrk)" >&2; exit 2; }

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait; git worktree remove --force "$work/base" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/host" ./cmd/pagequeue
if [ -n "$base" ]; then
	git worktree add --detach "$work/base" "$base" >/dev/null 2>&1 || { echo "bench-host.sh: no revision $base" >&2; exit 1; }
	(cd "$work/base/natsqueue" && go build -o "$work/host-base" ./cmd/pagequeue)
fi
cat >"$work/post.lua" <<'EOF'
wrk.method = "POST"
EOF

# fail REASON: the reason and the end of the host's log on stderr, exit 1.
fail() {
	echo "bench-host.sh: $1" >&2
	tail -n 20 "$work/host.log" >&2 2>/dev/null || true
	exit 1
}

# run NAME CLIENTS HOST-ARGS...: one measurement on a fresh store.
run() {
	name=$1 conns=$2
	shift 2
	rm -rf "$work/store"
	"$@" -store "$work/store" -addr 127.0.0.1:8787 -max-pending 10000000 2>"$work/host.log" &
	pid=$!
	n=0
	until curl -s -o /dev/null http://127.0.0.1:8787/stats; do
		kill -0 "$pid" 2>/dev/null || fail "the $name host exited before it listened"
		n=$((n + 1))
		[ "$n" -le 100 ] || fail "the $name host did not listen on 127.0.0.1:8787 within 10 s"
		sleep 0.1
	done
	out=$(wrk -t2 -c"$conns" -d"$duration" -s "$work/post.lua" 'http://127.0.0.1:8787/pages/release/x?version=v8') ||
		fail "wrk failed: $out"
	kill "$pid"
	wait "$pid" || true
	rps=$(echo "$out" | awk '/Requests\/sec/ {print int($2)}')
	bad=$(echo "$out" | awk '/Non-2xx/ {print $5}')
	lat=$(echo "$out" | awk '/Latency/ {print $2}')
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "$conns" "$rps" "${bad:-0}" "$lat"
}

printf 'round\tvariant\tclients\tpages/s\tnon-2xx\tmean latency\n'
for round in $(seq "$rounds"); do
	for c in $clients; do
		run synced "$c" "$work/host"
		run 2m "$c" "$work/host" -sync-interval 2m
		if [ -n "$base" ]; then run "$base" "$c" "$work/host-base"; fi
	done
done
