/**
 * Gate evaluation. Latency gates (SLOs, budgets) read matched successful requests inside the declared
 * steady window only (warm-up excluded), so a budget is checked on exactly the requests whose phases
 * are known; run-level gates read the ledger, the join and the generator's delivery.
 */
import type { QueryRunner } from '../../store/duckStore';
import { RUN_FIGURE_NAMES } from '../catalog/metrics';
import { query } from '../sql/statement';
import { computeClientTable, computeMatchedTable, computeStartedLag } from './metrics';
import type { GateSpec, GateStat } from '../options';
import { describeWindow, isSteadyDeclared, steadyPredicate, type SteadyWindow } from './population';
import { finiteOrNull } from './quantileSql';
import type { EnvelopeSummary, GateResult, JoinSummary, MetricTable, OutcomeLedger, QuantileSummary } from '../../report/model';

export { decideVerdict } from './verdict';

/** Everything a gate can read, gathered once per analysis. */
export interface RunFigures {
  steady: SteadyWindow;
  ledger: OutcomeLedger;
  join: JoinSummary;
  /** Envelope over matched successes of the whole run (negatives are an instrumentation property). */
  envelope: EnvelopeSummary | undefined;
  steadyMatched: MetricTable;
  steadyClient: MetricTable;
  server: MetricTable;
  /** Scheduler lag over every started request in the steady window. */
  steadyLag: QuantileSummary | undefined;
  startedInSteady: number;
  /** Denominator of the achieved start rate: the declared steady duration, else first → last send. */
  rateDurationMs: number | null;
  /** Part of the declared steady window the run actually covered (sends through the last response). */
  coveredSteadyMs: number | null;
  /** Declared steady duration (end − start), when an end was declared. */
  declaredSteadyMs: number | null;
  contentEventParseErrors: number;
}

export interface GatherInputs {
  phaseColumns: readonly string[];
  ledger: OutcomeLedger;
  join: JoinSummary;
  envelope: EnvelopeSummary | undefined;
  /** Whole-run matched table: reused for gates when no steady window narrows the population. */
  matched: MetricTable;
  server: MetricTable;
  steady: SteadyWindow;
}

function metricsFor(gates: readonly GateSpec[], population: 'matched' | 'client'): string[] {
  return gates.filter((g) => !RUN_FIGURE_NAMES.has(g.metric) && (g.population ?? 'matched') === population).map((g) => g.metric);
}

/**
 * Gathers what the gates read. Steady-window quantiles are computed only for the metrics the gates
 * name (re-analysis stays cheap), and not at all when no steady window is declared.
 */
export async function gatherRunFigures(store: QueryRunner, gates: readonly GateSpec[], inputs: GatherInputs): Promise<RunFigures> {
  const pred = steadyPredicate(inputs.steady);
  const steadyQuery = { where: pred.sql, params: pred.params };
  const matchedMetrics = metricsFor(gates, 'matched');
  const clientMetrics = metricsFor(gates, 'client');
  const declared = isSteadyDeclared(inputs.steady);
  const steadyMatched =
    matchedMetrics.length === 0
      ? {}
      : declared
        ? await computeMatchedTable(store, inputs.phaseColumns, { ...steadyQuery, only: matchedMetrics })
        : inputs.matched;
  const steadyClient = clientMetrics.length === 0 ? {} : await computeClientTable(store, { ...steadyQuery, only: clientMetrics });
  const steadyLag = gates.some((g) => g.metric === 'scheduler_lag_ms') ? await computeStartedLag(store, steadyQuery) : undefined;
  const [span] = await query(
    store,
    'steady window figures',
    `SELECT count(*) FILTER (WHERE ${pred.sql}) AS started_in,
            max(offset_ms) AS last_send,
            max(offset_ms + coalesce(client_total_ms, 0)) AS last_end,
            (SELECT count(*) FROM load_issues WHERE code ILIKE '%content%') AS content_issues
     FROM request_breakdown`,
    pred.params,
  );
  const start = Math.max(inputs.steady.startMs ?? 0, 0);
  const end = inputs.steady.endMs;
  const lastSend = finiteOrNull(span?.last_send);
  const lastEnd = finiteOrNull(span?.last_end);
  const declaredSteadyMs = end !== null ? end - start : null;
  const coveredSteadyMs = lastEnd === null ? null : Math.max(0, (end === null ? lastEnd : Math.min(end, lastEnd)) - start);
  const rateDurationMs = declaredSteadyMs ?? (lastSend !== null && lastSend > start ? lastSend - start : null);
  return {
    steady: inputs.steady,
    ledger: inputs.ledger,
    join: inputs.join,
    envelope: inputs.envelope,
    steadyMatched,
    steadyClient,
    server: inputs.server,
    steadyLag,
    startedInSteady: finiteOrNull(span?.started_in) ?? 0,
    rateDurationMs,
    coveredSteadyMs,
    declaredSteadyMs,
    // Readers record unparsable content events as load issues whose code names them (same rule as the
    // breakdown warnings: code contains 'content').
    contentEventParseErrors: finiteOrNull(span?.content_issues) ?? 0,
  };
}

