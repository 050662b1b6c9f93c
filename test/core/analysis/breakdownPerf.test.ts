import * as assert from 'assert';
import { buildBreakdown } from '../../../src/core/analysis/breakdown';
import { computeJoinSummary } from '../../../src/core/analysis/join';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../src/core/analysis/options';
import { insertSyntheticRun } from '../../../src/core/analysis/sqlSynthetic';
import { DuckStore } from '../../../src/core/store/duckStore';

const REQUESTS = Number(process.env.PHASEWISE_PERF_REQUESTS ?? 100_000);

describe('breakdown build time (synthetic run in SQL)', () => {
  it(`builds the breakdown of ${REQUESTS} requests × 6.5 spans quickly`, async () => {
    const store = new DuckStore();
    try {
      await insertSyntheticRun(store, REQUESTS);
      const [{ spans }] = await store.all<{ spans: number }>('SELECT count(*) AS spans FROM spans');
      assert.strictEqual(spans, REQUESTS * 6 + Math.ceil(REQUESTS / 2));
      const t0 = process.hrtime.bigint();
      const info = await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const join = await computeJoinSummary(store);
      console.log(`      breakdown of ${REQUESTS} requests / ${spans} spans: ${seconds.toFixed(3)} s`);
      assert.strictEqual(join.matched, REQUESTS);
      assert.deepStrictEqual(info.warnings, []);
      assert.ok(seconds < 10, `breakdown took ${seconds} s`);
    } finally {
      await store.close();
    }
  });
});
