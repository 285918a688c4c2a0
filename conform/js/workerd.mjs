// The workerd adapter of CONFORMANCE.md: host.mjs inside workerd, the
// runtime Cloudflare Workers run on (the npm package pinned in
// package-lock.json; `npm ci` in this folder installs it).
//
//   go run ./cmd/conform -expect conform/js/workerd-expect.txt -- node conform/js/workerd.mjs
//
// This node script is a bridge: it starts workerd serving worker.mjs on
// 127.0.0.1 and, for a case whose event carries a request, writes the
// request's raw HTTP/1.1 bytes to workerd's socket (method, target, headers
// byte for byte, the body as one HTTP chunk per chunk), so the worker reads
// the native Request workerd built, as at the edge (a Request.url no HTTP
// request makes, another scheme or a space in the path, is the worker's
// own Request of it, as node.mjs builds one). The worker's Queue
// bindings are native too: they send to a broker this script serves, which
// records what workerd put on the wire (the body bytes, the content type,
// the delay) and refuses the case's failNext. Queue cases are native queue
// events (a native MessageBatch). What workerd does differently is
// workerd-expect.txt, each row with its reason.

import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerText, chunksOf, expand, FUNCTIONS, isoDecode, ProtocolError, utf8 } from './protocol.mjs';
import { serve } from './serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const MODULES = ['worker.mjs', 'host.mjs', 'json.mjs', 'protocol.mjs'];
const SLOTS = 8;
const COMPATIBILITY_DATE = '2026-07-30';
// PROTO_HEADER says a request came over TLS: workerd takes the scheme of
// Request.url from it (its forwardedProtoHeader) and removes it.
const PROTO_HEADER = 'X-Conform-Proto';

// freePort asks the system for a port no one listens on.
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

// broker is the queue broker the native Queue bindings send to: it records
// each send and sendBatch as the protocol's platform call, and a mark after
// each of the app's calls; it refuses the next send with failNext.
function startBroker() {
  const state = { calls: [], segments: [[]], failNext: null, bindings: [] };
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      if (req.url.endsWith('/mark')) {
        state.segments.push([]);
        res.end();
        return;
      }
      const binding = state.bindings[Number(req.headers['x-conform-slot'])] ?? '?';
      const call = req.url.endsWith('/batch') ? batchCall(binding, body) : sendCall(binding, req.headers, body);
      state.segments[state.segments.length - 1].push(call);
      if (state.failNext !== null) {
        const reason = state.failNext;
        state.failNext = null;
        call.error = reason;
        res.writeHead(500, reason.replace(/[^\x20-\x7e]/g, '?'));
        res.end(reason);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { metrics: { backlogCount: 0, backlogBytes: 0, oldestMessageTimestamp: 0 } } }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve([server, state])));
}

const options = (contentType, delay) => (delay ? { contentType, delaySeconds: Number(delay) } : { contentType });

function sendCall(binding, headers, body) {
  return {
    method: 'send', binding,
    messages: [{ body: answerText(body.toString('utf8')), options: options(headers['x-msg-fmt'], headers['x-msg-delay-secs']) }],
    error: null,
  };
}

function batchCall(binding, body) {
  const { messages } = JSON.parse(body.toString('utf8'));
  return {
    method: 'sendBatch', binding,
    messages: messages.map((m) => ({ body: answerText(Buffer.from(m.body, 'base64').toString('utf8')), options: options(m.contentType, m.delaySecs) })),
    error: null,
  };
}

