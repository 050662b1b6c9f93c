import * as assert from 'assert';
import { seriesOwnerColumns } from '../../../../src/core/analysis/catalog/series';
import { keyId } from '../../../../src/core/analysis/groups/groupedTables';
import { computeWindowSeries } from '../../../../src/core/analysis/series/windowSeries';
import { DuckStore } from '../../../../src/core/store/duckStore';

/**
 * The window series' in-flight figure adds a double per request and window: it must not depend on the
 * order DuckDB's threads meet the rows in. 300k requests (three row groups, so the aggregate runs on
 * several threads) with send times and durations of very different magnitudes, stored in two orders:
 * both series must serialise to the same bytes, and each window's in-flight must equal the same sum
 * done in plain TypeScript to 1e-12.
 */
const N = 300_000;
const SIZE = 10_000;

/** Request i's send offset and client total (ms): deterministic, spread over 5 min, totals from 1 µs to ≈ 40 s. */
function request(i: number): { s: number; d: number } {
  const s = ((i * 7919) % 300_000) + (i % 13) / 7;
  const d = (i % 5 === 0 ? 0.001 * (1 + (i % 997)) : 1 + ((i * 104729) % 40_000) / 3) + Math.sqrt(i % 101);
  return { s, d };
}

async function seriesOf(order: 'ASC' | 'DESC'): Promise<string> {
  const store = new DuckStore({ threads: 4 });
  try {
    const owners = seriesOwnerColumns([]).map((c) => `NULL::DOUBLE AS ${c}`).join(', ');
    // request() in SQL: the same arithmetic on the same doubles.
    await store.run(`CREATE TABLE request_breakdown AS
      SELECT s AS offset_ms, d AS client_total_ms, s AS scheduled_offset_ms, true AS succeeded, 'succeeded' AS outcome,
             false AS matched, 1::BIGINT AS output_tokens, NULL::DOUBLE AS server_output_tokens, ${owners}
      FROM (SELECT i, ((i * 7919) % 300000) + (i % 13) / 7::DOUBLE AS s,
                   (CASE WHEN i % 5 = 0 THEN 0.001::DOUBLE * (1 + (i % 997)) ELSE 1 + ((i * 104729) % 40000) / 3::DOUBLE END) + sqrt(i % 101) AS d
            FROM range(${N}) t(i))
      ORDER BY i ${order}`);
    const series = await computeWindowSeries(store, { kind: 'fixed', sizeMs: SIZE }, []);
    return JSON.stringify(series.get(keyId([])));
  } finally {
    await store.close();
  }
}

describe('window series in-flight does not depend on row or thread order', function () {
  this.timeout(120_000);

  it('two storage orders give byte-identical series, and in-flight equals a plain sum over the requests', async () => {
    const ascending = await seriesOf('ASC');
    const descending = await seriesOf('DESC');
    assert.strictEqual(descending, ascending);
    const windows = JSON.parse(ascending) as Array<{ start_offset_ms: number; end_offset_ms: number; in_flight: number }>;
    assert.ok(windows.length >= 30, `${windows.length} windows`);
    const busy = new Map<number, number>();
    for (let i = 0; i < N; i++) {
      const { s, d } = request(i);
      for (let w = Math.floor(s / SIZE); w * SIZE < s + d; w++) busy.set(w, (busy.get(w) ?? 0) + Math.max(0, Math.min(s + d, w * SIZE + SIZE) - Math.max(s, w * SIZE)));
    }
    for (const w of windows) {
      const expected = (busy.get(w.start_offset_ms / SIZE) ?? 0) / SIZE;
      assert.ok(Math.abs(w.in_flight - expected) <= 1e-12 * expected, `window at ${w.start_offset_ms}: ${w.in_flight} ≠ ${expected}`);
    }
  });
});
