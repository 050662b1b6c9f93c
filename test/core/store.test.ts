import * as assert from 'assert';
import { DuckStore } from '../../src/core/store/duckStore';

describe('DuckStore', () => {
  it('creates the Phasewise tables lazily and computes quantile_cont like numpy', async () => {
    const store = new DuckStore();
    try {
      const tables = await store.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables ORDER BY 1");
      assert.deepStrictEqual(
        tables.map((t) => t.name),
        ['client_requests', 'k6_summary', 'load_issues', 'load_skips', 'phasewise_store', 'run_counters', 'source_provenance', 'sources', 'span_events', 'spans'],
      );
      // numpy.percentile([1, 2, 3, 4, 10], 95) = 8.8 (position (n-1)·p = 3.8 → 4 + 0.8·6)
      const [row] = await store.all<{ p95: number }>(
        'SELECT quantile_cont(x, 0.95) AS p95 FROM (VALUES (1), (2), (3), (4), (10)) t(x)',
      );
      assert.ok(Math.abs(row.p95 - 8.8) < 1e-12);
      const [big] = await store.all<{ n: number }>('SELECT count(*) AS n FROM range(5)');
      assert.strictEqual(big.n, 5);
    } finally {
      await store.close();
    }
  });
});
