/**
 * The populations every figure is labelled with (docs/metrics.md §1): matched successful requests, all
 * successful client requests, all server roots, and the declared steady window (warm-up excluded).
 */
import type { Params } from '../../store/duckStore';
import type { AnalysisOptions } from '../options';

/** SQL predicates over request_breakdown; they use only trusted column names. */
export const MATCHED_SUCCESS = 'matched AND succeeded';
export const CLIENT_SUCCESS = 'succeeded';

export interface SteadyWindow {
  /** Declared start (ms since the run's first send); null when none was declared. */
  startMs: number | null;
  endMs: number | null;
}

export function steadyWindowOf(options: AnalysisOptions): SteadyWindow {
  return { startMs: finiteOption(options.steadyStartMs), endMs: finiteOption(options.steadyEndMs) };
}

function finiteOption(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) ? value : null;
}

export function isSteadyDeclared(w: SteadyWindow): boolean {
  return w.startMs !== null || w.endMs !== null;
}

/**
 * A predicate selecting requests sent inside the steady window [start, end), with the bounds as the
 * parameters at positions `first` and `first + 1` (NULL = unbounded).
 */
export function steadyPredicate(w: SteadyWindow, first = 1): { sql: string; params: Params } {
  const a = `$${first}`;
  const b = `$${first + 1}`;
  return {
    sql: `(${a}::DOUBLE IS NULL OR offset_ms >= ${a}::DOUBLE) AND (${b}::DOUBLE IS NULL OR offset_ms < ${b}::DOUBLE)`,
    params: [w.startMs, w.endMs],
  };
}

/** How a gate result names its population, e.g. `steady 60000–660000 ms, matched successes`. */
export function describeWindow(w: SteadyWindow, population: string): string {
  if (!isSteadyDeclared(w)) return `whole run, ${population}`;
  const start = formatMs(w.startMs ?? 0);
  const range = w.endMs === null ? `from ${start} ms to the end` : `${start}–${formatMs(w.endMs)} ms`;
  return `steady ${range}, ${population}`;
}

function formatMs(ms: number): string {
  return Number.isInteger(ms) ? String(ms) : ms.toFixed(1);
}
