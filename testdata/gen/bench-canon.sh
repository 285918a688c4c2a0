#!/bin/sh
# bench-canon.sh compares canonical (Go) with node's
# JSON.stringify(JSON.parse(text)) and with encoding/json's json.Valid on the
# same deterministic documents (128KB, 1MiB, 8MiB), and scanBatch with node's
# parse and stringify of each body on the 1 MiB batch, and prints a table:
# Go MB/s, allocs/op, json.Valid MB/s, node MB/s, Go over node, and the
# reference canonicaliser (canonref.go, the hostbridge_ref build) on the
# same inputs.
#
# Go and node take turns, round after round, each round a fresh node
# process: the machine's speed drifts (other tenants), and node's speed
# moves from one process to the next, so each figure is the best of the
# rounds, and Go over node is given both as best over best and round by
# round. The reference, 20 times slower, runs in the first round only.
#
#   sh testdata/gen/bench-canon.sh [benchtime [rounds]]     (default 1s 5)
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
	benches=$fast
	if [ "$r" = 1 ]; then benches="$fast|BenchmarkReference|BenchmarkReferenceScanBatch1MiB"; fi
	"$dir/hostbridge.test" -test.run '^$' -test.bench "^($benches)\$" -test.benchmem \
		-test.benchtime "${1:-1s}" >"$dir/go-$r.txt"
	node testdata/gen/bench-node.js measure "$dir" >"$dir/node-$r.json"
done
grep -hE '^(goos|goarch|cpu)' "$dir/go-1.txt" || true
echo
node testdata/gen/bench-node.js report "$dir" "$rounds"
