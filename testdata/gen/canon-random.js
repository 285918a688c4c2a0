// canon-random.js writes testdata/canon-random.json: seeded random JSON texts
// with node's JSON.stringify(JSON.parse(text)) as the expected canonical form.
//
//   node testdata/gen/canon-random.js > testdata/canon-random.json
//
// Node 20, no npm dependencies. The PRNG is mulberry32 with a fixed seed, so
// the output is the same on every run. Every valid text is checked to parse,
// every invalid one to throw, and every text is valid UTF-8 (no raw lone
// surrogates), because canonical takes UTF-8 bytes.
//
// Each valid document records:
//   text      the JSON text
//   canonical JSON.stringify(JSON.parse(text)) (±Infinity is written null)
//   depth     nesting depth of the parsed value ([] 1, {"a":[1]} 2, 1 0)
//   problems  the problem kinds present in the parsed value, judged as the
//             queue producer does: "deep" (a container deeper than 24),
//             "marker" (a key $句柄 $未定义 $大整数 $数字), "inf" (a number
//             that parses to ±Infinity); a value a later duplicate key
//             replaced is gone, so it does not count.
// An invalid document is {"text": ..., "valid": false}.
'use strict';

const SEED = 0x5eed2024;
const NVALID = 5200;
const NINVALID = 1300;

