// bench-node.js measures node's JSON.stringify(JSON.parse(text)) on the
// benchmark documents that TestWriteBenchDocs writes, and prints a table
// beside the Go figures when given the `go test -bench` output.
//
//   node testdata/gen/bench-node.js DIR [go-bench-output.txt]
//
// For each DIR/bench-<size>.json it reports MB/s (10^6 bytes of input per
// second, as Go's MB/s) of parse+stringify on the JS string, and of
// TextDecoder (fatal) + parse + stringify on the bytes, which is what a host
// that receives bytes does. When DIR/bench-<size>.canonical exists (Go's
// output) it also says whether node's output is the same, byte for byte.
'use strict';
const fs = require('fs');
const path = require('path');

const dir = process.argv[2];
const goFile = process.argv[3];
if (!dir) {
  console.error('usage: node bench-node.js DIR [go-bench-output.txt]');
  process.exit(2);
}

// measure returns the best MB/s of several rounds of at least 0.5 s each:
// the best is the least disturbed by other work on the machine.
function measure(fn, bytes) {
  fn(); // warm up
  fn();
  let best = 0;
  for (let round = 0; round < 5; round++) {
    let n = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0n;
    while (n < 2 || elapsed < 500_000_000n) {
      fn();
      n++;
      elapsed = process.hrtime.bigint() - start;
    }
    best = Math.max(best, (bytes * n) / (Number(elapsed) / 1e9) / 1e6);
  }
  return best;
}

const order = ['128KB', '1MiB', '8MiB'];
const files = fs.readdirSync(dir).filter((f) => /^bench-.*\.json$/.test(f));
const sizes = files.map((f) => f.slice(6, -5)).sort((a, b) => order.indexOf(a) - order.indexOf(b));
const node = {};
for (const s of sizes) {
  const buf = fs.readFileSync(path.join(dir, 'bench-' + s + '.json'));
  const text = buf.toString('utf8');
  const dec = new TextDecoder('utf-8', { fatal: true });
  const out = JSON.stringify(JSON.parse(text));
  let same = '';
  const canonFile = path.join(dir, 'bench-' + s + '.canonical');
  if (fs.existsSync(canonFile)) same = fs.readFileSync(canonFile).equals(Buffer.from(out, 'utf8')) ? 'yes' : 'NO';
  node[s] = {
    bytes: buf.length,
    str: measure(() => JSON.stringify(JSON.parse(text)), buf.length),
    bytesIn: measure(() => JSON.stringify(JSON.parse(dec.decode(buf))), buf.length),
    same,
  };
}

// The 1 MiB batch: what SendQueueBatch does to it is parse the array and
// write each item's body canonically; node's equivalent is JSON.parse of
// the text and JSON.stringify of each body.
let batch;
const batchFile = path.join(dir, 'batch-1MiB.json');
if (fs.existsSync(batchFile)) {
  const buf = fs.readFileSync(batchFile);
  const text = buf.toString('utf8');
  const dec = new TextDecoder('utf-8', { fatal: true });
  const bodies = (t) => JSON.parse(t).map((it) => JSON.stringify(it.body));
  const want = path.join(dir, 'batch-1MiB.canonical');
  const same = fs.existsSync(want)
    ? fs.readFileSync(want, 'utf8') === bodies(text).map((b) => b + '\n').join('') ? 'yes' : 'NO'
    : '';
  batch = {
    bytes: buf.length,
    str: measure(() => bodies(text), buf.length),
    bytesIn: measure(() => bodies(dec.decode(buf)), buf.length),
    same,
  };
}

const go = {};
if (goFile) {
  const re = /^Benchmark(Canonical|Reference|JSONValid|ReadBoundedJSON|ScanBatch1MiB|ReferenceScanBatch1MiB)(?:\/(\S+?))?(?:-\d+)?\s+\d+\s+[\d.]+ ns\/op\s+([\d.]+) MB\/s\s+(\d+) B\/op\s+(\d+) allocs\/op/;
  for (const line of fs.readFileSync(goFile, 'utf8').split('\n')) {
    const m = re.exec(line);
    if (!m) continue;
    if (m[1] === 'ScanBatch1MiB' || m[1] === 'ReferenceScanBatch1MiB') m[2] = 'batch';
    go[m[2]] = go[m[2]] || {};
    const prev = go[m[2]][m[1]];
    if (!prev || +m[3] > prev.mbs) go[m[2]][m[1]] = { mbs: +m[3], bop: +m[4], allocs: +m[5] }; // best of -count runs
  }
}

const pad = (s, n) => String(s).padStart(n);
console.log('node ' + process.version + '; MB/s = 10^6 input bytes per second, best of the runs');
console.log('node+decode: TextDecoder(fatal) + JSON.parse + JSON.stringify on the bytes; Go read+canon: ReadInboundBoundedJSON on the same bytes in 64 KiB chunks');
console.log(
  pad('size', 6) + pad('bytes', 10) + pad('Go canon MB/s', 15) + pad('allocs/op', 11) + pad('B/op', 11) +
    pad('json.Valid MB/s', 17) + pad('node MB/s', 11) + pad('node+decode', 13) + pad('same', 6) +
    pad('Go read+canon', 15) + pad('Go/node', 9) + pad('ref MB/s', 10)
);
for (const s of sizes) {
  const g = (go[s] || {}).Canonical || {};
  const v = (go[s] || {}).JSONValid || {};
  const r = (go[s] || {}).ReadBoundedJSON || {};
  const ref = (go[s] || {}).Reference || {};
  const n = node[s];
  const f = (x) => (x === undefined ? '-' : x.toFixed(1));
  console.log(
    pad(s, 6) + pad(n.bytes, 10) + pad(f(g.mbs), 15) + pad(g.allocs ?? '-', 11) + pad(g.bop ?? '-', 11) +
      pad(f(v.mbs), 17) + pad(f(n.str), 11) + pad(f(n.bytesIn), 13) + pad(n.same || '-', 6) +
      pad(f(r.mbs), 15) + pad(g.mbs ? (g.mbs / n.str).toFixed(1) + 'x' : '-', 9) + pad(f(ref.mbs), 10)
  );
}
if (batch) {
  const g = (go.batch || {}).ScanBatch1MiB || {};
  const f = (x) => (x === undefined ? '-' : x.toFixed(1));
  console.log('');
  console.log('1 MiB batch (' + batch.bytes + ' bytes): Go scanBatch ' + f(g.mbs) + ' MB/s, ' + (g.allocs ?? '-') +
    ' allocs/op, ' + (g.bop ?? '-') + ' B/op; node parse + stringify of each body ' + f(batch.str) +
    ' MB/s, with TextDecoder ' + f(batch.bytesIn) + ' MB/s; same bodies: ' + (batch.same || '-') +
    '; reference refScanBatch ' + f(((go.batch || {}).ReferenceScanBatch1MiB || {}).mbs) + ' MB/s');
}
