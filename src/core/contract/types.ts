/**
 * The load contract model (docs/contract.md) and the diagnostics the contract layer reports.
 * Durations are normalised to milliseconds by the parser; the raw text keeps its units for editing.
 */

/** A source range as character offsets into the contract text (end exclusive). */
export interface OffsetRange {
  start: number;
  end: number;
}

/** One text replacement of a quick fix, in offsets of the original text. */
export interface TextEdit {
  start: number;
  end: number;
  newText: string;
}

export type ContractSeverity = 'error' | 'warning' | 'information' | 'hint';

/** A diagnostic about a contract, free of any editor API. */
export interface ContractDiagnostic {
  range: OffsetRange;
  /** 1-based line of `range.start`. */
  line: number;
  /** 1-based column (UTF-16 code units) of `range.start`. */
  column: number;
  severity: ContractSeverity;
  /** Stable rule code, e.g. `budgets-exceed-slo`. */
  code: string;
  message: string;
  /** A mechanical fix, when one exists. */
  fix?: { title: string; edits: TextEdit[] };
}

export type ArrivalModel = 'open' | 'closed' | 'hybrid';

export type K6Executor =
  | 'constant-arrival-rate'
  | 'ramping-arrival-rate'
  | 'constant-vus'
  | 'ramping-vus'
  | 'per-vu-iterations'
  | 'shared-iterations';

export type ClaimKind = 'slo_check' | 'capacity' | 'saturation' | 'soak' | 'regression';

export interface Claim {
  kind: ClaimKind;
  statement?: string;
}

export interface Stage {
  /** Target rate (arrival executors) or VUs (ramping-vus) at the end of the stage. */
  target: number;
  durationMs: number;
}

export interface Workload {
  model: ArrivalModel;
  executor: K6Executor;
  /** Arrivals per `timeUnitMs` (open/hybrid models). */
  rate?: number;
  timeUnitMs: number;
  /** Starting rate of a ramping-arrival-rate profile. */
  startRate?: number;
  stages?: Stage[];
  rampMs: number;
  plateauMs: number;
  drainMs: number;
  warmupExcludeMs: number;
  maxInFlight?: number;
  preAllocatedVus?: number;
  /** Virtual users of a closed model. */
  vus?: number;
  callsPerSession?: number;
}

export interface TokenBand {
  min: number;
  max: number;
}

export interface PromptShape {
  id: string;
  weight: number;
  inputTokens: TokenBand;
  outputTokens: TokenBand;
}

export interface RequestSpec {
  /** `METHOD /path`, e.g. `POST /v1/chat/completions`. */
  route: string;
  baseUrl?: string;
  modelClass?: string;
  region?: string;
  priority?: string;
  streaming: boolean;
  firstContentEvent?: string;
  timeoutMs: number;
  retries: number;
  promptShapes: PromptShape[];
}

export interface PhaseMatcherSpec {
  names?: string[];
  attributes?: Record<string, string>;
  attributePresent?: string[];
  service?: string;
}

export interface TraceSpec {
  /** `request_id`: joined by request ID against the span attribute `idAttribute` (analysis/index/clientIndex.ts). */
  idSource: 'metadata' | 'tag' | 'request_id';
  idTag: string;
  /** The span attribute carrying the request ID, when `idSource` is `request_id`. */
  idAttribute?: string;
  root?: { service?: string; span?: string };
  /** The head-sampling ratio in effect: the declared one, else 1 (every trace kept). */
  sampling: number;
  /** Whether the contract declares trace.sampling (the report says "not declared" otherwise, never the default). */
  samplingDeclared: boolean;
  phases?: Record<string, PhaseMatcherSpec[]>;
}

export type SloStat = 'p50' | 'p95' | 'p99';

/** Objectives in ms, by metric (`total_ms`, `ttft_ms`, `itl_ms`) and statistic. */
export type Slo = Partial<Record<'total_ms' | 'ttft_ms' | 'itl_ms', Partial<Record<SloStat, number>>>>;

export interface BudgetCondition {
  modelClass?: string;
  region?: string;
  priority?: string;
  inputTokens?: TokenBand;
  rate?: number;
  window?: string;
}

/** One allocation of an SLO figure to phases under a condition. */
export interface Budget {
  /** The SLO figure it allocates, e.g. `total_ms.p95`. */
  allocates: string;
  when?: BudgetCondition;
  /** Phase name (without `_ms`) → limit in ms at the allocated statistic. */
  phases: Record<string, number>;
}

export interface Gates {
  errorRate?: number;
  droppedIterations?: number;
  schedulerLagMs?: number;
  joinCoverage?: number;
  negativeEnvelopeShare?: number;
  /** Minimum achieved start rate as a fraction of the declared rate. */
  achievedRateRatio?: number;
}

export interface LoadContract {
  version: number;
  name: string;
  claim: Claim;
  workload: Workload;
  request: RequestSpec;
  trace: TraceSpec;
  slo: Slo;
  budgets: Budget[];
  gates: Gates;
  windows: { sizeMs: number; slideMs?: number };
  /** The report's groups (report.group_by) and their floor (report.min_group_size). */
  report: { groupBy?: string[]; minGroupSize?: number };
  /** Where the contract came from: file name and the 1-based line of every JSON pointer, for gate origins. */
  source?: { fileName: string; lines: Record<string, number> };
}
