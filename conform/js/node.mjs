// The node adapter of CONFORMANCE.md: the host of host.mjs, run by node 20
// (no packages), speaking the protocol on stdin and stdout.
//
//   go run ./cmd/conform -expect conform/js/node-expect.txt -- node conform/js/node.mjs
//
// node plays the platform: each case's request is a native Request over a
// ReadableStream that delivers a chunk only when pulled (highWaterMark 0),
// its Queue bindings and MessageBatch are protocol.mjs's recording ones.
// Two things node's Request constructor does that no platform does to a
// request it received are undone: it normalises the URL (a platform gives
// Request.url unparsed) and upper-cases or refuses some methods (get,
// CONNECT); the adapter sets url and method on the instance to what
// arrived.

import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  EVENTS, expand, FUNCTIONS, isoDecode, messageBatch, ProtocolError, queuePlatform, redelivered, runCalls, utf8,
} from './protocol.mjs';

// V8's JSON.parse and JSON.stringify recurse once a level, and rows nest
// 4000 deep: node's default stack ends near there, so the adapter runs
// itself again with a larger one (4000 KB, well inside the 8 MB main
// thread stack).
if (!process.execArgv.some((a) => a.startsWith('--stack-size'))) {
  const r = spawnSync(process.execPath, ['--stack-size=4000', fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const hello = {
  type: 'hello',
  protocol: 1,
  adapter: `node ${process.versions.node} (conform/js/node.mjs)`,
  specs: ['消息队列 0.1.0', '网页入站 0.8.0'],
  functions: FUNCTIONS,
  events: EVENTS,
  targets: true,
  redelivery: true,
};

// requestOf builds the native Request of a case's request and the
// observer of its body stream.
function requestOf(r) {
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
  if (!Array.isArray(b.chunks)) throw new ProtocolError('event.request.body.chunks: not a list');
  const chunks = b.chunks.map((c, i) => expand(c, `event.request.body.chunks[${i}]`));
  const state = { pulls: 0, canceled: false };
  let i = 0;
  const stream = new ReadableStream(
    {
      type: 'bytes',
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

// runCase answers one case.
async function runCase(c) {
  const seen = [];
  const { env, permissions } = queuePlatform(c.platform, seen);
  const ev = { kind: c.event?.kind ?? '', request: null, batch: null, env, permissions };
  let observe = () => undefined;
  if (c.event?.request) [ev.request, observe] = requestOf(c.event.request);
  let batch = null;
  if (c.event?.batch) ev.batch = batch = messageBatch(c.event.batch, seen);
  const calls = await runCalls(ev, c.calls ?? [], seen, observe, true);
  const result = { type: 'result', id: c.id, calls };
  if (c.end) {
    const aborted = calls.some((a) => a.error?.kind === 'abort');
    result.outcome = c.end.throws || aborted ? 'exception' : 'ok';
    result.redelivered = batch ? redelivered(c.event.batch, batch.states, result.outcome) : [];
  }
  return result;
}

async function answer(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return { type: 'protocol_error', id: null, message: 'not JSON: ' + e.message };
  }
  if (msg.type === 'hello') return hello;
  if (msg.type !== 'case') return { type: 'protocol_error', id: msg.id ?? null, message: 'unknown type ' + JSON.stringify(msg.type) };
  try {
    return await runCase(msg);
  } catch (e) {
    return { type: 'protocol_error', id: msg.id ?? null, message: e instanceof ProtocolError ? e.message : `adapter: ${e.stack}` };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line === '') continue;
  process.stdout.write(JSON.stringify(await answer(line)) + '\n');
}