// config is workerd's configuration: the worker on an HTTP socket, its
// native Queue bindings (Q0…) and MARK to the broker, SELF for queue events.
function config(port, brokerPort) {
  const external = (name, headers) =>
    `(name = "${name}", external = (address = "127.0.0.1:${brokerPort}", http = (injectRequestHeaders = [${headers}])))`;
  const slots = Array.from({ length: SLOTS }, (_, i) => i);
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "host", worker = (
      modules = [${MODULES.map((m) => `(name = "${m}", esModule = embed "${m}")`).join(', ')}],
      compatibilityDate = "${COMPATIBILITY_DATE}",
      compatibilityFlags = ["service_binding_extra_handlers"],
      bindings = [${slots.map((i) => `(name = "Q${i}", queue = "broker${i}")`).join(', ')},
        (name = "MARK", service = "mark"), (name = "SELF", service = "host")])),
    ${slots.map((i) => external('broker' + i, `(name = "x-conform-slot", value = "${i}")`)).join(',\n    ')},
    ${external('mark', '')},
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (forwardedProtoHeader = "${PROTO_HEADER}"), service = "host")],
);
`;
}

// startWorkerd writes the configuration and the modules to a temporary
// folder and starts workerd on it; it resolves once the socket answers.
async function startWorkerd(brokerPort) {
  const bin = join(here, 'node_modules', '.bin', 'workerd');
  const dir = mkdtempSync(join(tmpdir(), 'conform-workerd-'));
  for (const m of MODULES) copyFileSync(join(here, m), join(dir, m));
  const port = await freePort();
  writeFileSync(join(dir, 'config.capnp'), config(port, brokerPort));
  const child = spawn(bin, ['serve', '--experimental', join(dir, 'config.capnp')], { stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('error', (e) => {
    process.stderr.write(`workerd: ${e.message} (run npm ci in conform/js)\n`);
    process.exit(1);
  });
  child.on('exit', (code) => {
    process.stderr.write(`workerd exited (${code})\n`);
    process.exit(1);
  });
  process.on('exit', () => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  process.on('SIGTERM', () => process.exit(1));
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/__conform`, { method: 'POST', headers: { 'x-conform-control': '1' }, body: '{"type":"hello"}' });
      return [port, await r.json()];
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('workerd did not start');
}

// rawRequest is the case's request as HTTP/1.1 bytes: the request line
// (the target as it arrived, or the path and query of the url), the
// headers byte for byte (Host from the url when the case has none), the
// body chunked, one HTTP chunk per chunk (unless the case declares its own
// Content-Length), or cut off after the chunks when the stream fails.
function rawRequest(r) {
  const method = expand(r.method, 'event.request.method');
  const headers = (r.headers ?? []).map(([k, v]) => [expand(k, 'header name'), expand(v, 'header value')]);
  const named = (n) => headers.some(([k]) => isoDecode(k).toLowerCase() === n);
  let target;
  const head = [];
  if (r.target !== undefined) {
    target = expand(r.target, 'event.request.target');
    if (r.tls) head.push(Buffer.from(`${PROTO_HEADER}: https\r\n`));
  } else {
    const url = utf8(r.url, 'event.request.url');
    const m = /^(https?):\/\/([^/?#]*)(.*)$/is.exec(url);
    if (!m) throw new ProtocolError('workerd: no HTTP request makes the Request.url ' + JSON.stringify(url));
    target = Buffer.from(m[3] === '' ? '/' : m[3]);
    if (!named('host')) head.push(Buffer.from(`Host: ${m[2]}\r\n`));
    if (m[1].toLowerCase() === 'https') head.push(Buffer.from(`${PROTO_HEADER}: https\r\n`));
  }
  const chunks = r.body ? chunksOf(r.body) : null;
  const chunked = chunks !== null && !named('content-length') && !/^(GET|HEAD)$/i.test(isoDecode(method));
  if (chunked) head.push(Buffer.from('Transfer-Encoding: chunked\r\n'));
  const out = [Buffer.from(method), Buffer.from(' '), Buffer.from(target), Buffer.from(' HTTP/1.1\r\n')];
  for (const [k, v] of headers) out.push(Buffer.from(k), Buffer.from(': '), Buffer.from(v), Buffer.from('\r\n'));
  out.push(...head, Buffer.from('\r\n'));
  const body = [];
  for (const c of named('content-length') || chunked ? chunks ?? [] : []) {
    if (!chunked) body.push(Buffer.from(c));
    else if (c.length > 0) body.push(Buffer.from(c.length.toString(16) + '\r\n'), Buffer.from(c), Buffer.from('\r\n'));
  }
  const fails = r.body?.fail != null;
  if (chunked && !fails) body.push(Buffer.from('0\r\n\r\n'));
  return { head: Buffer.concat(out), body: Buffer.concat(body), fails };
}

// exchange writes raw bytes to workerd and reads one HTTP response's head.
function exchange(port, raw) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    const got = [];
    const finish = () => {
      s.destroy();
      const all = Buffer.concat(got);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return reject(new ProtocolError('workerd answered no HTTP response'));
      const head = all.subarray(0, end).toString('latin1');
      resolve({ status: Number(head.split(' ')[1]), head });
    };
    s.on('connect', () => {
      s.write(raw.head);
      s.write(raw.body);
      if (raw.fails) {
        setTimeout(() => {
          s.resetAndDestroy();
          resolve({ status: 0, head: 'the bridge reset the connection' });
        }, 50);
      }
    });
    s.on('data', (d) => {
      got.push(d);
      if (Buffer.concat(got).indexOf('\r\n\r\n') >= 0) finish(); // the answer comes by control()
    });
    s.on('end', finish);
    s.on('error', (e) => (got.length ? finish() : reject(new ProtocolError('workerd: ' + e.message))));
  });
}

