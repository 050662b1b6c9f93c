/**
 * Assembles the Report from the breakdown tables (request_breakdown, root_breakdown, trace_roots) and
 * the raw tables. Kept apart from analyzeRun so the report can be rebuilt on tables that already exist
 * (re-analysis with other gates) and tested on breakdown rows written directly.
 */
import type { EnvelopeSummary, JoinSummary, MetricTable, Report, TraceBreakdown } from '../../report/model';
import type { QueryRunner } from '../../store/duckStore';
import { PHASEWISE_VERSION } from '../../version';
import { metricColumns, reportDefinitions } from '../catalog/metrics';
import type { AnalysisOptions, GateSpec } from '../options';
import { sqlIdentifier } from '../sql/params';
import { enterStage } from '../../store/stage';
import { readInputs, readK6Summaries, readLoadIssues } from './bookkeeping';
import { cachedFigure, type FigureCache } from './figureCache';
import { evaluateGates, gatherRunFigures, steadyWindowShort } from './gates';
import { computeLedger, type LedgerResult } from './ledger';
import { computeClientTable, computeMatchedTable, computeServerTable, ENVELOPE_COLUMN, withData } from './metrics';
import { steadyWindowOf } from './population';
import { splitEntries, type SplitFigures } from './splitTable';
import { computeTail } from './tail';
import { decideVerdict } from './verdict';
import { computeWindows } from './windows';
import { computeExtendedSections, type ExtendedSections, type OnSection } from './extendedReport';
import { jsonSafe } from './jsonSafe';

/** What the join side produced for this analysis (analyze.ts). */
export interface BreakdownParts {
  phaseColumns: readonly string[];
  warnings: readonly string[];
  join: JoinSummary;
  slowTraces: TraceBreakdown[];
  /**
   * Where the whole-run figures (metric tables, ledger) of these breakdown tables are kept between
   * analyses; without it they are computed.
   */
  cache?: FigureCache;
}

/**
 * A whole-run metric table, its phase-independent and phase-dependent columns cached apart
 * (splitTable.ts). Stored as one entry whose detail says it is the whole run's.
 */
async function splitTable(
  cache: FigureCache | undefined,
  figures: SplitFigures,
  columns: readonly string[],
  compute: (only?: readonly string[]) => Promise<MetricTable>,
): Promise<MetricTable> {
  if (!cache) return compute();
  const entries = await splitEntries(cache, figures, columns, async (only) => [['', await compute(only)]], ['whole run']);
  return entries[0]?.[1] ?? {};
}

/** A staged analysis's hooks (analyze.ts): the first part out, the group dimensions built, then each later section. */
export interface ReportHooks {
  /** With every section but the extended ones (JSON-safe), before those are computed. */
  beforeExtended?: (figures: Partial<Report>) => Promise<void>;
  onSection?: OnSection;
}

/**
 * Every Report section from the breakdown tables: metric tables (one SQL pass per population), ledger,
 * windows, tail and attribution, gates, verdict, bookkeeping. JSON-safe: no NaN, Infinity or bigint.
 */
