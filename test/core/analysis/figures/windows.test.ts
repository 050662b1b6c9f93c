import * as assert from 'assert';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { buildReport } from '../../../../src/core/analysis/figures/buildReport';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { createBreakdownTables, insertRequests, joinSummary, jsQuantile, PHASE_COLUMNS, type FixtureRequest } from '../../../fixtures/analysis/reportTables';

describe('fixed windows', () => {
  it('counts outcomes per window, takes quantiles over matched successes, marks steady windows and the worst', async () => {
    const ok = (offset: number, total: number, matched = true): FixtureRequest => ({ offset_ms: offset, client_total_ms: total, server_root_ms: total - 10, matched });
    const requests: FixtureRequest[] = [
      // window 0 [0, 1000): four matched successes
      ok(0, 100), ok(250, 200), ok(500, 300), ok(999.9, 400),
      // window 1 [1000, 2000): nothing was sent
      // window 2 [2000, 3000): two successes and one rejection
      ok(2000, 1000), ok(2500, 50), { offset_ms: 2600, outcome: 'rejected', client_total_ms: 2, matched: false },
      // window 3 [3000, 4000): one matched success; an unmatched one is counted but not in the quantiles
      ok(3100, 700), ok(3200, 5000, false),
      // no send time: in no window
      { offset_ms: null, client_total_ms: 10 },
    ];
    const store = new DuckStore();
    try {
      await createBreakdownTables(store);
      await insertRequests(store, requests);
      const report = await buildReport(store, { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 1000, steadyStartMs: 1000, steadyEndMs: 3500 }, [], {
        phaseColumns: PHASE_COLUMNS,
        warnings: [],
        join: joinSummary(requests.length, 8),
        slowTraces: [],
      });
      const w = report.windows;
      assert.strictEqual(w.size_ms, 1000);
      assert.deepStrictEqual(
        w.windows.map((x) => [x.index, x.start_offset_ms, x.end_offset_ms, x.started, x.succeeded, x.errors, x.client_total_ms.n, x.steady]),
        [
          [0, 0, 1000, 4, 4, 0, 4, false],
          [1, 1000, 2000, 0, 0, 0, 0, true],
          [2, 2000, 3000, 3, 2, 1, 2, true],
          [3, 3000, 4000, 2, 2, 0, 1, false], // ends after the steady end 3500
        ],
      );
      assert.strictEqual(w.windows[0].client_total_ms.p95, jsQuantile([100, 200, 300, 400], 0.95)); // 385
      assert.strictEqual(w.windows[0].client_total_ms.p95, 385);
      assert.strictEqual(w.windows[2].client_total_ms.p95, 952.5); // 50 + 0.95 · 950
      assert.strictEqual(w.windows[3].client_total_ms.p95, 700);
      assert.deepStrictEqual([w.windows[2].network_envelope_ms.n, w.windows[2].network_envelope_ms.p50], [2, 10]);
      assert.strictEqual(w.windows[1].client_total_ms.p95, null);
      assert.strictEqual(w.worst, 2);
      assert.ok(report.warnings.includes('1 started request(s) have no send time and appear in no window.'));
    } finally {
      await store.close();
    }
  });
});
