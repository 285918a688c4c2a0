// The node adapter of CONFORMANCE.md: the host of host.mjs, run by node 20
// (no packages), speaking the protocol on stdin and stdout.
//
//   go run ./cmd/conform -expect conform/js/node-expect.txt -- node conform/js/node.mjs
//
// node plays the platform: each case's request is protocol.mjs's requestOf,
// a native Request over a ReadableStream that delivers a chunk only when
// pulled; its Queue bindings and MessageBatch are protocol.mjs's recording
// ones.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  EVENTS, FUNCTIONS, messageBatch, queuePlatform, redelivered, requestOf, runCalls,
} from './protocol.mjs';
import { serve } from './serve.mjs';

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

await serve(() => hello, runCase);