const [broker, brokerState] = await startBroker();
const [port] = await startWorkerd(broker.address().port);

async function control(c) {
  const r = await fetch(`http://127.0.0.1:${port}/__conform`, { method: 'POST', headers: { 'x-conform-control': '1' }, body: JSON.stringify(c) });
  if (!r.ok) throw new ProtocolError(`workerd: the control request failed: ${r.status} ${await r.text()}`);
  return r.json();
}

// overTheWire has workerd build the case's Request from its raw bytes. A
// request-target or a method workerd refuses is the answer (a protocol
// error naming the refusal). A Request.url no HTTP request makes, or one
// workerd refuses (400), is the worker's own Request of that url instead
// (the answer's note says so): the row is then about workerd's URL,
// URLSearchParams and Headers, not its HTTP server.
async function overTheWire(c) {
  let refused;
  try {
    const res = await exchange(port, rawRequest(c.event.request));
    const r = await control({ type: 'answered' });
    if (r !== null) return r;
    refused = `workerd refused the request: ${res.head.split('\r\n')[0]}`;
  } catch (e) {
    if (!(e instanceof ProtocolError)) throw e;
    refused = e.message;
  }
  if (c.event.request.target !== undefined || / 501 /.test(refused)) throw new ProtocolError(refused); // a target, a method
  return { ...(await control({ type: 'pinned' })), note: refused };
}

// runCase answers one case: through workerd, then with the broker's
// records added to each call's platform calls.
async function runCase(c) {
  brokerState.segments = [[]];
  brokerState.failNext = c.platform?.failNext ?? null;
  brokerState.bindings = Object.keys(c.platform?.bindings ?? {});
  let r = await control(c);
  if (r.ready) r = await overTheWire(c);
  const calls = r.calls.map((a, i) => ({ ...a, platform: [...(brokerState.segments[i] ?? []), ...a.platform] }));
  const result = { type: 'result', id: c.id, calls };
  if (r.note) result.note = r.note; // the Request was the worker's own, and why
  if (c.end) Object.assign(result, { outcome: r.outcome, redelivered: r.redelivered });
  return result;
}

const hello = {
  type: 'hello',
  protocol: 1,
  adapter: `workerd ${COMPATIBILITY_DATE} compatibility date, through node ${process.versions.node} (conform/js/workerd.mjs)`,
  specs: ['消息队列 0.1.0', '网页入站 0.8.0'],
  functions: FUNCTIONS,
  events: null,
  targets: true,
  redelivery: true,
  // The worker sees only Request.bodyUsed of workerd's own body stream; its
  // pulls and a cancel are workerd's.
  bodyObservations: ['used'],
};

await serve(async () => ({ ...hello, events: (await control({ type: 'hello' })).events }), runCase);
process.exit(0);
