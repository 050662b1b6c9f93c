/**
 * W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header):
 * `version-traceid-parentid-flags`, e.g. `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`.
 * Generation draws from the OS's cryptographic generator (a probe's IDs must not collide with a
 * load test's, nor be guessable); validation says which rule broke.
 */
import { randomBytes } from 'crypto';

/** A parsed, valid traceparent. */
export interface Traceparent {
  /** `00` for the version this spec defines; a higher version is accepted as the spec asks. */
  version: string;
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero: the caller's span, which the server root names as its parent. */
  parentId: string;
  /** 2 hex digits; bit 0 is `sampled`. */
  flags: string;
  sampled: boolean;
}

/** The verdict on a pasted header: the parsed parts, or the reason it is invalid. */
export type TraceparentCheck = { ok: true; value: Traceparent; notes: string[] } | { ok: false; reason: string };

/** Random lower-case hex of `bytes` bytes that is not all zero (an all-zero ID is invalid; redraw). */
function randomHex(bytes: number): string {
  for (;;) {
    const buf = randomBytes(bytes);
    if (buf.some((b) => b !== 0)) return buf.toString('hex');
  }
}

/** A fresh traceparent: version 00, random trace and parent IDs, flags 01 (sampled, so the server keeps it). */
export function generateTraceparent(): Traceparent {
  return { version: '00', traceId: randomHex(16), parentId: randomHex(8), flags: '01', sampled: true };
}

/** A random span ID (16 hex, not all zero). */
export function generateSpanId(): string {
  return randomHex(8);
}

export function formatTraceparent(tp: Traceparent): string {
  return `${tp.version}-${tp.traceId}-${tp.parentId}-${tp.flags}`;
}

const HEX = /^[0-9a-f]*$/;

/**
 * Validates a traceparent header value as a receiver must (trace-context §3.2): the reasons name the
 * field, what it holds and what the spec expects. Upper-case hex is invalid (the spec requires
 * lower case); a future version (not `ff`) may carry more fields after the flags.
 */
export function checkTraceparent(raw: string): TraceparentCheck {
  const header = raw.trim();
  if (header === '') return { ok: false, reason: 'empty: expected version-traceid-parentid-flags such as 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
  const parts = header.split('-');
  if (parts.length < 4) {
    return { ok: false, reason: `${parts.length} field(s) separated by '-': expected 4 (version-traceid-parentid-flags)` };
  }
  const [version, traceId, parentId, flags, ...rest] = parts;
  const notes: string[] = [];
  if (version.length !== 2 || !/^[0-9a-fA-F]{2}$/.test(version)) return { ok: false, reason: `version '${version}': expected 2 hex digits (00)` };
  if (!HEX.test(version)) return { ok: false, reason: `version '${version}': hex digits must be lower case` };
  if (version === 'ff') return { ok: false, reason: "version 'ff' is forbidden by the spec" };
  if (version === '00' && rest.length > 0) return { ok: false, reason: `version 00 has exactly 4 fields; found ${parts.length}` };
  if (version !== '00') notes.push(`version ${version} is newer than 00: parsed as 00, extra fields ignored`);
  const field = (name: string, value: string, hex: number): string | undefined => {
    if (value.length !== hex) return `${name} '${value}' has ${value.length} characters: expected ${hex} hex digits`;
    if (!/^[0-9a-fA-F]+$/.test(value)) return `${name} '${value}' has a character that is not a hex digit`;
    if (!HEX.test(value)) return `${name} '${value}': hex digits must be lower case`;
    if (/^0+$/.test(value)) return `${name} is all zeros: invalid (the spec forbids an all-zero ${name})`;
    return undefined;
  };
  const problem = field('trace-id', traceId, 32) ?? field('parent-id', parentId, 16);
  if (problem) return { ok: false, reason: problem };
  if (flags.length !== 2 || !/^[0-9a-fA-F]{2}$/.test(flags)) return { ok: false, reason: `trace-flags '${flags}': expected 2 hex digits (01 sampled, 00 not sampled)` };
  if (!HEX.test(flags)) return { ok: false, reason: `trace-flags '${flags}': hex digits must be lower case` };
  const bits = parseInt(flags, 16);
  const sampled = (bits & 1) === 1;
  if (!sampled) notes.push('trace-flags 00: not sampled; a server that follows its parent will not record this trace');
  if (bits & ~1 & 0xff) notes.push(`trace-flags ${flags}: bits other than sampled are set (${version === '00' ? 'reserved in version 00' : 'defined by a later version'})`);
  return { ok: true, value: { version, traceId, parentId, flags, sampled }, notes };
}