export async function buildReport(
  store: QueryRunner,
  options: AnalysisOptions,
  gates: readonly GateSpec[],
  parts: BreakdownParts,
  hooks: ReportHooks = {},
): Promise<Report> {
  const phaseColumns = parts.phaseColumns.map((c) => sqlIdentifier(c));
  const steady = steadyWindowOf(options);

  const cache = parts.cache;
  enterStage(store, 'metric tables');
  const matchedAll = await splitTable(
    cache,
    { independent: 'matched_metrics', dependent: 'matched_phase_metrics' },
    metricColumns('matched', phaseColumns),
    (only) => computeMatchedTable(store, phaseColumns, { only }),
  );
  const clientAll = await cachedFigure(cache, 'client_metrics', () => computeClientTable(store));
  const serverAll = await splitTable(
    cache,
    { independent: 'server_metrics', dependent: 'server_phase_metrics' },
    metricColumns('server', phaseColumns),
    (only) => computeServerTable(store, phaseColumns, only),
  );
  const envelope = matchedAll[ENVELOPE_COLUMN] as EnvelopeSummary | undefined;

  enterStage(store, 'ledger');
  const { ledger, notes: ledgerNotes } = await cachedFigure<LedgerResult>(cache, 'ledger', () => computeLedger(store));
  enterStage(store, 'windows');
  const windows = await computeWindows(store, options.windowSizeMs, steady);
  enterStage(store, 'tail');
  const { tail, attribution: tailAttribution } = await computeTail(store, options, gates, phaseColumns, matchedAll.client_total_ms);

  enterStage(store, 'gates and verdict');
  const figures = await gatherRunFigures(store, gates, {
    phaseColumns,
    ledger,
    join: parts.join,
    envelope,
    matched: matchedAll,
    server: serverAll,
    steady,
  });
  const gateResults = evaluateGates(gates, figures);
  const verdict = decideVerdict({
    gates: gateResults,
    ledger,
    tailAttribution,
    steadyShort: steadyWindowShort(figures, gates) ? { declaredMs: figures.declaredSteadyMs ?? 0, coveredMs: figures.coveredSteadyMs ?? 0 } : null,
    contentEventParseErrors: figures.contentEventParseErrors,
  });

  const warnings = [...parts.warnings, ...ledgerNotes];
  const join = parts.join;
  const idWord = join.key === 'request_id' ? `request ID (for the span attribute ${join.key_attribute ?? ''})` : 'trace ID';
  if (!join.applicable && join.client_requests > 0 && join.server_spans > 0) {
    warnings.push(
      `join not applicable: none of the ${join.client_requests} client records carries a ${idWord}; the figures are client-only` +
        (join.key === 'trace_id' ? " (a tool that sends X-Request-ID instead: set the contract's trace.id_source: request_id, or --join-by request-id)." : '.'),
    );
  } else if (join.client_requests > 0 && join.server_spans > 0 && join.matched === 0) {
    warnings.push(
      join.valid_trace_ids === 0
        ? `join coverage 0 %: none of the ${join.client_requests} client records carries a valid ${join.key === 'request_id' ? 'request ID' : 'trace ID'}.`
        : `join coverage 0 %: client and server files share no ${join.key === 'request_id' ? 'request ID' : 'trace ID'} (${join.valid_trace_ids} valid client ${join.key === 'request_id' ? 'request' : 'trace'} IDs, ${join.server_traces} server traces).`,
    );
  } else if (join.client_requests > 0 && join.server_spans === 0) {
    warnings.push(`no server spans were loaded: only client-only figures are available for the ${join.client_requests} client records.`);
  }
  // The join side usually reports negative envelopes already (with its own diagnosis); say it once.
  if (envelope && envelope.negative.count > 0 && !warnings.some((w) => /negative network envelope/i.test(w))) {
    warnings.push(
      `${envelope.negative.count} of ${envelope.n} matched successes (${(envelope.negative.share * 100).toFixed(2)} %) have a negative network envelope, ` +
        `most negative ${envelope.negative.most_negative_ms?.toFixed(1)} ms: a few ms usually means the root span ends before the response is flushed; large values mean wrong units or a bad join.`,
    );
  }
  if (ledger.in_flight > 0) {
    warnings.push(`${ledger.in_flight} k6 iteration(s) have no request row: in flight when the run stopped, or lost.`);
  }
  if (windows.withoutOffset > 0) {
    warnings.push(`${windows.withoutOffset} started request(s) have no send time and appear in no window.`);
  }
  if (figures.startedInSteady === 0 && ledger.started > 0 && (steady.startMs !== null || steady.endMs !== null)) {
    warnings.push('no request was sent inside the declared steady window: check steady start/end against the run offsets.');
  }

  enterStage(store, 'inputs and load issues');
  const firstPart: Omit<Report, keyof ExtendedSections> = {
    phasewise_version: PHASEWISE_VERSION,
    inputs: await readInputs(store),
    load_issues: await readLoadIssues(store),
    join,
    metrics: withData(matchedAll),
    client_only: withData(clientAll),
    server_only: withData(serverAll),
    outcomes: ledger,
    windows: windows.report,
    tail,
    tail_attribution: tailAttribution,
    gates: gateResults,
    verdict,
    slow_traces: parts.slowTraces,
    k6_summaries: await readK6Summaries(store),
    definitions: reportDefinitions(options),
    warnings,
  };
  await hooks.beforeExtended?.(jsonSafe(firstPart));
  const report: Report = { ...firstPart, ...(await computeExtendedSections(store, options, gates, phaseColumns, cache, hooks.onSection)) };
  return jsonSafe(report);
}

export { jsonSafe } from './jsonSafe';
