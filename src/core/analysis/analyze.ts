/**
 * analyzeRun: the one entry point from loaded tables to the Report. The pipeline makes the derived
 * relations current (breakdown/pipeline.ts: rebuilt from the loaded run when stale, never re-parsed),
 * then every figure is SQL over them, the ones that only depend on them kept between analyses
 * (figures/figureCache.ts).
 *
 * The report comes in parts (ReportPart): first every section that only needs the per-request
 * figures (verdict, join coverage, owners of the p95, metric tables, ledger, windows, tail, gates,
 * slow traces), then the group dimensions are built and the later sections follow one by one. Why
 * this order: the group dimensions and the group sections are a fifth of a first analysis (bench
 * 10k sdk, stage table: group dimensions 0.57 + groups 0.21 of 3.2 CPU s of analysis), and nothing
 * in the first part reads them, so an editor shows the verdict that much sooner.
 */
import type { JoinSummary, Report, TraceBreakdown } from '../report/model';
import type { QueryRunner } from '../store/duckStore';
import { ensureBreakdown } from './breakdown/pipeline';
import { enterStage } from '../store/stage';
import { collectBreakdownWarnings } from './breakdown/warnings';
import { buildReport } from './figures/buildReport';
import type { ExtendedSectionName } from './figures/extendedReport';
import { FigureCache } from './figures/figureCache';
import { computeJoinSummary } from './figures/join';
import type { AnalysisOptions, GateSpec } from './options';
import { slowTracesOfBreakdown } from './trace/slowTraces';

/**
 * One finished part of the report: 'figures' carries every section the per-request figures give
 * (the Report without the extended sections); each later part the sections it adds. Applied in order
 * onto one object they give the final Report, key for key.
 */
export type ReportPart = { part: 'figures'; report: Partial<Report> } | { part: ExtendedSectionName; report: Partial<Report> };

/** What each part holds, in the words a progress line uses (the editor's run notification). */
export const REPORT_PART_LABELS: Readonly<Record<ReportPart['part'], string>> = {
  figures: 'verdict, join coverage and owners of the p95',
  groups: 'groups',
  window_series: 'window series and diagnoses',
  join_bias: 'join bias',
  user_observed: 'user-observed figures',
  provenance: 'provenance',
  stages: 'stages',
};

export async function analyzeRun(store: QueryRunner, options: AnalysisOptions, gates: readonly GateSpec[], onPart?: (part: ReportPart) => void): Promise<Report> {
  const info = await ensureBreakdown(store, options, 'per-request');
  enterStage(store, 'join and warnings');
  const cache = await FigureCache.open(store, info.stamps);
  const warnings = await cache.get<string[]>('warnings', () => collectBreakdownWarnings(store, options));
  const join = await cache.get<JoinSummary>('join', () => computeJoinSummary(store, options.joinKey));
  enterStage(store, 'slow traces');
  const slow = await cachedSlowTraces(store, options, cache);
  const report = await buildReport(store, options, gates, { phaseColumns: info.phaseColumns, warnings, join, slowTraces: slow, cache }, {
    beforeExtended: async (figures) => {
      onPart?.({ part: 'figures', report: figures });
      await ensureBreakdown(store, options, 'all');
    },
    onSection: (part, sections) => onPart?.({ part, report: sections }),
  });
  enterStage(store, 'figure cache');
  await cache.flush();
  return report;
}

/** The slow-trace list is cached at least this long, so a re-analysis asking for fewer reuses it. */
const SLOW_TRACES_CACHED = 100;

/**
 * The slowest matched successes. Their order (client_total_ms DESC, row_id) is total, so the list for
 * a smaller limit is a prefix of the list for a larger one: one cached list of max(limit, 100) serves
 * every later --slow up to that length (fetching the wide rows of the top-N is the costly part,
 * whatever N).
 */
async function cachedSlowTraces(store: QueryRunner, options: AnalysisOptions, cache: FigureCache): Promise<TraceBreakdown[]> {
  const limit = Math.max(0, Math.floor(options.slowTraceCount));
  const stored = await cache.get('slow_traces', async () => {
    const cachedLimit = Math.max(limit, SLOW_TRACES_CACHED);
    return { limit: cachedLimit, rows: await slowTracesOfBreakdown(store, options, cachedLimit) };
  });
  if (stored.limit < limit) return slowTracesOfBreakdown(store, options, limit);
  return stored.rows.slice(0, limit);
}
