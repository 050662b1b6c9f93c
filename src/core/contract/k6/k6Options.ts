/**
 * The k6 `options` object for a contract: scenarios from the workload, thresholds from the SLO and
 * gates. Kept as plain data so tests can compare it with the contract's numbers directly.
 */
import { formatDuration } from '../parse/durations';
import type { LoadContract } from '../types';

export interface K6Scenario {
  executor: string;
  startTime?: string;
  gracefulStop?: string;
  [key: string]: unknown;
}

export interface K6Options {
  scenarios: Record<string, K6Scenario>;
  thresholds: Record<string, string[]>;
  summaryTrendStats: string[];
}

export class K6GenerationError extends Error {}

/** Little's law at the given latency: concurrent requests needed for the peak rate. */
function concurrencyAt(contract: LoadContract, latencyMs: number): number {
  const w = contract.workload;
  const peak = Math.max(w.rate ?? 0, w.startRate ?? 0, ...(w.stages ?? []).map((s) => s.target));
  const perMs = peak / w.timeUnitMs;
  return Math.max(1, Math.ceil(perMs * latencyMs * (w.model === 'hybrid' ? (w.callsPerSession ?? 1) : 1)));
}

function vuBounds(contract: LoadContract): { preAllocatedVUs: number; maxVUs: number } {
  const w = contract.workload;
  // Without a declared bound, allow what the timeout can hold: the generator must not be the bottleneck.
  const maxVUs = w.maxInFlight ?? concurrencyAt(contract, contract.request.timeoutMs);
  const slo = contract.slo.total_ms?.p95 ?? contract.slo.total_ms?.p99 ?? contract.request.timeoutMs;
  const preAllocatedVUs = Math.min(maxVUs, w.preAllocatedVus ?? concurrencyAt(contract, slo));
  return { preAllocatedVUs, maxVUs };
}

function scenarios(contract: LoadContract): Record<string, K6Scenario> {
  const w = contract.workload;
  const gracefulStop = formatDuration(w.drainMs);
  const timeUnit = formatDuration(w.timeUnitMs);
  switch (w.executor) {
    case 'constant-arrival-rate': {
      const rate = w.rate ?? 0;
      const plateau: K6Scenario = { executor: 'constant-arrival-rate', rate, timeUnit, duration: formatDuration(w.plateauMs), ...vuBounds(contract), gracefulStop };
      if (w.rampMs <= 0) return { plateau };
      // constant-arrival-rate cannot ramp: a ramping scenario runs first and the plateau starts after it.
      const ramp: K6Scenario = { executor: 'ramping-arrival-rate', startRate: 0, timeUnit, stages: [{ target: rate, duration: formatDuration(w.rampMs) }], ...vuBounds(contract), gracefulStop: '0s' };
      return { ramp, plateau: { ...plateau, startTime: formatDuration(w.rampMs) } };
    }
    case 'ramping-arrival-rate':
      return {
        stages: {
          executor: 'ramping-arrival-rate',
          startRate: w.startRate ?? 0,
          timeUnit,
          stages: (w.stages ?? []).map((s) => ({ target: s.target, duration: formatDuration(s.durationMs) })),
          ...vuBounds(contract),
          gracefulStop,
        },
      };
    case 'constant-vus':
      return { plateau: { executor: 'constant-vus', vus: w.vus ?? 1, duration: formatDuration(w.rampMs + w.plateauMs), gracefulStop } };
    case 'ramping-vus':
      return {
        stages: {
          executor: 'ramping-vus',
          startVUs: w.vus ?? 0,
          stages: (w.stages ?? []).map((s) => ({ target: s.target, duration: formatDuration(s.durationMs) })),
          gracefulStop,
        },
      };
    default:
      throw new K6GenerationError(`executor \`${w.executor}\` runs a fixed iteration count, which a load contract cannot express as a rate or duration; use constant-arrival-rate, ramping-arrival-rate, constant-vus or ramping-vus`);
  }
}

const STAT_TO_K6: Record<string, string> = { p50: 'med', p95: 'p(95)', p99: 'p(99)' };

function thresholds(contract: LoadContract, steadyScenario: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  // Latency thresholds read successful responses only (errors never make latency look better), and
  // only the plateau scenario when the ramp runs separately (warm-up traffic is not the claim).
  const sel = steadyScenario ? `{expected_response:true,scenario:${steadyScenario}}` : '{expected_response:true}';
  const add = (metric: string, expr: string): void => {
    (out[metric] ??= []).push(expr);
  };
  for (const [stat, ms] of Object.entries(contract.slo.total_ms ?? {})) add(`http_req_duration${sel}`, `${STAT_TO_K6[stat]}<=${ms}`);
  // k6 sees time to first byte; for streaming it equals TTFT only when headers wait for the first token.
  for (const [stat, ms] of Object.entries(contract.slo.ttft_ms ?? {})) add(`http_req_waiting${sel}`, `${STAT_TO_K6[stat]}<=${ms}`);
  const g = contract.gates;
  if (g.errorRate !== undefined) add('http_req_failed', `rate<=${g.errorRate}`);
  if (g.droppedIterations !== undefined && contract.workload.executor.includes('arrival-rate')) add('dropped_iterations', `count<=${g.droppedIterations}`);
  return out;
}

export function k6Options(contract: LoadContract): K6Options {
  const sc = scenarios(contract);
  const steady = 'ramp' in sc ? 'plateau' : undefined;
  return { scenarios: sc, thresholds: thresholds(contract, steady), summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'] };
}
