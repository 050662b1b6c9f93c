/**
 * The knee of a stepped run: the first candidate stage where the queue time grew faster than the
 * throughput followed the arrival rate, or where the achieved start rate fell below the target.
 *
 * Candidates: the stages that hold their target when any does (a ramp between two steps is listed, but
 * has no one load level), else every stage; never a partial one. A candidate is compared with the last
 * earlier candidate whose start rate is at least 5 % lower:
 * - queue_growth: Q > T, where T = successes ended/s here ÷ there (how far the throughput followed a load
 *   that rose by L = starts/s here ÷ there; T ≈ L below saturation, T ≈ 1 past it) and
 *   Q = (queue p95 here + ε) ÷ (queue p95 there + ε), ε = 1 % of the compared stage's client_total_ms
 *   p50 (at least 1 ms): a queue that stays a few ms is not growth;
 * - below_target: started < 95 % of target × duration and more than 3 √(target × duration) short
 *   (beyond the noise of a Poisson schedule; a k6 arrival-rate executor starts exactly on time).
 */
import type { Knee, KneeReason, StageCheck, StageRow } from '../../report/model';
import { KNEE } from '../catalog/stages';

export interface KneeResult {
  checks: StageCheck[];
  knee: Knee | null;
  not_evaluated: string[];
}

function fmt(v: number, digits = 1): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}

function candidatesOf(rows: readonly StageRow[]): StageRow[] {
  const whole = rows.filter((r) => !r.partial);
  return whole.some((r) => r.hold) ? whole.filter((r) => r.hold) : whole;
}

/** The queue test of `row` against `base`: the gains, or null gains when either lacks the data. */
function queueTest(row: StageRow, base: StageRow | undefined, queueOwner: string | null): Pick<StageCheck, 'load_gain' | 'throughput_gain' | 'queue_gain'> {
  const none = { load_gain: null, throughput_gain: null, queue_gain: null };
  if (base === undefined) return none;
  const load = row.started_per_s / base.started_per_s;
  const throughput = base.goodput_per_s > 0 ? row.goodput_per_s / base.goodput_per_s : null;
  const q = queueOwner === null ? undefined : row.owners[queueOwner];
  const qb = queueOwner === null ? undefined : base.owners[queueOwner];
  if (q === undefined || qb === undefined || q.p95 === null || qb.p95 === null || q.n < KNEE.minQueueN || qb.n < KNEE.minQueueN) {
    return { load_gain: load, throughput_gain: throughput, queue_gain: null };
  }
  const eps = Math.max(KNEE.queueFloorMs, KNEE.queueFloorShare * (base.owners.client_total_ms?.p50 ?? 0));
  return { load_gain: load, throughput_gain: throughput, queue_gain: (q.p95 + eps) / (qb.p95 + eps) };
}

/** started / (target × duration), and whether it is short beyond the Poisson noise. */
function targetTest(row: StageRow): { ratio: number | null; below: boolean; expected: number } {
  if (row.target_per_s === null || !(row.target_per_s > 0)) return { ratio: null, below: false, expected: 0 };
  const expected = (row.target_per_s * (row.end_offset_ms - row.start_offset_ms)) / 1000;
  const ratio = row.started / expected;
  const below = row.started < KNEE.achievedRatio * expected && row.started < expected - KNEE.achievedSigmas * Math.sqrt(expected);
  return { ratio, below, expected };
}

export function findKnee(rows: readonly StageRow[], queueOwner: string | null): KneeResult {
  const notEvaluated: string[] = [];
  if (queueOwner === null) notEvaluated.push('queue_growth: no phase is a queue (map a phase named gpu_queue, or one whose name says queue)');
  if (rows.every((r) => r.target_per_s === null)) notEvaluated.push('below_target: the stages have no target start rate (a VU-based executor, or steps found in the sends alone)');
  const candidates = candidatesOf(rows);
  const checks: StageCheck[] = [];
  let knee: Knee | null = null;
  candidates.forEach((row, i) => {
    const base = candidates.slice(0, i).reverse().find((b) => b.started_per_s > 0 && b.started_per_s <= (1 - KNEE.minLoadRise) * row.started_per_s);
    const gains = queueTest(row, base, queueOwner);
    const target = targetTest(row);
    const reasons: KneeReason[] = [];
    if (gains.queue_gain !== null && gains.throughput_gain !== null && gains.queue_gain > gains.throughput_gain) reasons.push('queue_growth');
    if (target.below) reasons.push('below_target');
    checks.push({ index: row.index, compared_with: base?.index ?? null, ...gains, achieved_ratio: target.ratio, reasons });
    if (knee !== null || reasons.length === 0) return;
    const parts: string[] = [];
    if (reasons.includes('queue_growth') && base !== undefined && queueOwner !== null) {
      const q = row.owners[queueOwner].p95 as number;
      const qb = base.owners[queueOwner].p95 as number;
      parts.push(
        `${queueOwner} p95 ${fmt(qb)} → ${fmt(q)} ms (×${fmt(gains.queue_gain as number, 2)} with ε) against ${base.label}, ` +
          `while successes ended/s went ${fmt(base.goodput_per_s)} → ${fmt(row.goodput_per_s)} (×${fmt(gains.throughput_gain as number, 2)}) ` +
          `as starts/s rose ${fmt(base.started_per_s)} → ${fmt(row.started_per_s)} (×${fmt(gains.load_gain as number, 2)})`,
      );
    }
    if (reasons.includes('below_target')) {
      parts.push(
        `started ${row.started} of the ${fmt(target.expected, 0)} the target of ${fmt(row.target_per_s as number)}/s schedules (${Math.round((target.ratio as number) * 100)} %): ` +
          'the generator could not keep up (dropped iterations, too few VUs) or the system held it back',
      );
    }
    knee = { index: row.index, label: row.label, reason: reasons[0], reasons, compared_with: base?.index ?? null, text: `${row.label}: ${parts.join('; ')}` };
  });
  return { checks, knee, not_evaluated: notEvaluated };
}
