/**
 * The run report's view model: the Report (the `--format json` object) plus what only the pictures
 * need (the envelope histogram, per-window owner p95s, the configuration, gate → contract links).
 * Plain JSON: the report webview's initial data and the data embedded in an exported HTML file.
 */
import type { Report, TraceBreakdown } from '../model';
import type { TraceComparison, TraceModel } from '../../analysis/trace/types';

/** One bucket [from_ms, to_ms) of network_envelope_ms over matched successes. */
export interface HistogramBin {
  from_ms: number;
  to_ms: number;
  count: number;
}

/** Bucket edges are multiples of `bin_ms`, so no bucket straddles zero: negatives are whole buckets. */
export interface EnvelopeHistogram {
  n: number;
  bin_ms: number;
  bins: HistogramBin[];
  negative: number;
}

/** p95 of each owner in one window (matched successes), keyed like tail attribution's phases. */
export interface WindowOwnerP95 {
  index: number;
  n: number;
  /** `network_envelope`, each phase name, `unattributed_server` → p95 ms (null: no data). */
  p95: Record<string, number | null>;
}

/** Where a gate was declared, for "open the contract there". */
export interface GateLink {
  path: string;
  line: number | null;
}

/** The settings the run was evaluated with, as the report states them. */
export interface RunConfiguration {
  contract: string | null;
  window_size_ms: number;
  steady_window: { start_ms: number | null; end_ms: number | null };
  root: { service: string | null; span_name: string | null };
  phases: { name: string; selectors: string[] }[];
  timestamp_granularity_ms: number;
  first_token: { event: string; span: string };
  content_event: string | null;
  trace_id_tag: string;
  slow_trace_count: number;
  calls_per_session: number | null;
  tail_budget_ms: number | null;
  gates: { id: string; rule: string; origin: string | null }[];
}

/** The traces of one window or histogram bucket (TraceSelection in the core). */
export interface EmbeddedTraceList {
  key: string;
  traces: TraceBreakdown[];
  total: number;
}

/** Only in an exported HTML file: what the file can answer without a host. */
export interface EmbeddedData {
  /** `window:<index>` / `envelope:<from>:<to>` → the slowest traces there (at most `list_limit`). */
  trace_lists: EmbeddedTraceList[];
  list_limit: number;
  /** The waterfall of every listed slow trace, by trace ID. */
  waterfalls: Record<string, TraceModel>;
  comparisons: Record<string, TraceComparison | null>;
}

export interface ReportViewModel {
  /** A short name for the run (its input files). */
  title: string;
  report: Report;
  envelope_histogram: EnvelopeHistogram;
  window_owners: WindowOwnerP95[];
  configuration: RunConfiguration;
  /** Gate id → where the contract declares it. */
  gate_links: Record<string, GateLink>;
  embedded: EmbeddedData | null;
}

/** The key of a window's or a bucket's embedded trace list. */
export function traceListKey(selection: { kind: 'window'; index: number } | { kind: 'envelope'; from_ms: number; to_ms: number }): string {
  return selection.kind === 'window' ? `window:${selection.index}` : `envelope:${selection.from_ms}:${selection.to_ms}`;
}

/** What an exported HTML file embeds (webview/shared/standalone.ts reads it). */
export type EmbeddedPage =
  | { kind: 'report'; model: ReportViewModel }
  | { kind: 'trace'; run: string | null; trace: TraceModel; comparison: TraceComparison | null; reason: string | null };
