/**
 * analyzeRun: the one entry point from loaded tables to the Report. The join side materialises the
 * breakdown tables (rebuilt from the loaded run, never re-parsed), then every figure is SQL over them.
 */
import type { QueryRunner } from '../store/duckStore';
import { ensureBreakdown } from './breakdown/breakdown';
import { FigureCache } from './figures/figureCache';
import { computeJoinSummary } from './figures/join';
import type { AnalysisOptions, GateSpec } from './options';
import { slowTracesOfBreakdown } from './trace/reconcile';
import type { JoinSummary, Report, TraceBreakdown } from '../report/model';
import { buildReport } from './figures/buildReport';

export { buildReport, jsonSafe, type BreakdownParts } from './figures/buildReport';

export async function analyzeRun(store: QueryRunner, options: AnalysisOptions, gates: readonly GateSpec[]): Promise<Report> {
  const info = await ensureBreakdown(store, options);
  // Figures that only depend on the breakdown tables are computed once per build and read back by
  // every later analysis of the same build (figureCache.ts).
  const cache = info.buildId !== undefined ? await FigureCache.open(store, info.buildId, info.baseId) : undefined;
  // The join summary does not depend on the phase mapping (trace_roots and client_index only).
  const join = cache ? await cache.getBase<JoinSummary>('join', () => computeJoinSummary(store)) : await computeJoinSummary(store);
  const slow = await cachedSlowTraces(store, options, cache);
  const report = await buildReport(store, options, gates, { phaseColumns: info.phaseColumns, warnings: info.warnings, join, slowTraces: slow, cache });
  await cache?.flush();
  return report;
}

/** The slow-trace list is cached at least this long, so a re-analysis asking for fewer reuses it. */
const SLOW_TRACES_CACHED = 100;

/**
 * The slowest matched successes. Their order (client_total_ms DESC, row_id) is total, so the list for
 * a smaller limit is a prefix of the list for a larger one: one cached list of max(limit, 100) serves
 * every later --slow up to that length. (Fetching the wide rows of the top-N is the costly part, ≈ 0.1 s
 * at 100k, whatever N.)
 */
async function cachedSlowTraces(store: QueryRunner, options: AnalysisOptions, cache: FigureCache | undefined): Promise<TraceBreakdown[]> {
  const limit = Math.max(0, Math.floor(options.slowTraceCount));
  if (!cache) return slowTracesOfBreakdown(store, options, limit);
  const stored = await cache.get('slow', async () => {
    const cachedLimit = Math.max(limit, SLOW_TRACES_CACHED);
    return { limit: cachedLimit, rows: await slowTracesOfBreakdown(store, options, cachedLimit) };
  });
  if (stored.limit < limit) return slowTracesOfBreakdown(store, options, limit);
  return stored.rows.slice(0, limit);
}
