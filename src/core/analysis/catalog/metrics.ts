/**
 * The metric catalog: every figure the report tabulates or a gate can read, declared once. The metric
 * tables' columns and their order, the phase-independent columns that a re-analysis with another phase
 * mapping keeps, the figure names `--threshold` accepts and their verdict categories, and the report's
 * `definitions` section are all read from here (docs/adding-a-metric.md walks through a new entry).
 *
 * A metric is a column of the breakdown views (request_breakdown, root_breakdown: see relations.ts);
 * its SQL lives with the relation that computes it. The phases are not listed: each phase of the
 * options is a `<phase>_ms` metric placed where PHASES stands.
 */
import type { AnalysisOptions, GateCategory } from '../options';

/** The populations of docs/metrics.md §1; each metric table is computed over one of them. */
export type Population = 'matched' | 'client' | 'server';

/** Where a metric table reads its rows: matched and client successes from request_breakdown, server roots from root_breakdown. */
export const POPULATION_RELATION: Readonly<Record<Population, 'request_breakdown' | 'root_breakdown'>> = {
  matched: 'request_breakdown',
  client: 'request_breakdown',
  server: 'root_breakdown',
};

/**
 * Where a metric is computed, and so where its SQL lives:
 * - `client_requests`: a loaded column (store/schema.ts), no SQL;
 * - `request_figures`: an expression over the client row and its joined root (breakdown/requestFigures.ts REQUEST_METRIC_SQL);
 * - `root_figures`: an expression over the trace under the root (breakdown/rootFigures.ts ROOT_METRIC_SQL),
 *   held in root_figures or, when it depends on the phases, root_phase_figures;
 * - `trace_roots`: a column of trace_roots (breakdown/rootSelect.ts).
 * A metric of the root (root_figures, trace_roots) is copied into request_figures for matched
 * requests when the matched population lists it; a view passes every metric of its relations on.
 */
export type MetricSource = 'client_requests' | 'request_figures' | 'root_figures' | 'trace_roots';

export interface MetricDecl {
  /** Column of the population's breakdown view, e.g. `network_envelope_ms`. */
  column: string;
  source: MetricSource;
  /** The metric tables that list it (report keys `metrics`, `client_only`, `server_only`). */
  populations: readonly Population[];
  /**
   * Whether its value changes with the phase mapping. Phase-independent figures are cached across
   * mappings (figures/figureCache.ts), so a metric computed from a phase column must say true.
   */
  phaseDependent: boolean;
  /** What a broken gate on it means (docs/metrics.md §2): `slo` fails the run, `budget` fails it naming the phase. None: not gated by name. */
  gate?: 'slo' | 'budget';
  unit: 'ms' | 'ms/token';
  /** One-line meaning (docs/metrics.md §1); a function when the meaning depends on the options. */
  definition: string | ((options: AnalysisOptions) => string);
}

/** Where the phase metrics (`<phase>_ms`, one per phase, in options order, computed in root_figures) go in the metric order. */
export const PHASES = 'phases';

function itlDefinition(options: AnalysisOptions): string {
  const source = options.contentEvent
    ? `server side from the span events named "${options.contentEvent}" when a trace has them, else the client's own measurement`
    : 'the client-observed value (no content event name was configured for server spans)';
  return `Inter-token latency: mean interval between consecutive content events after the first one (TTFT excluded); ${source}.`;
}

