/**
 * The workload's figures, read from any parse (the form shows them while the text has errors): the
 * run's timeline, Little's law against `max_in_flight` and `pre_allocated_vus` (shared with the rule
 * `in-flight-below-littles-law`), and the session tail probability.
 */
import type { ContractContext } from '../rules/context';
import { isArrivalExecutor } from '../defaults';
import { peakRate, timeUnitMs } from '../rules/quantities';
import { SLO_STATS } from './budget';
import type { InFlightEstimate, InFlightRow, SessionTail, SessionTailRow, SloMetric, SloStat, TimelineSegment, WorkloadTimeline } from './types';

const W = '/workload';

/** The steady window as the analysis takes it (toAnalysis.ts): after ramp and warm-up to the end of the plateau, else of the stages. */
export function steadyWindowOf(w: { rampMs: number; plateauMs: number; warmupExcludeMs: number; stagesMs: number }): { startMs: number; endMs: number } | undefined {
  if (w.plateauMs > 0) return { startMs: w.rampMs + w.warmupExcludeMs, endMs: w.rampMs + w.plateauMs };
  if (w.stagesMs > 0) return { startMs: w.warmupExcludeMs, endMs: w.stagesMs };
  return undefined;
}

/** Ramp → plateau (or the stages) → drain, with the rate at each end; durations default as normalize.ts does. */
export function workloadTimeline(ctx: ContractContext): WorkloadTimeline {
  const executor = ctx.str(`${W}/executor`);
  const closed = executor === 'constant-vus' || executor === 'ramping-vus';
  const rate = closed ? (ctx.num(`${W}/vus`) ?? 0) : (ctx.num(`${W}/rate`) ?? 0);
  const rampMs = ctx.ms(`${W}/ramp`) ?? 0;
  const plateauMs = ctx.ms(`${W}/plateau`) ?? 0;
  const drainMs = ctx.ms(`${W}/drain`) ?? 30_000;
  const warmupExcludeMs = ctx.ms(`${W}/warmup_exclude`) ?? 0;
  const segments: TimelineSegment[] = [];
  let t = 0;
  const push = (kind: TimelineSegment['kind'], pointer: string, ms: number, fromRate: number, toRate: number): void => {
    segments.push({ kind, pointer, startMs: t, endMs: t + ms, fromRate, toRate });
    t += ms;
  };
  const stages = ctx.get(`${W}/stages`);
  const stageMs = Array.isArray(stages) ? stages.map((_, i) => ctx.ms(`${W}/stages/${i}/duration`) ?? 0) : [];
  if ((executor === 'ramping-arrival-rate' || executor === 'ramping-vus') && stageMs.length > 0) {
    let from = executor === 'ramping-vus' ? (ctx.num(`${W}/vus`) ?? 0) : (ctx.num(`${W}/start_rate`) ?? 0);
    stageMs.forEach((ms, i) => {
      const to = ctx.num(`${W}/stages/${i}/target`) ?? from;
      push('stage', `${W}/stages/${i}`, ms, from, to);
      from = to;
    });
  } else {
    if (rampMs > 0) push('ramp', `${W}/ramp`, rampMs, 0, rate);
    push('plateau', `${W}/plateau`, plateauMs, rate, rate);
  }
  const last = segments.length > 0 ? segments[segments.length - 1].toRate : 0;
  push('drain', `${W}/drain`, drainMs, last, 0);
  const stagesMs = stageMs.reduce((a, b) => a + b, 0);
  const steady = steadyWindowOf({ rampMs, plateauMs, warmupExcludeMs, stagesMs }) ?? null;
  const warmup = steady && warmupExcludeMs > 0 ? { startMs: steady.startMs - warmupExcludeMs, endMs: steady.startMs } : null;
  return { segments, totalMs: t, steady, warmup, timeUnitMs: timeUnitMs(ctx), unit: closed ? 'vus' : 'arrivals' };
}

/** Calls per k6 iteration: a session's sequential calls in the hybrid model, else one (k6Options.ts concurrencyAt). */
export function callsPerIteration(ctx: ContractContext): number {
  const k = ctx.num(`${W}/calls_per_session`);
  return ctx.str(`${W}/model`) === 'hybrid' && k !== undefined && k >= 1 ? k : 1;
}

/**
 * Little's law for an arrival-rate workload: concurrent requests = arrival rate × time each one is in
 * the system. A request may legitimately take up to the total SLO, so `max_in_flight` (k6 maxVUs)
 * must cover rate × SLO at each objective, × the session's calls in the hybrid model (one VU runs a
 * session's calls one after another). Undefined for closed models or without a rate or total SLO.
 */
export function inFlightEstimate(ctx: ContractContext): InFlightEstimate | undefined {
  if (!isArrivalExecutor(ctx.str(`${W}/executor`))) return undefined;
  const peak = peakRate(ctx);
  if (peak === undefined) return undefined;
  const perMs = peak / timeUnitMs(ctx);
  const k = callsPerIteration(ctx);
  const rows: InFlightRow[] = [];
  let basis: InFlightRow | undefined;
  for (const stat of SLO_STATS) {
    const sloMs = ctx.ms(`/slo/total_ms/${stat}`);
    if (sloMs === undefined) continue;
    const inFlight = perMs * sloMs * k;
    const row = { stat, sloMs, inFlight, needed: Math.ceil(inFlight - 1e-9) };
    rows.push(row);
    if (!basis || sloMs > basis.sloMs) basis = row;
  }
  if (!basis) return undefined;
  return {
    peakPerSecond: perMs * 1000,
    callsPerIteration: k,
    rows,
    basis: basis.stat,
    maxInFlight: ctx.num(`${W}/max_in_flight`) ?? null,
    preAllocatedVus: ctx.num(`${W}/pre_allocated_vus`) ?? null,
  };
}

/** The share of calls an objective allows beyond it: 1 − its quantile (p95 → 5 %). */
export function allowedShare(stat: SloStat): number {
  return (100 - Number(stat.slice(1))) / 100;
}

/** 1 − (1 − share)^k: the chance that a session of k independent calls sees at least one beyond the objective. */
export function sessionTailProbability(share: number, k: number): number {
  return 1 - (1 - share) ** k;
}

export function sessionTail(ctx: ContractContext): SessionTail {
  const declared = ctx.num(`${W}/calls_per_session`);
  const k = declared !== undefined && declared >= 1 ? declared : 1;
  const rows: SessionTailRow[] = [];
  for (const metric of ['total_ms', 'ttft_ms'] as SloMetric[]) {
    for (const stat of SLO_STATS) {
      if (!ctx.has(`/slo/${metric}/${stat}`)) continue;
      const share = allowedShare(stat);
      rows.push({ metric, stat, share, probability: sessionTailProbability(share, k) });
    }
  }
  return { callsPerSession: declared ?? null, rows };
}
