/**
 * What an analysis is asked to do. Built from defaults, CLI flags and (optionally) a load contract;
 * the analysis never reads a contract itself.
 */

/** One way a span can belong to a phase; a span matches the selector when every given clause holds. */
export interface SpanMatcher {
  /** Exact span names (any of). */
  names?: string[];
  /** Attribute equality (all of), e.g. `{ 'llm.phase': 'queue' }`. */
  attributes?: Record<string, string>;
  /** Attribute keys that must be present (all of), e.g. `['gen_ai.operation.name']`. */
  attributePresent?: string[];
  /** Restrict to spans of this service. */
  service?: string;
}

/** A named phase: spans matching any of its matchers are the phase's spans. */
export interface PhaseDefinition {
  /** Phase name without the `_ms` suffix, e.g. `gpu_queue`. */
  name: string;
  anyOf: SpanMatcher[];
}

/** docs/metrics.md §3.3 default phases. */
export const DEFAULT_PHASES: readonly PhaseDefinition[] = [
  { name: 'gateway', anyOf: [{ names: ['auth.check', 'request.prepare', 'route.select', 'response.write'] }] },
  { name: 'gpu_queue', anyOf: [{ attributes: { 'llm.phase': 'queue' } }, { names: ['inference.acquire_slot'] }] },
  {
    name: 'generation',
    anyOf: [
      { attributes: { 'llm.phase': 'generation' } },
      { names: ['inference.generate'] },
      { attributePresent: ['gen_ai.operation.name'] },
    ],
  },
];

/** How the root span of a trace is chosen (docs/metrics.md §3.3). */
export interface RootSelection {
  /** Entry service name; when unset any service qualifies. */
  service?: string;
  /** Root span name; when unset any SERVER span whose parent is not in the trace qualifies. */
  spanName?: string;
}

/**
 * What a client record is joined to the spans by: its W3C trace ID (docs/metrics.md §1, the default), or its
 * request ID against a span attribute that carries it (load generators without trace propagation:
 * AIPerf's X-Request-ID, an `x-request-id` field of per-request records). The contract's
 * `trace.id_source: request_id` and `trace.id_attribute` choose the second (index/requestIdJoin.ts).
 */
export type JoinKey = { by: 'trace_id' } | { by: 'request_id'; attribute: string };

/** The span attribute the request-ID join reads by default (OpenTelemetry HTTP semantic conventions). */
export const DEFAULT_REQUEST_ID_ATTRIBUTE = 'http.request.header.x-request-id';

export interface AnalysisOptions {
  phases: readonly PhaseDefinition[];
  /** Unset: by trace ID. */
  joinKey?: JoinKey;
  root: RootSelection;
  /** Fixed window size for per-window figures (default 30 s). */
  windowSizeMs: number;
  /** Steady window in ms since the run's first send: warm-up before `steadyStartMs` is excluded from budgets. */
  steadyStartMs?: number;
  steadyEndMs?: number;
  /** Sequential spans may appear to overlap by up to this much (ms-granular starts); see docs/metrics.md §1 phases. */
  timestampGranularityMs: number;
  /** Span event name marking the server's first token write. */
  firstTokenEvent: string;
  /** Alternative: a span whose end marks the first token. */
  firstTokenSpan: string;
  /** Span event name of each content chunk, used for server-side ITL when present. */
  contentEvent?: string;
  /** How many slow traces to list. */
  slowTraceCount: number;
  /** k6 tag carrying the trace ID when `data.metadata.trace_id` is absent. */
  traceIdTag: string;
  /** Calls per user session, for the session tail probability. */
  callsPerSession?: number;
  /** Budget on client_total_ms used for tail share (default: the total SLO when a gate gives one). */
  tailBudgetMs?: number;
  /**
   * Step of the window series (ms): windows of `windowSizeMs` starting every `windowSlideMs` (e.g.
   * 15 min sliding by 1 min). Unset: fixed windows (the step is the size).
   */
  windowSlideMs?: number;
  /**
   * Dimensions the report groups by (groups/dimensions.ts: route, model, region, …). Unset: route and
   * model, each only when the run holds more than one value of it; empty: no groups.
   */
  groupBy?: readonly string[];
  /** Who asked for `groupBy`: `--group-by` or the contract's report.group_by. */
  groupBySource?: 'option' | 'contract';
  /** A group with fewer successful calls is shown with its n and marked too small for a p95 (default 200). */
  minGroupSize?: number;
  /** Token bands of the input_band/output_band dimensions (the contract's prompt shapes), else defaults. */
  tokenBands?: TokenBands;
  /** The client timeout the contract declares: the censored total counts timed-out calls at it. */
  timeoutMs?: number;
  /** The head-sampling ratio the contract declares (trace.sampling), shown beside the join-bias test. */
  declaredSampling?: number;
  /** Stages of a stepped workload, ms since the first send (the contract's workload.stages). */
  stages?: readonly StageWindow[];
  /** The contract the options came from, for the report's provenance. */
  contract?: ContractIdentity;
}