/** Every metric, in the order of the report's metric tables. */
export const METRICS: ReadonlyArray<MetricDecl | typeof PHASES> = [
  {
    column: 'client_total_ms',
    source: 'client_requests',
    populations: ['matched', 'client'],
    phaseDependent: false,
    gate: 'slo',
    unit: 'ms',
    definition: "The load generator's full request duration (k6 http_req_duration: sending + waiting + receiving).",
  },
  {
    column: 'transport_setup_ms',
    source: 'request_figures',
    populations: ['matched', 'client'],
    phaseDependent: false,
    gate: 'budget',
    unit: 'ms',
    definition: 'blocked + connecting + tls_handshaking (k6 http_req_blocked, _connecting, _tls_handshaking).',
  },
  {
    column: 'client_ttft_ms',
    source: 'client_requests',
    populations: ['matched', 'client'],
    phaseDependent: false,
    gate: 'slo',
    unit: 'ms',
    definition: 'Time to first token: client send → first response event that contains output content (streaming requests only).',
  },
  {
    column: 'client_ttfb_ms',
    source: 'client_requests',
    populations: ['matched', 'client'],
    phaseDependent: false,
    gate: 'slo',
    unit: 'ms',
    definition:
      'Time to first byte: k6 http_req_waiting on non-streaming requests. It is labelled TTFB, not TTFT: the first byte of a non-streamed response arrives with the whole generation.',
  },
  {
    column: 'client_itl_ms',
    source: 'client_requests',
    populations: ['client'],
    phaseDependent: false,
    unit: 'ms',
    definition: 'Inter-token latency as the client measured it, when the source records it.',
  },
  {
    column: 'server_root_ms',
    source: 'trace_roots',
    populations: ['matched', 'server'],
    phaseDependent: false,
    gate: 'budget',
    unit: 'ms',
    definition: "Duration of the trace's root span: the SERVER span of the entry service whose parent is not in the trace.",
  },
  {
    column: 'network_envelope_ms',
    source: 'request_figures',
    populations: ['matched'],
    phaseDependent: false,
    gate: 'budget',
    unit: 'ms',
    definition: 'client_total_ms − server_root_ms per matched request, never clamped: negatives are counted with their share and most negative value.',
  },
  PHASES,
  {
    column: 'unattributed_server_ms',
    source: 'root_figures',
    populations: ['matched', 'server'],
    phaseDependent: true,
    gate: 'budget',
    unit: 'ms',
    definition: 'server_root_ms − Σ phases per trace: server time no phase claims (a missing phase or a wrong boundary), never assigned to the network.',
  },
  {
    column: 'server_ttft_ms',
    source: 'root_figures',
    populations: ['matched', 'server'],
    phaseDependent: false,
    gate: 'slo',
    unit: 'ms',
    definition: 'Root start → the server writing the first token (the first-token span event, else the end of the first-token span).',
  },
  {
    column: 'ttft_envelope_ms',
    source: 'request_figures',
    populations: ['matched'],
    phaseDependent: false,
    gate: 'slo',
    unit: 'ms',
    definition: 'client_ttft_ms − server_ttft_ms per matched streaming request.',
  },
  {
    column: 'itl_ms',
    source: 'request_figures',
    populations: ['matched'],
    phaseDependent: false,
    gate: 'slo',
    unit: 'ms',
    definition: itlDefinition,
  },
  {
    column: 'generation_ms_per_output_token',
    source: 'request_figures',
    populations: ['matched'],
    phaseDependent: true,
    gate: 'slo',
    unit: 'ms/token',
    definition: 'generation_ms / output tokens, for successes with at least one output token.',
  },
  {
    column: 'scheduler_lag_ms',
    source: 'client_requests',
    populations: ['matched', 'client'],
    phaseDependent: false,
    unit: 'ms',
    definition: 'Planned start → actual send attempt (per-request records); gated as a run figure over every started request.',
  },
];

/** The declared metrics without the phase slot. */
export const METRIC_DECLS: readonly MetricDecl[] = METRICS.filter((m): m is MetricDecl => m !== PHASES);

const BY_COLUMN = new Map(METRIC_DECLS.map((m) => [m.column, m]));

export function metricDecl(column: string): MetricDecl | undefined {
  return BY_COLUMN.get(column);
}

/** A population's metric columns in report order, the phase columns (`<phase>_ms`) in their place. */
export function metricColumns(population: Population, phaseColumns: readonly string[]): string[] {
  const withPhases = population !== 'client';
  return METRICS.flatMap((m) => (m === PHASES ? (withPhases ? [...phaseColumns] : []) : m.populations.includes(population) ? [m.column] : []));
}

/** The relations that hold metric columns (catalog/breakdownRelations.ts `{ metrics: … }`). */
export type MetricRelation = 'request_figures' | 'request_phase_figures' | 'root_figures' | 'root_phase_figures' | 'root_breakdown';

/**
 * The metric columns a relation holds, in catalog order with the phase columns in their place: the
 * metrics computed there, and in the request relations also the root's metrics of the matched
 * population. The per-root and per-request figures are each split by the declared phase dependence:
 * root_figures and request_figures hold the phase-independent metrics (kept across phase mappings),
 * root_phase_figures and request_phase_figures the phase columns and what is computed from them.
 */
export function metricsHeldBy(relation: MetricRelation, phaseColumns: readonly string[]): string[] {
  const phasePart = relation === 'root_phase_figures' || relation === 'request_phase_figures';
  const holds = (source: MetricSource, matched: boolean, phaseDependent: boolean): boolean => {
    if (relation === 'root_breakdown') return source === 'root_figures' || source === 'trace_roots';
    if (phaseDependent !== phasePart) return false;
    if (relation === 'root_figures' || relation === 'root_phase_figures') return source === 'root_figures';
    return source === 'request_figures' || (matched && (source === 'root_figures' || source === 'trace_roots'));
  };
  return METRICS.flatMap((m) => {
    if (m === PHASES) return holds('root_figures', true, true) ? [...phaseColumns] : [];
    return holds(m.source, m.populations.includes('matched'), m.phaseDependent) ? [m.column] : [];
  });
}

