// A JavaScript host of 消息队列 0.1.0 and 网页入站 0.8.0: every spec
// function written on the web platform's own Request, Headers, URL,
// URLSearchParams, TextDecoder, ReadableStream and JSON, with the queue
// producer and consumer mapped as a Cloudflare Worker maps them (a Queue
// binding's send and sendBatch; a MessageBatch's Message.ack() and
// retry()). No node: modules, so node and workerd run the same file.
//
// An event is {kind, request, batch, env, permissions}:
// request a Request (only on fetch, service-fetch and durable-fetch), batch
// a MessageBatch (on queue), env the bindings (name → Queue), permissions
// the host permission object ({"QUEUE": [names]}). A text argument (豫言
// 文字) is a string or the UTF-8 bytes the app passed across the bridge
// (a Uint8Array). call(ev, name, args) runs the spec function named
// so, with the spec's arguments in the spec's order; it returns the result
// or throws a HostError (kind violation, failure or abort; message the
// app's exception text).

import { firstProblem, inspectValue, survivors, tooDeepAt, tree, utf8Length } from './json.mjs';

// The exception texts, byte for byte those of errors.go.
export const MSG = {
  emptyBinding: '队列绑定名不能为空',
  bindingNotGranted: '队列绑定未授权或未配置：',
  bodyNotJSON: '消息体不是有效的 JSON 文字',
  bodyTooLarge: '消息体超过 128000 字节',
  bodyTooDeep: '消息体嵌套超过 24 层',
  bodyMarker: '消息体含宿主专用记号',
  bodyNotFinite: '消息体含非有限数字',
  delayRange: '延迟秒数须在 0 至 43200 之间',
  sendFailed: '队列发送失败：',
  batchSendFailed: '队列批量发送失败：',
  batchNotArray: '批量消息不是有效的 JSON 数组',
  batchEmpty: '批量消息不得少于 1 条',
  batchTooMany: '批量消息不得超过 100 条',
  batchTooLarge: '批量消息超过 1 MiB',
  batchBodiesTotal: '批量消息合计超过 256000 字节',
  itemNotObject: '批量消息项不是对象',
  itemNoBody: '批量消息项缺少 body',
  itemBadKey: '批量消息项含不允许的字段 ',
  itemSuffix: '：序号 ',
  notQueueEvent: '当前事件不是队列事件',
  messageIndex: '队列消息序号越界',
  messageNotJSON: '队列消息正文不是 JSON 值：序号 ',
  messageTooDeep: '队列消息正文嵌套超过 32 层：序号 ',
  noRequest: '当前没有 HTTP 请求',
  pathEncoding: '入站路径编码无效',
  headerName: '入站标头名称无效',
  sameOriginPath: '同源网址路径无效',
  sameOriginList: '同源网址的设置或删除列表超过 16 项',
  bodyLimitRange: '入站正文字节上限须在 1 至 16777216',
  lenientTooLong: '宽松解码后的文字超过 16 MiB',
  bodyReadFailed: '读取入站正文失败：',
  jsonBodyTooLarge: '入站 JSON 正文超过 2 MiB',
  jsonBodyInvalid: '入站 JSON 正文无效：',
  jsonBodyNone: '入站 JSON 正文无效：没有正文',
  jsonBodyUsed: '入站 JSON 正文无效：正文已被读取',
  jsonLimitRange: '入站 JSON 正文字节上限须在 1 至 8388608',
  requestURL: '入站请求网址无效',
};

// The limits, as the specs write them.
const MAX_MESSAGE_BYTES = 128000;
const MAX_MESSAGE_DEPTH = 24;
const MAX_DELAY = 43200;
const MAX_BATCH_MESSAGES = 100;
const MAX_BATCH_BODY_BYTES = 256000;
const MAX_BATCH_BYTES = 1048576;
const MAX_READ_DEPTH = 32;
const MAX_HEADER_NAME = 256;
const MAX_SAME_ORIGIN_ITEMS = 16;
const MAX_BODY_LIMIT = 16777216;
const MAX_LENIENT_TEXT = 16777216;
const MAX_LENGTH_DIGITS = 18;
const JSON_BODY_LIMIT = 2097152;
const MAX_BOUNDED_JSON_LIMIT = 8388608;
const MAX_JSON_DEPTH = 1000;

// HostError is a spec exception: kind violation (违规), failure (平台故障)
// or abort (the host ends the request or event; not catchable).
export class HostError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const violation = (msg) => new HostError('violation', msg);
const failure = (msg) => new HostError('failure', msg);

