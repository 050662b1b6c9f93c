/**
 * A stage's row of the stage table, read from the stage series' window (series/windowSeries.ts: the
 * same SQL for rates, in-flight, errors and the owners' quantiles, each stage its own population) and
 * the stage's declared or detected target.
 */
import type { SeriesWindow, StageOwnerStat, StageRow } from '../../report/model';
import type { StageWindow } from '../options';

/** The mean target rate over a stage that ramps linearly from `targetFromPerS` to `targetToPerS`. */
export function targetOf(stage: StageWindow): number | null {
  const { targetFromPerS: from, targetToPerS: to } = stage;
  if (from === undefined || to === undefined || !Number.isFinite(from) || !Number.isFinite(to)) return null;
  return (from + to) / 2;
}

/** Whether the stage holds its target (no ramp); a stage without a target holds when it was detected flat. */
export function holdsTarget(stage: StageWindow): boolean {
  return stage.targetFromPerS !== undefined && stage.targetFromPerS === stage.targetToPerS;
}

/** `endedOk`: the stage's successes by end time (goodput.ts). */
export function stageRow(stage: StageWindow, window: SeriesWindow, owners: readonly string[], endedOk: number): StageRow {
  const seconds = (stage.endMs - stage.startMs) / 1000;
  const errors = Object.values(window.errors).reduce((a, b) => a + b, 0);
  const stats: Record<string, StageOwnerStat> = {};
  for (const o of owners) {
    const s = window.owners[o];
    if (s !== undefined) stats[o] = { n: s.n, p50: s.p50, p95: s.p95 };
  }
  return {
    index: window.index,
    label: stage.label,
    start_offset_ms: stage.startMs,
    end_offset_ms: stage.endMs,
    partial: window.partial,
    hold: holdsTarget(stage),
    target_per_s: targetOf(stage),
    scheduled_per_s: window.scheduled_per_s,
    started_per_s: window.started_per_s,
    completed_per_s: window.completed_per_s,
    goodput_per_s: seconds > 0 ? endedOk / seconds : 0,
    in_flight: window.in_flight,
    started: window.started,
    succeeded: window.succeeded,
    errors: window.errors,
    error_rate: window.started > 0 ? errors / window.started : null,
    owners: stats,
  };
}
