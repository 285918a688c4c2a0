// bench-node.js measures node's JSON.stringify(JSON.parse(text)) on the
// benchmark documents that TestWriteBenchDocs writes, and reports them
// beside the Go figures of the same run.
//
//   node testdata/gen/bench-node.js measure DIR > node-R.json
//   node testdata/gen/bench-node.js report DIR ROUNDS
//
// measure: for each DIR/bench-<size>.json, MB/s (10^6 bytes of input per
// second, as Go's MB/s) of parse+stringify on the JS string, and of
// TextDecoder (fatal) + parse + stringify on the bytes, which is what a host
// that receives bytes does; and whether node's output is byte for byte
// DIR/bench-<size>.canonical (Go's output), when that exists. One JSON line.
//
// report: reads DIR/go-R.txt (`go test -bench` output) and DIR/node-R.json
// for rounds R = 1…ROUNDS, which bench-canon.sh ran one after the other, and
// prints each figure as the best of the rounds, and Go over node both as
// best over best and as the median (and range) of the ratios of the rounds:
// a round's Go and node ran minutes apart at most, under the same load.
'use strict';
const fs = require('fs');
const path = require('path');

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

// measureAll measures node on every document in dir.
function measureAll(dir) {
  return { node: measureDocs(dir), batch: measureBatch(dir) };
}

// measureDocs measures parse+stringify of each bench-<size>.json.
function measureDocs(dir) {
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
  return node;
}

// measureBatch measures the 1 MiB batch: what SendQueueBatch does to it is
// parse the array and write each item's body canonically; node's
// equivalent is JSON.parse of the text and JSON.stringify of each body.
function measureBatch(dir) {
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
    return {
      bytes: buf.length,
      str: measure(() => bodies(text), buf.length),
      bytesIn: measure(() => bodies(dec.decode(buf)), buf.length),
      same,
    };
  }
  return undefined;
}

// readGo returns the Go figures of one `go test -bench` output: by
// document size ('batch' for the batch benchmarks), by benchmark, the best
// of its -count runs.
function readGo(file) {
  const go = {};
  const re = /^Benchmark(Canonical|Reference|JSONValid|ReadBoundedJSON|ScanBatch1MiB|ReferenceScanBatch1MiB)(?:\/(\S+?))?(?:-\d+)?\s+\d+\s+[\d.]+ ns\/op\s+([\d.]+) MB\/s\s+(\d+) B\/op\s+(\d+) allocs\/op/;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = re.exec(line);
    if (!m) continue;
    if (m[1] === 'ScanBatch1MiB' || m[1] === 'ReferenceScanBatch1MiB') m[2] = 'batch';
    go[m[2]] = go[m[2]] || {};
    const prev = go[m[2]][m[1]];
    if (!prev || +m[3] > prev.mbs) go[m[2]][m[1]] = { mbs: +m[3], bop: +m[4], allocs: +m[5] };
  }
  return go;
}

// best merges rounds of figures (objects of numbers, nested) into the best
// of each; a 'NO' (node's output differs from Go's) in any round stays,
// other values are the last round's.
function best(rounds) {
  const out = {};
  for (const r of rounds) {
    for (const [k, v] of Object.entries(r || {})) {
      if (typeof v === 'number') out[k] = Math.max(out[k] ?? -Infinity, v);
      else if (v && typeof v === 'object') out[k] = best([out[k], v]);
      else if (out[k] !== 'NO') out[k] = v;
    }
  }
  return out;
}

// ratios describes Go over node round by round: "median (min–max)".
function ratios(goRounds, nodeRounds) {
  const rs = goRounds.map((g, i) => g / nodeRounds[i]).filter((x) => x > 0 && isFinite(x)).sort((a, b) => a - b);
  if (rs.length === 0) return '-';
  const mid = rs.length % 2 ? rs[(rs.length - 1) / 2] : (rs[rs.length / 2 - 1] + rs[rs.length / 2]) / 2;
  return mid.toFixed(1) + 'x (' + rs[0].toFixed(1) + '–' + rs[rs.length - 1].toFixed(1) + ')';
}