// bytesOf is a text argument's bytes: a Uint8Array as it is, a string as
// UTF-8.
const bytesOf = (b) => (b instanceof Uint8Array ? b : new TextEncoder().encode(b));

// textOf is a text argument as a string: bytes decoded as a USVString
// would be (each ill-formed sequence U+FFFD).
const textOf = (b) => (b instanceof Uint8Array ? new TextDecoder('utf-8', { ignoreBOM: true }).decode(b) : b);

// strictText decodes bytes as strict UTF-8 with a BOM kept, or gives null.
function strictText(u8) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(u8);
  } catch {
    return null;
  }
}

const delayInRange = (d) => Number.isInteger(d) && d >= 0 && d <= MAX_DELAY;

// ---- 消息队列 0.1.0, producer ----

// queueOf is the Queue a binding names: empty is a violation; one not
// granted by the permissions or not configured in env ends the request.
function queueOf(ev, binding) {
  if (binding === '') throw violation(MSG.emptyBinding);
  const granted = Array.isArray(ev.permissions?.QUEUE) && ev.permissions.QUEUE.includes(binding);
  const queue = ev.env?.[binding];
  if (!granted || !queue) throw new HostError('abort', MSG.bindingNotGranted + binding);
  return queue;
}

// bodyProblem judges one message body's JSON text s (valid UTF-8 of
// inputBytes bytes, or null when it was not): the input size, the syntax,
// then the first in the text of nesting, marker and ±Infinity, then the
// canonical size. It gives [message, value].
function bodyProblem(s, inputBytes) {
  if (inputBytes > MAX_MESSAGE_BYTES) return [MSG.bodyTooLarge];
  let value;
  try {
    if (s === null) throw new SyntaxError('not UTF-8');
    value = JSON.parse(s);
  } catch {
    return [MSG.bodyNotJSON];
  }
  const p = firstProblem(tree(s), { deepOver: MAX_MESSAGE_DEPTH, markers: true, inf: true });
  if (p) return [{ deep: MSG.bodyTooDeep, marker: MSG.bodyMarker, inf: MSG.bodyNotFinite }[p.kind]];
  const canon = JSON.stringify(value);
  if (utf8Length(canon) > MAX_MESSAGE_BYTES) return [MSG.bodyTooLarge];
  return ['', value, canon];
}

// 发送队列消息(绑定名, 消息体, 延迟秒数): queue.send(value, {contentType:
// "json", delaySeconds}) after every check.
async function sendQueueMessage(ev, binding, body, delaySeconds) {
  const queue = queueOf(ev, textOf(binding));
  const u8 = bytesOf(body);
  const [msg, value] = bodyProblem(strictText(u8), u8.length);
  if (msg) throw violation(msg);
  if (!delayInRange(delaySeconds)) throw violation(MSG.delayRange);
  const options = { contentType: 'json' };
  if (delaySeconds !== 0) options.delaySeconds = delaySeconds;
  try {
    await queue.send(value, options);
  } catch (e) {
    throw failure(MSG.sendFailed + reasonOf(e));
  }
}

const reasonOf = (e) => (e instanceof Error ? e.message : String(e));

// batchItem judges item n of a batch (a tree node and the batch text): its
// shape, its last body (on that value's own span) and its delay. It gives
// the message {body, contentType, delaySeconds} sendBatch takes, with the
// canonical body's size.
function batchItem(s, node, n) {
  const fail = (msg) => violation(msg + MSG.itemSuffix + n);
  if (!node.members) throw fail(MSG.itemNotObject);
  const members = survivors(node);
  const keys = Object.keys(Object.fromEntries(members.map((m) => [m.key, 0]))); // JavaScript key order
  const bad = keys.find((k) => k !== 'body' && k !== 'delaySeconds');
  if (bad !== undefined) throw fail(MSG.itemBadKey + JSON.stringify(bad).slice(1, -1));
  const body = members.find((m) => m.key === 'body');
  if (!body) throw fail(MSG.itemNoBody);
  const span = s.slice(body.value.at, body.value.end);
  const [msg, value, canon] = bodyProblem(span, utf8Length(span));
  if (msg) throw fail(msg);
  const delay = members.find((m) => m.key === 'delaySeconds');
  const d = delay ? JSON.parse(s.slice(delay.value.at, delay.value.end)) : 0;
  if (!delayInRange(d)) throw fail(MSG.delayRange);
  const message = { body: value, contentType: 'json' };
  if (d !== 0) message.delaySeconds = d;
  return [message, utf8Length(canon)];
}

