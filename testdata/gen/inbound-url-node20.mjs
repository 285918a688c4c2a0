// Marks the rows of testdata/inbound-url.json that node 20 cannot decide:
// rows where the package refuses an xn-- host (its decision, as workerd
// does: every label starting xn-- is decoded and validated, doc.go) and
// node 20's new URL accepts it. Each such row gets "decision": true and
// "node20", what node 20 answers through the model host of check/host.mjs;
// every other row must get from node exactly what it expects. Rewrites the
// file in place (Node.js 20, from the repository root):
//
//   node testdata/gen/inbound-url-node20.mjs

import { readFileSync, writeFileSync } from 'node:fs';
import { call } from '../check/host.mjs';
import { outcome } from '../check/lib.mjs';

const file = new URL('../inbound-url.json', import.meta.url);
const doc = JSON.parse(readFileSync(file, 'utf8'));
const REFUSED = { kind: 'failure', message: '入站请求网址无效' };

for (const row of doc.rows) {
  delete row.decision;
  delete row.node20;
  const ev = { kind: row.kind, request: row.no_request ? null : { method: row.method, url: row.url } };
  const got = outcome(() => call(row.call, ev, row.arg ?? ''));
  const want = row.error ? { error: row.error } : { value: row.want };
  if (JSON.stringify(got) === JSON.stringify(want)) continue;
  const xn = /^[a-z]+:\/\/([^/?#]*\.)?xn--/i.test(row.url);
  if (!xn || JSON.stringify(want) !== JSON.stringify({ error: REFUSED }) || got.value === undefined) {
    throw new Error(`${row.情境}: node answers ${JSON.stringify(got)}, the row ${JSON.stringify(want)}`);
  }
  row.decision = true;
  row.node20 = got.value;
}
writeFileSync(file, JSON.stringify(doc, null, 1) + '\n');
