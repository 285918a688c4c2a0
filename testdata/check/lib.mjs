// Shared pieces of the vector checker: byte builders, canonical JSON, and how
// a row's check reports its result. testdata/README.md describes the formats.

import { Buffer } from 'node:buffer';

// A row's check returns nothing when the row holds, returns a Skip when node
// cannot decide it alone, and throws when the row does not hold (the error's
// message is the reason).
export class Skip {
  constructor(reason) {
    this.reason = reason;
  }
}

export const skip = (reason) => new Skip(reason);

const show = (v) => (v instanceof Uint8Array ? 'hex ' + Buffer.from(v).toString('hex') : JSON.stringify(v));

// eq throws unless got and want are the same (deep, for JSON values and bytes).
export function eq(what, got, want) {
  const same = got instanceof Uint8Array && want instanceof Uint8Array
    ? Buffer.from(got).equals(Buffer.from(want))
    : JSON.stringify(got) === JSON.stringify(want);
  if (!same) throw new Error(`${what}: got ${show(got)}, want ${show(want)}`);
}

// bytes expands a byte builder: a string (its UTF-8 bytes), {hex},
// {repeat, times} or {concat}.
export function bytes(b) {
  if (typeof b === 'string') return Buffer.from(b, 'utf8');
  if (b.hex !== undefined) return Buffer.from(b.hex, 'hex');
  if (b.repeat !== undefined) return Buffer.concat(Array(b.times).fill(bytes(b.repeat)));
  if (b.concat !== undefined) return Buffer.concat(b.concat.map(bytes));
  throw new Error('not a byte builder: ' + JSON.stringify(b));
}

// text is a builder's bytes as a string: strict UTF-8, a BOM kept.
export const text = (b) => (typeof b === 'string' ? b : decodeStrict(bytes(b)));

export const decodeStrict = (u8) => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(u8);

// canonical is the package's canonical JSON of some bytes:
// JSON.stringify(JSON.parse(text)) of their strict UTF-8 decoding, a BOM
// kept (so it is a syntax error). It throws where the package fails.
export const canonical = (u8) => JSON.stringify(JSON.parse(decodeStrict(u8)));

// throws reports whether f throws.
export function throws(f) {
  try {
    f();
  } catch {
    return true;
  }
  return false;
}

// HostError is a spec exception of the model host: kind is violation,
// failure or abort, message the app's text.
export class HostError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

// outcome runs f: {value} for what it returns, {error: {kind, message}}
// for a spec exception it throws.
export function outcome(f) {
  try {
    return { value: f() };
  } catch (e) {
    if (!(e instanceof HostError)) throw e;
    return { error: { kind: e.kind, message: e.message } };
  }
}

// expectCall runs f and compares its outcome with a row's want, or with
// the exception the row expects (error: {kind, message}).
export function expectCall(f, want, error) {
  eq('outcome', outcome(f), error ? { error: { kind: error.kind, message: error.message } } : { value: want });
}
