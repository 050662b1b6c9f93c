import * as assert from 'assert';

/**
 * Deep equality with numbers equal to a relative `tolerance` (keys in the same order, arrays of the
 * same length). DuckDB sums a mean's values in no fixed order across its threads, so two analyses of
 * the same rows can differ in the last digit of a mean; every other figure must be identical.
 */
export function assertSameValues(actual: unknown, expected: unknown, where = '', tolerance = 1e-12): void {
  if (typeof actual === 'number' && typeof expected === 'number') {
    const ok = actual === expected || Math.abs(actual - expected) <= tolerance * Math.max(Math.abs(actual), Math.abs(expected));
    assert.ok(ok, `${where}: ${actual} ≠ ${expected}`);
    return;
  }
  if (actual === null || expected === null || typeof actual !== 'object' || typeof expected !== 'object') {
    assert.strictEqual(actual, expected, where);
    return;
  }
  assert.strictEqual(Array.isArray(actual), Array.isArray(expected), `${where}: array vs object`);
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  assert.deepStrictEqual(Object.keys(a), Object.keys(e), `${where}: keys`);
  for (const k of Object.keys(e)) assertSameValues(a[k], e[k], `${where}.${k}`, tolerance);
}
