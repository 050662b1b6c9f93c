/**
 * Shifting the timestamps of a real run by whole milliseconds, exactly, in the text forms the files
 * hold them: OTLP epoch nanoseconds as decimal strings (too large for a double), k6's RFC 3339 times
 * with up to nine fraction digits (Go's RFC3339Nano: trailing zeros trimmed), and the per-request
 * records' decimal millisecond offsets. A whole-ms shift keeps the OpenTelemetry JS SDK's
 * ms-granular span starts ms-granular.
 */

/** `ns` (decimal epoch nanoseconds) + `shiftMs` whole milliseconds, as a decimal string. */
export function shiftEpochNs(ns: string, shiftMs: number): string {
  if (!/^\d{7,}$/.test(ns)) throw new Error(`not an epoch-nanosecond string: '${ns}'`);
  // The part above the sub-millisecond digits stays well inside 2^53 (epoch ms ≈ 1.8e12).
  const ms = Number(ns.slice(0, -6)) + shiftMs;
  if (ms < 0 || !Number.isSafeInteger(ms)) throw new Error(`shifted time out of range: '${ns}' + ${shiftMs} ms`);
  return `${ms}${ns.slice(-6)}`;
}

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/**
 * An RFC 3339 time + `shiftMs`, keeping its UTC offset and Go's fraction format. The wall-clock part
 * is shifted as if it were UTC: with a fixed offset that is the same instant shift.
 */
export function shiftRfc3339(time: string, shiftMs: number): string {
  const m = RFC3339.exec(time);
  if (!m) throw new Error(`not an RFC 3339 time: '${time}'`);
  const fracNs = Number((m[7] ?? '').padEnd(9, '0'));
  const wallMs = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + Math.floor(fracNs / 1e6) + shiftMs;
  const secMs = Math.floor(wallMs / 1000) * 1000;
  const newFracNs = (wallMs - secMs) * 1e6 + (fracNs % 1e6);
  const head = new Date(secMs).toISOString().slice(0, 19);
  const frac = newFracNs === 0 ? '' : `.${String(newFracNs).padStart(9, '0').replace(/0+$/, '')}`;
  return `${head}${frac}${m[8]}`;
}

/**
 * A JSON number of milliseconds (its text, as JSON.stringify wrote it) + `shiftMs` whole ms. Plain
 * non-negative decimals are shifted digit-exactly (9833.333333 → 19833.333333, no float noise); any
 * other form through a double.
 */
export function shiftDecimalMs(text: string, shiftMs: number): string {
  const m = /^(\d+)(\.\d+)?$/.exec(text);
  if (!m) return JSON.stringify(Number(text) + shiftMs);
  return `${Number(m[1]) + shiftMs}${m[2] ?? ''}`;
}
