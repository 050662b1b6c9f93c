import * as assert from 'assert';
import { DEFAULT_ANALYSIS_OPTIONS, type GateSpec } from '../../../../src/core/analysis/options';
import type { Report } from '../../../../src/core/report/model';
import { buildReport } from '../../../../src/core/analysis/figures/buildReport';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { close, createBreakdownTables, insertRequests, joinSummary, PHASE_COLUMNS, type FixtureRequest } from '../../../fixtures/analysis/reportTables';

/**
 * 100 matched successes with totals 101..200 ms. Each: envelope 10, gateway 2, generation 40,
 * unattributed 8, gpu_queue = total − 60 (so that the parts add up to the total).
 * Plus 20 unmatched successes of 10 000 ms and 5 timeouts, which must not move the tail figures.
 */
function requests(): FixtureRequest[] {
  const out: FixtureRequest[] = [];
  for (let i = 1; i <= 100; i++) {
    const total = 100 + i;
    out.push({ offset_ms: i, client_total_ms: total, server_root_ms: total - 10, phases: { gateway_ms: 2, gpu_queue_ms: total - 60, generation_ms: 40 } });
  }
  for (let i = 0; i < 20; i++) out.push({ offset_ms: 200 + i, client_total_ms: 10_000, matched: false });
  for (let i = 0; i < 5; i++) out.push({ offset_ms: 300 + i, outcome: 'timed_out', client_total_ms: 60_000, matched: false });
  return out;
}

async function analyse(tailBudgetMs: number | undefined, gates: GateSpec[], callsPerSession?: number): Promise<Report> {
  const store = new DuckStore();
  try {
    await createBreakdownTables(store);
    await insertRequests(store, requests());
    return await buildReport(store, { ...DEFAULT_ANALYSIS_OPTIONS, tailBudgetMs, callsPerSession }, gates, {
      phaseColumns: PHASE_COLUMNS,
      warnings: [],
      join: joinSummary(125, 100),
      slowTraces: [],
    });
  } finally {
    await store.close();
  }
}

describe('tail figures', () => {
  it('computes tail ratio, tail share and session tail probability by hand', async () => {
    const report = await analyse(190, [], 5);
    // p50 at position 49.5 → 150.5; p95 at 94.05 → 195 + 0.05 = 195.05
    assert.ok(close(report.tail.tail_ratio, 195.05 / 150.5));
    assert.strictEqual(report.tail.budget_ms, 190);
    assert.strictEqual(report.tail.tail_share, 0.1); // 191..200
    assert.strictEqual(report.tail.calls_per_session, 5);
    assert.ok(close(report.tail.session_tail_probability, 1 - 0.9 ** 5)); // 0.40951
    assert.ok(close(report.tail.session_tail_probability, 0.40951));
  });

  it('takes the budget from the total-latency SLO when no tail budget is given', async () => {
    const slo: GateSpec = { id: 'slo.total_ms.p95', category: 'slo', metric: 'client_total_ms', stat: 'p95', op: '<=', limit: 180 };
    const report = await analyse(undefined, [slo]);
    assert.strictEqual(report.tail.budget_ms, 180);
    assert.strictEqual(report.tail.tail_share, 0.2); // 181..200
    assert.strictEqual(report.tail.session_tail_probability, null); // no k
    const none = await analyse(undefined, []);
    assert.deepStrictEqual([none.tail.budget_ms, none.tail.tail_share], [null, null]);
  });

  it('attributes the tail above the p95 to its owners by mean, with shares that add up to 1', async () => {
    const report = await analyse(undefined, []);
    const t = report.tail_attribution;
    // tail: totals 196..200 (> 195.05): mean total 198, gpu_queue mean 138
    assert.ok(close(t.threshold_ms, 195.05));
    assert.strictEqual(t.n, 5);
    assert.strictEqual(t.mean_client_total_ms, 198);
    assert.deepStrictEqual(
      t.phases.map((p) => [p.phase, p.mean_ms]),
      [
        ['network_envelope', 10],
        ['gateway', 2],
        ['gpu_queue', 138],
        ['generation', 40],
        ['unattributed_server', 8],
      ],
    );
    for (const p of t.phases) assert.ok(close(p.share, p.mean_ms / 198));
    assert.ok(close(t.phases.reduce((s, p) => s + p.share, 0), 1));
  });
});