interface Observation {
  observed: number | null;
  n: number | null;
  window: string;
}

function quantileStat(summary: QuantileSummary | undefined, stat: GateStat): number | null {
  if (!summary || summary.n === 0) return null;
  switch (stat) {
    case 'p50':
      return summary.p50;
    case 'p95':
      return summary.p95;
    case 'p99':
      return summary.p99;
    case 'mean':
      return summary.mean;
    case 'max':
      return summary.max;
    default:
      return null;
  }
}

function ratio(num: number, den: number | null): number | null {
  return den !== null && den > 0 ? num / den : null;
}

/** The figure a gate reads: run-level figures by name, otherwise a metric of the gate's population. */
function observe(gate: GateSpec, f: RunFigures): Observation {
  const run = 'whole run';
  switch (gate.metric) {
    case 'error_rate':
      return { observed: f.ledger.error_rate, n: f.ledger.started, window: `${run}, started requests` };
    case 'dropped_iterations':
      return gate.stat === 'share'
        ? { observed: f.ledger.scheduled !== null ? ratio(f.ledger.generator_dropped, f.ledger.scheduled) : null, n: f.ledger.scheduled, window: `${run}, scheduled iterations` }
        : { observed: f.ledger.generator_dropped, n: f.ledger.scheduled, window: `${run}, generator counters` };
    case 'scheduler_lag_ms':
      return { observed: quantileStat(f.steadyLag, gate.stat), n: f.steadyLag?.n ?? 0, window: describeWindow(f.steady, 'started requests') };
    case 'join_coverage':
      return { observed: f.join.coverage, n: f.join.client_requests, window: `${run}, client requests` };
    case 'negative_envelope_share':
      return {
        observed: f.envelope && f.envelope.n > 0 ? f.envelope.negative.share : null,
        n: f.envelope?.n ?? 0,
        window: `${run}, matched successes`,
      };
    case 'achieved_start_rate':
      return {
        observed: f.rateDurationMs !== null ? f.startedInSteady / (f.rateDurationMs / 1000) : null,
        n: f.startedInSteady,
        window: describeWindow(f.steady, 'started requests per second'),
      };
    case 'steady_window_ms':
      return { observed: f.coveredSteadyMs, n: f.ledger.started, window: describeWindow(f.steady, 'duration covered by the run') };
    case 'counters_reconcile':
      return { observed: f.ledger.reconciles ? 1 : 0, n: f.ledger.started, window: `${run}, outcome ledger` };
    case 'content_event_parse_errors':
      return { observed: f.contentEventParseErrors, n: null, window: `${run}, load issues` };
    default:
      break;
  }
  const population = gate.population ?? 'matched';
  if (population === 'server') {
    const s = f.server[gate.metric];
    return { observed: quantileStat(s, gate.stat), n: s?.n ?? 0, window: `${run}, server roots` };
  }
  const table = population === 'client' ? f.steadyClient : f.steadyMatched;
  const s = table[gate.metric];
  return {
    observed: quantileStat(s, gate.stat),
    n: s?.n ?? 0,
    window: describeWindow(f.steady, population === 'client' ? 'client successes' : 'matched successes'),
  };
}

export function compare(observed: number, op: GateSpec['op'], limit: number): boolean {
  switch (op) {
    case '<=':
      return observed <= limit;
    case '<':
      return observed < limit;
    case '>=':
      return observed >= limit;
    case '>':
      return observed > limit;
  }
}

/** Evaluates every gate against the gathered figures; a gate without a figure is `no_data`, never pass. */
export function evaluateGates(gates: readonly GateSpec[], figures: RunFigures): GateResult[] {
  return gates.map((gate) => {
    const o = observe(gate, figures);
    const result: GateResult = {
      id: gate.id,
      category: gate.category,
      metric: gate.metric,
      stat: gate.stat,
      op: gate.op,
      limit: gate.limit,
      observed: o.observed,
      n: o.n,
      window: o.window,
      status: o.observed === null ? 'no_data' : compare(o.observed, gate.op, gate.limit) ? 'pass' : 'fail',
    };
    const phase = gate.phase ?? (gate.category === 'budget' ? gate.metric.replace(/_ms$/, '') : undefined);
    if (phase !== undefined) result.phase = phase;
    if (gate.origin !== undefined) result.origin = gate.origin;
    return result;
  });
}

/**
 * True when a steady end was declared and the run covered clearly less of it than declared. Used only
 * when no steady_window_ms gate exists (a gate states its own tolerance). The last send lands about one
 * interval before the end, so the shortfall must exceed max(1 s, the mean interval between sends).
 */
export function steadyWindowShort(f: RunFigures, gates: readonly GateSpec[]): boolean {
  if (gates.some((g) => g.metric === 'steady_window_ms')) return false;
  if (!isSteadyDeclared(f.steady) || f.declaredSteadyMs === null) return false;
  const interval = f.startedInSteady > 0 ? f.declaredSteadyMs / f.startedInSteady : f.declaredSteadyMs;
  return (f.coveredSteadyMs ?? 0) < f.declaredSteadyMs - Math.max(1000, interval);
}
