/**
 * Durations in contracts: strings with units (`250ms`, `30s`, `10m`, `1h`, k6-style `1m30s`) or numbers
 * in milliseconds (docs/contract.md).
 */

export type DurationParse =
  | { ok: true; ms: number; unitless: boolean }
  | { ok: false; reason: string };

/** Milliseconds per duration unit: the one table for contracts and the CLI's `--window` / `--threshold`. */
export const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DIGIT_0 = 48;
const DIGIT_9 = 57;

/** End of the run of ASCII digits starting at `i` (what `\d+` would consume). */
function digitsEnd(s: string, i: number): number {
  while (i < s.length && s.charCodeAt(i) >= DIGIT_0 && s.charCodeAt(i) <= DIGIT_9) i++;
  return i;
}

/**
 * Sums the parts of `s` read as /(\d+(?:\.\d+)?)(ms|s|m|h)/ repeated from the start, returning the ms
 * and how far the parts reach. Hand-written rather than a sticky regex because it runs for every
 * duration three times per keystroke; greedy scanning matches what the regex accepts (a shorter
 * number would leave a digit or `.` where the unit must be).
 */
function sumParts(s: string): { ms: number; consumed: number } {
  let ms = 0;
  let i = 0;
  for (;;) {
    const intEnd = digitsEnd(s, i);
    if (intEnd === i) break;
    let numEnd = intEnd;
    if (s.charCodeAt(intEnd) === 46 /* . */) {
      const fracEnd = digitsEnd(s, intEnd + 1);
      if (fracEnd > intEnd + 1) numEnd = fracEnd;
    }
    const u = s.charCodeAt(numEnd);
    let unit: string;
    if (u === 109 /* m */) unit = s.charCodeAt(numEnd + 1) === 115 /* s */ ? 'ms' : 'm';
    else if (u === 115) unit = 's';
    else if (u === 104 /* h */) unit = 'h';
    else break;
    ms += Number(s.slice(i, numEnd)) * UNIT_MS[unit];
    i = numEnd + unit.length;
  }
  return { ms, consumed: i };
}

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
  const { ms, consumed } = sumParts(s);
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
