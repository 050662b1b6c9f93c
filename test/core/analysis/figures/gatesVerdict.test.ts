import * as assert from 'assert';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions, type GateSpec } from '../../../../src/core/analysis/options';
import type { Report } from '../../../../src/core/report/model';
import { buildReport } from '../../../../src/core/analysis/figures/buildReport';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { close, createBreakdownTables, insertCounter, insertRequests, joinSummary, jsQuantile, PHASE_COLUMNS, type FixtureRequest } from '../../../fixtures/analysis/reportTables';

/**
 * A 60 s run at 10 requests/s (600 requests, one every 100 ms); the first 10 s are warm-up and the
 * declared steady window is [10 000, 60 000) ms, i.e. requests 100..599.
 */
const STEADY: Partial<AnalysisOptions> = { steadyStartMs: 10_000, steadyEndMs: 60_000 };

interface Shape {
  gateway: number;
  queue: number;
  generation: number;
  unattributed?: number;
  envelope?: number;
  lag?: number;
}

function run(shape: (i: number) => Shape, count = 600): FixtureRequest[] {
  return Array.from({ length: count }, (_, i) => {
    const s = shape(i);
    const root = s.gateway + s.queue + s.generation + (s.unattributed ?? 3);
    return {
      offset_ms: i * 100,
      client_total_ms: root + (s.envelope ?? 20),
      server_root_ms: root,
      phases: { gateway_ms: s.gateway, gpu_queue_ms: s.queue, generation_ms: s.generation },
      scheduler_lag_ms: s.lag ?? 1,
    };
  });
}

const gate = (g: Partial<GateSpec> & Pick<GateSpec, 'id' | 'category' | 'metric' | 'op' | 'limit'>): GateSpec => ({ stat: 'p95', ...g });
const SLO_TOTAL = gate({ id: 'slo.total_ms.p95', category: 'slo', metric: 'client_total_ms', op: '<=', limit: 500 });
const BUDGET_QUEUE = gate({ id: 'budget.gpu_queue_ms.p95', category: 'budget', metric: 'gpu_queue_ms', op: '<=', limit: 100, phase: 'gpu_queue' });
const BUDGET_GATEWAY = gate({ id: 'budget.gateway_ms.p95', category: 'budget', metric: 'gateway_ms', op: '<=', limit: 4.5, phase: 'gateway' });
const DROPPED = gate({ id: 'gates.dropped_iterations', category: 'workload', metric: 'dropped_iterations', stat: 'value', op: '<=', limit: 0 });
const COVERAGE = gate({ id: 'gates.join_coverage', category: 'coverage', metric: 'join_coverage', stat: 'value', op: '>=', limit: 0.95 });
const NEGATIVE = gate({ id: 'gates.negative_envelope_share', category: 'instrumentation', metric: 'negative_envelope_share', stat: 'value', op: '<=', limit: 0.01 });

async function analyse(
  requests: FixtureRequest[],
  gates: GateSpec[],
  opts: Partial<AnalysisOptions> = STEADY,
  counters: Record<string, number> = {},
  matched = requests.length,
  setup?: (store: DuckStore) => Promise<void>,
): Promise<Report> {
  const store = new DuckStore();
  try {
    await createBreakdownTables(store);
    await insertRequests(store, requests);
    for (const [metric, value] of Object.entries(counters)) await insertCounter(store, metric, value);
    if (setup) await setup(store);
    return await buildReport(store, { ...DEFAULT_ANALYSIS_OPTIONS, ...opts }, gates, {
      phaseColumns: PHASE_COLUMNS,
      warnings: [],
      join: joinSummary(requests.length, matched),
      slowTraces: [],
    });
  } finally {
    await store.close();
  }
}

/** 10 % of the steady requests wait 150 ms for a GPU slot, the rest 10 ms. */
const queueSpikes = (i: number): Shape => ({ gateway: 5, queue: i % 10 === 0 ? 150 : 10, generation: 200 });

