// Marks the rows of testdata/inbound-url.json on which node 20 predates the
// current URL Standard: the xn-- host rows with workerd_differs, whose host
// the standard's domain to ASCII keeps (an ASCII domain, lower-cased) and
// node 20's new URL refuses. Each such row gets "node20_differs": true and
// "node20", what node 20 answers through the JavaScript host of
// conform/js/host.mjs
// (a value, or {"error": {kind, message}}); every other row must get from
// node exactly what it expects, or this script fails. Rewrites the file in
// place (Node.js 20, from the repository root):
//
//   node testdata/gen/inbound-url-node20.mjs

import { readFileSync, writeFileSync } from 'node:fs';
import { call } from '../../conform/js/host.mjs';
import { outcome } from '../../conform/js/protocol.mjs';

const file = new URL('../inbound-url.json', import.meta.url);
const doc = JSON.parse(readFileSync(file, 'utf8'));

for (const row of doc.rows) {
  delete row.node20_differs;
  delete row.node20;
  const request = row.no_request ? null : { method: row.method, url: row.url, headers: new Headers() };
  const got = await outcome(() => call({ kind: row.kind, request }, row.call, [row.arg ?? '']));
  const want = row.error ? { error: row.error } : { value: row.want };
  if (JSON.stringify(got) === JSON.stringify(want)) continue;
  if (!row.workerd_differs) {
    throw new Error(`${row.情境}: node answers ${JSON.stringify(got)}, the row ${JSON.stringify(want)}`);
  }
  row.node20_differs = true;
  row.node20 = got.error ? { error: got.error } : got.value;
}
writeFileSync(file, JSON.stringify(doc, null, 1) + '\n');
