import * as assert from 'assert';
import type { Report } from '../../../../src/core/report/model';
import { numpyQuantile } from '../../../bench/generateHelpers';
import { bandGaps, DEFAULT_TOKEN_BANDS, gapLabel } from '../../../../src/core/analysis/groups/dimensions';
import { GATES_B, PHASES_B } from '../../../../bench/run/child';
import { analyzeRun } from '../../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions, type GateSpec } from '../../../../src/core/analysis/options';
import { loadRun } from '../../../../src/core/run/loadRun';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { assertSameValues } from '../../../helpers/sameValues';
import { analyzeScenario, generateScenario, readRecords, removeScenarios, STEADY, totalOf, type Record17, type ScenarioRun } from './scenarioRuns';

const ROUTES = 'chat=/v1/chat/completions:0.95:llama-3.1-8b-instruct,embed=/v1/embed:0.05:llama-3.1-70b-instruct';

function close(actual: number | null | undefined, expected: number, what: string): void {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);
}

describe('bandGaps: the counts no token band holds', () => {
  it('finds the gap below, between and above closed bands, none where whole-number bounds touch or a band is open', () => {
    assert.deepStrictEqual(bandGaps([{ min: 100, max: 400 }, { min: 500, max: 1500 }]), [
      { min: 0, max: 99, after: null },
      { min: 401, max: 499, after: 400 },
      { min: 1501, max: null, after: 1500 },
    ]);
    assert.deepStrictEqual(bandGaps(DEFAULT_TOKEN_BANDS.input), []);
    // Overlapping bands (the first one wins in the CASE) leave no gap between them.
    assert.deepStrictEqual(bandGaps([{ min: 0, max: 300 }, { min: 200, max: 400 }, { min: 401, max: null }]), []);
    assert.deepStrictEqual([gapLabel('input', { min: 401, max: 499 }), gapLabel('output', { min: 1501, max: null })], ['input_gap_401_499', 'output_gap_1501_plus']);
  });
});

