/**
 * The report model: a plain, JSON-serialisable object that every view (CLI text/json/md, the editor's
 * report panel, the waterfall) renders. Field names are snake_case because this object *is* the
 * `--format json` output.
 */
import type { GateCategory, GateStat } from '../analysis/options';
import type { GroupFigures, Grouping, JoinBias, Provenance, UserObserved } from './modelGroups';
import type { Diagnosis, DiagnosisStatus, WindowSeries } from './modelSeries';
import type { StagesReport } from './modelStages';

export type * from './modelGroups';
export type * from './modelSeries';
export type * from './modelStages';

/** Quantiles with linear interpolation (DuckDB quantile_cont); every figure carries its n. */
export interface QuantileSummary {
  n: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  mean: number | null;
  min: number | null;
  max: number | null;
}

/** network_envelope_ms is never clamped: negatives are counted and shown. */
export interface EnvelopeSummary extends QuantileSummary {
  negative: { count: number; share: number; most_negative_ms: number | null };
}

export type MetricTable = Record<string, QuantileSummary | EnvelopeSummary>;

export interface SourceSummary {
  path: string;
  format: string;
  side: 'client' | 'server' | 'summary';
  bytes: number;
  records: number;
  /** Units skipped, all kinds together; `skipped_by_kind` has them by kind, each in its unit. */
  skipped: number;
  /** Skip kind (formats/skips.ts) → how many units of it were skipped (records + skipped = what the file holds). */
  skipped_by_kind: Record<string, { unit: string; count: number }>;
  /** What the `line` of this file's load issues counts: lines (NDJSON, CSV) or elements (JSON documents). */
  position: 'line' | 'element';
}

export interface LoadIssue {
  path: string;
  /** Line (or element, see `position`) the issue is about; null for a whole-file note. */
  line: number | null;
  position: 'line' | 'element';
  severity: 'error' | 'warning' | 'info';
  code: string;
  message: string;
}

export interface JoinSummary {
  /**
   * What client records are joined to spans by: their trace ID, or their request ID against the span
   * attribute `key_attribute` (the contract's `trace.id_source: request_id`). By request ID, the
   * `*_trace_id*` figures count request IDs.
   */
  key: 'trace_id' | 'request_id';
  key_attribute: string | null;
  /**
   * False when no client record carries the key at all (a file of a tool that records none, e.g. vLLM
   * bench serve): the run is client-only, `coverage` is null (not applicable, not 0 %).
   */
  applicable: boolean;
  /** All client records that were started, with or without a trace ID. */
  client_requests: number;
  with_trace_id: number;
  valid_trace_ids: number;
  /** Client trace IDs that are not 32 hex digits, or are all zero. */
  invalid_trace_ids: number;
  /** Client records whose trace ID has exactly one root span. */
  matched: number;
  /** matched / client_requests; null when not `applicable` or without client records. */
  coverage: number | null;
  /** matched / client records with a valid trace ID. */
  coverage_of_valid: number | null;
  unmatched_client: number;
  /** Server roots whose trace ID no client record carries. */
  orphan_server_roots: number;
  /** Client trace IDs whose trace has spans but no root (the root was lost). */
  lost_roots: number;
  /** Trace IDs seen more than once on the client side plus traces with several candidate roots. */
  duplicate_trace_ids: number;
  client_duplicate_trace_ids: number;
  server_multi_root_traces: number;
  /** By request ID: request IDs that the spans of more than one trace carry (a server-side collision, never matched). */
  server_ambiguous_ids: number;
  server_traces: number;
  server_spans: number;
}

export type OutcomeName = 'succeeded' | 'rejected' | 'timed_out' | 'transport_failed' | 'canceled' | 'failed';

export interface OutcomeLedger {
  scheduled: number | null;
  started: number;
  succeeded: number;
  rejected: number;
  timed_out: number;
  transport_failed: number;
  canceled: number;
  failed: number;
  generator_dropped: number;
  /** Requests the generator reports as iterations but that no record shows (in flight at the end, or lost). */
  in_flight: number;
  error_rate: number | null;
  /** scheduled = started + generator_dropped and started = Σ outcomes, after the drain. */
  reconciles: boolean;
  /** One sentence per equation that does not hold, with both sides. */
  discrepancies: string[];
}

export interface WindowFigures {
  index: number;
  start_offset_ms: number;
  end_offset_ms: number;
  started: number;
  succeeded: number;
  errors: number;
  client_total_ms: QuantileSummary;
  network_envelope_ms: QuantileSummary;
  /** Whether the window lies inside the steady window (warm-up excluded). */
  steady: boolean;
}

