// Checks of the 网页入站 and 消息队列 vectors: the rows the model host
// (host.mjs) decides, and the reasons of those that need a real host.

import { call, MSG } from './host.mjs';
import { eq, expectCall, outcome, skip, text } from './lib.mjs';

// readerEvent is the event of a row of inbound-url.json: its kind, with a
// request of its method and url (none with no_request).
export const readerEvent = (row) => ({ kind: row.kind, request: row.no_request ? null : { method: row.method, url: row.url } });

// expected is a row's answer in outcome's shape.
export const expected = (row) => (row.error ? { error: row.error } : { value: row.want });

export function inboundURL(row) {
  const ev = readerEvent(row);
  eq('读取入站事件种类', call('读取入站事件种类', ev), row.kind);
  const f = () => call(row.call, ev, row.arg ?? '');
  if (row.node20_differs) return node20Skip(f, row);
  expectCall(f, row.want, row.error);
}

export function inboundHeaders(row) {
  const ev = { kind: row.kind, request: { method: 'GET', url: 'https://example.com/', headers: row.headers } };
  expectCall(() => call(row.call, ev, text(row.arg)), row.want, row.error);
}

// sameOrigin: a row of inbound-same-origin.json; a node20_differs row is
// skipped when node gives exactly the answer the row keeps for node 20.
export function sameOrigin(row) {
  const ev = { kind: 'fetch', request: { method: 'GET', url: row.url } };
  const f = () => call('构造入站同源网址', ev, row.path, row.set, row.del);
  if (row.node20_differs) return node20Skip(f, row);
  expectCall(f, row.want, row.error);
}

const URL_READERS = ['读取入站来源', '读取入站主机名', '读取入站原路径', '读取入站原查询'];

// urlParse: a row of inbound-url-parse.json, through the four readers.
export function urlParse(row) {
  const ev = { kind: 'fetch', request: { method: 'GET', url: row.url } };
  const read = () => {
    const [origin, hostname, pathname, search] = URL_READERS.map((name) => call(name, ev));
    return { origin, hostname, pathname, search };
  };
  if (row.node20_differs) return node20Skip(read, row);
  if (row.want.error) {
    for (const name of URL_READERS) expectCall(() => call(name, ev), undefined, { kind: 'failure', message: MSG.requestURL });
    return;
  }
  eq('readers', read(), row.want);
}

// node20Skip runs a row on which node 20's URL parser predates the current
// standard: it passes if node gives the row's answer (a newer node), and is
// skipped if node gives exactly node20, the answer the row keeps for node 20
// (a value, or {error} where node fails).
function node20Skip(f, row) {
  const got = outcome(f);
  if (JSON.stringify(got) === JSON.stringify(expected(row))) return;
  eq('node 20 answers as the row says', got, row.node20?.error ? { error: row.node20.error } : { value: row.node20 });
  return skip('node 20 predates the current URL Standard: it answers ' + JSON.stringify(row.node20));
}

// requestTarget: a row of request-url.json, Request.url of what a server
// received: tls, the Host header and the request-target.
export function requestTarget(row) {
  const f = () => requestURLOf(row.tls, row.host, row.target);
  if (row.node20_differs) return node20Skip(f, row);
  eq('Request.url', f(), row.want);
}

function requestURLOf(tls, host, target) {
  const scheme = tls ? 'https' : 'http';
  let u;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(target)) {
    u = new URL(target); // absolute form: the connection's scheme, no userinfo
    u.protocol = scheme;
    u.username = '';
    u.password = '';
  } else if (target === '' || target[0] === '/' || target[0] === '\\') {
    u = new URL(scheme + '://' + host + target); // origin form: never an authority
  } else {
    u = new URL(target, scheme + '://' + host);
  }
  u.hash = '';
  return u.href;
}

const BODY_HOST = 'reads a body stream: needs a host (chunks, pulls, cancel, Content-Length)';
const HEADER_CALLS = ['读取入站标头值', '入站标头存在'];

// bodyRow: a row of inbound-conformance.json or inbound-body.json. A row
// whose calls only read headers is decided; the others need a host.
export function bodyRow(row) {
  const calls = row.cases.flatMap((c) => c.calls);
  if (!calls.every((c) => HEADER_CALLS.includes(c.function))) return skip(BODY_HOST);
  for (const c of row.cases) {
    const ev = { kind: c.request.kind, request: c.request };
    for (const k of c.calls) {
      expectCall(() => call(k.function, ev, k.name), k.expect.value, k.expect.error);
    }
  }
}

export const queueProducer = () => skip('calls a platform: needs a host with queue bindings (发送队列消息, 批量发送队列消息)');
export const queueConsumer = () => skip('needs a queue event: a host platform\'s batch (读取队列批次, 确认队列消息, 重试队列消息)');