// report prints the rounds' figures in dir as a table.
function report(dir, n) {
  const goR = [], nodeR = [];
  for (let r = 1; r <= n; r++) {
    goR.push(readGo(path.join(dir, 'go-' + r + '.txt')));
    nodeR.push(JSON.parse(fs.readFileSync(path.join(dir, 'node-' + r + '.json'), 'utf8')));
  }
  const go = best(goR), node = best(nodeR.map((x) => x.node)), batch = best(nodeR.map((x) => x.batch));
  const pad = (s, w) => String(s).padStart(w);
  const f = (x) => (x === undefined ? '-' : x.toFixed(1));
  console.log('node ' + process.version + '; MB/s = 10^6 input bytes per second, the best of ' + n + ' rounds');
  console.log('node+decode: TextDecoder(fatal) + JSON.parse + JSON.stringify on the bytes; Go read+canon: ReadInboundBoundedJSON on the same bytes in 64 KiB chunks');
  console.log('Go/node: best over best; by round: the median (and range) of the rounds\' ratios');
  console.log(
    pad('size', 6) + pad('bytes', 10) + pad('Go canon MB/s', 15) + pad('allocs/op', 11) + pad('B/op', 11) +
      pad('json.Valid MB/s', 17) + pad('node MB/s', 11) + pad('node+decode', 13) + pad('same', 6) +
      pad('Go read+canon', 15) + pad('Go/node', 9) + pad('by round', 20) + pad('ref MB/s', 10)
  );
  for (const s of Object.keys(node).sort((a, b) => order.indexOf(a) - order.indexOf(b))) {
    const g = (go[s] || {}).Canonical || {}, v = (go[s] || {}).JSONValid || {};
    const r = (go[s] || {}).ReadBoundedJSON || {}, ref = (go[s] || {}).Reference || {};
    const nd = node[s];
    const byRound = ratios(goR.map((x) => ((x[s] || {}).Canonical || {}).mbs), nodeR.map((x) => x.node[s].str));
    console.log(
      pad(s, 6) + pad(nd.bytes, 10) + pad(f(g.mbs), 15) + pad(g.allocs ?? '-', 11) + pad(g.bop ?? '-', 11) +
        pad(f(v.mbs), 17) + pad(f(nd.str), 11) + pad(f(nd.bytesIn), 13) + pad(nd.same || '-', 6) +
        pad(f(r.mbs), 15) + pad(g.mbs ? (g.mbs / nd.str).toFixed(1) + 'x' : '-', 9) + pad(byRound, 20) + pad(f(ref.mbs), 10)
    );
  }
  if (batch.bytes) reportBatch(go, batch);
}

// reportBatch prints the batch line.
function reportBatch(go, batch) {
  const g = (go.batch || {}).ScanBatch1MiB || {};
  const f = (x) => (x === undefined ? '-' : x.toFixed(1));
  console.log('');
  console.log('1 MiB batch (' + batch.bytes + ' bytes): Go scanBatch ' + f(g.mbs) + ' MB/s, ' + (g.allocs ?? '-') +
    ' allocs/op, ' + (g.bop ?? '-') + ' B/op; node parse + stringify of each body ' + f(batch.str) +
    ' MB/s, with TextDecoder ' + f(batch.bytesIn) + ' MB/s; same bodies: ' + (batch.same || '-') +
    '; reference refScanBatch ' + f(((go.batch || {}).ReferenceScanBatch1MiB || {}).mbs) + ' MB/s');
}

const [mode, dir, rounds] = process.argv.slice(2);
if (mode === 'measure' && dir) {
  console.log(JSON.stringify(measureAll(dir)));
} else if (mode === 'report' && dir && +rounds > 0) {
  report(dir, +rounds);
} else {
  console.error('usage: node bench-node.js measure DIR | report DIR ROUNDS');
  process.exit(2);
}