describe('gates and verdict', () => {
  it('fails on the gpu_queue budget while the total p95 passes, and names gpu_queue', async () => {
    const requests = run(queueSpikes);
    const report = await analyse(requests, [SLO_TOTAL, BUDGET_QUEUE, BUDGET_GATEWAY]);
    const steady = requests.slice(100);
    const queueP95 = jsQuantile(steady.map((r) => r.phases?.gpu_queue_ms as number), 0.95);
    const totalP95 = jsQuantile(steady.map((r) => r.client_total_ms as number), 0.95);
    assert.strictEqual(queueP95, 150); // 10 % at 150 ms puts the p95 on the spike
    assert.strictEqual(totalP95, 378);
    const [slo, queue, gateway] = report.gates;
    assert.deepStrictEqual([slo.status, slo.observed, slo.n], ['pass', totalP95, 500]);
    assert.deepStrictEqual([queue.status, queue.observed, queue.n, queue.phase], ['fail', queueP95, 500, 'gpu_queue']);
    assert.strictEqual(queue.window, 'steady 10000–60000 ms, matched successes');
    // gateway breaks too (5 > 4.5, 11 % over) but gpu_queue is 50 % over its budget
    assert.strictEqual(gateway.status, 'fail');
    assert.strictEqual(report.verdict.status, 'fail');
    assert.strictEqual(report.verdict.broken_phase, 'gpu_queue');
    assert.ok(report.verdict.reasons.some((r) => /gpu_queue_ms p95 = 150 ms breaks the limit <= 100 ms \(n = 500/.test(r)), report.verdict.reasons.join('\n'));
    assert.ok(report.verdict.reasons.some((r) => /broken phase is gpu_queue: its p95 is 50 % past its budget/.test(r)));
  });

  it('checks budgets only in the steady window: a warm-up spike that would break the budget is excluded', async () => {
    const requests = run((i) => ({ gateway: 5, queue: i < 100 ? 2000 : 10, generation: 200 }));
    const withSteady = await analyse(requests, [SLO_TOTAL, BUDGET_QUEUE]);
    assert.strictEqual(withSteady.verdict.status, 'pass');
    assert.strictEqual(withSteady.gates[1].observed, 10);
    assert.strictEqual(withSteady.gates[1].n, 500);
    // The same run judged over everything: 100 of 600 requests queue 2 s, so the p95 is 2000 ms.
    const whole = await analyse(requests, [SLO_TOTAL, BUDGET_QUEUE], {});
    assert.strictEqual(whole.gates[1].observed, jsQuantile(requests.map((r) => r.phases?.gpu_queue_ms as number), 0.95));
    assert.strictEqual(whole.gates[1].observed, 2000);
    assert.strictEqual(whole.gates[1].window, 'whole run, matched successes');
    assert.strictEqual(whole.verdict.status, 'fail');
    // the whole-run metrics table still shows the warm-up (figures are not hidden, only gates are scoped)
    assert.strictEqual(withSteady.metrics.gpu_queue_ms.n, 600);
  });

  it('is inconclusive when iterations were dropped, even though every latency gate passes', async () => {
    const requests = run(() => ({ gateway: 5, queue: 10, generation: 200 }));
    const dropShare = { ...DROPPED, id: 'gates.dropped_share', stat: 'share' as const, limit: 0.01 };
    const report = await analyse(requests, [SLO_TOTAL, BUDGET_QUEUE, DROPPED, dropShare], STEADY, { iterations: 600, dropped_iterations: 12 });
    assert.deepStrictEqual(report.gates.map((g) => g.status), ['pass', 'pass', 'fail', 'fail']);
    assert.strictEqual(report.gates[2].observed, 12);
    assert.strictEqual(report.gates[3].observed, 12 / 612);
    assert.strictEqual(report.outcomes.reconciles, true);
    assert.strictEqual(report.verdict.status, 'inconclusive');
    assert.strictEqual(report.verdict.broken_phase, null);
    assert.match(report.verdict.reasons[0], /dropped_iterations = 12 breaks the limit <= 0/);
    assert.match(report.verdict.reasons[1], /dropped_iterations share = 1\.96 % breaks the limit <= 1 %/);
  });

  it('is inconclusive when join coverage is below its minimum', async () => {
    const requests = run(() => ({ gateway: 5, queue: 10, generation: 200 }));
    const report = await analyse(requests, [SLO_TOTAL, COVERAGE], STEADY, {}, 480);
    assert.strictEqual(report.gates[1].observed, 0.8);
    assert.strictEqual(report.gates[1].status, 'fail');
    assert.strictEqual(report.verdict.status, 'inconclusive');
    assert.match(report.verdict.reasons[0], /join_coverage = 80 % breaks the limit >= 95 % \(n = 600, whole run, client requests\)/);
  });

  it('is an instrumentation failure when negative envelopes exceed their limit, whatever else fails', async () => {
    // every 20th request: the root span outlives the response by 5 ms (5 % of the run)
    const requests = run((i) => ({ ...queueSpikes(i), envelope: i % 20 === 3 ? -5 : 20 }));
    const report = await analyse(requests, [SLO_TOTAL, BUDGET_QUEUE, NEGATIVE]);
    assert.strictEqual(report.gates[2].observed, 30 / 600);
    assert.strictEqual(report.verdict.status, 'instrumentation_failure');
    assert.match(report.verdict.reasons[0], /negative_envelope_share = 5 % breaks the limit <= 1 %/);
    assert.ok(report.verdict.reasons.some((r) => r.startsWith('Also: Gate budget.gpu_queue_ms.p95')));
    assert.ok(report.warnings.some((w) => /30 of 600 matched successes \(5\.00 %\) have a negative network envelope, most negative -5\.0 ms/.test(w)));
  });

  it('when only the total SLO fails, names the phase with the largest tail-attribution share', async () => {
    // generation dominates the slow requests (every 10th takes 900 + i ms); no budget is given
    const requests = run((i) => ({ gateway: 5, queue: 10, generation: i % 10 === 0 ? 900 + i : 200 }));
    const report = await analyse(requests, [SLO_TOTAL]);
    assert.strictEqual(report.verdict.status, 'fail');
    // By hand: totals are 238 ms (540) and 938 + i (60 spikes, i = 0, 10, …, 590). p95 position
    // 0.95 · 599 = 569.05 → spikes #29 (1228) and #30 (1238) → 1228.5; the tail is i = 300…590 (30
    // requests): generation mean 900 + 445 = 1345 of a mean total 1345 + 5 + 10 + 3 + 20 = 1383.
    assert.ok(close(report.tail_attribution.threshold_ms, 1228.5));
    assert.strictEqual(report.tail_attribution.n, 30);
    assert.strictEqual(report.verdict.broken_phase, 'generation');
    assert.ok(report.verdict.reasons.some((r) => /No phase budget broke.*generation takes 97\.3 % \(mean 1345 ms of 1383 ms\) of the 30 request\(s\)/.test(r)), report.verdict.reasons.join('\n'));
  });

  it('is inconclusive when the run covers less of the steady window than declared', async () => {
    const requests = run(() => ({ gateway: 5, queue: 10, generation: 200 }));
    const report = await analyse(requests, [SLO_TOTAL], { steadyStartMs: 10_000, steadyEndMs: 120_000 });
    // last send 59 900 ms + 238 ms response = 60 138 ms; covered 50 138 of 110 000 ms
    assert.strictEqual(report.verdict.status, 'inconclusive');
    assert.match(report.verdict.reasons[0], /covered 50138 ms of the declared 110000 ms steady window/);
    // a plateau ending 61 000 ms: 862 ms short, less than max(1 s, mean send interval) → delivered
    const nearly = await analyse(requests, [SLO_TOTAL], { steadyStartMs: 10_000, steadyEndMs: 61_000 });
    assert.strictEqual(nearly.verdict.status, 'pass');
  });

  it('reads run-level workload figures: achieved start rate, covered steady window, scheduler lag', async () => {
    const requests = run((i) => ({ gateway: 5, queue: 10, generation: 200, lag: i % 50 }));
    const report = await analyse(requests, [
      gate({ id: 'rate', category: 'workload', metric: 'achieved_start_rate', stat: 'value', op: '>=', limit: 9.5 }),
      gate({ id: 'steady', category: 'workload', metric: 'steady_window_ms', stat: 'value', op: '>=', limit: 50_000 }),
      gate({ id: 'lag', category: 'workload', metric: 'scheduler_lag_ms', op: '<=', limit: 40 }),
      gate({ id: 'ttft', category: 'slo', metric: 'server_ttft_ms', op: '<=', limit: 200 }),
    ]);
    const [rate, steady, lag, ttft] = report.gates;
    assert.strictEqual(rate.observed, 500 / 50); // 500 sends in [10 s, 60 s)
    assert.strictEqual(steady.observed, 50_000);
    assert.strictEqual(lag.observed, jsQuantile(requests.slice(100).map((r) => r.scheduler_lag_ms as number), 0.95));
    assert.ok(close(lag.observed, 47));
    assert.strictEqual(lag.status, 'fail');
    // a gate with nothing to measure is never a pass
    assert.deepStrictEqual([ttft.status, ttft.observed, ttft.n], ['no_data', null, 0]);
    assert.strictEqual(report.verdict.status, 'inconclusive');
    assert.match(report.verdict.reasons[0], /Gate lag: scheduler_lag_ms p95 = 47 ms breaks the limit <= 40 ms/);
    assert.match(report.verdict.reasons[1], /Gate ttft has no data/);
  });

  it('is an instrumentation failure when content events could not be parsed, gate or no gate', async () => {
    const requests = run(() => ({ gateway: 5, queue: 10, generation: 200 }));
    const issues = async (store: DuckStore): Promise<void> => {
      await store.run(`INSERT INTO load_issues VALUES (1, 12, 'error', 'content-event-unparsable', 'x'), (1, 40, 'error', 'content-event-unparsable', 'y'), (1, 41, 'warning', 'malformed-json', 'z')`);
    };
    const implicit = await analyse(requests, [SLO_TOTAL], STEADY, {}, requests.length, issues);
    assert.strictEqual(implicit.verdict.status, 'instrumentation_failure');
    assert.match(implicit.verdict.reasons[0], /^2 content event\(s\) could not be parsed/);
    const explicit = await analyse(
      requests,
      [SLO_TOTAL, gate({ id: 'gates.content', category: 'instrumentation', metric: 'content_event_parse_errors', stat: 'value', op: '<=', limit: 0 })],
      STEADY,
      {},
      requests.length,
      issues,
    );
    assert.deepStrictEqual([explicit.gates[1].observed, explicit.gates[1].status], [2, 'fail']);
    assert.strictEqual(explicit.verdict.status, 'instrumentation_failure');
  });

  it('passes when every gate passes, and stays JSON-safe', async () => {
    const requests = run(() => ({ gateway: 5, queue: 10, generation: 200 }));
    const report = await analyse(requests, [SLO_TOTAL, BUDGET_QUEUE, NEGATIVE]);
    assert.strictEqual(report.verdict.status, 'pass');
    assert.match(report.verdict.reasons[0], /All 3 gate\(s\) passed/);
    assert.deepStrictEqual(JSON.parse(JSON.stringify(report)), report);
  });
});
