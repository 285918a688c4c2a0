// Checks of the canonical JSON vectors: JSON.stringify(JSON.parse(text)) of
// V8, and the package's rules on the parsed value (nesting, host markers,
// ±Infinity) and on syntax errors (where, and why).

import { Buffer } from 'node:buffer';
import { bytes, canonical, decodeStrict, eq, skip, text, throws } from './lib.mjs';

const MARKERS = new Set(['$句柄', '$未定义', '$大整数', '$数字']);
const hex = (h) => Buffer.from(h, 'hex');

export function jsTestSuite(row) {
  const u8 = hex(row.input_hex);
  const valid = !throws(() => decodeStrict(u8));
  eq('utf8_valid', valid, row.utf8_valid);
  eq('package accepts', !throws(() => canonical(u8)), valid && row.js_accepts && !row.utf8_bom);
  if (row.js_accepts_lenient !== undefined) {
    const t = new TextDecoder().decode(u8);
    eq('js_accepts_lenient', !throws(() => JSON.parse(t)), row.js_accepts_lenient);
    if (row.js_accepts_lenient) eq('canonical_lenient', JSON.stringify(JSON.parse(t)), row.canonical_lenient);
  }
  if (!valid) return eq('js_accepts', row.js_accepts, false);
  eq('utf8_bom', u8[0] === 0xef && u8[1] === 0xbb && u8[2] === 0xbf, !!row.utf8_bom);
  const t = new TextDecoder('utf-8', { fatal: true }).decode(u8); // strips a BOM
  eq('js_accepts', !throws(() => JSON.parse(t)), row.js_accepts);
  if (row.js_accepts) eq('canonical', JSON.stringify(JSON.parse(t)), row.canonical);
  if (row.utf8_bom) eq('js_accepts_bom_kept', !throws(() => canonical(u8)), row.js_accepts_bom_kept);
}

export const keyOrder = (row) => eq('canonical', JSON.stringify(JSON.parse(row.text)), row.canonical);

export function jcs(row) {
  eq('js_canonical', canonical(bytes(row.input)), row.js_canonical);
  eq('same', row.jcs_output === row.js_canonical, row.same);
}

// esNumber checks one line "<hex of IEEE-754 bits>,<Number::toString>".
export function esNumber(line) {
  const [bits, want] = line.split(',');
  const v = new DataView(new ArrayBuffer(8));
  v.setBigUint64(0, BigInt('0x' + bits));
  eq('Number::toString', String(v.getFloat64(0)), want);
}

// depthOf is the nesting of a parsed value: [] 1, {"a":[1]} 2, a scalar 0.
function depthOf(v) {
  if (v === null || typeof v !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(v).map(depthOf));
}

// kinds lists the problem kinds present in a parsed value, in the order
// deep, marker, inf.
function kinds(v, o) {
  const set = new Set();
  const walk = (x, depth) => {
    if (typeof x === 'number' && !Number.isFinite(x) && !o.infToNull) set.add('inf');
    if (x === null || typeof x !== 'object') return;
    if (o.deepOver > 0 && depth + 1 > o.deepOver) set.add('deep');
    for (const [k, y] of Object.entries(x)) {
      if (o.markers && !Array.isArray(x) && MARKERS.has(k)) set.add('marker');
      walk(y, depth + 1);
    }
  };
  walk(v, 0);
  return ['deep', 'marker', 'inf'].filter((k) => set.has(k));
}

export function canonRandom(doc) {
  if (!doc.valid) return eq('JSON.parse throws', throws(() => canonical(bytes(doc.text))), true);
  const v = JSON.parse(decodeStrict(bytes(doc.text)));
  eq('canonical', JSON.stringify(v), doc.canonical);
  eq('depth', depthOf(v), doc.depth);
  eq('problems', kinds(v, { deepOver: 24, markers: true, infToNull: false }), doc.problems);
}

// canonOption checks a row of canon-options.json.
export function canonOption(row) {
  const u8 = bytes(row.text);
  const o = row.options;
  const err = syntaxError(u8, o.maxDepth);
  eq('syntax error', !!err, !!row.error);
  if (err) {
    if (row.reason !== undefined && err.reason === undefined) return skip('V8 gives no reason to compare: ' + err.v8);
    if (row.error_off !== undefined && err.off === undefined) return skip('V8 gives no position: ' + err.v8);
    if (row.reason !== undefined) eq('reason', err.reason, row.reason);
    if (row.error_off !== undefined) eq('error_off', err.off, row.error_off);
    return;
  }
  const s = decodeStrict(u8);
  const v = JSON.parse(s);
  eq('depth', depthOf(v), row.depth);
  const first = problems(tree(s), o).sort((a, b) => a[1] - b[1])[0];
  eq('problem', first ? first[0] : 'none', row.problem);
  if (row.off !== undefined) eq('off', Buffer.byteLength(s.slice(0, first[1])), row.off);
  if (row.canonical !== undefined) eq('canonical', JSON.stringify(v), text(row.canonical));
}

