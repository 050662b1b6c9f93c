/**
 * The report model's time sections (re-exported by model.ts): the window series (rates, in-flight,
 * errors by class, tokens per second and every owner's p50/p95 per window), the worst window per SLO
 * metric with the owner that grew, and the diagnoses read from how the owners moved together.
 * snake_case: this is the `--format json` output.
 */

/** One owner's figures in one window: p50/p95/p99 (quantile_cont) and mean over the window's matched successes. */
export interface SeriesStat {
  n: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  mean: number | null;
}

/** Outcomes other than success, by class, counted by send time. */
export interface ErrorsByClass {
  rejected: number;
  timed_out: number;
  transport_failed: number;
  canceled: number;
  failed: number;
}

export interface SeriesWindow {
  index: number;
  /** `stage 2 (40/s)` for a stage series, else null. */
  label: string | null;
  start_offset_ms: number;
  end_offset_ms: number;
  /** The sends cover less than 99 % of the window (its rates read low; the diagnoses compare whole windows). */
  partial: boolean;
  /** Requests per second by scheduled time (per-request records only; null without scheduled offsets). */
  scheduled_per_s: number | null;
  started_per_s: number;
  /** Requests that ended in the window (send + client total), per second. */
  completed_per_s: number;
  /** Mean number of requests in flight (Σ overlap of each request's [send, end) with the window / window length). */
  in_flight: number;
  started: number;
  succeeded: number;
  errors: ErrorsByClass;
  /** Output tokens of the successes that ended in the window, per second. */
  tokens_per_s: number | null;
  /** Owner column (`network_envelope_ms`, `gateway_ms`, …) → its figures over the window's matched successes. */
  owners: Record<string, SeriesStat>;
}

/** Where an SLO metric was worst, and which owner's mean grew there against the typical window. */
export interface WorstWindow {
  /** The SLO figure, e.g. `client_total_ms`. */
  metric: string;
  stat: 'p50' | 'p95' | 'p99' | 'mean';
  /** Where the figure comes from: a gate of the run (its id), or `default`. */
  source: string;
  window: number;
  value: number;
  n: number;
  /** The median of the figure over the series' windows (the typical window). */
  typical: number | null;
  /** The owner whose mean grew most in the worst window against its typical window mean, or null. */
  owner_grew: OwnerGrowth | null;
  /** Every owner's growth, largest first. */
  owners: OwnerGrowth[];
}

export interface OwnerGrowth {
  owner: string;
  /** Mean over the worst window's matched successes. */
  worst_mean_ms: number;
  /** Median of the owner's window means (the typical window). */
  typical_mean_ms: number;
  delta_ms: number;
}

export interface WindowSeries {
  /** `fixed`, `sliding` (windows of size_ms every slide_ms) or `stages` (the contract's stages). */
  kind: 'fixed' | 'sliding' | 'stages';
  size_ms: number | null;
  slide_ms: number | null;
  /** The owner columns every window lists, in report order. */
  owners: string[];
  windows: SeriesWindow[];
  worst: WorstWindow[];
}

export type DiagnosisCode = 'generator-connections' | 'gateway-bound' | 'pool-saturation' | 'batch-pressure' | 'pre-start-wait' | 'outside-root' | 'missing-phase';

/** A figure that moved (or held still) between two windows. */
export interface EvidenceItem {
  /** `transport_setup_ms`, `in_flight`, … */
  figure: string;
  stat: string;
  /** `rose`, `flat` (within the rule's tolerance) or `correlated`. */
  role: 'rose' | 'flat' | 'correlated';
  from_window: number;
  to_window: number;
  from: number | null;
  to: number | null;
  change: number | null;
  /** change / from, when from ≠ 0. */
  relative: number | null;
  n_from: number | null;
  n_to: number | null;
  /** Pearson r across the windows (role `correlated`). */
  r?: number;
  /** The evidence in one sentence. */
  text: string;
}

/** A rule of the symptom table that fired (diagnose/rules.ts). */
export interface Diagnosis {
  code: DiagnosisCode;
  title: string;
  evidence: EvidenceItem[];
  first_check: string;
}

/** What the rules were evaluated on, and the ones that could not be. */
export interface DiagnosisStatus {
  /** `stages` when the contract declares stages with data, else `windows`. */
  basis: 'windows' | 'stages';
  /** Windows with enough matched successes to compare. */
  windows_compared: number;
  evaluated: DiagnosisCode[];
  not_evaluated: Array<{ code: DiagnosisCode; why: string }>;
  /** One sentence: what fired, or that nothing did. */
  summary: string;
}
