// Writes testdata/inbound-body.json: rows for decisions about the body
// readers that the spec's tables do not show (written in doc.go, "Bounded
// body reads"): a strict read counts a whole chunk before it validates it, and 读取入站癸象正文文
// decodes leniently as Request.json() does, while the bounded function stays
// strict. The format is that of inbound-conformance.json (testdata/README.md).
//
// A last table, 状态的检查顺序, pins the spec's order of the status checks
// (its rows say "level": "spec": they are the spec's rule, not a decision).
//
// The requests are written below; every expectation is computed here by a
// model of the spec's reading rules on Node.js's own TextDecoder and JSON:
//   - strict (读取入站有限正文严格文字, 读取入站有限癸象正文文): chunk by chunk,
//     count first ("一旦超过上限就取消读取流并返回 1"), then decode the chunk
//     with a fatal TextDecoder in stream mode (a throw is 4), then flush;
//   - 读取入站癸象正文文: bytes under 2 MiB, new TextDecoder().decode (lenient,
//     BOM stripped), JSON.parse, JSON.stringify, canonical text under 2 MiB.
//
// Run from the repository root with Node.js 20:
//
//	node testdata/gen/inbound-body.js > testdata/inbound-body.json
'use strict';

const MiB = 1 << 20;
const JSON_LIMIT = 2 * MiB;
const TOO_LARGE = '入站 JSON 正文超过 2 MiB';
const INVALID = '入站 JSON 正文无效：';

const STRICT = '读取入站有限正文严格文字';
const BOUNDED = '读取入站有限癸象正文文';
const JSONFN = '读取入站癸象正文文';

// A byte builder of the shared conventions, and its bytes.
function expand(b) {
  if (typeof b === 'string') return Buffer.from(b, 'utf8');
  if (b.hex !== undefined) return Buffer.from(b.hex, 'hex');
  if (b.repeat !== undefined) return Buffer.concat(Array(b.times).fill(expand(b.repeat)));
  return Buffer.concat(b.concat.map(expand));
}

// strictRead is the spec's strict reading of chunks under limit.
function strictRead(chunks, limit) {
  const dec = new TextDecoder('utf-8', { fatal: true });
  let total = 0;
  let text = '';
  for (let i = 0; i < chunks.length; i++) {
    total += chunks[i].length;
    if (total > limit) return { status: 1, after: { pulls: i + 1, canceled: true, used: true } };
    try {
      text += dec.decode(chunks[i], { stream: true });
    } catch {
      return { status: 4, after: { pulls: i + 1, canceled: true, used: true } };
    }
  }
  try {
    text += dec.decode();
  } catch {
    return { status: 4 };
  }
  return { status: 0, text };
}

function expectStrict(chunks, limit) {
  const r = strictRead(chunks, limit);
  return { expect: { status: r.status, text: r.status === 0 ? r.text : '' }, after: r.after };
}

function expectBounded(chunks, limit) {
  const r = strictRead(chunks, limit);
  if (r.status !== 0) return { expect: { status: r.status, text: '' }, after: r.after };
  try {
    return { expect: { status: 0, text: JSON.stringify(JSON.parse(r.text)) } };
  } catch {
    return { expect: { status: 5, reason_prefix: 'SyntaxError: ' } };
  }
}

function expectJSON(chunks) {
  const all = Buffer.concat(chunks);
  const tooLarge = { expect: { error: { kind: 'failure', message: TOO_LARGE } } };
  if (all.length > JSON_LIMIT) return tooLarge;
  let v;
  try {
    v = JSON.parse(new TextDecoder().decode(all));
  } catch {
    return { expect: { error: { kind: 'failure', message_prefix: INVALID, message_contains: 'SyntaxError' } } };
  }
  const out = JSON.stringify(v);
  if (Buffer.byteLength(out) > JSON_LIMIT) return tooLarge;
  return { expect: { text: out } };
}

function call(fn, chunks, limit) {
  let r;
  switch (fn) {
    case STRICT: r = expectStrict(chunks, limit); break;
    case BOUNDED: r = expectBounded(chunks, limit); break;
    case JSONFN: r = expectJSON(chunks); break;
  }
  const c = { function: fn };
  if (limit !== undefined) c.limit = limit;
  c.expect = r.expect;
  if (r.after) c.body_after = r.after;
  if (fn !== STRICT) c.needs_canonical = true;
  return c;
}

// row: one request whose body is chunks (builders), read by one call of each
// [fn, limit] on a fresh request.
function row(situation, observe, chunks, calls) {
  const bytes = chunks.map(expand);
  return {
    情境: situation,
    必须观察到: observe,
    cases: calls.map(([fn, limit]) => ({
      request: { kind: 'fetch', method: 'POST', url: 'https://example.com/api', headers: [], body: { chunks } },
      calls: [call(fn, bytes, limit)],
    })),
  };
}