export interface WindowReport {
  size_ms: number;
  windows: WindowFigures[];
  /** Index of the window with the highest client_total_ms p95 (n ≥ 1), or null. */
  worst: number | null;
}

export interface TailFigures {
  /** client_total_ms p95 / p50 over matched successes. */
  tail_ratio: number | null;
  budget_ms: number | null;
  /** Fraction of successful requests above the budget. */
  tail_share: number | null;
  calls_per_session: number | null;
  /** 1 − (1 − tail_share)^k. */
  session_tail_probability: number | null;
}

export interface PhaseShare {
  /** `network_envelope`, a phase name, or `unattributed_server`. */
  phase: string;
  mean_ms: number;
  share: number;
}

export interface TailAttribution {
  /** client_total_ms p95 of matched successes; the tail is the requests above it. */
  threshold_ms: number | null;
  n: number;
  mean_client_total_ms: number | null;
  phases: PhaseShare[];
}

export interface GateResult {
  id: string;
  category: GateCategory;
  metric: string;
  stat: GateStat;
  op: '<=' | '<' | '>=' | '>';
  limit: number;
  observed: number | null;
  n: number | null;
  /** e.g. `steady 60000–660000 ms, matched successes`. */
  window: string;
  status: 'pass' | 'fail' | 'no_data';
  phase?: string;
  origin?: string;
}

export type VerdictStatus = 'pass' | 'fail' | 'inconclusive' | 'instrumentation_failure' | 'not_evaluated';

export interface Verdict {
  status: VerdictStatus;
  /** The phase whose budget broke (fail only). */
  broken_phase: string | null;
  reasons: string[];
}

/** One span of a trace, for the waterfall. Times are ms relative to the root start. */
export interface WaterfallSpan {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  service: string | null;
  kind: string;
  start_ms: number;
  duration_ms: number;
  depth: number;
  phase: string | null;
  status: string;
  /** Present (true) when the parent is a Jaeger FOLLOWS_FROM reference: asynchronous work. */
  follows_from?: boolean;
}

export interface TraceBreakdown {
  trace_id: string;
  outcome: string;
  start_ms: number | null;
  client_total_ms: number | null;
  server_root_ms: number | null;
  network_envelope_ms: number | null;
  transport_setup_ms: number | null;
  /** `<phase>_ms` → ms. */
  phases: Record<string, number>;
  unattributed_server_ms: number | null;
  client_ttft_ms: number | null;
  server_ttft_ms: number | null;
}

export interface K6SummaryComparison {
  path: string;
  /** metric → stat → value, as k6 reported it. */
  metrics: Record<string, Record<string, number>>;
}

export interface Report {
  phasewise_version: string;
  inputs: SourceSummary[];
  load_issues: { total: number; by_code: Record<string, number>; examples: LoadIssue[] };
  join: JoinSummary;
  /** docs/metrics.md §1 metrics over matched successful requests. */
  metrics: MetricTable;
  /** Over all successful client requests (comparable with k6's own summary). */
  client_only: MetricTable;
  /** Over all server roots. */
  server_only: MetricTable;
  outcomes: OutcomeLedger;
  windows: WindowReport;
  tail: TailFigures;
  tail_attribution: TailAttribution;
  gates: GateResult[];
  verdict: Verdict;
  slow_traces: TraceBreakdown[];
  k6_summaries: K6SummaryComparison[];
  /** Definitions printed beside figures whose meaning varies (ITL, TTFB vs TTFT). */
  definitions: Record<string, string>;
  warnings: string[];
  /** How the run was grouped, and the dimensions whose values the whole-run figures mix. */
  grouping: Grouping;
  /** One entry per group (route, model, …), each with the sections of the whole run. */
  groups: GroupFigures[];
  /** Per window: rates, in-flight, errors by class, tokens/s and every owner's p50/p95; the worst window per SLO metric. */
  window_series: WindowSeries;
  /** The symptom table's rules that fired on the window series (or the stages), with their evidence. */
  diagnoses: Diagnosis[];
  diagnosis_status: DiagnosisStatus;
  /** Matched against unmatched requests: whether the decomposition describes a biased sample. */
  join_bias: JoinBias;
  /** First-content time and a censored total, beside the API figures. */
  user_observed: UserObserved;
  /** What a later comparison needs: inputs with their SHA-256, the contract, resources, options. */
  provenance: Provenance;
  /** A stepped run's figures per stage (declared or detected) and the knee. */
  stages: StagesReport;
}
