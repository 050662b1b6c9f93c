import * as assert from 'assert';
import type { Report } from '../../../../src/core/report/model';
import { numpyQuantile } from '../../../bench/generateHelpers';
import { analyzeScenario, generateScenario, readRecords, removeScenarios, STEADY, totalOf, type Record17, type ScenarioRun } from './scenarioRuns';

const ROUTES = 'chat=/v1/chat/completions:0.95:llama-3.1-8b-instruct,embed=/v1/embed:0.05:llama-3.1-70b-instruct';

function close(actual: number | null | undefined, expected: number, what: string): void {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);
}

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