// syntaxError is the package's syntax error for some bytes, or null:
// invalid UTF-8 (at the start of the first bad sequence), what JSON.parse
// throws (V8's reason and position, with "JSON input" read as "input" and
// "after JSON" as "after the value"; the end of the text for an unexpected
// end), or a container opened deeper than maxDepth (0: no bound), whichever
// comes first in the text.
function syntaxError(u8, maxDepth) {
  let s;
  try {
    s = decodeStrict(u8);
  } catch {
    return { off: badUTF8At(u8), v8: 'invalid UTF-8' };
  }
  const deep = maxDepth > 0 ? tooDeepAt(s, maxDepth) : -1;
  const bound = deep < 0 ? null : { reason: `Nesting deeper than ${maxDepth} levels`, off: Buffer.byteLength(s.slice(0, deep)) };
  try {
    JSON.parse(s);
    return bound;
  } catch (e) {
    const err = v8Error(e.message, s);
    return bound && (err.off === undefined || bound.off < err.off) ? bound : err;
  }
}

function v8Error(msg, s) {
  if (msg === 'Unexpected end of JSON input') return { reason: 'Unexpected end of input', off: Buffer.byteLength(s), v8: msg };
  const m = /^(.*?)(?: in JSON)? at position (\d+)/.exec(msg);
  if (!m) return { v8: msg };
  const reason = m[1].replace(/ after JSON$/, ' after the value');
  return { reason, off: Buffer.byteLength(s.slice(0, Number(m[2]))), v8: msg };
}

// tooDeepAt is the index of the first bracket that opens a container deeper
// than max, counting every container read, or -1.
function tooDeepAt(s, max) {
  let depth = 0;
  let str = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (str) {
      if (c === '\\') i++;
      else if (c === '"') str = false;
    } else if (c === '"') str = true;
    else if (c === '[' || c === '{') {
      if (++depth > max) return i;
    } else if (c === ']' || c === '}') depth--;
  }
  return -1;
}

// badUTF8At is the offset of the first invalid UTF-8 sequence: the byte
// TextDecoder rejects, or the start of the sequence it cut short.
function badUTF8At(u8) {
  const d = new TextDecoder('utf-8', { fatal: true });
  let e = 0;
  try {
    for (; e < u8.length; e++) d.decode(u8.subarray(e, e + 1), { stream: true });
    d.decode();
  } catch {
    // e is where it failed (u8.length: at the end)
  }
  const need = (b) => (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2);
  for (let p = e - 1; p >= 0 && p >= e - 3; p--) {
    if ((u8[p] & 0xc0) === 0x80) continue;
    return u8[p] >= 0xc2 && u8[p] <= 0xf4 && e - p < need(u8[p]) ? p : e;
  }
  return e;
}

// tree parses valid JSON text into nodes that remember where they start:
// {at, num} for a scalar (num: its value, for a number), {at, items} for a
// container, items being [{v}] for an array and a Map key → {at, v} for an
// object (a duplicate key keeps its first place and its last value).
function tree(s) {
  let i = 0;
  const WS = /[ \t\n\r]*/y;
  const SCALAR = /"(?:[^"\\]|\\.)*"|[^,\]} \t\n\r]+/y;
  const ws = () => {
    WS.lastIndex = i;
    WS.exec(s);
    i = WS.lastIndex;
  };
  const scalar = () => {
    SCALAR.lastIndex = i;
    const tok = SCALAR.exec(s)[0];
    i = SCALAR.lastIndex;
    return tok;
  };
  const value = () => {
    ws();
    const at = i;
    if (s[i] !== '[' && s[i] !== '{') {
      const tok = scalar();
      return { at, num: /^[-\d]/.test(tok) ? Number(tok) : undefined };
    }
    const obj = s[i++] === '{';
    const node = { at, items: obj ? new Map() : [] };
    ws();
    if (s[i] === ']' || s[i] === '}') return i++, node;
    do {
      if (!obj) {
        node.items.push({ v: value() });
        continue;
      }
      ws();
      const kat = i;
      const key = JSON.parse(scalar());
      ws();
      i++; // :
      node.items.set(key, { key, at: node.items.get(key)?.at ?? kat, v: value() });
    } while ((ws(), s[i++]) === ',');
    return node;
  };
  return value();
}

// problems lists [kind, index] of every problem of a tree's surviving
// values: deep at a container's bracket, marker at a key's first quote,
// inf at a number.
function problems(node, o, depth = 0, out = []) {
  if (!node.items) {
    if (node.num !== undefined && !Number.isFinite(node.num) && !o.infToNull) out.push(['inf', node.at]);
    return out;
  }
  if (o.deepOver > 0 && depth + 1 > o.deepOver) out.push(['deep', node.at]);
  for (const e of node.items.values()) {
    if (o.markers && e.key !== undefined && MARKERS.has(e.key)) out.push(['marker', e.at]);
    problems(e.v, o, depth + 1, out);
  }
  return out;
}
