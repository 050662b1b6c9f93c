import * as assert from 'assert';
import { ensureBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { collectBreakdownWarnings } from '../../../../src/core/analysis/breakdown/warnings';
import { computeJoinSummary } from '../../../../src/core/analysis/figures/join';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { RecordingRunner } from '../../../fixtures/analysis/recording';
import { insertSyntheticRun } from '../../../fixtures/analysis/synthetic';

/** 20k by default so the suite stays quick; PHASEWISE_PERF_REQUESTS=100000 for the docs/performance.md size. */
const REQUESTS = Number(process.env.PHASEWISE_PERF_REQUESTS ?? 20_000);

describe('breakdown on a synthetic run (SQL range() + random())', function () {
  this.timeout(600_000);

  it(`builds ${REQUESTS} requests × 6.5 spans with phase sums equal to the generating plan`, async () => {
    const store = new DuckStore();
    try {
      await insertSyntheticRun(store, REQUESTS);
      const [{ spans }] = await store.all<{ spans: number }>('SELECT count(*) AS spans FROM spans');
      assert.strictEqual(spans, REQUESTS * 6 + Math.ceil(REQUESTS / 2));
      const t0 = process.hrtime.bigint();
      const cpu0 = process.cpuUsage();
      await ensureBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const cpu = process.cpuUsage(cpu0);
      console.log(`      breakdown of ${REQUESTS} requests / ${spans} spans: ${seconds.toFixed(2)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU`);
      const join = await computeJoinSummary(store);
      assert.strictEqual(join.matched, REQUESTS);
      assert.deepStrictEqual(await collectBreakdownWarnings(store, DEFAULT_ANALYSIS_OPTIONS), []);
      // The plan's own durations (ns-exact, as inserted): every sequential span is summed exactly, because
      // each start is floored to the millisecond after (or just before) the previous end.
      const [diff] = await store.all<{ n: number; gateway: number; queue: number; generation: number }>(
        `WITH plan AS (
           SELECT trace_id,
                  ((auth_ms * 1e6)::BIGINT + (prep_ms * 1e6)::BIGINT + (route_ms * 1e6)::BIGINT
                    + CASE WHEN has_write THEN (write_ms * 1e6)::BIGINT ELSE 0 END) / 1e6 AS gateway,
                  (queue_ms * 1e6)::BIGINT / 1e6 AS queue, (gen_ms * 1e6)::BIGINT / 1e6 AS generation
           FROM synthetic_plan
         )
         SELECT count(*) AS n, max(abs(b.gateway_ms - p.gateway)) AS gateway, max(abs(b.gpu_queue_ms - p.queue)) AS queue,
                max(abs(b.generation_ms - p.generation)) AS generation
         FROM request_breakdown b JOIN plan p USING (trace_id)`,
      );
      assert.strictEqual(diff.n, REQUESTS);
      assert.ok(diff.gateway < 1e-9 && diff.queue < 1e-9 && diff.generation < 1e-9, JSON.stringify(diff));

      // Re-analysis with another phase mapping reuses the span index (docs/performance.md: ≤ 0.5 s at 100k on
      // an idle 2-core machine); the new phase must still equal the plan: auth.check alone.
      const t1 = process.hrtime.bigint();
      const cpu1 = process.cpuUsage();
      const recorder = new RecordingRunner(store);
      const alt = await ensureBreakdown(recorder, { ...DEFAULT_ANALYSIS_OPTIONS, phases: [{ name: 'auth', anyOf: [{ names: ['auth.check'] }] }] });
      const cpuAlt = process.cpuUsage(cpu1);
      console.log(`      re-analysis with another phase mapping: ${(Number(process.hrtime.bigint() - t1) / 1e9).toFixed(2)} s wall, ${((cpuAlt.user + cpuAlt.system) / 1e6).toFixed(2)} s CPU`);
      assert.deepStrictEqual(alt.phaseColumns, ['auth_ms']);
      assert.deepStrictEqual(recorder.creates('span_index'), [], 'the span index is current: nothing to rebuild');
      const [auth] = await store.all<{ n: number; worst: number }>(
        `SELECT count(*) AS n, max(abs(b.auth_ms - (p.auth_ms * 1e6)::BIGINT / 1e6)) AS worst
         FROM request_breakdown b JOIN synthetic_plan p USING (trace_id) WHERE b.matched`,
      );
      assert.strictEqual(auth.n, REQUESTS);
      assert.ok(auth.worst < 1e-9, String(auth.worst));
      // Appending rows (another loaded file) makes the index stale.
      await store.run(`INSERT INTO span_events VALUES (902, '${'0'.repeat(31)}1', '0000000000000006', 'late', 0)`);
      recorder.clear();
      await ensureBreakdown(recorder, DEFAULT_ANALYSIS_OPTIONS);
      assert.strictEqual(recorder.creates('span_index').length, 1);
    } finally {
      await store.close();
    }
  });
});