// 批量发送队列消息(绑定名, 批量文字): queue.sendBatch(messages) once the
// whole array has passed.
async function sendQueueBatch(ev, binding, batch) {
  const queue = queueOf(ev, textOf(binding));
  const u8 = bytesOf(batch);
  if (u8.length > MAX_BATCH_BYTES) throw violation(MSG.batchTooLarge);
  const s = strictText(u8);
  let root;
  try {
    if (s === null || !Array.isArray(JSON.parse(s))) throw new SyntaxError('not an array');
    root = tree(s);
  } catch {
    throw violation(MSG.batchNotArray);
  }
  if (root.items.length < 1) throw violation(MSG.batchEmpty);
  if (root.items.length > MAX_BATCH_MESSAGES) throw violation(MSG.batchTooMany);
  const messages = [];
  let total = 0;
  root.items.forEach((node, n) => {
    const [m, size] = batchItem(s, node, n);
    messages.push(m);
    total += size;
  });
  if (total > MAX_BATCH_BODY_BYTES) throw violation(MSG.batchBodiesTotal);
  try {
    await queue.sendBatch(messages);
  } catch (e) {
    throw failure(MSG.batchSendFailed + reasonOf(e));
  }
}

// ---- 消息队列 0.1.0, consumer ----

function batchOf(ev) {
  if (ev.kind !== 'queue' || !ev.batch) throw violation(MSG.notQueueEvent);
  return ev.batch;
}

// 读取队列批次(): the MessageBatch as JSON text, each body a JSON value no
// deeper than 32 (the first message with a problem wins).
function readQueueBatch(ev) {
  const b = batchOf(ev);
  const messages = b.messages.map((m, n) => {
    const { depth, json } = inspectValue(m.body);
    if (!json) throw violation(MSG.messageNotJSON + n);
    if (depth > MAX_READ_DEPTH) throw new HostError('abort', MSG.messageTooDeep + n);
    return { id: m.id, attempts: m.attempts, timestamp: m.timestamp.getTime(), body: m.body };
  });
  return JSON.stringify({ queue: b.queue, messages });
}

function messageAt(ev, n) {
  const b = batchOf(ev);
  if (!Number.isInteger(n) || n < 0 || n >= b.messages.length) throw violation(MSG.messageIndex);
  return b.messages[n];
}

// 确认队列消息(序号): message.ack().
function ackQueueMessage(ev, n) {
  messageAt(ev, n).ack();
}

// 重试队列消息(序号, 延迟秒数): message.retry(), with {delaySeconds} unless
// it is 0 (the platform's default delay).
function retryQueueMessage(ev, n, delaySeconds) {
  const m = messageAt(ev, n);
  if (!delayInRange(delaySeconds)) throw violation(MSG.delayRange);
  if (delaySeconds === 0) m.retry();
  else m.retry({ delaySeconds });
}

// ---- 网页入站 0.8.0, the request ----