/** A metric column whose value does not depend on the phase mapping (a phase column never is one). */
export function isPhaseIndependent(column: string): boolean {
  const decl = BY_COLUMN.get(column);
  return decl !== undefined && !decl.phaseDependent;
}

/** A definition's text under these options. */
export function definitionText(decl: MetricDecl, options: AnalysisOptions): string {
  return typeof decl.definition === 'string' ? decl.definition : decl.definition(options);
}

/** How a run-level figure is expressed (a share prints as a percentage). */
export type RunFigureUnit = 'share' | 'count' | 'ms' | 'rate' | 'flag';

/** A figure of the whole run that a gate reads by name (figures/gates.ts observes each one). */
export interface RunFigureDecl {
  name: string;
  gate: GateCategory;
  unit: RunFigureUnit;
  definition: string;
}

export const RUN_FIGURES: readonly RunFigureDecl[] = [
  { name: 'error_rate', gate: 'quality', unit: 'share', definition: '(started − succeeded) / started over the whole run.' },
  { name: 'dropped_iterations', gate: 'workload', unit: 'count', definition: 'Iterations the generator scheduled but could not start (value), or their share of scheduled (share).' },
  { name: 'scheduler_lag_ms', gate: 'workload', unit: 'ms', definition: 'Scheduler lag over every started request in the steady window.' },
  { name: 'achieved_start_rate', gate: 'workload', unit: 'rate', definition: 'Requests started per second in the steady window.' },
  { name: 'steady_window_ms', gate: 'workload', unit: 'ms', definition: 'How much of the declared steady window the run covered.' },
  { name: 'join_coverage', gate: 'coverage', unit: 'share', definition: 'Matched client requests / all client requests.' },
  { name: 'negative_envelope_share', gate: 'instrumentation', unit: 'share', definition: 'Share of matched successes whose network envelope is negative.' },
  { name: 'counters_reconcile', gate: 'instrumentation', unit: 'flag', definition: '1 when the outcome ledger reconciles, else 0.' },
  { name: 'content_event_parse_errors', gate: 'instrumentation', unit: 'count', definition: 'Content events the readers could not parse (load issues).' },
];

export const RUN_FIGURE_NAMES: ReadonlySet<string> = new Set(RUN_FIGURES.map((f) => f.name));

/** Run figures expressed as a fraction (printed as a percentage). */
export const SHARE_FIGURES: ReadonlySet<string> = new Set(RUN_FIGURES.filter((f) => f.unit === 'share').map((f) => f.name));

/** Terms the report defines that are not one metric. */
const TERMS: Readonly<Record<string, string>> = {
  quantiles:
    'p50/p95/p99 use linear interpolation between closest ranks at position (n−1)·p (DuckDB quantile_cont, numpy default, k6 Trend percentiles), over successful requests only; each figure carries its n.',
  populations:
    'metrics: matched successful requests (client record whose trace ID has exactly one root span); client_only: every successful client request; server_only: every trace with exactly one root.',
  tail: 'Tail ratio p95/p50, tail share above the budget and tail attribution are over matched successful requests; tail attribution averages each owner over the requests above the client_total_ms p95.',
  session_tail_probability: '1 − (1 − tail_share)^k for k calls per session.',
};

/**
 * What the report's `definitions` section prints, in order: the terms, and the metrics whose meaning
 * varies or is easy to misread (their catalog definitions).
 */
export const REPORT_DEFINITIONS: readonly string[] = [
  'quantiles',
  'populations',
  'itl_ms',
  'client_ttft_ms',
  'client_ttfb_ms',
  'network_envelope_ms',
  'unattributed_server_ms',
  'tail',
  'session_tail_probability',
];

/** The report's `definitions` section. */
export function reportDefinitions(options: AnalysisOptions): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of REPORT_DEFINITIONS) {
    const decl = BY_COLUMN.get(key);
    const text = decl !== undefined ? definitionText(decl, options) : TERMS[key];
    if (text === undefined) throw new Error(`REPORT_DEFINITIONS names "${key}", which is neither a metric nor a term`);
    out[key] = text;
  }
  return out;
}
