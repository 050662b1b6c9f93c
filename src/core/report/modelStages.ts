/**
 * The report model's stage section (re-exported by model.ts): a stepped run's figures per stage (the
 * contract's stages, or the steps detected in the arrival schedule) and the knee, the first stage
 * where the system stopped keeping up. snake_case: this is the `--format json` output.
 */
import type { ErrorsByClass } from './modelSeries';

/** One owner's figures over a stage's matched successes (quantile_cont; never pooled across stages). */
export interface StageOwnerStat {
  n: number;
  p50: number | null;
  p95: number | null;
}

export interface StageRow {
  index: number;
  /** `stage 2 (→ 20/s)` (declared) or `stage 2 (20.1/s)` (detected). */
  label: string;
  start_offset_ms: number;
  end_offset_ms: number;
  /** The sends cover less than 99 % of the stage (its rates read low; never a knee candidate). */
  partial: boolean;
  /** The target holds over the stage (a step's plateau): only holds are knee candidates when there are any. */
  hold: boolean;
  /**
   * Target start rate (req/s): the contract's, averaged over the stage's linear ramp; for a detected
   * stage, the rate of its scheduled starts. Null when unknown (a VU-based executor, or stages detected
   * from the sends alone).
   */
  target_per_s: number | null;
  /** Scheduled starts per second (per-request records only; dropped iterations are not among them). */
  scheduled_per_s: number | null;
  /** Achieved start rate: requests sent in the stage per second. */
  started_per_s: number;
  /** Requests that ended in the stage (send + client total), per second. */
  completed_per_s: number;
  /** Successes that ended in the stage (send + client total), per second: the throughput the knee compares. */
  goodput_per_s: number;
  /** Mean requests in flight over the stage. */
  in_flight: number;
  started: number;
  succeeded: number;
  /** Outcomes other than success by class, of the requests sent in the stage. */
  errors: ErrorsByClass;
  /** Σ errors / started, null without starts. */
  error_rate: number | null;
  /** Owner column → n, p50 and p95 over the stage's matched successes (the series' owners; p99 and mean are in window_series). */
  owners: Record<string, StageOwnerStat>;
}

export type KneeReason = 'queue_growth' | 'below_target';

/** What the knee test measured at one candidate stage. */
export interface StageCheck {
  index: number;
  /** The earlier candidate with a lower start rate it is compared with (null: none, the queue test did not run). */
  compared_with: number | null;
  /** started_per_s / the compared stage's. */
  load_gain: number | null;
  /** goodput_per_s / the compared stage's. */
  throughput_gain: number | null;
  /** (queue p95 + ε) / (the compared stage's queue p95 + ε), ε = 1 % of the compared stage's client_total_ms p50 (at least 1 ms). */
  queue_gain: number | null;
  /** started / (target × duration). */
  achieved_ratio: number | null;
  reasons: KneeReason[];
}

export interface Knee {
  index: number;
  label: string;
  /** The first reason that held: queue growth before a rate below target. */
  reason: KneeReason;
  reasons: KneeReason[];
  compared_with: number | null;
  /** The evidence in one sentence. */
  text: string;
}

export interface StagesReport {
  /** `contract` (workload.stages), `detected` (steps found in the schedule) or `none` (not a stepped run). */
  source: 'contract' | 'detected' | 'none';
  /** What detected stages were read from: scheduled starts (per-request records) or sends; null otherwise. */
  basis: 'scheduled' | 'send' | null;
  /** The owner whose p95 is the queue time (a phase named gpu_queue, else the first with `queue` in its name). */
  queue_owner: string | null;
  list: StageRow[];
  checks: StageCheck[];
  knee: Knee | null;
  /** Tests that could not run, and why. */
  not_evaluated: string[];
  /** One sentence: where the knee is, that there is none, or why there are no stages. */
  summary: string;
}
