// The host of host.mjs as a Worker, run by workerd for conform/js/workerd.mjs
// (the bridge). Each case arrives as a control request (the case's JSON,
// marked by the header CONTROL). A case whose event carries a request is then kept until
// the bridge's next request, the raw HTTP bytes of the case's request, so
// the host reads the native Request workerd built from them; a queue case
// is dispatched as a native queue event (env.SELF.queue, a native
// MessageBatch); any other case runs at once. The answer is the protocol's
// result, less what the bridge adds (the platform calls its queue broker
// saw).

import { EVENTS, expand, messageBody, redelivered, requestOf, runCalls } from './protocol.mjs';

// CONTROL marks the bridge's own requests; any other is a case's request.
const CONTROL = 'x-conform-control';

let pending = null; // a case waiting for its raw request
let answering = null; // the answer to the last raw request, coming (a HEAD response has no body)
let queueCase = null; // the case of the queue event being dispatched

// SLOTS are the native Queue bindings (Q0…), each sending to the bridge's
// broker; a case's configured bindings take them in order.
const SLOTS = 8;

// envOf maps a case's configured bindings onto the native Queue bindings.
function envOf(c, env) {
  const out = {};
  Object.keys(c.platform?.bindings ?? {}).slice(0, SLOTS).forEach((b, i) => (out[b] = env['Q' + i]));
  return out;
}

// run makes the case's calls; after each, the bridge's broker is told a
// call ended (env.MARK), so it can say which call made which send.
async function run(c, env, request, batch, observe = wireObserver(c, request)) {
  const ev = { kind: c.event?.kind ?? '', request, batch, env: envOf(c, env), permissions: c.platform?.permissions ?? {} };
  const seen = [];
  const calls = [];
  for (const call of c.calls ?? []) {
    const [a] = await runCalls(ev, [call], seen, observe, false);
    await env.MARK.fetch('http://broker/mark', { method: 'POST' });
    calls.push(a);
  }
  return calls;
}

// wireObserver reports what the worker sees of workerd's own body stream:
// only whether it is used (its pulls and a cancel are workerd's).
const wireObserver = (c, request) => () =>
  c.event?.request?.body ? { used: request.bodyUsed || (request.body?.locked ?? false) } : undefined;

// spy records a native message's ack() and retry() calls, then makes them.
function spy(batch, seen) {
  batch.messages.forEach((m, n) => {
    const ack = m.ack.bind(m);
    const retry = m.retry.bind(m);
    m.ack = () => (seen.push({ method: 'ack', n }), ack());
    m.retry = (options) => (seen.push(options === undefined ? { method: 'retry', n } : { method: 'retry', n, options: { ...options } }), retry(options));
  });
}

// queueEvent dispatches the case's batch to this worker's queue handler and
// answers with the native outcome, and the redeliveries it implies.
async function queueEvent(c, env) {
  const b = c.event.batch;
  const messages = b.messages.map((m) => ({
    id: m.id,
    timestamp: new Date(m.timestamp),
    attempts: m.attempts,
    body: messageBody(expand(m.body)),
  }));
  queueCase = { c, calls: null };
  const r = await env.SELF.queue(b.queue, messages);
  const calls = queueCase.calls ?? [];
  queueCase = null;
  const states = b.messages.map((m) => {
    if (r.explicitAcks.includes(m.id)) return { ack: true };
    const retry = r.retryMessages.find((x) => x.msgId === m.id);
    return retry ? { retry: true, delay: retry.delaySeconds ?? 0 } : null;
  });
  const outcome = r.outcome === 'ok' ? 'ok' : 'exception';
  return { calls, outcome, redelivered: redelivered(b, states, outcome), native: r };
}

export default {
  async fetch(request, env) {
    if (!request.headers.has(CONTROL)) {
      const c = pending;
      if (!c) return new Response('no case is waiting', { status: 500 });
      pending = null;
      if (c.event.request.body?.used && request.body) request.body.getReader();
      answering = run(c, env, request, null).then((calls) => ({ calls }));
      return Response.json(await answering);
    }
    const c = await request.json();
    if (c.type === 'hello') return Response.json({ events: EVENTS });
    if (c.type === 'pinned') {
      // No HTTP request makes this Request.url, or workerd refused it: the
      // worker builds the Request itself (workerd's Request, URL and
      // Headers, the case's url as it is), as node.mjs does.
      const p = pending;
      pending = null;
      const [req, observe] = requestOf(p.event.request);
      return Response.json({ calls: await run(p, env, req, null, observe), note: 'Request built by the worker' });
    }
    if (c.type === 'answered') {
      const a = pending ? null : await answering; // null: the request never reached the worker
      answering = null;
      return Response.json(a);
    }
    if (c.event?.kind === 'queue' && c.event.batch) return Response.json(await queueEvent(c, env));
    if (c.event?.request && ['fetch', 'service-fetch', 'durable-fetch'].includes(c.event.kind)) {
      pending = c;
      answering = null;
      return Response.json({ ready: true });
    }
    return Response.json({ calls: await run(c, env, null, null) });
  },

  async queue(batch, env) {
    const { c } = queueCase;
    const seen = [];
    spy(batch, seen);
    const ev = { kind: 'queue', request: null, batch, env: envOf(c, env), permissions: c.platform?.permissions ?? {} };
    const calls = [];
    for (const call of c.calls ?? []) {
      const [a] = await runCalls(ev, [call], seen, () => undefined, false);
      await env.MARK.fetch('http://broker/mark', { method: 'POST' });
      calls.push(a);
    }
    queueCase.calls = calls;
    if (c.end?.throws || calls.some((a) => a.error?.kind === 'abort')) throw new Error('the app ended with an uncaught exception');
  },
};
