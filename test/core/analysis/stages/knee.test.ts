import * as assert from 'assert';
import { isFlat, segmentRate, stepsOf } from '../../../../src/core/analysis/stages/detectSteps';
import { findKnee } from '../../../../src/core/analysis/stages/knee';
import type { StageRow } from '../../../../src/core/report/model';

/** A held stage of 60 s with the given rates (per second) and queue p95; client_total p50 1000 ms (ε = 10 ms). */
function row(index: number, target: number | null, started: number, goodput: number, queueP95: number, extra: Partial<StageRow> = {}): StageRow {
  return {
    index,
    label: `s${index}`,
    start_offset_ms: index * 60_000,
    end_offset_ms: (index + 1) * 60_000,
    partial: false,
    hold: true,
    target_per_s: target,
    scheduled_per_s: null,
    started_per_s: started,
    completed_per_s: goodput,
    goodput_per_s: goodput,
    in_flight: 1,
    started: started * 60,
    succeeded: goodput * 60,
    errors: { rejected: 0, timed_out: 0, transport_failed: 0, canceled: 0, failed: 0 },
    error_rate: 0,
    owners: { client_total_ms: { n: 500, p50: 1000, p95: 2000 }, gpu_queue_ms: { n: 500, p50: queueP95 / 2, p95: queueP95 } },
    ...extra,
  };
}

describe('the knee rule on hand-built stages', () => {
  it('is the first stage whose queue gain (with ε) exceeds its throughput gain, against the last lower stage', () => {
    // s1: Q = (12 + 10) / (2 + 10) = 1.83 < T = 2: no knee. s2: Q = (400 + 10) / (12 + 10) = 18.6 > T = 25/20 = 1.25.
    const rows = [row(0, 10, 10, 10, 2), row(1, 20, 20, 20, 12), row(2, 30, 30, 25, 400), row(3, 40, 40, 25, 9000)];
    const { knee, checks } = findKnee(rows, 'gpu_queue_ms');
    assert.strictEqual(knee?.index, 2);
    assert.deepStrictEqual([knee?.reason, knee?.reasons, knee?.compared_with], ['queue_growth', ['queue_growth'], 1]);
    assert.ok(Math.abs((checks[1].queue_gain as number) - 22 / 12) < 1e-12);
    assert.ok(Math.abs((checks[2].queue_gain as number) - 410 / 22) < 1e-12);
    assert.deepStrictEqual(checks.map((c) => [c.compared_with, c.load_gain, c.throughput_gain]), [
      [null, null, null],
      [0, 2, 2],
      [1, 1.5, 1.25],
      [2, 40 / 30, 1],
    ]);
  });

  it('finds none while the queue grows no faster than the throughput, and needs a load rise of 5 % to compare', () => {
    const rows = [row(0, 10, 10, 10, 0.4), row(1, 20, 20, 20, 0.4), row(2, 20.5, 20.5, 20.5, 5)];
    const { knee, checks } = findKnee(rows, 'gpu_queue_ms');
    assert.strictEqual(knee, null);
    // s2 started only 2.5 % more than s1, so it is compared with s0: Q = (5 + 10) / (0.4 + 10) = 1.44 < T = 2.05.
    assert.strictEqual(checks[2].compared_with, 0);
    const again = findKnee([row(0, 10, 10, 10, 0.4), row(1, 10.2, 10.2, 10.2, 50)], 'gpu_queue_ms');
    assert.deepStrictEqual([again.knee, again.checks[1].compared_with], [null, null]);
  });

  it('is a stage that started below 95 % of its target and 3 √expected short of it', () => {
    // Expected 30 × 60 = 1800: 1700 is 94.4 % but only 2.4 σ (√1800 = 42.4) short: no knee; 1650 is 3.5 σ short.
    assert.strictEqual(findKnee([row(0, 10, 10, 10, 1), row(1, 30, 1700 / 60, 1700 / 60, 1)], 'gpu_queue_ms').knee, null);
    const { knee, checks } = findKnee([row(0, 10, 10, 10, 1), row(1, 30, 27.5, 27.5, 1)], 'gpu_queue_ms');
    assert.deepStrictEqual([knee?.index, knee?.reason], [1, 'below_target']);
    assert.strictEqual(checks[1].achieved_ratio, 1650 / 1800);
  });

  it('takes held stages only when some hold, never a partial one, and says what it could not test', () => {
    const ramp = row(1, 15, 15, 10, 5000, { hold: false });
    const partial = row(3, 40, 20, 10, 9000, { partial: true });
    const { knee, checks, not_evaluated } = findKnee([row(0, 10, 10, 10, 1), ramp, row(2, 20, 20, 20, 1), partial], 'gpu_queue_ms');
    assert.strictEqual(knee, null);
    assert.deepStrictEqual(checks.map((c) => c.index), [0, 2]);
    assert.deepStrictEqual(not_evaluated, []);
    const blind = findKnee([row(0, null, 10, 10, 1), row(1, null, 20, 10, 5000)], null);
    assert.strictEqual(blind.knee, null);
    assert.strictEqual(blind.not_evaluated.length, 2);
  });
});

describe('step detection on counts per bin', () => {
  it('cuts a noiseless step from 10 to 20 per bin exactly where it is', () => {
    const counts = [...Array<number>(40).fill(10), ...Array<number>(40).fill(20)];
    const pieces = segmentRate(counts);
    assert.deepStrictEqual(pieces, [
      { fromBin: 0, toBin: 40, perBin: 10, slope: 0, flat: true },
      { fromBin: 40, toBin: 80, perBin: 20, slope: 0, flat: true },
    ]);
    assert.deepStrictEqual(stepsOf(pieces, 80, 1000).stages, [
      { label: 'stage 1 (10/s)', startMs: 0, endMs: 40_000, targetFromPerS: 10, targetToPerS: 10 },
      { label: 'stage 2 (20/s)', startMs: 40_000, endMs: 80_000, targetFromPerS: 20, targetToPerS: 20 },
    ]);
  });

  it('keeps one piece for a constant rate and joins steps closer than 10 %', () => {
    assert.strictEqual(segmentRate(Array<number>(120).fill(20)).length, 1);
    const close = [...Array<number>(40).fill(20), ...Array<number>(40).fill(21)];
    assert.strictEqual(segmentRate(close).length, 1);
  });

  it('calls a linear ramp a ramp, not a stepped run', () => {
    const ramp = Array.from({ length: 60 }, (_, i) => i);
    assert.strictEqual(isFlat(ramp), false);
    const plateau = [...ramp.slice(0, 20), ...Array<number>(60).fill(20)];
    const result = stepsOf(segmentRate(plateau), plateau.length, 1000);
    assert.deepStrictEqual(result.stages, []);
    assert.match(result.why, /not in flat steps|holds steady/);
    // Two pieces that look flat but join up at the boundary (a ramp's two halves, each within noise of
    // flat): no jump, so no step. Lines at the boundary: 10 + 0.1 × 10 = 11 and 11.5 − 0.1 × 10 = 10.5.
    const halves = [
      { fromBin: 0, toBin: 20, perBin: 10, slope: 0.1, flat: true },
      { fromBin: 20, toBin: 40, perBin: 11.5, slope: 0.1, flat: true },
    ];
    assert.match(stepsOf(halves, 40, 1000).why, /at 20 s moves on without a jump/);
  });
});
