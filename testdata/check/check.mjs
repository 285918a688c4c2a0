// check.mjs runs every row of every vector file in testdata/ that node can
// decide alone (V8's JSON, the WHATWG URL, URLSearchParams, Headers and
// TextDecoder, and the package's rules written in testdata/README.md), and
// lists by row and reason the rows it cannot: those that need a host (body
// streams, platform calls) and those where node 20 predates the current
// WHATWG standard. Node 20 or later, no packages:
//
//   node testdata/check/check.mjs [-v]
//
// It prints every failed row, one line counting the skipped rows by reason,
// a line per file, and last "vectors: N passed, N failed, N skipped"; it
// exits 1 if any row failed. -v also prints the rows that passed and each
// skipped row.

import { readdirSync, readFileSync } from 'node:fs';
import * as canon from './canon.mjs';
import * as inbound from './inbound.mjs';
import { Skip } from './lib.mjs';
import * as whatwg from './whatwg.mjs';

const dir = new URL('../', import.meta.url);
const read = (name) => readFileSync(new URL(name, dir), 'utf8');

const label = (r, i) => `#${i + 1} ${JSON.stringify(r.情境 ?? r.name ?? r.input ?? r.text ?? r.url ?? r.init ?? r.pairs ?? '').slice(0, 70)}`;
const each = (check) => (rows) => rows.map((r, i) => [label(r, i), () => check(r)]);
const tables = (check) => (doc) =>
  doc.tables.flatMap((t) => t.rows.map((r, i) => [`${t.table} ${label(r, i)}`, () => check(r)]));
const keyed = (parts) => (doc) =>
  Object.entries(parts).flatMap(([k, check]) => each(check)(doc[k]).map(([l, f]) => [k + ' ' + l, f]));

// files: each vector file → its rows as [label, check]. A file missing here
// fails the run, so a new file cannot go unchecked.
const files = {
  'canon-options.json': (d) => each(canon.canonOption)(d.rows),
  'canon-random.json': (d) => each(canon.canonRandom)(d.docs),
  'clauses.json': () => [], // not vectors: the clause matrix (CLAUSES.md), checked by clauses_test.go
  'es-numbers.txt': null, // text files: rowsOf reads them a line a row
  'es-numbers-edge.txt': null,
  'inbound-body.json': tables(inbound.bodyRow),
  'inbound-conformance.json': tables(inbound.bodyRow),
  'inbound-headers.json': (d) => each(inbound.inboundHeaders)(d.rows),
  'inbound-same-origin.json': (d) => each(inbound.sameOrigin)(d.rows),
  'inbound-url-parse.json': (d) => each(inbound.urlParse)(d.rows),
  'inbound-url.json': (d) => each(inbound.inboundURL)(d.rows),
  'jcs-testdata.json': each(canon.jcs),
  'js-key-order.json': each(canon.keyOrder),
  'jsontestsuite.json': each(canon.jsTestSuite),
  'queue-consumer.json': (d) => each(inbound.queueConsumer)(d.rows),
  'queue-producer-limits.json': (d) => each(inbound.queueProducer)(d.rows),
  'queue-producer.json': (d) => each(inbound.queueProducer)(d.rows),
  'request-url.json': (d) => each(inbound.requestTarget)(d.rows),
  'urlsearchparams.json': keyed({
    parse: whatwg.searchParamsParse,
    serialize: whatwg.searchParamsSerialize,
    sort: whatwg.searchParamsSort,
    operations: whatwg.searchParamsOperations,
    url_interplay: whatwg.searchParamsInterplay,
  }),
  'urltestdata.json': (d) => each(whatwg.urlTestData)(d.filter((e) => typeof e === 'object')),
  'utf8-decoding.json': keyed({ cases: whatwg.utf8Case, streaming: whatwg.utf8Streaming }),
};

// rowsOf reads a file and lists its rows; the text files are one row a line.
function rowsOf(name) {
  if (name.endsWith('.txt')) {
    const lines = read(name).split('\n').filter((l) => l !== '');
    return lines.map((l, i) => [`line ${i + 1} ${l}`, () => canon.esNumber(l)]);
  }
  return files[name](JSON.parse(read(name)));
}

// run checks one row: [status, reason].
function run(check) {
  try {
    const r = check();
    return r instanceof Skip ? ['skip', r.reason] : ['pass', ''];
  } catch (e) {
    return ['fail', e.message];
  }
}

const verbose = process.argv.includes('-v');
const total = { pass: 0, fail: 0, skip: 0 };
const skips = new Map(); // reason → rows skipped for it
const perFile = [];
const names = readdirSync(dir).filter((n) => n.endsWith('.json') || n.endsWith('.txt')).sort();
for (const name of names) {
  const n = { pass: 0, fail: 0, skip: 0 };
  let rows;
  try {
    if (!(name in files)) throw new Error('no checker for this file');
    rows = rowsOf(name);
  } catch (e) {
    rows = [['(whole file)', () => { throw e; }]];
  }
  for (const [where, check] of rows) {
    const [status, reason] = run(check);
    n[status]++;
    total[status]++;
    const why = reason.split(/: | \(/)[0].replace(/ here$/, '');
    if (status === 'skip') skips.set(why, (skips.get(why) ?? 0) + 1);
    if (status === 'fail' || verbose) console.log(`${status.toUpperCase()} ${name} ${where}${reason ? ': ' + reason : ''}`);
  }
  perFile.push(`  ${name.padEnd(28)} ${String(n.pass).padStart(6)} pass ${String(n.fail).padStart(4)} fail ${String(n.skip).padStart(4)} skip`);
}
if (skips.size > 0) {
  console.log(`SKIP ${total.skip} rows, all known (-v lists them): ${[...skips].map(([why, n]) => `${n} ${why}`).join('; ')}`);
}
console.log(perFile.join('\n'));
console.log(`vectors: ${total.pass} passed, ${total.fail} failed, ${total.skip} skipped`);
process.exitCode = total.fail > 0 ? 1 : 0;
