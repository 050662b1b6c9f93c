/**
 * The Report as `--format json` writes it: no NaN, Infinity or bigint (every part of a staged analysis
 * goes through it too, so a part equals the final Report's sections).
 */

/** The report is the `--format json` output: NaN/Infinity become null and bigints numbers (or strings). */
export function jsonSafe<T>(value: T): T {
  return sanitize(value) as T;
}

function sanitize(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (Array.isArray(value)) return value.map(sanitize);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = sanitize(v);
    return out;
  }
  return value;
}
