// The parts of CONFORMANCE.md's protocol both JavaScript adapters share:
// byte builders, answers, the queue platform a Worker sees (Queue bindings
// that record send and sendBatch; a MessageBatch whose messages record
// ack() and retry()), and a case's calls run through host.mjs. Web
// platform only (no node: modules): the workerd worker imports it too.

import { call, HostError } from './host.mjs';
import { canonicalJSON } from './json.mjs';

// ProtocolError is a case the adapter cannot read (answered
// protocol_error).
export class ProtocolError extends Error {}

// expand is a byte builder's bytes.
export function expand(b, where = 'bytes') {
  if (typeof b === 'string') return new TextEncoder().encode(b);
  if (b === null || typeof b !== 'object') throw new ProtocolError(where + ': not a byte builder');
  if (typeof b.hex === 'string' && /^(?:[0-9a-fA-F]{2})*$/.test(b.hex)) {
    return Uint8Array.from(b.hex.match(/../g) ?? [], (h) => parseInt(h, 16));
  }
  if (b.repeat !== undefined && Number.isInteger(b.times) && b.times >= 0) {
    const one = expand(b.repeat, where);
    const out = new Uint8Array(one.length * b.times);
    for (let i = 0; i < b.times; i++) out.set(one, i * one.length);
    return out;
  }
  if (Array.isArray(b.concat)) {
    const parts = b.concat.map((x) => expand(x, where));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) out.set(p, at), (at += p.length);
    return out;
  }
  throw new ProtocolError(where + ': not a byte builder');
}

// chunksOf is a body's chunks, each as bytes: its chunks, or its bytes cut
// into chunks of chunkSize (a large body the runner sends whole).
export function chunksOf(b) {
  const where = 'event.request.body';
  if (b.bytes !== undefined && b.bytes !== null) {
    const all = expand(b.bytes, where + '.bytes');
    const size = b.chunkSize ?? b.chunk_size;
    if (!Number.isInteger(size) || size < 1) throw new ProtocolError(where + '.chunkSize: not a positive number');
    const out = [];
    for (let i = 0; i < all.length; i += size) out.push(all.subarray(i, i + size));
    return out;
  }
  if (!Array.isArray(b.chunks)) throw new ProtocolError(where + '.chunks: not a list');
  return b.chunks.map((c, i) => expand(c, `${where}.chunks[${i}]`));
}

// isoDecode is a ByteString of bytes (byte b is U+00b); isoEncode the
// reverse, for a string whose code units are all under 256.
export function isoDecode(u8) {
  let s = '';
  for (let i = 0; i < u8.length; i += 8192) s += String.fromCharCode(...u8.subarray(i, i + 8192));
  return s;
}

export const isoEncode = (s) => Uint8Array.from(s, (c) => c.charCodeAt(0));

// utf8 decodes a builder's bytes as a USVString (lenient).
export const utf8 = (b, where) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(expand(b, where));

// answerBytes writes bytes: a string when they are UTF-8, else {hex}.
export function answerBytes(u8) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(u8);
  } catch {
    return { hex: Array.from(u8, (x) => x.toString(16).padStart(2, '0')).join('') };
  }
}

// answerText writes a string as its UTF-8 bytes (a lone surrogate, which
// no byte stands for, as U+FFFD).
export const answerText = (s) => (s.isWellFormed() ? s : answerBytes(new TextEncoder().encode(s)));

// The spec functions whose text arguments the runner sends as builders;
// each argument's kind: 't' a text, 'n' a number, 'pairs' and 'list' the
// lists of 构造入站同源网址.
const ARGS = {
  发送队列消息: ['t', 't', 'n'],
  批量发送队列消息: ['t', 't'],
  确认队列消息: ['n'],
  重试队列消息: ['n', 'n'],
  读取入站查询参数: ['t'],
  入站查询参数存在: ['t'],
  读取入站标头值: ['t'],
  入站标头存在: ['t'],
  构造入站同源网址: ['t', 'pairs', 'list'],
  读取入站有限正文文字: ['n'],
  读取入站有限正文严格文字: ['n'],
  读取入站有限正文字节: ['n'],
  读取入站有限癸象正文文: ['n'],
};

// BYTE_STRINGS are the functions whose result is a ByteString.
const BYTE_STRINGS = new Set(['读取入站方法', '读取入站标头值']);
const STATUS = new Set(['读取入站有限正文文字', '读取入站有限正文严格文字', '读取入站有限正文字节', '读取入站有限癸象正文文']);

// argsOf turns a call's protocol arguments into the host's: texts as the
// UTF-8 bytes the app passed (Uint8Array).
export function argsOf(c, i) {
  const where = `calls[${i}].args`;
  if (!Array.isArray(c.args)) throw new ProtocolError(where + ': not a list');
  const kinds = ARGS[c.function] ?? [];
  return c.args.map((a, j) => {
    switch (kinds[j]) {
      case 't':
        return expand(a, `${where}[${j}]`);
      case 'pairs':
        return a.map(([k, v]) => [expand(k, where), expand(v, where)]);
      case 'list':
        return a.map((k) => expand(k, where));
      default:
        return a;
    }
  });
}

