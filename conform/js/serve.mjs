// The protocol loop both node-run adapters share (node only): read a
// message a line from stdin, answer each in order on stdout (CONFORMANCE.md,
// sections 1 and 8). hello() gives the handshake, runCase(msg) a case's
// result; a case it cannot read is answered protocol_error.

import { createInterface } from 'node:readline';
import { ProtocolError } from './protocol.mjs';

export async function serve(hello, runCase) {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line === '') continue;
    process.stdout.write(JSON.stringify(await answer(line, hello, runCase)) + '\n');
  }
}

async function answer(line, hello, runCase) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return { type: 'protocol_error', id: null, message: 'not JSON: ' + e.message };
  }
  if (msg.type === 'hello') return hello();
  if (msg.type !== 'case') return { type: 'protocol_error', id: msg.id ?? null, message: 'unknown type ' + JSON.stringify(msg.type) };
  try {
    return await runCase(msg);
  } catch (e) {
    return { type: 'protocol_error', id: msg.id ?? null, message: e instanceof ProtocolError ? e.message : `adapter: ${e.stack}` };
  }
}
