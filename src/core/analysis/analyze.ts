/**
 * analyzeRun: the one entry point from loaded tables to the Report. The join side materialises the
 * breakdown tables (rebuilt from the loaded run, never re-parsed), then every figure is SQL over them.
 */
import type { QueryRunner } from '../store/duckStore';
import { ensureBreakdown } from './breakdown';
import { computeJoinSummary } from './join';
import type { AnalysisOptions, GateSpec } from './options';
import { slowTraces } from './reconcile';
import type { Report } from './report';
import { buildReport } from './summaryReport';

export { buildReport, jsonSafe, type BreakdownParts } from './summaryReport';

export async function analyzeRun(store: QueryRunner, options: AnalysisOptions, gates: readonly GateSpec[]): Promise<Report> {
  const info = await ensureBreakdown(store, options);
  const join = await computeJoinSummary(store);
  const slow = await slowTraces(store, options, options.slowTraceCount);
  return buildReport(store, options, gates, { phaseColumns: info.phaseColumns, warnings: info.warnings, join, slowTraces: slow });
}
