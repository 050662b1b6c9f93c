/** Derived quantities several rules, the evaluation mapping and k6 generation agree on. */
import type { ContractContext } from './context';
import { DEFAULT_TIME_UNIT_MS } from '../defaults';

export function timeUnitMs(ctx: ContractContext): number {
  return ctx.ms('/workload/time_unit') ?? DEFAULT_TIME_UNIT_MS;
}

/** Highest declared arrival rate per time unit (rate, start_rate or any stage target). */
export function peakRate(ctx: ContractContext): number | undefined {
  const candidates: number[] = [];
  const rate = ctx.num('/workload/rate');
  if (rate !== undefined) candidates.push(rate);
  const start = ctx.num('/workload/start_rate');
  if (start !== undefined) candidates.push(start);
  const stages = ctx.get('/workload/stages');
  if (Array.isArray(stages) && ctx.str('/workload/executor') === 'ramping-arrival-rate') {
    stages.forEach((_, i) => {
      const t = ctx.num(`/workload/stages/${i}/target`);
      if (t !== undefined) candidates.push(t);
    });
  }
  return candidates.length > 0 ? Math.max(...candidates) : undefined;
}

/** The largest total-latency objective (ms) and its statistic: the latency a request may legitimately take. */
export function maxTotalSlo(ctx: ContractContext): { ms: number; stat: string } | undefined {
  let best: { ms: number; stat: string } | undefined;
  for (const stat of ['p50', 'p95', 'p99']) {
    const ms = ctx.ms(`/slo/total_ms/${stat}`);
    if (ms !== undefined && (!best || ms > best.ms)) best = { ms, stat };
  }
  return best;
}

export function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000);
}
