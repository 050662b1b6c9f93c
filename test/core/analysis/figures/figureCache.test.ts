import * as assert from 'assert';
import { analyzeRun } from '../../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { insertRequests, insertSpans, withStore, type SpanRow } from '../../../fixtures/analysis/tables';

const trace = (n: number): string => `d${n.toString(16).padStart(31, '0')}`;

function rootedTrace(t: string, rootMs: number): SpanRow[] {
  return [
    { trace: t, id: 'b000000000000001', parent: 'ffffffffffffffff', name: 'POST /v1/chat/completions', kind: 'SERVER', startMs: 0, endMs: rootMs },
    { trace: t, id: 'b000000000000002', parent: 'b000000000000001', name: 'inference.generate', startMs: 1, endMs: 1 + rootMs / 2 },
  ];
}

describe('figure cache (re-analysis reuses whole-run figures stored under their stamps)', () => {
  it('reads the whole-run figures back, recomputes the option-dependent ones, and forgets them on a rebuild', () =>
    withStore(async (store) => {
      // Roots 100, 200, 300, 400 ms; client totals 110, 230, 350, 470 → envelopes 10, 30, 50, 70.
      for (const i of [1, 2, 3, 4]) await insertSpans(store, rootedTrace(trace(i), i * 100));
      await insertRequests(store, [1, 2, 3, 4].map((i) => ({ trace: trace(i), totalMs: i * 120 - 10, startMs: 1_000 * i })));

      const first = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, slowTraceCount: 3 }, []);
      // quantile_cont over [10, 30, 50, 70]: p50 at position 1.5 = 40, p95 at 2.85 = 50 + 0.85·20 = 67.
      assert.strictEqual(first.metrics.network_envelope_ms?.n, 4);
      assert.strictEqual(first.metrics.network_envelope_ms?.p50, 40);
      assert.ok(Math.abs((first.metrics.network_envelope_ms?.p95 ?? 0) - 67) < 1e-9);
      assert.deepStrictEqual(first.slow_traces.map((s) => s.client_total_ms), [470, 350, 230]);
      const stored = async (): Promise<Map<string, string[]>> => {
        const rows = await store.all<{ name: string; stamp: string }>('SELECT name, stamp FROM breakdown_figures ORDER BY name, stamp');
        const out = new Map<string, string[]>();
        for (const r of rows) out.set(r.name, [...(out.get(r.name) ?? []), r.stamp]);
        return out;
      };
      const storedFirst = await stored();
      // One row per cached figure (catalog/figures.ts).
      assert.deepStrictEqual([...storedFirst.keys()], [
        'client_metrics',
        'group_mixes',
        'join',
        'join_bias',
        'ledger',
        'matched_metrics',
        'matched_phase_metrics',
        'provenance',
        'server_metrics',
        'server_phase_metrics',
        'slow_traces',
        'stages',
        'user_observed',
        'warnings',
        'window_series',
      ]);
      assert.ok([...storedFirst.values()].every((stamps) => stamps.length === 1));

      // A value written into the stored figures shows which parts are read back: the whole-run metric
      // table keeps the cached envelope, the per-window figures (window size is an option) see the new one.
      await store.run('UPDATE request_figures SET network_envelope_ms = -5');
      const second = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 10_000, slowTraceCount: 2 }, []);
      assert.strictEqual(second.metrics.network_envelope_ms?.p50, 40);
      assert.strictEqual(second.windows.windows[0].network_envelope_ms.p50, -5);
      // The slow list for a smaller --slow is the prefix of the cached one.
      assert.deepStrictEqual(second.slow_traces.map((s) => s.client_total_ms), [470, 350]);

      // Another phase mapping: the breakdown is rebuilt, the phase-independent figures are read back
      // under the same stamps (the cached envelope p50 stays 40, not the -5 written above), the phase
      // ones are computed under new ones. The phase generation (inference.generate, 1 → 1 + root/2) is
      // 50, 100, 150, 200 ms: p50 = 125.
      const phased = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, phases: [{ name: 'generation', anyOf: [{ names: ['inference.generate'] }] }] }, []);
      assert.strictEqual(phased.metrics.generation_ms?.p50, 125);
      assert.strictEqual(phased.metrics.network_envelope_ms?.p50, 40);
      const storedSecond = await stored();
      for (const name of ['client_metrics', 'join', 'ledger', 'matched_metrics', 'server_metrics', 'user_observed', 'group_mixes']) {
        assert.deepStrictEqual(storedSecond.get(name), storedFirst.get(name), name);
      }
      for (const name of ['matched_phase_metrics', 'server_phase_metrics', 'slow_traces', 'warnings', 'stages']) {
        assert.strictEqual(storedSecond.get(name)?.length, 1, name);
        assert.notDeepStrictEqual(storedSecond.get(name), storedFirst.get(name), name);
      }

      // Other client totals (as a reload into a --db file does): the breakdown is rebuilt and the cache
      // with it. Totals 150, 250, 350, 450 → envelopes 50, 50, 50, 50.
      await store.run('DELETE FROM client_requests');
      await insertRequests(store, [1, 2, 3, 4].map((i) => ({ trace: trace(i), totalMs: i * 100 + 50, startMs: 1_000 * i })));
      const third = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, slowTraceCount: 1 }, []);
      assert.strictEqual(third.metrics.network_envelope_ms?.p50, 50);
      assert.strictEqual(third.metrics.network_envelope_ms?.min, 50);
      assert.deepStrictEqual(third.slow_traces.map((s) => s.client_total_ms), [450]);
    }));

  it('serves a longer slow-trace list than the cached one by querying again', () =>
    withStore(async (store) => {
      for (let i = 1; i <= 120; i++) await insertSpans(store, rootedTrace(trace(i), 100));
      await insertRequests(store, Array.from({ length: 120 }, (_, k) => ({ trace: trace(k + 1), totalMs: 101 + k, startMs: 1_000 + k })));
      const short = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, slowTraceCount: 5 }, []);
      assert.deepStrictEqual(short.slow_traces.map((s) => s.client_total_ms), [220, 219, 218, 217, 216]);
      // 100 are cached; 110 asked: computed, the slowest first, the 110th is 220 − 109 = 111.
      const long = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, slowTraceCount: 110 }, []);
      assert.strictEqual(long.slow_traces.length, 110);
      assert.strictEqual(long.slow_traces[109].client_total_ms, 111);
    }));
});