const REQUEST_KINDS = ['fetch', 'service-fetch', 'durable-fetch'];
const SCHEMES = ['ftp:', 'http:', 'https:', 'ws:', 'wss:'];
const TOKEN = /^[0-9A-Za-z!#$%&'*+\-.^_|~`]+$/;

function requestOf(ev) {
  if (!REQUEST_KINDS.includes(ev.kind) || !ev.request) throw failure(MSG.noRequest);
  return ev.request;
}

// urlOf parses request.url as new URL does, refusing a scheme a request
// does not have and a host that needs IDNA.
function urlOf(ev) {
  const s = requestOf(ev).url;
  let u;
  try {
    u = new URL(s);
  } catch {
    throw failure(MSG.requestURL);
  }
  if (!SCHEMES.includes(u.protocol) || needsIDNA(s)) throw failure(MSG.requestURL);
  return u;
}

// needsIDNA: the host as written in an absolute URL string (tabs and
// newlines removed, after any / or \, up to /, \, ? or #, after the last
// @, before a port's colon outside brackets) is not ASCII once
// percent-decoded.
function needsIDNA(s) {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:[\/\\]*([^\/\\?#]*)/.exec(s.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, ''));
  const auth = m ? m[1] : '';
  const host = /^(\[[^\]]*\]|[^:]*)/.exec(auth.slice(auth.lastIndexOf('@') + 1))[1];
  return /[^\x00-\x7f]|%[89a-fA-F][0-9a-fA-F]/.test(host);
}

function headerName(name) {
  if (typeof name !== 'string' || name.length > MAX_HEADER_NAME || !TOKEN.test(name)) throw violation(MSG.headerName);
  return name;
}

// 读取入站标头值(名称) and 入站标头存在(名称): Headers.get and has, the
// value as the platform's Headers hold it (a ByteString in the Fetch
// Standard; workerd gives text decoded from UTF-8).
function readHeader(ev, name) {
  const h = requestOf(ev).headers;
  return h.get(headerName(textOf(name))) ?? '';
}

function hasHeader(ev, name) {
  return requestOf(ev).headers.has(headerName(textOf(name)));
}

// 读取入站解码路径: the pathname percent-decoded once, strict UTF-8.
function decodedPath(ev) {
  const p = urlOf(ev).pathname;
  try {
    return decodeURIComponent(p);
  } catch {
    throw violation(MSG.pathEncoding);
  }
}

// 构造入站同源网址(路径, 设置列表, 删除列表): the request's URL, then the
// path (it must start with one /, hold no //, \\, ?, #, control and be
// UTF-8), then the lists; the pathname set, delete then set, no fragment or
// userinfo.
function sameOriginURL(ev, path, set = [], del = []) {
  const u = urlOf(ev);
  const p = path instanceof Uint8Array ? strictText(path) : path;
  if (p === null || (p !== '' && (!p.startsWith('/') || p.includes('//') || /[\\?#\u0000-\u001f\u007f-\u009f]/.test(p) || !p.isWellFormed()))) {
    throw violation(MSG.sameOriginPath);
  }
  if (set.length > MAX_SAME_ORIGIN_ITEMS || del.length > MAX_SAME_ORIGIN_ITEMS) throw violation(MSG.sameOriginList);
  if (p !== '') u.pathname = p;
  for (const k of del) u.searchParams.delete(textOf(k));
  for (const [k, v] of set) u.searchParams.set(textOf(k), textOf(v));
  u.hash = '';
  u.username = '';
  u.password = '';
  return u.href;
}

// ---- 网页入站 0.8.0, bounded body reads ----

// bodyStatus is 2 (no body), 3 (already read or locked), 1 (a
// Content-Length of 1 to 18 digits over the limit, or longer), or 0 (read
// it), in that order.
function bodyStatus(req, limit) {
  if (req.body === null || /^(get|head)$/i.test(req.method)) return 2;
  if (req.bodyUsed || req.body.locked) return 3;
  const cl = req.headers.get('content-length');
  if (cl !== null && /^[0-9]+$/.test(cl) && (cl.length > MAX_LENGTH_DIGITS || Number(cl) > limit)) return 1;
  return 0;
}

// readBody reads req.body chunk by chunk under limit: [status, chunks].
// Each chunk is counted whole before any byte of it is judged; the read is
// cancelled (its failure swallowed) once the total is over the limit, or,
// strict, once the bytes cannot be UTF-8.
async function readBody(req, limit, strict) {
  const st = bodyStatus(req, limit);
  if (st !== 0) return [st, null];
  const reader = req.body.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const chunks = [];
  let n = 0;
  const stop = async (status) => {
    await reader.cancel().catch(() => {});
    return [status, null];
  };
  for (;;) {
    let r;
    try {
      r = await reader.read();
    } catch (e) {
      throw failure(MSG.bodyReadFailed + reasonOf(e));
    }
    if (r.done) break;
    const chunk = r.value instanceof Uint8Array ? r.value : new Uint8Array(r.value);
    n += chunk.length;
    if (n > limit) return stop(1);
    if (strict && !decodes(decoder, chunk)) return stop(4);
    chunks.push(chunk);
  }
  if (strict && !decodes(decoder)) return [4, null];
  return [0, concat(chunks, n)];
}

// decodes feeds a strict decoder a chunk (none: the end) and reports
// whether the bytes so far can still be UTF-8.
function decodes(decoder, chunk) {
  try {
    if (chunk) decoder.decode(chunk, { stream: true });
    else decoder.decode();
    return true;
  } catch {
    return false;
  }
}

function concat(chunks, n) {
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) out.set(c, at), (at += c.length);
  return out;
}

function checkLimit(ev, limit, most, msg) {
  const req = requestOf(ev);
  if (!Number.isInteger(limit) || limit < 1 || limit > most) throw violation(msg);
  return req;
}

// lenient is TextDecoder's whole-body decoding (one BOM stripped), within
// 16 MiB of UTF-8.
function lenient(u8) {
  const s = new TextDecoder().decode(u8);
  if (utf8Length(s) > MAX_LENIENT_TEXT) throw violation(MSG.lenientTooLong);
  return s;
}

// 读取入站有限正文文字(上限): [status, text].
async function readText(ev, limit) {
  const req = checkLimit(ev, limit, MAX_BODY_LIMIT, MSG.bodyLimitRange);
  const [st, u8] = await readBody(req, limit, false);
  return st === 0 ? [0, lenient(u8)] : [st, ''];
}

// 读取入站有限正文严格文字(上限): [status, text], a BOM stripped.
async function readStrictText(ev, limit) {
  const req = checkLimit(ev, limit, MAX_BODY_LIMIT, MSG.bodyLimitRange);
  const [st, u8] = await readBody(req, limit, true);
  return st === 0 ? [0, new TextDecoder().decode(u8)] : [st, ''];
}

// 读取入站有限正文字节(上限): [status, bytes], null unless status 0.
async function readBytes(ev, limit) {
  const req = checkLimit(ev, limit, MAX_BODY_LIMIT, MSG.bodyLimitRange);
  return readBody(req, limit, false);
}

// canonicalJSON is JSON.stringify(JSON.parse(s)) of a decoded body, nesting
// over 1000 levels refused, or throws a SyntaxError: its text is the
// reason.
function canonicalJSON(s) {
  const deep = tooDeepAt(s, MAX_JSON_DEPTH);
  let value;
  try {
    value = JSON.parse(s);
  } catch (e) {
    throw new SyntaxError(`${e.name}: ${e.message}`);
  }
  if (deep >= 0) {
    throw new SyntaxError(`SyntaxError: Nesting deeper than ${MAX_JSON_DEPTH} levels in JSON at position ${utf8Length(s.slice(0, deep))}`);
  }
  return JSON.stringify(value);
}

// 读取入站有限癸象正文文(上限): [status, text]; status 5 gives the reason.
async function readBoundedJSON(ev, limit) {
  const req = checkLimit(ev, limit, MAX_BOUNDED_JSON_LIMIT, MSG.jsonLimitRange);
  const [st, u8] = await readBody(req, limit, true);
  if (st !== 0) return [st, ''];
  try {
    return [0, canonicalJSON(new TextDecoder().decode(u8))];
  } catch (e) {
    return [5, e.message];
  }
}

// 读取入站癸象正文文(): the canonical JSON of a body of at most 2 MiB,
// decoded leniently as Request.json() does; every problem a failure.
async function readJSON(ev) {
  const req = requestOf(ev);
  const [st, u8] = await readBody(req, JSON_BODY_LIMIT, false);
  if (st === 1) throw failure(MSG.jsonBodyTooLarge);
  if (st === 2) throw failure(MSG.jsonBodyNone);
  if (st === 3) throw failure(MSG.jsonBodyUsed);
  let out;
  try {
    out = canonicalJSON(new TextDecoder().decode(u8));
  } catch (e) {
    throw failure(MSG.jsonBodyInvalid + e.message);
  }
  if (utf8Length(out) > JSON_BODY_LIMIT) throw failure(MSG.jsonBodyTooLarge);
  return out;
}

// functions: every spec function by its spec name.
export const functions = {
  发送队列消息: sendQueueMessage,
  批量发送队列消息: sendQueueBatch,
  读取队列批次: readQueueBatch,
  确认队列消息: ackQueueMessage,
  重试队列消息: retryQueueMessage,
  读取入站事件种类: (ev) => ev.kind,
  读取入站方法: (ev) => requestOf(ev).method,
  读取入站原路径: (ev) => urlOf(ev).pathname,
  读取入站解码路径: decodedPath,
  读取入站标头值: readHeader,
  入站标头存在: hasHeader,
  读取入站查询参数: (ev, name) => urlOf(ev).searchParams.get(textOf(name)) ?? '',
  入站查询参数存在: (ev, name) => urlOf(ev).searchParams.has(textOf(name)),
  读取入站来源: (ev) => urlOf(ev).origin,
  读取入站主机名: (ev) => urlOf(ev).hostname,
  读取入站原查询: (ev) => urlOf(ev).search,
  构造入站同源网址: sameOriginURL,
  读取入站有限正文文字: readText,
  读取入站有限正文严格文字: readStrictText,
  读取入站有限正文字节: readBytes,
  读取入站癸象正文文: readJSON,
  读取入站有限癸象正文文: readBoundedJSON,
};

// call runs the spec function name with args on ev.
export async function call(ev, name, args) {
  const f = functions[name];
  if (!f) throw new Error('no spec function ' + JSON.stringify(name));
  return f(ev, ...args);
}
