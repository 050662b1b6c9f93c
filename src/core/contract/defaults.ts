/** Defaults shared by normalisation, quick fixes, k6 generation and the template. */

/** Gate defaults, in the order and text a quick fix inserts them. */
export const GATE_DEFAULTS = {
  error_rate: 0.01,
  dropped_iterations: 0,
  scheduler_lag_ms: '50ms',
  join_coverage: 0.95,
  negative_envelope_share: 0.01,
  achieved_rate_ratio: 0.95,
} as const;

export type GateKey = keyof typeof GATE_DEFAULTS;

export const DEFAULT_TIME_UNIT_MS = 1000;
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_WINDOW_MS = 30_000;
/**
 * The window sizes (and slides) taken, from contracts and --window alike: a window shorter than a
 * millisecond is finer than the timestamps, and one longer than a year is a typo; between them the
 * window index of any run (send times lie in 2000–2100) stays a small integer in SQL.
 */
export const MIN_WINDOW_MS = 1;
export const MAX_WINDOW_MS = 365 * 24 * 3_600_000;
export const MIN_PLATEAU_MS = 10 * 60_000;
export const DEFAULT_FIRST_CONTENT_EVENT = 'first_token';

/** Phases every run has besides the trace phases (docs/metrics.md §1). */
export const BUILTIN_BUDGET_PHASES = ['network_envelope', 'unattributed_server', 'transport_setup'] as const;

/** Executors that implement an open (arrival-rate) model in k6. */
export const ARRIVAL_EXECUTORS = ['constant-arrival-rate', 'ramping-arrival-rate'] as const;

export function isArrivalExecutor(executor: string | undefined): boolean {
  return executor === 'constant-arrival-rate' || executor === 'ramping-arrival-rate';
}
