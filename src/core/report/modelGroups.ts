/**
 * The report model's population sections (re-exported by model.ts): groups (each with the same
 * sections as the whole run), the join-bias test, the user-observed figures and the provenance a later
 * comparison needs. snake_case: this is the `--format json` output.
 */
import type { MetricTable, OutcomeLedger, QuantileSummary, TailAttribution, TailFigures } from './model';
import type { Diagnosis, DiagnosisStatus, WindowSeries } from './modelSeries';

/** A group's outcome counts (client requests started in the group): the ledger's outcome columns. */
export type GroupOutcomes = Pick<OutcomeLedger, 'started' | 'succeeded' | 'rejected' | 'timed_out' | 'transport_failed' | 'canceled' | 'failed' | 'error_rate'>;

export interface GroupJoin {
  client_requests: number;
  matched: number;
  coverage: number | null;
}

/** One group: its dimension values and the sections of the whole run over its requests. */
export interface GroupFigures {
  /** `model=llama-3.1-8b-instruct, route=chat` (a dimension without a value prints as `(none)`). */
  key: string;
  /** Dimension → value (null: the request carries no value for it). */
  dimensions: Record<string, string | null>;
  /** Successful client requests: the n its p95 would rest on. */
  successes: number;
  /** Fewer successes than the floor: shown with its n, not to be read as a p95. */
  too_small: boolean;
  join: GroupJoin;
  metrics: MetricTable;
  client_only: MetricTable;
  /** The roots of the group's matched requests (a root no client record carries is in no group). */
  server_only: MetricTable;
  outcomes: GroupOutcomes;
  tail: TailFigures;
  tail_attribution: TailAttribution;
  user_observed: UserObserved;
  window_series: WindowSeries;
  diagnoses: Diagnosis[];
  diagnosis_status: DiagnosisStatus;
}

/** A dimension with more than one value in the run: the overall figures mix them. */
export interface DimensionMix {
  dimension: string;
  values: Array<{ value: string; calls: number }>;
}

export interface Grouping {
  /** The dimensions grouped by (empty: no groups). */
  by: string[];
  /** `auto` (route and model where the run holds several), `option` (--group-by) or `contract` (report.group_by). */
  source: 'auto' | 'option' | 'contract';
  min_group_size: number;
  /** Route and model when the run holds several: the whole run's tail mixes them. */
  mixes: DimensionMix[];
  /** Groups past the report's limit, merged into these counts rather than listed. */
  omitted: { groups: number; calls: number };
  /** Where each dimension's value comes from. */
  definitions: Record<string, string>;
}

/** Client-side figures of one side of the join (successful requests). */
export interface JoinSide {
  n: number;
  p50: number | null;
  p95: number | null;
}

/** Matched against unmatched successful requests (client_total_ms): is the joined sample biased? */
export interface JoinBias {
  matched: JoinSide;
  unmatched: JoinSide;
  test: 'two-sample Kolmogorov–Smirnov';
  /** sup |F_matched − F_unmatched|; null when a side is empty. */
  statistic: number | null;
  /** Asymptotic two-sided p-value (Kolmogorov distribution, Stephens' small-sample correction). */
  p_value: number | null;
  /** The decomposition describes a skewed sample (p < alpha, a side large enough, the medians apart). */
  biased: boolean;
  alpha: number;
  /** The contract's trace.sampling, when declared. */
  declared_sampling: number | null;
  /** One sentence for the report. */
  message: string;
}

/** A quantile summary with the population's bookkeeping. */
export interface CensoredSummary extends QuantileSummary {
  /** Successes counted at their own total (below the timeout). */
  succeeded: number;
  /** Timed-out calls and successes at or past the timeout, counted at the timeout value. */
  censored: number;
  /** Started calls left out: rejected, failed, transport failures, canceled. */
  excluded: number;
}

/** What a user of the API sees, beside the API's own figures. */
export interface UserObserved {
  /** scheduler lag + TTFT (streaming) or + the total (non-streaming): planned start → first content, per successful request with a scheduled time. */
  first_content_ms: QuantileSummary;
  /** client_total_ms over successes and timeouts, each capped at the timeout (a call that timed out counts at the timeout). */
  censored_total_ms: CensoredSummary;
  /** The timeout used, or null (none declared: a timed-out call counts at its own duration). */
  timeout_ms: number | null;
  /** The API figure beside them: client_total_ms over successes only. */
  api_total_ms: QuantileSummary;
  definitions: Record<string, string>;
}

export interface InputProvenance {
  path: string;
  format: string;
  side: string;
  bytes: number;
  /** SHA-256 of the file's bytes as loaded (null: loaded by a Phasewise that did not record it). */
  sha256: string | null;
}

/** The identity of a system that wrote spans, from its OTLP resource. */
export interface ResourceIdentity {
  service_name: string | null;
  service_version: string | null;
  sdk_name: string | null;
  sdk_version: string | null;
  sdk_language: string | null;
  schema_url: string | null;
  /** Files (paths) it was seen in. */
  sources: string[];
}

export interface Provenance {
  phasewise_version: string;
  inputs: InputProvenance[];
  contract: { path: string; name: string; sha256: string; bytes: number } | null;
  /** Distinct OTLP resources (service, SDK, schema URL) of the span files. */
  resources: ResourceIdentity[];
  /** How the resources were read: every document, or the first documents of a large file. */
  resources_note: string;
  /** Services named by the loaded spans, with their span counts (every span, every format). */
  services: Array<{ service: string | null; spans: number }>;
  sampling: { declared: number | null; source: 'contract' | null };
  /** The analysis options, as given (JSON-safe). */
  options: Record<string, unknown>;
}

export type { Diagnosis, DiagnosisStatus, WindowSeries };