// answerOf is a call's answer: {value}, {status, value} or {error}. A
// ByteString result is written isomorphically where the platform's
// Headers hold ByteStrings (byteStrings true), else as UTF-8 text.
export function answerOf(name, got, byteStrings) {
  if ('error' in got) return { error: got.error };
  const v = got.value;
  if (STATUS.has(name)) return { status: v[0], value: v[1] === null ? null : encode(v[1]) };
  if (BYTE_STRINGS.has(name) && byteStrings && /^[\x00-\xff]*$/.test(v)) return { value: answerBytes(isoEncode(v)) };
  return { value: v === undefined ? null : encode(v) };
}

function encode(v) {
  if (v instanceof Uint8Array) return answerBytes(v);
  if (typeof v === 'string') return answerText(v);
  return v;
}

// outcome runs a host call: {value} for what it returns, {error: {kind,
// message}} for a spec exception. Anything else the host throws is a bug
// that ends the request: an abort naming it.
export async function outcome(f) {
  try {
    return { value: await f() };
  } catch (e) {
    if (e instanceof HostError) return { error: { kind: e.kind, message: e.message } };
    return { error: { kind: 'abort', message: `host bug: ${e && e.name}: ${e && e.message}` } };
  }
}

// canonicalCall answers the protocol's own canonicalJSON.
function canonicalCall(args) {
  const r = canonicalJSON(expand(args[0], 'calls[0].args[0]'), args[1] ?? {});
  if (r.canonical !== undefined) r.canonical = answerText(r.canonical);
  return { value: r };
}

// queuePlatform is the producer's platform of a case: env holds a Queue
// binding per configured binding whose send and sendBatch record what they
// received (the body serialised as contentType "json" serialises it,
// JSON.stringify), and throw failNext's reason once.
export function queuePlatform(p, seen) {
  let failNext = p?.failNext ?? null;
  const record = (method, binding, messages) => {
    const r = { method, binding, messages, error: null };
    seen.push(r);
    if (failNext !== null) {
      r.error = failNext;
      const reason = failNext;
      failNext = null;
      throw new Error(reason);
    }
  };
  const env = {};
  for (const binding of Object.keys(p?.bindings ?? {})) {
    env[binding] = {
      async send(body, options) {
        record('send', binding, [{ body: JSON.stringify(body), options: { ...options } }]);
      },
      async sendBatch(messages) {
        record('sendBatch', binding, messages.map(({ body, ...options }) => ({ body: JSON.stringify(body), options })));
      },
    };
  }
  return { env, permissions: p?.permissions ?? {} };
}

// messageBody is a stored body as a Worker's message.body gives it: the
// JSON value of a JSON text (contentType "json"), else the bytes as they
// are (contentType "bytes"): the platform could not have sent them as JSON.
export function messageBody(u8) {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(u8));
  } catch {
    return u8;
  }
}

// messageBatch is a queue event's MessageBatch: its messages record ack()
// and retry(), and keep, first call winning (a later retry replacing the
// delay), what the platform will do with each.
export function messageBatch(b, seen, bodyOf = messageBody) {
  const states = b.messages.map(() => null);
  const messages = b.messages.map((m, n) => ({
    id: m.id,
    timestamp: new Date(m.timestamp),
    attempts: m.attempts,
    body: bodyOf(expand(m.body, `event.batch.messages[${n}].body`)),
    ack() {
      seen.push({ method: 'ack', n });
      if (states[n] === null) states[n] = { ack: true };
    },
    retry(options) {
      seen.push(options === undefined ? { method: 'retry', n } : { method: 'retry', n, options: { ...options } });
      if (states[n] === null || states[n].retry) states[n] = { retry: true, delay: options?.delaySeconds ?? 0 };
    },
  }));
  return { queue: b.queue, messages, states };
}

// MAX_DELIVERIES is Cloudflare's default: 3 retries after the first delivery.
const MAX_DELIVERIES = 4;

// redelivered is what a platform with Cloudflare's default consumer
// settings (retry delay 0, explicit acks kept, 3 retries) schedules again.
export function redelivered(batch, states, outcome) {
  const out = [];
  batch.messages.forEach((m, n) => {
    const st = states[n];
    if (st?.ack || (!st && outcome === 'ok') || m.attempts >= MAX_DELIVERIES) return;
    out.push({ id: m.id, attempts: m.attempts + 1, delaySeconds: st ? st.delay : 0 });
  });
  return out;
}

// runCalls makes a case's calls in order on ev and answers each, with the
// platform calls made during it (seen, emptied) and, where observe gives
// one, the request body's state after it.
export async function runCalls(ev, calls, seen, observe, byteStrings) {
  const answers = [];
  for (const [i, c] of calls.entries()) {
    if (c.function === 'canonicalJSON') {
      answers.push({ ...canonicalCall(c.args), platform: [] });
      continue;
    }
    const args = argsOf(c, i);
    const got = await outcome(() => call(ev, c.function, args));
    const a = answerOf(c.function, got, byteStrings);
    a.platform = seen.splice(0).map(platformCall);
    const body = observe();
    if (body) a.body = body;
    answers.push(a);
  }
  return answers;
}

