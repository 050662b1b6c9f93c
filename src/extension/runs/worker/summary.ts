/**
 * What the Runs and Slow Traces views and the status bar show of an analysed run, picked out of the
 * Report in the worker: a few KB, posted to the host and kept in the extension's state, so the views
 * of a reloaded window are back before any worker or database is started. No vscode import.
 */
import * as path from 'path';
import type { GateResult, QuantileSummary, Report, TraceBreakdown } from '../../../core/report/model';
import { dominantOwner } from '../../../core/analysis/trace/slowTraceOrder';
import type { GateRow, OwnerRow, RunSummary, SlowTraceRow } from '../workerProtocol';

/** A Report gate as the views show it (observed null unless finite). */
export function gateRow(g: GateResult): GateRow {
  return {
    id: g.id,
    category: g.category,
    metric: g.metric,
    stat: g.stat,
    op: g.op,
    limit: g.limit,
    observed: finite(g.observed),
    n: g.n,
    window: g.window,
    status: g.status,
    origin: g.origin ?? null,
  };
}

function finite(v: number | null | undefined): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * Matched successes when the run joins (the decomposition population); a server-only run (the trace
 * receiver's live run, a span export alone) has its owners over the server roots instead, where the
 * envelope does not exist.
 */
function ownerTable(report: Report): { table: Record<string, QuantileSummary>; population: string } {
  if (report.join.matched > 0) return { table: report.metrics, population: 'matched successes, whole run' };
  return { table: report.server_only, population: 'server roots, whole run' };
}

export function summarizeReport(report: Report, options: { phases: readonly string[]; windowSizeMs: number; contract: string | null; title?: string }): RunSummary {
  const { table, population } = ownerTable(report);
  const budgets = new Map(report.gates.filter((g) => g.category === 'budget').map((g) => [g.metric, g] as const));
  const owners: OwnerRow[] = [];
  for (const owner of ['network_envelope', ...options.phases, 'unattributed_server']) {
    const metric = `${owner}_ms`;
    const q = table[metric];
    const budget = budgets.get(metric);
    // The envelope of a server-only run does not exist: no row rather than a row of nothing.
    if (q === undefined && budget === undefined) continue;
    owners.push({
      owner,
      metric,
      p50: finite(q?.p50),
      p95: finite(q?.p95),
      p99: finite(q?.p99),
      n: q?.n ?? 0,
      population,
      budget: budget !== undefined ? gateRow(budget) : null,
    });
  }
  const j = report.join;
  return {
    title: options.title ?? runTitle(report),
    analyzed_at: Date.now(),
    phasewise_version: report.phasewise_version,
    contract: options.contract,
    window_size_ms: options.windowSizeMs,
    phases: [...options.phases],
    inputs: report.inputs.map((i) => ({ path: i.path, format: i.format, side: i.side, bytes: i.bytes, records: i.records, skipped: i.skipped })),
    verdict: { status: report.verdict.status, broken_phase: report.verdict.broken_phase, reasons: [...report.verdict.reasons] },
    join: {
      client_requests: j.client_requests,
      matched: j.matched,
      coverage: finite(j.coverage),
      coverage_of_valid: finite(j.coverage_of_valid),
      valid_trace_ids: j.valid_trace_ids,
      invalid_trace_ids: j.invalid_trace_ids,
      unmatched_client: j.unmatched_client,
      orphan_server_roots: j.orphan_server_roots,
      lost_roots: j.lost_roots,
      duplicate_trace_ids: j.duplicate_trace_ids,
      server_traces: j.server_traces,
      server_spans: j.server_spans,
    },
    owners,
    gates: report.gates.filter((g) => g.category !== 'budget').map(gateRow),
    load_issues: report.load_issues.total,
    warnings: [...report.warnings],
    slow_traces: slowTraceRows(report.slow_traces, options.phases),
  };
}

/** Each trace with its dominant owner. */
export function slowTraceRows(traces: readonly TraceBreakdown[], phases: readonly string[]): SlowTraceRow[] {
  return traces.map((trace) => ({ trace, dominant: dominantOwner(trace, phases) ?? null }));
}

/** The run's files by name, as the report view model titles it. */
export function runTitle(report: Report): string {
  const names = report.inputs.map((i) => path.basename(i.path));
  return names.length > 0 ? names.join(' + ') : 'Phasewise run';
}
