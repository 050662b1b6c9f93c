/**
 * A stage section built by hand for the renderer tests: two held steps of 60 s (10/s and 20/s) with a
 * ramp between them, the queue p95 grown from 2 ms to 900 ms at the second step: the knee is there.
 */
import type { StageRow, StagesReport } from '../../../src/core/report/model';

function stage(index: number, label: string, startS: number, endS: number, target: number, started: number, queueP95: number, hold = true): StageRow {
  const s = endS - startS;
  return {
    index,
    label,
    start_offset_ms: startS * 1000,
    end_offset_ms: endS * 1000,
    partial: false,
    hold,
    target_per_s: target,
    scheduled_per_s: started / s,
    started_per_s: started / s,
    completed_per_s: (started - 10) / s,
    goodput_per_s: (started - 12) / s,
    in_flight: 4.5 * (index + 1),
    started,
    succeeded: started - 12,
    errors: { rejected: 12, timed_out: 0, transport_failed: 0, canceled: 0, failed: 0 },
    error_rate: 12 / started,
    owners: {
      client_total_ms: { n: started - 12, p50: 1200, p95: 1800 + queueP95 },
      network_envelope_ms: { n: started - 12, p50: 1.1, p95: 2.3 },
      transport_setup_ms: { n: started - 12, p50: 0, p95: 0 },
      gpu_queue_ms: { n: started - 12, p50: queueP95 / 3, p95: queueP95 },
      unattributed_server_ms: { n: started - 12, p50: 0.4, p95: 0.9 },
      client_ttft_ms: { n: 0, p50: null, p95: null },
    },
  };
}

export function handBuiltStages(): StagesReport {
  return {
    source: 'contract',
    basis: null,
    queue_owner: 'gpu_queue_ms',
    list: [stage(0, 'stage 1 (→ 10/s)', 0, 60, 10, 600, 2), stage(1, 'stage 2 (→ 20/s)', 60, 61, 15, 18, 3, false), stage(2, 'stage 3 (→ 20/s)', 61, 121, 20, 1200, 900)],
    checks: [
      { index: 0, compared_with: null, load_gain: null, throughput_gain: null, queue_gain: null, achieved_ratio: 1, reasons: [] },
      { index: 2, compared_with: 0, load_gain: 2, throughput_gain: 2.02, queue_gain: 65.3, achieved_ratio: 1, reasons: ['queue_growth'] },
    ],
    knee: {
      index: 2,
      label: 'stage 3 (→ 20/s)',
      reason: 'queue_growth',
      reasons: ['queue_growth'],
      compared_with: 0,
      text: 'stage 3 (→ 20/s): gpu_queue_ms p95 2 → 900 ms (×65.30 with ε) against stage 1 (→ 10/s), while successes ended/s went 9.8 → 19.8 (×2.02) as starts/s rose 10 → 20 (×2)',
    },
    not_evaluated: [],
    summary: 'knee at stage 3 (→ 20/s) (queue_growth) of 3 stages (the contract\'s stages)',
  };
}
