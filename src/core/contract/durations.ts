/**
 * Durations in contracts: strings with units (`250ms`, `30s`, `10m`, `1h`, k6-style `1m30s`) or numbers
 * in milliseconds (DESIGN §4).
 */

export type DurationParse =
  | { ok: true; ms: number; unitless: boolean }
  | { ok: false; reason: string };

/** Milliseconds per duration unit: the one table for contracts and the CLI's `--window` / `--threshold`. */
export const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;

/** Parses a duration value; numbers and bare numeric strings are milliseconds (`unitless: true`). */
export function parseDuration(value: unknown): DurationParse {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return { ok: false, reason: 'must be a non-negative number of ms or a string like `30s`' };
    return { ok: true, ms: value, unitless: true };
  }
  if (typeof value !== 'string') return { ok: false, reason: 'expected a duration such as `250ms`, `30s` or `10m`' };
  const s = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(s)) return { ok: true, ms: Number(s), unitless: true };
  if (s.length === 0) return { ok: false, reason: 'empty duration; write e.g. `30s`' };
  PART.lastIndex = 0;
  let ms = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = PART.exec(s)) !== null) {
    ms += Number(m[1]) * UNIT_MS[m[2]];
    consumed = PART.lastIndex;
  }
  if (consumed !== s.length) {
    return { ok: false, reason: `\`${value}\` is not a duration; use a number with a unit: ms, s, m or h (e.g. \`250ms\`, \`30s\`, \`10m\`)` };
  }
  return { ok: true, ms, unitless: false };
}

/** Formats ms the way k6 and humans write it: the largest unit that divides exactly. */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms > 0 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms > 0 && ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
