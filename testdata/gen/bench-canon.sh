#!/bin/sh
# bench-canon.sh compares canonical (Go) with node's
# JSON.stringify(JSON.parse(text)) and with encoding/json's json.Valid on the
# same deterministic documents (128KB, 1MiB, 8MiB), and scanBatch with node's
# parse and stringify of each body on the 1 MiB batch, and prints a table:
# Go MB/s, allocs/op, json.Valid MB/s, node MB/s, Go over node, and the
# reference canonicaliser (canon_ref.go, the hostbridge_ref build) on the
# same inputs.
#
# Go and node take turns, round after round, each round a fresh node
# process: the machine's speed drifts (other tenants), and node's speed
# moves from one process to the next. In a round each Go benchmark, like
# each node measurement, is the best of five windows of the benchtime (node:
# 0.5 s); each figure is the best of the rounds, and Go over node is given
# both as best over best and round by round. The reference, 20 times
# slower, runs once, in the first round.
#
#   sh testdata/gen/bench-canon.sh [benchtime [rounds]]     (default 0.5s 5)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
HOSTBRIDGE_BENCH_DIR="$dir" go test -run '^TestWriteBenchDocs$' -count=1 . >/dev/null
go test -c -o "$dir/hostbridge.test" .
fast='BenchmarkCanonical|BenchmarkJSONValid|BenchmarkReadBoundedJSON|BenchmarkScanBatch1MiB'
rounds=${2:-5}
for r in $(seq "$rounds"); do
	"$dir/hostbridge.test" -test.run '^$' -test.bench "^($fast)\$" -test.benchmem \
		-test.benchtime "${1:-0.5s}" -test.count 5 >"$dir/go-$r.txt"
	if [ "$r" = 1 ]; then
		"$dir/hostbridge.test" -test.run '^$' -test.bench '^(BenchmarkReference|BenchmarkReferenceScanBatch1MiB)$' \
			-test.benchmem -test.benchtime "${1:-0.5s}" >>"$dir/go-$r.txt"
	fi
	node testdata/gen/bench-node.js measure "$dir" >"$dir/node-$r.json"
done
grep -hE '^(goos|goarch|cpu)' "$dir/go-1.txt" || true
echo
node testdata/gen/bench-node.js report "$dir" "$rounds"
