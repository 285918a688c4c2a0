#!/bin/sh
# bench-canon.sh compares canonical (Go) with node's
# JSON.stringify(JSON.parse(text)) and with encoding/json's json.Valid on the
# same deterministic documents (128KB, 1MiB, 8MiB), and scanBatch with node's
# parse and stringify of each body on the 1 MiB batch, in one run, and prints a
# table: Go MB/s, allocs/op, json.Valid MB/s, node MB/s, Go over node, and
# the reference canonicaliser (canonref.go, the hostbridge_ref build) on the
# same inputs (each the best of several runs, the one least disturbed by
# other work on the machine).
#
#   sh testdata/gen/bench-canon.sh [benchtime [count]]     (default 1s 5)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
HOSTBRIDGE_BENCH_DIR="$dir" go test -run '^TestWriteBenchDocs$' -count=1 . >/dev/null
go test -run '^$' -bench '^(BenchmarkCanonical|BenchmarkReference|BenchmarkJSONValid|BenchmarkReadBoundedJSON|BenchmarkScanBatch1MiB|BenchmarkReferenceScanBatch1MiB)$' -benchmem \
	-benchtime "${1:-1s}" -count="${2:-5}" . >"$dir/go.txt"
grep -E '^(goos|goarch|cpu|Benchmark)' "$dir/go.txt" || true
echo
node testdata/gen/bench-node.js "$dir" "$dir/go.txt"