const ff700 = { concat: [{ hex: 'ff' }, { repeat: 'a', times: 700 }] };
const ff3MiB = { concat: [{ hex: 'ff' }, { repeat: 'a', times: 3 * MiB - 1 }] };

const countFirst = [
  row('一块 701 字节的正文 FF + 700 个 a，上限 512 至 700', '状态 1：整块先计数，越界，不再验证（与读取缓冲的大小无关）', [ff700],
    [[STRICT, 512], [STRICT, 600], [STRICT, 700], [BOUNDED, 512], [BOUNDED, 600], [BOUNDED, 700]]),
  row('同一块，上限 701', '状态 4：未越界，再验证', [ff700], [[STRICT, 701], [BOUNDED, 701]]),
  row('分块 a、FF、bcdef，上限 5', '状态 4：第二块验证失败，第三块不再拉取', ['a', { hex: 'ff' }, 'bcdef'], [[STRICT, 5], [BOUNDED, 5]]),
  row('一块 3 MiB 的正文，以 FF 开头', '读取入站癸象正文文 抛出 入站 JSON 正文超过 2 MiB', [ff3MiB], [[JSONFN]]),
];

const lenientJSON = [
  row('JSON 正文 22 FF 22', '读取入站癸象正文文 得 "\\uFFFD"（宽松解码，如 Request.json()）；有限函数得状态 4', [{ hex: '22ff22' }],
    [[JSONFN], [BOUNDED, 100]]),
  row('BOM + 22 FF 22', 'BOM 剥除，得 "\\uFFFD"', [{ hex: 'efbbbf22ff22' }], [[JSONFN]]),
  row('["ED A0 80"]（代理对编码）', '每个最大子部分一个 U+FFFD', [{ hex: '5b22eda080225d' }], [[JSONFN], [BOUNDED, 100]]),
  row('{"FF":1}（键里的非法字节）', '键得 U+FFFD', [{ hex: '7b22ff223a317d' }], [[JSONFN]]),
  row('正文 "中"，E4、B8、AD 分在三块', '整体解码：得 "中"', [{ hex: '22e4' }, { hex: 'b8' }, { hex: 'ad22' }], [[JSONFN], [BOUNDED, 100]]),
  row('"E4 B8（末尾残缺）', '解码为 "\\uFFFD，字符串未结束：抛出 入站 JSON 正文无效：SyntaxError…；有限函数得状态 4', [{ hex: '22e4b8' }],
    [[JSONFN], [BOUNDED, 100]]),
];

// The order of the status checks (网页入站 0.8.0: no body or a bodyless
// method, then a used body, then the declared Content-Length, then the
// read): each request below fails two of them, and the first one decides.
// Each function on a fresh request; none pulls a chunk.
const READERS = ['读取入站有限正文字节', '读取入站有限正文文字', STRICT, BOUNDED];

function orderRow(situation, observe, method, body, status) {
  const used = !!(body && body.used);
  return {
    情境: situation,
    必须观察到: observe,
    level: 'spec',
    cases: READERS.map((fn) => {
      const c = { function: fn, limit: 10, expect: { status, [fn === READERS[0] ? 'bytes' : 'text']: fn === READERS[0] ? null : '' } };
      if (body) c.body_after = { pulls: 0, canceled: false, used };
      return {
        request: { kind: 'fetch', method, url: 'https://example.com/api', headers: [['Content-Length', '100']], body },
        calls: [c],
      };
    }),
  };
}

const checkOrder = [
  orderRow('GET，声明 Content-Length: 100，上限 10', '状态 2（不读正文的方法），先于 Content-Length 的状态 1', 'GET', { chunks: ['hello'] }, 2),
  orderRow('POST 没有正文流，声明 Content-Length: 100，上限 10', '状态 2，先于状态 1', 'POST', null, 2),
  orderRow('POST 正文已被读取，声明 Content-Length: 100，上限 10', '状态 3，先于状态 1', 'POST', { chunks: ['hello'], used: true }, 3),
];

const doc = {
  source: 'hostbridge decisions (doc.go, Bounded body reads), not a spec table: requests written by hand, expectations computed by testdata/gen/inbound-body.js with Node.js ' + process.version + ' (TextDecoder, JSON)',
  format: 'see testdata/README.md, section 网页入站 body rows',
  tables: [
    { table: '先计数后验证（宿主桥决定）', rows: countFirst },
    { table: '读取入站癸象正文文 宽松解码（宿主桥决定）', rows: lenientJSON },
    { table: '状态的检查顺序', rows: checkOrder },
  ],
};
process.stdout.write(JSON.stringify(doc, null, 1) + '\n');