describe('groups (issue 17 §1) on a generated run with two routes', () => {
  let run: ScenarioRun;
  let records: Record17[];
  let auto: Report;
  before(async () => {
    run = await generateScenario('groups', ['--seed', '17', ...STEADY, '--rate', '25', '--routes', ROUTES]);
    records = readRecords(run.records);
    auto = await analyzeScenario(run);
  });
  after(removeScenarios);

  it('groups by route and model when the run holds several, and says the whole-run tail mixes them', () => {
    assert.deepStrictEqual(auto.grouping.by, ['route', 'model']);
    assert.strictEqual(auto.grouping.source, 'auto');
    const byRoute = new Map<string, number>();
    for (const r of records) byRoute.set(r.route_id, (byRoute.get(r.route_id) ?? 0) + 1);
    const mix = auto.grouping.mixes.find((m) => m.dimension === 'route');
    assert.deepStrictEqual(
      mix?.values.map((v) => [v.value, v.calls]),
      [...byRoute.entries()].sort((a, b) => b[1] - a[1]),
    );
    assert.deepStrictEqual(auto.groups.map((g) => g.key), ['route=chat, model=llama-3.1-8b-instruct', 'route=embed, model=llama-3.1-70b-instruct']);
  });

  it('counts and quantiles per group equal a plain count over the records (client_only, numpy-style quantiles)', () => {
    for (const g of auto.groups) {
      const mine = records.filter((r) => r.route_id === g.dimensions.route);
      const ok = mine.filter((r) => r.outcome === 'succeeded');
      const totals = ok.map(totalOf).filter((t): t is number => t !== null);
      assert.strictEqual(g.outcomes.started, mine.length, g.key);
      assert.strictEqual(g.outcomes.succeeded, ok.length, g.key);
      assert.strictEqual(g.outcomes.timed_out, mine.filter((r) => r.outcome === 'timed_out').length, g.key);
      const t = g.client_only.client_total_ms;
      assert.strictEqual(t.n, totals.length, g.key);
      close(t.p50, numpyQuantile(totals, 0.5), `${g.key} p50`);
      close(t.p95, numpyQuantile(totals, 0.95), `${g.key} p95`);
      // The tail ratio is the group's own matched p95/p50.
      const m = g.metrics.client_total_ms;
      close(g.tail.tail_ratio, (m.p95 as number) / (m.p50 as number), `${g.key} tail ratio`);
    }
    // The groups partition the run: their matched counts add up to the whole run's.
    assert.strictEqual(auto.groups.reduce((a, g) => a + g.join.matched, 0), auto.join.matched);
  });

  it('marks a group below the 200-call floor too small for a p95 and still shows its n; a lower floor lifts the mark', async () => {
    const embed = auto.groups.find((g) => g.dimensions.route === 'embed');
    const chat = auto.groups.find((g) => g.dimensions.route === 'chat');
    const embedOk = records.filter((r) => r.route_id === 'embed' && r.outcome === 'succeeded').length;
    assert.ok(embedOk > 50 && embedOk < 200, `the scenario gives embed ${embedOk} successes`);
    assert.strictEqual(embed?.successes, embedOk);
    assert.strictEqual(embed?.too_small, true);
    assert.strictEqual(chat?.too_small, false);
    const lower = await analyzeScenario(run, { minGroupSize: 50, groupBy: ['route'] });
    assert.deepStrictEqual(lower.groups.map((g) => [g.key, g.too_small]), [['route=chat', false], ['route=embed', false]]);
    assert.strictEqual(lower.grouping.min_group_size, 50);
  });

  it('reports a token count between or outside the contract\'s bands in its own gap band, with its bounds (never as output_other)', async () => {
    // Bands with a gap below, between and above them; labels and bounds by hand.
    const bands = { input: [{ min: 0, max: null }], output: [{ min: 20, max: 60 }, { min: 100, max: 150 }] };
    const report = await analyzeScenario(run, { groupBy: ['output_band'], groupBySource: 'option', tokenBands: bands, minGroupSize: 1 });
    const label = (n: number): string =>
      n < 20 ? 'output_gap_0_19' : n <= 60 ? 'output_20_60' : n < 100 ? 'output_gap_61_99' : n <= 150 ? 'output_100_150' : 'output_gap_151_plus';
    const expected = new Map<string | null, number>();
    for (const r of records) {
      const k = r.output_token_count === null ? null : label(r.output_token_count);
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
    const got = new Map(report.groups.map((g) => [g.dimensions.output_band, g.outcomes.started]));
    // A request without a client count takes the trace's count (which the records do not carry): each
    // band holds at least the records' count, and what it holds beyond is exactly what left the null group.
    let moved = 0;
    for (const [k, n] of expected) {
      if (k === null) continue;
      const g = got.get(k) ?? 0;
      assert.ok(g >= n, `${k}: ${g} < ${n} (${JSON.stringify([...got])})`);
      moved += g - n;
    }
    assert.strictEqual(moved, (expected.get(null) ?? 0) - (got.get(null) ?? 0));
    assert.ok(![...got.keys()].includes('output_other'), JSON.stringify([...got]));
    assert.ok((expected.get('output_gap_61_99') ?? 0) > 0 && (expected.get('output_gap_151_plus') ?? 0) > 0, JSON.stringify([...expected]));
  });

  it('a re-analysis reads the group figures back from the cache, and gives what a fresh analysis of the same options gives', async () => {
    const store = new DuckStore();
    const fresh = async (options: Partial<AnalysisOptions>, gates: GateSpec[] = []): Promise<Report> => analyzeScenario(run, options, 'records', gates);
    try {
      await loadRun(store, { run: [run.records], spans: [run.spans] });
      const first = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS }, []);
      // A value written into request_phase_figures shows which group figures are read back: the tables
      // keep the stored unattributed time, the series of another window grid (recomputed) sees the new one.
      await store.run('UPDATE request_phase_figures SET unattributed_server_ms = -5 WHERE unattributed_server_ms IS NOT NULL');
      const other = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 10_000 }, GATES_B);
      for (const [i, g] of other.groups.entries()) {
        assert.strictEqual(g.metrics.unattributed_server_ms.p50, first.groups[i].metrics.unattributed_server_ms.p50, g.key);
        assert.notStrictEqual(g.metrics.unattributed_server_ms.p50, -5, g.key);
        const filled = g.window_series.windows.find((w) => w.owners.unattributed_server_ms.n > 0);
        assert.strictEqual(filled?.owners.unattributed_server_ms.p50, -5, g.key);
      }
      // Another phase mapping rebuilds request_phase_figures (the -5 is gone) and keeps the
      // phase-independent group figures: the whole report equals a fresh analysis's.
      const phased = { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 10_000, phases: PHASES_B };
      const again = await analyzeRun(store, phased, GATES_B);
      assertSameValues(again, await fresh(phased, GATES_B), 'another phase mapping');
      // And back to the default mapping with other windows and gates (every stored figure current).
      const back = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 20_000 }, GATES_B);
      assertSameValues(back, await fresh({ windowSizeMs: 20_000 }, GATES_B), 'default mapping, 20 s windows');
    } finally {
      await store.close();
    }
  });

  it('groups by the HTTP status class as the records give it (--group-by status_class)', async () => {
    const report = await analyzeScenario(run, { groupBy: ['status_class'], groupBySource: 'option' });
    const expected = new Map<string, number>();
    for (const r of records) {
      const s = (r as unknown as { http_status: number | null }).http_status;
      const k = s === null ? 'no_status' : `${Math.floor(s / 100)}xx`;
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
    assert.deepStrictEqual(
      new Map(report.groups.map((g) => [g.dimensions.status_class, g.outcomes.started])),
      expected,
    );
    assert.strictEqual(report.grouping.source, 'option');
  });
});