function mulberry32(a) {
  return function () {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(SEED);
const int = (n) => Math.floor(rnd() * n); // 0 … n-1
const pick = (a) => a[int(a.length)];
const chance = (p) => rnd() < p;

// ---- whitespace --------------------------------------------------------
const WS = ['', '', '', '', '', '', ' ', '\n', '\t', '\r\n', '  ', ' \n\t\r '];
const ws = () => (chance(0.25) ? pick(WS) : '');

// ---- numbers -----------------------------------------------------------
const FIXED_NUMBERS = [
  '0', '-0', '0.0', '-0.0', '0e0', '-0E-0', '1', '-1', '12', '123456789',
  '1.5', '-1.25', '0.1', '0.000001', '0.0000001', '1e-7', '1E-6', '1e-6',
  '1e21', '1E21', '1e+21', '1e20', '100000000000000000000', '1000000000000000000000',
  '999999999999999999999', '9.999999999999999e20', '123e-2', '5e-324', '2e-324',
  '3e-324', '1e-400', '-1e-400', '1e999', '-1e999', '1E+999', '1e309', '1e308',
  '1.7976931348623157e308', '1.7976931348623158e308', '1.7976931348623159e308',
  '-1.7976931348623159e308', '2.2250738585072014e-308', '2.225073858507201e-308',
  '4.9406564584124654e-324', '1e007', '1e-0007', '1E+00', '9007199254740993',
  '9007199254740992', '18446744073709551616', '4294967295', '0.30000000000000004',
  '1.0000000000000002', '123456789012345678901234567890', '1e-323', '1e23',
  '8.41e21', '5e-7', '0.00001234', '1.23e-5', '-0.0000001',
];

function digits(n) {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(48 + int(10));
  return s;
}
function nzdigit() {
  return String.fromCharCode(49 + int(9));
}

function randomBitsDouble() {
  const b = new DataView(new ArrayBuffer(8));
  b.setUint32(0, (rnd() * 4294967296) >>> 0);
  b.setUint32(4, (rnd() * 4294967296) >>> 0);
  const f = b.getFloat64(0);
  return Number.isFinite(f) ? f : 1.5;
}

function number() {
  switch (int(10)) {
    case 0:
    case 1:
      return pick(FIXED_NUMBERS);
    case 2: // small integers
      return (chance(0.3) ? '-' : '') + (chance(0.2) ? '0' : nzdigit() + digits(int(6)));
    case 3: { // fraction and exponent, any shape
      let s = (chance(0.3) ? '-' : '') + (chance(0.3) ? '0' : nzdigit() + digits(int(4)));
      if (chance(0.6)) s += '.' + digits(1 + int(8));
      if (chance(0.6)) s += pick(['e', 'E']) + pick(['', '+', '-']) + digits(1 + int(3));
      return s;
    }
    case 4: // long mantissas
      return (chance(0.3) ? '-' : '') + nzdigit() + digits(int(25)) + '.' + digits(1 + int(30)) +
        (chance(0.5) ? 'e' + pick(['', '-', '+']) + int(330) : '');
    case 5: // subnormals and tiny numbers
      return nzdigit() + (chance(0.2) ? '' : '.' + digits(1 + int(20))) + 'e-' + (308 + int(20));
    case 6: { // huge exponents, both ways, ±Infinity included
      return (chance(0.4) ? '-' : '') + nzdigit() + (chance(0.5) ? '.' + digits(1 + int(5)) : '') +
        'e' + pick(['', '+', '-']) + (300 + int(120));
    }
    case 7: { // random doubles written by JS in various notations
      const f = randomBitsDouble();
      switch (int(4)) {
        case 0: return String(f);
        case 1: return f.toExponential(int(21));
        case 2: return f.toPrecision(1 + int(21)).replace('e+', pick(['e+', 'e', 'E+']));
        default: return String(f).toUpperCase();
      }
    }
    case 8: // around the 1e21 and 1e-7 notation switch
      return (chance(0.3) ? '-' : '') + nzdigit() + (chance(0.5) ? '.' + digits(1 + int(16)) : '') +
        'e' + pick(['20', '21', '22', '-6', '-7', '-8', '+21', '-5']);
    default: // decimals of plain shape
      return (chance(0.2) ? '-' : '') + digits(1 + int(3)).replace(/^0+(?=\d)/, '') + '.' + digits(1 + int(6));
  }
}

// ---- strings -----------------------------------------------------------
const hex4 = (n) => n.toString(16).padStart(4, '0');
const hexCase = (s) => (chance(0.3) ? s.toUpperCase() : s);
const RAW = ['é', 'ü', 'ß', '中', '文', '句', '柄', 'Ω', 'я', '😀', '𝄞', '\u2028', '\u2029',
  '\u007f', '\u0080', '\u00a0', '\ufeff', '\uffff', '\ufffd', '<', '>', '/', '&', "'", '`', '$'];
const ESC = ['\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t'];

function strPiece() {
  switch (int(12)) {
    case 0: case 1: case 2: {
      let s = '';
      const n = 1 + int(6);
      for (let i = 0; i < n; i++) s += String.fromCharCode(97 + int(26));
      return s;
    }
    case 3: return pick(ESC);
    case 4: return '\\u' + hexCase(hex4(int(0x20))); // control characters
    case 5: return '\\u' + hexCase(hex4(int(0x10000))); // any BMP unit, lone surrogates included
    case 6: return '\\u' + hexCase(hex4(0xd800 + int(0x800))); // lone surrogate
    case 7: { // a pair, sometimes reversed, sometimes split by something else
      const hi = 0xd800 + int(0x400), lo = 0xdc00 + int(0x400);
      switch (int(4)) {
        case 0: return '\\u' + hex4(lo) + '\\u' + hex4(hi);
        case 1: return '\\u' + hex4(hi) + 'x\\u' + hex4(lo);
        case 2: return '\\u' + hexCase(hex4(hi)) + pick(['A', 'é', '😀', '\\"']);
        default: return '\\u' + hexCase(hex4(hi)) + '\\u' + hexCase(hex4(lo));
      }
    }
    case 8: case 9: return pick(RAW);
    case 10: return String.fromCodePoint(0xa0 + int(0xd7ff - 0xa0)); // raw BMP below the surrogates
    default: return String.fromCodePoint(0x10000 + int(0x100000)); // raw astral
  }
}
function str() {
  let s = '';
  const n = int(5);
  for (let i = 0; i < n; i++) s += strPiece();
  return '"' + s + '"';
}

// ---- keys --------------------------------------------------------------
const INDEX_KEYS = ['0', '1', '2', '7', '10', '42', '99', '4294967294', '4294967295', '4294967296',
  '01', '-0', '-1', '1.0', '+1', '1e3', ' 1', '00', '9007199254740993', '18446744073709551615'];
const MARKER_KEYS = ['$句柄', '$未定义', '$大整数', '$数字', '\\u0024句柄', '$\\u6570\\u5b57',
  '\\u0024\\u672a\\u5b9a\\u4e49', '$大\\u6574数'];
const NEAR_MARKERS = ['$set', '$', '$句', '句柄', '$句柄 ', ' $句柄', '$数字s', '$Number', '＄句柄'];
const WORD_KEYS = ['a', 'b', 'c', 'id', 'name', 'value', '', 'é', '中文', '__proto__', 'constructor',
  'toString', 'x\\ny', '\\u0061', '\\ud800', 'a\\"b', '😀'];

function key(pool) {
  if (pool && pool.length && chance(0.4)) return pick(pool); // duplicates within one object
  switch (int(10)) {
    case 0: case 1: case 2: return '"' + pick(INDEX_KEYS) + '"';
    case 3: return '"' + String(int(300)) + '"';
    case 4: return '"\\u003' + int(10) + '"'; // an escaped one-digit index key
    case 5: return '"' + (chance(0.5) ? pick(MARKER_KEYS) : pick(NEAR_MARKERS)) + '"';
    case 6: return str();
    default: return '"' + pick(WORD_KEYS) + '"';
  }
}

// ---- values ------------------------------------------------------------
function scalar() {
  switch (int(6)) {
    case 0: case 1: return number();
    case 2: case 3: return str();
    default: return pick(['true', 'false', 'null']);
  }
}

function value(depth, budget) {
  if (depth > 0 && (budget.n <= 0 || chance(0.35 + depth * 0.08))) return scalar();
  budget.n--;
  if (chance(0.5)) {
    const n = int(6);
    if (n === 0) return '[' + ws() + ']';
    const items = [];
    for (let i = 0; i < n; i++) items.push(ws() + value(depth + 1, budget) + ws());
    return '[' + items.join(',') + ']';
  }
  const n = int(7);
  if (n === 0) return '{' + ws() + '}';
  const pool = [];
  const members = [];
  for (let i = 0; i < n; i++) {
    const k = key(pool);
    pool.push(k);
    members.push(ws() + k + ws() + ':' + ws() + value(depth + 1, budget) + ws());
  }
  return '{' + members.join(',') + '}';
}

// A chain of n containers around v, for the 24/25 nesting boundary.
function chain(n, v) {
  let open = '', close = '';
  for (let i = 0; i < n; i++) {
    if (chance(0.5)) {
      open += '[';
      close = ']' + close;
    } else {
      const k = key(null);
      open += '{' + k + ':';
      close = '}' + close;
    }
  }
  return open + v + close;
}

function doc() {
  let t;
  switch (int(20)) {
    case 0: t = scalar(); break;
    case 1: t = chain(22 + int(5), value(1, { n: 2 })); break; // depth around 24/25
    case 2: { // a deep value replaced by a later duplicate, or kept
      const deep = chain(24 + int(3), '1');
      t = chance(0.5) ? '{"a":' + deep + ',"a":' + scalar() + '}' : '{"a":' + scalar() + ',"a":' + deep + '}';
      break;
    }
    case 3: { // a marker or ±Infinity replaced by a later duplicate, or kept
      const bad = chance(0.5) ? '{"' + pick(MARKER_KEYS) + '":1}' : pick(['1e999', '-1e400', '[2e308]']);
      t = chance(0.5) ? '{"k":' + bad + ',"k":' + scalar() + '}' : '{"k":' + scalar() + ',"k":' + bad + '}';
      break;
    }
    default: t = value(0, { n: 1 + int(10) });
  }
  return ws() + t + ws();
}

// ---- invalid texts -----------------------------------------------------
const BAD_TOKENS = [
  '01', '-01', '00', '-00', '1.', '.5', '-.5', '+1', '1e', '1e+', '1E-', '-', '0x10', '1_000',
  'Infinity', '-Infinity', 'NaN', 'undefined', 'tru', 'nul', 'fals', 'True', 'NULL',
  "'single'", '"bad\\x"', '"\\a"', '"\\\'"', '"\\u12G4"', '"\\u"', '"\\u123"', '"\\U0041"',
  '"a\u0001b"', '"tab\there"', '"new\nline"', '"nul\u0000"', '"\u001f"', '"unterminated',
  '[1,]', '{"a":1,}', '[,1]', '{,}', '{"a" 1}', '{a:1}', "{'a':1}", '{"a":1 "b":2}', '[1 2]',
  '[1]]', '{"a":1}}', '[', '{', '{"a"', '{"a":', '"\\', '[1,,2]', '{"a"::1}', '[-]', '[1e1.5]',
  '1 2', '[1]/*x*/', '// c\n1', '/* c */1', '#1', '\u00a01', '\u000b1', '\u000c1', '\ufeff1', '\u20281',
];

function mutate(t) {
  switch (int(8)) {
    case 0: return t.slice(0, int(t.length)); // truncation
    case 1: { // trailing comma before a closing bracket
      const closes = [];
      for (let i = 0; i < t.length; i++) if (t[i] === ']' || t[i] === '}') closes.push(i);
      if (!closes.length) return t + ',';
      const i = pick(closes);
      return t.slice(0, i) + ',' + t.slice(i);
    }
    case 2: { // a comment where whitespace may go
      const i = int(t.length + 1);
      return t.slice(0, i) + pick(['/* c */', '//c\n', '#c\n']) + t.slice(i);
    }
    case 3: { // single quotes for double quotes
      const i = t.indexOf('"');
      if (i < 0) return "'" + t + "'";
      const j = t.indexOf('"', i + 1);
      return t.slice(0, i) + "'" + t.slice(i + 1, j < 0 ? t.length : j) + "'" + (j < 0 ? '' : t.slice(j + 1));
    }
    case 4: { // a bad escape inside a string
      const qs = [];
      for (let i = 0; i < t.length; i++) if (t[i] === '"') qs.push(i);
      const i = qs.length ? pick(qs) + 1 : 0;
      return t.slice(0, i) + pick(['\\x', '\\u12', '\\U0041', '\\ ', '\\0', '\\v', '\\u{41}']) + t.slice(i);
    }
    case 5: { // a raw control character inside a string
      const qs = [];
      for (let i = 0; i < t.length; i++) if (t[i] === '"') qs.push(i);
      const i = qs.length ? pick(qs) + 1 : 0;
      return t.slice(0, i) + String.fromCharCode(int(0x20)) + t.slice(i);
    }
    case 6: { // a leading zero on a number
      const ds = [];
      for (let i = 0; i < t.length; i++) if (t[i] >= '1' && t[i] <= '9' && !/[0-9.eE+-]/.test(t[i - 1] || '')) ds.push(i);
      const i = ds.length ? pick(ds) : 0;
      return t.slice(0, i) + '0' + t.slice(i);
    }
    default: { // a bad token in place of a valid document or element
      const b = pick(BAD_TOKENS);
      return chance(0.5) ? b : '[' + t + ',' + b + ']';
    }
  }
}

function parses(t) {
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

// ---- expectations ------------------------------------------------------
const MARKERS = new Set(['$句柄', '$未定义', '$大整数', '$数字']);

function depthOf(v) {
  if (v === null || typeof v !== 'object') return 0;
  let d = 0;
  for (const k of Object.keys(v)) d = Math.max(d, depthOf(v[k]));
  return d + 1;
}

function problems(v, depth, set) {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) set.add('inf');
    return;
  }
  if (v === null || typeof v !== 'object') return;
  if (depth + 1 > 24) set.add('deep');
  for (const k of Object.keys(v)) {
    if (!Array.isArray(v) && MARKERS.has(k)) set.add('marker');
    problems(v[k], depth + 1, set);
  }
}

// Every text goes to the Go test as UTF-8: no raw lone surrogates.
function wellFormed(t) {
  return t.isWellFormed();
}

const docs = [];
let valid = 0, invalid = 0, guard = 0;
while (valid < NVALID) {
  const t = doc();
  if (!wellFormed(t)) continue;
  const v = JSON.parse(t); // a generator bug throws here
  const set = new Set();
  problems(v, 0, set);
  docs.push({
    text: t,
    valid: true,
    canonical: JSON.stringify(v),
    depth: depthOf(v),
    problems: ['deep', 'marker', 'inf'].filter((k) => set.has(k)),
  });
  valid++;
  // Interleave the invalid texts.
  while (invalid < (valid * NINVALID) / NVALID) {
    if (++guard > 1e6) throw new Error('mutations keep parsing');
    const m = mutate(chance(0.7) ? docs[docs.length - 1].text : doc());
    if (!wellFormed(m) || parses(m)) continue;
    docs.push({ text: m, valid: false });
    invalid++;
  }
}

const out = {
  source: 'testdata/gen/canon-random.js (node ' + process.version + ', seed 0x' + SEED.toString(16) + ')',
  valid: valid,
  invalid: invalid,
  docs: docs,
};
let s = '{"source":' + JSON.stringify(out.source) + ',"valid":' + valid + ',"invalid":' + invalid + ',"docs":[\n';
s += docs.map((d) => JSON.stringify(d)).join(',\n');
s += '\n]}\n';
process.stdout.write(s);
