/**
 * The contract form's model: what the form shows of a contract text (its fields with their source
 * values, the diagnostics placed on them) and the arithmetic the contract is about (budgets against
 * SLOs, the workload timeline, Little's law, the session tail). Built from the parse of any text,
 * errors included, so the form never goes blank while the user types. Plain JSON: it crosses the
 * worker and webview boundaries as it is.
 */
import type { SpanMatcher } from '../../analysis/options';
import type { ContractSeverity } from '../types';

/** How a field is edited and how typed text becomes a value (values.ts). */
export type FieldKind = 'duration' | 'number' | 'integer' | 'string' | 'boolean' | 'enum';

/** One scalar of the contract the form can show and edit, present in the text or not. */
export interface FormField {
  pointer: string;
  kind: FieldKind;
  /** Allowed values of an `enum` field. */
  options?: string[];
  /** Whether the text holds a value for it. */
  present: boolean;
  /** The value as the user would type it (a duration keeps its unit; a string its text without quotes). */
  display: string;
  /** The parsed value (`null` when absent or written as null). */
  value: string | number | boolean | null;
  /** What applies when the field is absent (a default the core uses), shown as a placeholder. */
  placeholder?: string;
  /** 1-based line of the key, when present. */
  line?: number;
}

/** A diagnostic of the text editor (same code, severity and message), placed on the field it concerns. */
export interface FormDiagnostic {
  /** Index in the validation's diagnostics: a quick fix from the form names it by this and the document version. */
  index: number;
  code: string;
  severity: ContractSeverity;
  message: string;
  line: number;
  column: number;
  /** The innermost entry whose key or value holds the diagnostic's range ('' = the document). */
  pointer: string;
  /** The quick fix's title, when the diagnostic has one. */
  fix?: string;
}

export type SloMetric = 'total_ms' | 'ttft_ms' | 'itl_ms';
export type SloStat = 'p50' | 'p95' | 'p99';

/** One phase of a budget: its allocation and its share of the SLO it allocates. */
export interface BudgetPhase {
  name: string;
  pointer: string;
  /** Allocation in ms, or null when the value is not a duration. */
  ms: number | null;
  /** `ms / SLO × 100`, or null. */
  pctOfSlo: number | null;
}

/**
 * A budget against the SLO it allocates. `slackMs` is `SLO − Σ phases` (negative: an overrun, which
 * the rule `budgets-exceed-slo` reports with the same figures); null when a figure is missing.
 */
export interface BudgetBreakdown {
  index: number;
  pointer: string;
  /** `metric.stat`, e.g. `total_ms.p95`, or null when absent. */
  allocates: string | null;
  sloMs: number | null;
  /** The `when` condition as `key value` pairs, in the text's order. */
  condition: { key: string; value: string }[];
  phases: BudgetPhase[];
  sumMs: number | null;
  slackMs: number | null;
  /** `slackMs / SLO × 100`. */
  slackPct: number | null;
  status: 'fits' | 'exact' | 'overrun' | 'no-slo' | 'incomplete';
}

/** One objective, with the budgets that allocate it (indices into `budgets`). */
export interface SloRow {
  metric: SloMetric;
  stat: SloStat;
  pointer: string;
  ms: number | null;
  budgets: number[];
}

/** A stretch of the run: rates are per `timeUnitMs`, changing linearly from `fromRate` to `toRate`. */
export interface TimelineSegment {
  kind: 'ramp' | 'plateau' | 'stage' | 'drain';
  /** The field that sets its length (`/workload/ramp`, `/workload/stages/2`, …). */
  pointer: string;
  startMs: number;
  endMs: number;
  fromRate: number;
  toRate: number;
}

export interface WorkloadTimeline {
  segments: TimelineSegment[];
  totalMs: number;
  /** After ramp and warm-up until the end of the plateau (or the stages), as the analysis takes it. */
  steady: { startMs: number; endMs: number } | null;
  /** The excluded warm-up at the start of the plateau. */
  warmup: { startMs: number; endMs: number } | null;
  /** `rate` counts arrivals per this many ms. */
  timeUnitMs: number;
  /** What the rate counts: VUs for closed executors. */
  unit: 'arrivals' | 'vus';
}

/** Little's law at one total-latency objective. */
export interface InFlightRow {
  stat: SloStat;
  sloMs: number;
  /** rate/s × SLO s (× calls per session in the hybrid model). */
  inFlight: number;
  /** The whole number of concurrent requests that covers it. */
  needed: number;
}

export interface InFlightEstimate {
  /** Peak arrivals per second (sessions per second in the hybrid model). */
  peakPerSecond: number;
  /** Calls per iteration: the session length in the hybrid model, else 1. */
  callsPerIteration: number;
  rows: InFlightRow[];
  /** The row `in-flight-below-littles-law` checks: the largest total SLO. */
  basis: SloStat;
  maxInFlight: number | null;
  preAllocatedVus: number | null;
}

/** P(a session of k calls sees at least one call beyond the objective) = 1 − (1 − share)^k. */
export interface SessionTailRow {
  metric: SloMetric;
  stat: SloStat;
  /** The share of calls allowed beyond the objective by its statistic (p95 → 0.05). */
  share: number;
  probability: number;
}

export interface SessionTail {
  /** `calls_per_session`, or null when not declared (then k = 1 below). */
  callsPerSession: number | null;
  rows: SessionTailRow[];
}

export interface PromptShapeRow {
  index: number;
  pointer: string;
  id: string | null;
  weight: number | null;
  /** weight / Σ weights, or null. */
  share: number | null;
  input: [number, number] | null;
  output: [number, number] | null;
}

export interface GateRow {
  key: string;
  pointer: string;
  declared: boolean;
  /** The value the run is held to: the declared one, else the default (null: no gate applies). */
  effective: string | null;
  /** Whether the gate applies to this workload (`achieved_rate_ratio` only to arrival executors). */
  applies: boolean;
  description: string;
}

/** One clause of a phase selector (the analysis's SpanMatcher). */
export interface PhaseSelector {
  names: string[];
  attributes: Record<string, string>;
  attributePresent: string[];
  service: string | null;
}

export interface PhaseRow {
  name: string;
  /** `/trace/phases/<name>`, or null for a default phase. */
  pointer: string | null;
  selectors: PhaseSelector[];
  /** The same selectors as the analysis takes them (contract/parse/normalize.ts): what the phase preview queries. */
  anyOf: SpanMatcher[];
}

export interface ContractFormModel {
  fileName: string;
  /** JSON text (edits are written as JSON). */
  json: boolean;
  name: string | null;
  fields: Record<string, FormField>;
  diagnostics: FormDiagnostic[];
  slo: SloRow[];
  budgets: BudgetBreakdown[];
  timeline: WorkloadTimeline;
  inFlight: InFlightEstimate | null;
  sessionTail: SessionTail;
  promptShapes: PromptShapeRow[];
  gates: GateRow[];
  /** The contract's phases, or the defaults when it declares none (`phasesDeclared` false). */
  phases: PhaseRow[];
  phasesDeclared: boolean;
}

/**
 * An edit the form asks for. `set` writes what the user typed (converted by the field's kind) at the
 * pointer, replacing the value or inserting the key (and missing parents) in the right block; `remove`
 * deletes a key or a sequence item; `append` adds an item to a sequence, in the style of the one before.
 */
export type FormEdit =
  | { op: 'set'; pointer: string; input: string }
  | { op: 'remove'; pointer: string }
  | { op: 'append'; pointer: string; item: Record<string, unknown> };
