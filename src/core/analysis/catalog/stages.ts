/**
 * The stage table's figures, declared once: which owners each stage lists (the window series' owners,
 * catalog/series.ts), which of them is the queue time the knee reads, and the knee's thresholds
 * (docs/metrics.md, "Stages and the knee").
 */
import { seriesOwnerColumns } from './series';

/** The owners a stage row lists (n and p95 over the stage's matched successes): the series' owners. */
export function stageOwnerColumns(phaseColumns: readonly string[]): string[] {
  return seriesOwnerColumns(phaseColumns);
}

/**
 * The queue owner: the default `gpu_queue` phase when mapped, else the first phase whose name says
 * queue (`queue_ms`, `kv_queue_ms`); null when no phase is a queue (the queue test cannot run).
 */
export function queueOwnerOf(phaseColumns: readonly string[]): string | null {
  if (phaseColumns.includes('gpu_queue_ms')) return 'gpu_queue_ms';
  return phaseColumns.find((c) => /queue/i.test(c)) ?? null;
}

export const KNEE = {
  /** A stage is compared with an earlier one whose start rate is at least this much lower (5 %). */
  minLoadRise: 0.05,
  /** Both stages need this many queue values (the series' MIN_WINDOW_N). */
  minQueueN: 20,
  /** ε of the queue gain: this share of the compared stage's client_total_ms p50 … */
  queueFloorShare: 0.01,
  /** … and at least this many ms, so a queue that stays near zero does not read as growth. */
  queueFloorMs: 1,
  /** Below target: started < ratio × expected (the contract gate's usual 0.95) … */
  achievedRatio: 0.95,
  /** … and more than this many Poisson standard deviations (√expected) short of it. */
  achievedSigmas: 3,
} as const;