function platformCall(r) {
  if (!r.messages) return r;
  return { ...r, messages: r.messages.map((m) => ({ body: answerText(m.body), options: m.options })) };
}

// requestOf builds a native Request of a case's request, and the observer
// of its body stream: the platform's part where no runtime builds the
// Request from the wire. Two things the Request constructor does that no
// platform does to a request it received are undone: it normalises the URL
// (a platform gives Request.url unparsed) and upper-cases or refuses some
// methods (get, CONNECT); url and method are set on the instance to what
// arrived. A target (and Host, and TLS) makes the url as a server does.
export function requestOf(r) {
  const method = isoDecode(expand(r.method, 'event.request.method'));
  const headers = new Headers();
  for (const [k, v] of r.headers ?? []) headers.append(isoDecode(expand(k, 'header name')), isoDecode(expand(v, 'header value')));
  const url = r.target !== undefined ? targetURL(utf8(r.target, 'event.request.target'), r.tls, headers.get('host')) : utf8(r.url, 'event.request.url');
  const [stream, state] = r.body ? bodyStream(r.body) : [null, null];
  const bodyless = /^(GET|HEAD)$/i.test(method);
  const init = { method: nativeMethod(method), headers, duplex: 'half' };
  if (stream && !bodyless) init.body = stream;
  const req = new Request('http://placeholder.invalid/', init);
  Object.defineProperty(req, 'url', { value: url });
  Object.defineProperty(req, 'method', { value: method });
  if (r.body?.used && req.body) req.body.getReader(); // locked before the first call
  const observe = () =>
    state && { pulls: state.pulls, canceled: state.canceled, used: req.bodyUsed || (req.body?.locked ?? false) };
  return [req, observe];
}

// nativeMethod is a method node's Request accepts with the same body rules
// (GET and HEAD refuse a body, the others take one).
const nativeMethod = (m) => (/^(GET|HEAD)$/i.test(m) ? 'GET' : 'POST');

// bodyStream is a stream of the chunks, one a pull, with what the host did
// to it: the chunks pulled and whether it cancelled before the end. fail:
// the pull after the last chunk fails with that reason.
function bodyStream(b) {
  const chunks = chunksOf(b);
  const state = { pulls: 0, canceled: false };
  let i = 0;
  const stream = new ReadableStream(
    {
      pull(c) {
        if (i < chunks.length) {
          state.pulls++;
          c.enqueue(chunks[i++].slice());
        } else if (b.fail != null) c.error(new Error(utf8(b.fail, 'event.request.body.fail')));
        else c.close();
      },
      cancel() {
        state.canceled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return [stream, state];
}

// targetURL is Request.url of a request-target as a server received it
// (testdata/README.md, "Request URLs of the net/http adapter"): "" where
// no URL can be made.
function targetURL(target, tls, host) {
  const scheme = tls ? 'https' : 'http';
  try {
    let u;
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(target)) {
      u = new URL(target);
      u.protocol = scheme;
      u.username = '';
      u.password = '';
    } else if (target === '' || target[0] === '/' || target[0] === '\\') {
      u = new URL(scheme + '://' + (host ?? '') + target);
    } else {
      u = new URL(target, scheme + '://' + (host ?? ''));
    }
    u.hash = '';
    return u.href;
  } catch {
    return '';
  }
}

// FUNCTIONS and EVENTS are the handshake's lists: every spec function and
// the protocol's canonicalJSON; the event kinds 网页入站 0.8.0 documents.
export const FUNCTIONS = [
  '发送队列消息', '批量发送队列消息', '读取队列批次', '确认队列消息', '重试队列消息',
  '读取入站事件种类', '读取入站方法', '读取入站原路径', '读取入站解码路径', '读取入站来源',
  '读取入站主机名', '读取入站原查询', '读取入站查询参数', '入站查询参数存在', '读取入站标头值',
  '入站标头存在', '构造入站同源网址', '读取入站有限正文文字', '读取入站有限正文严格文字',
  '读取入站有限正文字节', '读取入站癸象正文文', '读取入站有限癸象正文文', 'canonicalJSON',
];

export const EVENTS = [
  'fetch', 'service-fetch', 'durable-fetch', 'queue', 'scheduled', 'email', 'durable-alarm',
  'durable-transaction', 'durable-block', 'durable-websocket-message', 'durable-websocket-close',
  'durable-websocket-error', 'websocket-open', 'websocket-message', 'websocket-close',
  'websocket-error', 'stream-pull', 'stream-cancel', 'html-element', 'html-text', 'html-comments',
  'html-doctype', 'html-document-text', 'html-document-comments', 'html-end', 'html-end-tag',
  'workflow', 'workflow-step', 'workflow-rollback',
];
