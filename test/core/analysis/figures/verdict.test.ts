import * as assert from 'assert';
import type { GateResult, OutcomeLedger, TailAttribution } from '../../../../src/core/report/model';
import { decideVerdict, formatGateValue } from '../../../../src/core/analysis/figures/verdict';

const LEDGER: OutcomeLedger = {
  scheduled: 100,
  started: 100,
  succeeded: 97,
  rejected: 3,
  timed_out: 0,
  transport_failed: 0,
  canceled: 0,
  failed: 0,
  generator_dropped: 0,
  in_flight: 0,
  error_rate: 0.03,
  reconciles: true,
  discrepancies: [],
};

const TAIL: TailAttribution = {
  threshold_ms: 900,
  n: 5,
  mean_client_total_ms: 1000,
  phases: [
    { phase: 'network_envelope', mean_ms: 100, share: 0.1 },
    { phase: 'gpu_queue', mean_ms: 600, share: 0.6 },
    { phase: 'generation', mean_ms: 300, share: 0.3 },
  ],
};

function result(g: Partial<GateResult> & Pick<GateResult, 'id' | 'category' | 'metric' | 'observed' | 'limit' | 'status'>): GateResult {
  return { stat: 'p95', op: '<=', n: 100, window: 'whole run, matched successes', ...g };
}

const decide = (gates: GateResult[]) => decideVerdict({ gates, ledger: LEDGER, tailAttribution: TAIL, steadyShort: null, contentEventParseErrors: 0 });

describe('decideVerdict', () => {
  it('names the budget with the largest relative excess, not the largest absolute one', () => {
    const v = decide([
      // 1200 vs 1000: +200 ms but 20 % over
      result({ id: 'b.gen', category: 'budget', metric: 'generation_ms', phase: 'generation', observed: 1200, limit: 1000, status: 'fail' }),
      // 90 vs 50: +40 ms but 80 % over
      result({ id: 'b.q', category: 'budget', metric: 'gpu_queue_ms', phase: 'gpu_queue', observed: 90, limit: 50, status: 'fail' }),
    ]);
    assert.strictEqual(v.status, 'fail');
    assert.strictEqual(v.broken_phase, 'gpu_queue');
    assert.match(v.reasons[2], /its p95 is 80 % past its budget, the largest relative excess of 2 failed budget gate/);
  });

  it('names no phase when only the error rate or a TTFT SLO fails', () => {
    const quality = decide([result({ id: 'q', category: 'quality', metric: 'error_rate', stat: 'value', observed: 0.03, limit: 0.01, status: 'fail' })]);
    assert.deepStrictEqual([quality.status, quality.broken_phase], ['fail', null]);
    assert.match(quality.reasons[0], /error_rate = 3 % breaks the limit <= 1 %/);
    const ttft = decide([result({ id: 's', category: 'slo', metric: 'client_ttft_ms', observed: 900, limit: 500, status: 'fail' })]);
    assert.deepStrictEqual([ttft.status, ttft.broken_phase], ['fail', null]);
    const total = decide([result({ id: 's', category: 'slo', metric: 'client_total_ms', observed: 900, limit: 500, status: 'fail' })]);
    assert.strictEqual(total.broken_phase, 'gpu_queue'); // 60 % of the tail
  });

  it('ranks instrumentation over workload over latency, whatever category a run-level metric is filed under', () => {
    const lag = result({ id: 'lag', category: 'slo', metric: 'scheduler_lag_ms', observed: 80, limit: 50, status: 'fail' });
    const budget = result({ id: 'b', category: 'budget', metric: 'gpu_queue_ms', observed: 80, limit: 50, status: 'fail' });
    const v = decide([budget, lag]);
    assert.strictEqual(v.status, 'inconclusive'); // scheduler lag is a delivery figure even if filed as slo
    assert.deepStrictEqual(v.reasons.map((r) => r.slice(0, 24)), ['Gate lag: scheduler_lag_', 'Also: Gate b: gpu_queue_']);
    const counters = decide([result({ id: 'c', category: 'workload', metric: 'counters_reconcile', stat: 'value', op: '>=', observed: 0, limit: 1, status: 'fail' }), lag]);
    assert.strictEqual(counters.status, 'instrumentation_failure');
  });

  it('formats values with the unit their metric implies', () => {
    assert.strictEqual(formatGateValue('gpu_queue_ms', 'p95', 12.345), '12.3 ms');
    assert.strictEqual(formatGateValue('join_coverage', 'value', 0.9166), '91.66 %');
    assert.strictEqual(formatGateValue('dropped_iterations', 'share', 0.5), '50 %');
    assert.strictEqual(formatGateValue('achieved_start_rate', 'value', 9.876), '9.88/s');
  });
});