/** An inclusive token band `[min, max]` (max null: no upper bound). */
export interface TokenBand {
  min: number;
  max: number | null;
}

export interface TokenBands {
  input: readonly TokenBand[];
  output: readonly TokenBand[];
}

/** One declared stage of a stepped workload. */
export interface StageWindow {
  /** `stage 1`, … in declaration order, with the stage's target (`stage 2 (40/s)`). */
  label: string;
  startMs: number;
  endMs: number;
  /**
   * The target start rate (requests/s) at the stage's start and end (k6 ramps linearly between them):
   * arrival executors only; absent for VU targets.
   */
  targetFromPerS?: number;
  targetToPerS?: number;
}

/** What identifies the contract a report was evaluated against. */
export interface ContractIdentity {
  path: string;
  name: string;
  /** SHA-256 of the contract file's bytes, hex. */
  sha256: string;
  bytes: number;
}

export const DEFAULT_ANALYSIS_OPTIONS: AnalysisOptions = {
  phases: DEFAULT_PHASES,
  root: {},
  windowSizeMs: 30_000,
  timestampGranularityMs: 1,
  firstTokenEvent: 'first_token',
  firstTokenSpan: 'response.first_token',
  slowTraceCount: 10,
  traceIdTag: 'trace_id',
};

/** Statistic a gate reads. `value` is for scalar figures (coverage, counts, rates). */
export type GateStat = 'p50' | 'p95' | 'p99' | 'mean' | 'max' | 'value' | 'share';

/** What a failed gate means for the verdict (docs/metrics.md §2). */
export type GateCategory =
  | 'slo' // a latency objective on the whole request: fail
  | 'budget' // a per-phase allocation: fail, naming the phase
  | 'quality' // error rate and similar outcome gates: fail
  | 'workload' // delivery of the declared workload (dropped iterations, scheduler lag, start rate, steady window): inconclusive
  | 'coverage' // join coverage: inconclusive
  | 'instrumentation'; // counters, negative envelopes, unparsable content events: instrumentation_failure

/** A gate to evaluate on an analysed run. */
export interface GateSpec {
  /** Stable id, e.g. `slo.total_ms.p95`, `budget.gpu_queue_ms.p95`, `gates.error_rate`. */
  id: string;
  category: GateCategory;
  /**
   * The figure: a metric of docs/metrics.md §1 (`client_total_ms`, `gpu_queue_ms`, …) or a run-level figure
   * (`error_rate`, `dropped_iterations`, `scheduler_lag_ms`, `join_coverage`, `negative_envelope_share`,
   * `achieved_start_rate`, `steady_window_ms`, `counters_reconcile`, `content_event_parse_errors`).
   */
  metric: string;
  stat: GateStat;
  op: '<=' | '<' | '>=' | '>';
  limit: number;
  /** Phase name for budgets (named by the verdict when it breaks). */
  phase?: string;
  /** Population: budgets and SLOs use matched successes in the steady window; client-only SLOs may use all client successes. */
  population?: 'matched' | 'client' | 'server';
  /** Where the gate came from, for messages (`contract.yaml:42`, `--threshold`). */
  origin?: string;
}
