// The JSON judgements the host makes beyond JSON.parse and JSON.stringify:
// where in the text a value, key or container starts (so the first problem
// in text order can be named), nesting, and the UTF-8 size of a text. Web
// platform only (no node: modules), so workerd runs it too. Every walk is
// iterative: a text may nest a million levels deep.

// utf8Length is the number of UTF-8 bytes of a well-formed string (a lone
// surrogate, which TextEncoder writes as U+FFFD, counts 3).
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) n += 4, i++;
    else n += 3;
  }
  return n;
}

// tooDeepAt is the index of the first bracket of s that opens a container
// deeper than max, counting every container opened (a value a later
// duplicate key replaces included), or -1.
export function tooDeepAt(s, max) {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) i = stringEnd(s, i) - 1;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

// stringEnd is the index just past the string literal starting at s[i].
function stringEnd(s, i) {
  for (i++; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return i;
}

const WS = /[ \t\n\r]*/y;
const SCALAR = /"(?:[^"\\]|\\.)*"|[^,\]} \t\n\r]+/y;

// tree parses text JSON.parse has accepted into nodes that remember where
// they are: {at, end, num} for a scalar (num: its value for a number),
// {at, end, items: [node]} for an array, {at, end, members: [{key, keyAt,
// value}]} for an object, every member in text order (duplicates
// included).
export function tree(s) {
  let i = 0;
  const ws = () => {
    WS.lastIndex = i;
    WS.exec(s);
    i = WS.lastIndex;
  };
  const root = { items: [] };
  const stack = [root];
  let key = null;
  let keyAt = 0;
  const add = (node) => {
    const top = stack[stack.length - 1];
    if (top.members) top.members.push({ key, keyAt, value: node });
    else top.items.push(node);
  };
  for (;;) {
    ws();
    const top = stack[stack.length - 1];
    if (top !== root && (s[i] === ']' || s[i] === '}')) {
      top.end = ++i;
      stack.pop();
    } else if (top.members && s[i] === '"' && key === null) {
      keyAt = i;
      SCALAR.lastIndex = i;
      key = JSON.parse(SCALAR.exec(s)[0]);
      i = SCALAR.lastIndex;
      ws();
      i++; // :
      continue;
    } else if (s[i] === '[' || s[i] === '{') {
      const node = s[i] === '[' ? { at: i, items: [] } : { at: i, members: [] };
      add(node);
      stack.push(node);
      i++;
    } else {
      SCALAR.lastIndex = i;
      const tok = SCALAR.exec(s)[0];
      add({ at: i, end: i + tok.length, num: /^[-\d]/.test(tok) ? Number(tok) : undefined });
      i += tok.length;
    }
    key = null;
    if (stack.length === 1) return root.items[0];
    ws();
    if (s[i] === ',') i++;
  }
}

// survivors are an object node's members as JSON.parse keeps them: each key
// once, at its first place, with its last value.
export function survivors(node) {
  const m = new Map();
  for (const e of node.members) m.set(e.key, { key: e.key, keyAt: m.get(e.key)?.keyAt ?? e.keyAt, value: e.value });
  return [...m.values()];
}

const MARKERS = new Set(['$句柄', '$未定义', '$大整数', '$数字']);

// firstProblem is the first, in text order, of the problems in the parsed
// value of a tree, or null: 'deep' (a container deeper than o.deepOver, 0
// for none, at its bracket), 'marker' (with o.markers, a reserved key, at
// its first quote) and 'inf' (with o.inf, a number that parses to
// ±Infinity).
export function firstProblem(root, o) {
  let best = null;
  const note = (kind, at) => {
    if (best === null || at < best.at) best = { kind, at };
  };
  const stack = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop();
    if (o.inf && node.num !== undefined && !Number.isFinite(node.num)) note('inf', node.at);
    if (!node.items && !node.members) continue;
    if (o.deepOver > 0 && depth + 1 > o.deepOver) {
      note('deep', node.at);
      continue; // whatever lies inside comes later in the text
    }
    if (node.items) for (const v of node.items) stack.push([v, depth + 1]);
    else {
      for (const e of survivors(node)) {
        if (o.markers && MARKERS.has(e.key)) note('marker', e.keyAt);
        stack.push([e.value, depth + 1]);
      }
    }
  }
  return best;
}

// inspectValue gives the nesting of a parsed value ([] 1, {"a":[1]} 2, a scalar
// 0), and whether it holds only JSON values: plain objects and arrays,
// strings, finite numbers, booleans and null.
export function inspectValue(v) {
  let depth = 0;
  let json = true;
  const stack = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop();
    if (x === null || typeof x === 'string' || typeof x === 'boolean') continue;
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) json = false;
      continue;
    }
    if (typeof x !== 'object' || !(Array.isArray(x) || Object.getPrototypeOf(x) === Object.prototype)) {
      json = false;
      continue;
    }
    depth = Math.max(depth, d + 1);
    const vals = Array.isArray(x) ? x : Object.values(x);
    if (Array.isArray(x) && Object.keys(x).length !== x.length) json = false; // holes
    for (const y of vals) stack.push([y, d + 1]);
  }
  return { depth, json };
}

// canonicalJSON answers the protocol's own function: the bytes u8 as
// strict UTF-8 (a BOM kept), parsed with V8's JSON.parse and written with
// JSON.stringify, with the options of canon-options.json ({maxDepth,
// deepOver, markers, infToNull}), as testdata/README.md says.
export function canonicalJSON(u8, o) {
  let s;
  try {
    s = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(u8);
  } catch {
    return { syntaxError: { reason: 'Invalid UTF-8', off: badUTF8At(u8) } };
  }
  const deep = o.maxDepth > 0 ? tooDeepAt(s, o.maxDepth) : -1;
  const bound = deep < 0 ? null : { reason: `Nesting deeper than ${o.maxDepth} levels`, off: utf8Length(s.slice(0, deep)) };
  let value;
  try {
    value = JSON.parse(s);
  } catch (e) {
    const err = v8Error(e.message, s);
    return { syntaxError: bound && (err.off === undefined || bound.off < err.off) ? bound : err };
  }
  if (bound) return { syntaxError: bound };
  const { depth } = inspectValue(value);
  const p = firstProblem(tree(s), { deepOver: o.deepOver, markers: o.markers, inf: !o.infToNull });
  if (p) return { depth, problem: p.kind, off: utf8Length(s.slice(0, p.at)) };
  return { canonical: JSON.stringify(value), depth, problem: 'none' };
}

// v8Error splits V8's SyntaxError message into the reason and the byte
// offset: "JSON input" read as "input", "after JSON" as "after the value",
// an unexpected end at the text's end.
function v8Error(msg, s) {
  if (msg === 'Unexpected end of JSON input') return { reason: 'Unexpected end of input', off: utf8Length(s) };
  const m = /^(.*?)(?: in JSON)? at position (\d+)/.exec(msg);
  if (!m) return { reason: msg };
  return { reason: m[1].replace(/ after JSON$/, ' after the value'), off: utf8Length(s.slice(0, Number(m[2]))) };
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
