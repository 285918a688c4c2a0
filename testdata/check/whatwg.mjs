// Checks of the upstream WHATWG suites, run as their own tests run them:
// urltestdata.json (WPT url-constructor), urlsearchparams.json and
// utf8-decoding.json.

import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { eq, skip } from './lib.mjs';

// Entries of urltestdata.json on which node 20's URL parser predates the
// current URL Standard (copied from the project's conformance collection;
// testdata/SOURCES.md): input and base → node 20's answer.
const node20 = JSON.parse(readFileSync(new URL('urltestdata-node20-differences.json', import.meta.url)));
const differs = new Map(node20.cases.map((c) => [c.input + '\u0000' + c.base, c.node_v20]));

const FIELDS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];

// wptAnswer is what new URL(input, base) gives for the fields an entry has.
function wptAnswer(entry) {
  let u;
  try {
    u = new URL(entry.input, entry.base ?? undefined);
  } catch {
    return { failure: true };
  }
  const out = {};
  for (const f of FIELDS) if (entry[f] !== undefined) out[f] = u[f];
  if (entry.searchParams !== undefined) out.searchParams = u.searchParams.toString();
  return out;
}

export function urlTestData(entry) {
  const got = wptAnswer(entry);
  const want = entry.failure ? { failure: true } : Object.fromEntries(Object.keys(got).map((f) => [f, entry[f]]));
  if (JSON.stringify(got) === JSON.stringify(want)) return;
  const old = differs.get(entry.input + '\u0000' + entry.base);
  if (old && Object.keys(old).every((f) => got[f] === old[f])) {
    return skip('node 20 predates the current URL Standard here (it answers ' + JSON.stringify(got.failure ? got : got.href) + ')');
  }
  eq('new URL', got, want);
}

export function searchParamsParse(row) {
  const p = new URLSearchParams(row.input);
  eq('pairs', [...p], row.output);
  eq('serialized', p.toString(), row.serialized);
}

export function searchParamsSerialize(row) {
  const p = new URLSearchParams();
  for (const [k, v] of row.pairs) p.append(k, v);
  eq('toString', p.toString(), row.output);
}

export function searchParamsSort(row) {
  const p = new URLSearchParams(row.input);
  p.sort();
  eq('pairs', [...p], row.output);
  eq('serialized', p.toString(), row.serialized);
}

export function searchParamsOperations(row) {
  const p = new URLSearchParams(row.init);
  for (const [op, ...args] of row.ops) p[op](...args);
  eq('toString', p.toString(), row.output);
  eq('size', p.size, row.size);
}

// searchParamsInterplay: a URL and its searchParams, after each step
// (a searchParams method, or a URL setter).
export function searchParamsInterplay(row) {
  const u = new URL(row.url);
  const state = () => ({ href: u.href, search: u.search, params: u.searchParams.toString() });
  eq('initial', state(), row.initial);
  for (const s of row.steps) {
    const [what, name, ...args] = s.step;
    if (what === 'searchParams') u.searchParams[name](...args);
    else if (what === 'set') u[name] = args[0];
    else throw new Error('unknown step ' + JSON.stringify(s.step));
    eq(s.step.join(' '), state(), { href: s.href, search: s.search, params: s.params });
  }
}

export function utf8Case(row) {
  const u8 = Buffer.from(row.bytes, 'hex');
  eq('lenient', new TextDecoder().decode(u8), row.lenient);
  let fatal = false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(u8);
  } catch {
    fatal = true;
  }
  eq('fatal', fatal, row.fatal);
  if (row.ignore_bom_lenient !== undefined) {
    eq('ignore_bom_lenient', new TextDecoder('utf-8', { ignoreBOM: true }).decode(u8), row.ignore_bom_lenient);
  }
}

// utf8Streaming: decode() calls on one decoder (fatal, ignoreBOM as the row
// says); bytes null is a flush.
export function utf8Streaming(row) {
  const d = new TextDecoder('utf-8', { fatal: row.fatal, ignoreBOM: !!row.ignoreBOM });
  row.calls.forEach((c, i) => {
    let out;
    try {
      out = c.bytes === null ? d.decode() : d.decode(Buffer.from(c.bytes, 'hex'), { stream: c.stream });
    } catch {
      out = { throws: true };
    }
    eq('call ' + (i + 1), out, c.throws ? { throws: true } : c.output);
  });
}
