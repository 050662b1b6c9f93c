import type { QueryRunner } from '../../store/duckStore';
import { buildRequestBreakdown, buildRootBreakdown } from './breakdownTables';
import { collectBreakdownWarnings } from './warnings';
import { keepBaseFigures } from '../figures/figureCache';
import type { AnalysisOptions } from '../options';
import { unordered } from '../../store/insertOrder';
import { phaseColumns, phaseMaskSql } from './phaseSelect';
import { buildPhaseSelection, buildRootTree } from './phaseTimes';
import { buildSpanPhases, buildSpanPhasesFromLinks, ensureTraceRoots } from './rootSelect';
import { ensureSpanIndex, LOADED_RUN_STAMP_SQL, loadedRunStampRow } from '../index/spanIndex';

/** What buildBreakdown produced besides its tables. */
export interface BreakdownInfo {
  /** One `<phase>_ms` column per options.phases entry, in order, e.g. ['gateway_ms', 'gpu_queue_ms', 'generation_ms']. */
  phaseColumns: string[];
  /** Data-quality findings: unit mistakes, negative envelopes, clock issues, de-duplicated spans, … */
  warnings: string[];
  /**
   * Identifies this build of the breakdown tables (a uuid stored in breakdown_meta): figures computed
   * from them are cached under it (figureCache.ts). Absent only for tables not built by buildBreakdown.
   */
  buildId?: string;
  /**
   * Identifies what the phase-independent figures depend on (the options other than the phases, and
   * the span index build): they are cached under it across phase mappings (figureCache.ts getBase).
   */
  baseId?: string;
}

/**
 * Materialises the analysis tables from the loaded tables, in dependency order:
 * span index (options-independent, built once per loaded span set: spanIndex.ts) → span_phase →
 * trace_roots (kept while the root options and the index build stay: ensureTraceRoots) → root_tree
 * (view) → phase_sel → root_figures + root_breakdown (view; with the trace_phase_ms and trace_extras CTEs) → request_breakdown. Every table is CREATE OR REPLACE, so re-analysis with other
 * options (phase mapping, root service, granularity) rebuilds from the loaded run without re-parsing
 * any file. The per-options tables live in the database (a file with `--db`), stamped in
 * breakdown_meta with the options they depend on: a later re-analysis that changes only windows, gates
 * or slow-trace ordering reuses them (ensureBreakdown) instead of rebuilding (≈ 2.5 s CPU at 100k).
 */
export async function buildBreakdown(store: QueryRunner, options: AnalysisOptions): Promise<BreakdownInfo> {
  const phases = phaseColumns(options.phases);
  // A build that fails half-way must not leave an earlier stamp describing the half-rebuilt tables.
  await store.run('DROP TABLE IF EXISTS breakdown_meta');
  // When the index is (re)built (the first analysis of a loaded run), its scan of spans also computes
  // the phase mask: the span attributes are read once, and span_phase is a filter of span_links.
  const indexed = await ensureSpanIndex(store, (attrs, params) => phaseMaskSql(options.phases, params, attrs));
  // Figures of other builds go now; the phase-independent ones of the same base stay (a build that
  // fails half-way leaves them valid: they depend only on what the base stamp names).
  const baseId = await baseStamp(store, options);
  await keepBaseFigures(store, baseId);
  // These tables are keyed by node or trace, never read in row order: parallel inserts (insertOrder.ts).
  await unordered(store, async () => {
    if (indexed) await buildSpanPhasesFromLinks(store);
    else await buildSpanPhases(store, options);
    await ensureTraceRoots(store, options);
    await buildRootTree(store);
    await buildPhaseSelection(store, phases);
    await buildRootBreakdown(store, phases, options);
  });
  // request_figures is read beside client_requests by position: written in loaded order.
  await buildRequestBreakdown(store, phases);
  // The warnings depend only on these tables and the granularity (part of the options key): kept
  // with the stamp, so a re-analysis reads them back instead of re-scanning request_breakdown.
  const warnings = await collectBreakdownWarnings(store, options);
  await store.run(
    `CREATE OR REPLACE TABLE breakdown_meta AS
     SELECT $1::VARCHAR AS options_key, $2::VARCHAR AS warnings_json, uuid()::VARCHAR AS build_id, $3::VARCHAR AS base_id, ${LOADED_RUN_STAMP_SQL}`,
    [breakdownOptionsKey(options), JSON.stringify(warnings), baseId],
  );
  const [meta] = await store.all<{ build_id: string }>('SELECT build_id FROM breakdown_meta');
  return { phaseColumns: phases.map((p) => p.column), warnings, buildId: meta?.build_id, baseId };
}

/**
 * The base stamp: every option the breakdown depends on except the phases, and the span index build
 * (a new loaded run is a new build). Columns of request_breakdown/root_breakdown other than the phase
 * columns, unattributed_server_ms and generation_ms_per_output_token are functions of these alone.
 */
async function baseStamp(store: QueryRunner, options: AnalysisOptions): Promise<string> {
  const [index] = await store.all<{ build_id: string }>('SELECT build_id FROM span_index_meta');
  // Derived from breakdownOptionsKey, so an option added there is part of the base stamp too.
  const key = JSON.parse(breakdownOptionsKey(options)) as Record<string, unknown>;
  delete key.phases;
  return `base:${JSON.stringify(key)}|${index?.build_id ?? ''}`;
}

/** The options the breakdown tables depend on, as a stable string (to know whether they must be rebuilt). */
export function breakdownOptionsKey(options: AnalysisOptions): string {
  return JSON.stringify({
    phases: options.phases,
    root: options.root,
    granularity: options.timestampGranularityMs,
    firstTokenEvent: options.firstTokenEvent,
    firstTokenSpan: options.firstTokenSpan,
    contentEvent: options.contentEvent ?? null,
  });
}

/**
 * Builds the breakdown tables unless they already exist for these options and these loaded rows; in
 * that case nothing is recomputed: the warnings are read back from breakdown_meta.
 */
export async function ensureBreakdown(store: QueryRunner, options: AnalysisOptions): Promise<BreakdownInfo> {
  const existing = await store.all<{ n: number }>(
    // Looks for the newest meta column: a meta table written by an older version means rebuild.
    "SELECT count(*) AS n FROM duckdb_columns() WHERE table_name = 'breakdown_meta' AND column_name = 'base_id'",
  );
  if (existing[0].n > 0) {
    const [meta] = await store.all<{ options_key: string; warnings_json: string; build_id: string; base_id: string; fresh: boolean }>(
      `SELECT m.options_key, m.warnings_json, m.build_id, m.base_id, ${loadedRunStampRow('m')} = ${loadedRunStampRow('now')} AS fresh
       FROM breakdown_meta m, (SELECT ${LOADED_RUN_STAMP_SQL}) now`,
    );
    if (meta?.options_key === breakdownOptionsKey(options) && meta.fresh) {
      const warnings = JSON.parse(meta.warnings_json) as string[];
      return { phaseColumns: phaseColumns(options.phases).map((p) => p.column), warnings, buildId: meta.build_id, baseId: meta.base_id };
    }
  }
  return buildBreakdown(store, options);
}
