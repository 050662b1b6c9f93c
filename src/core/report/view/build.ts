/**
 * Builds the report view model (types.ts) from an analysed run, and for an exported HTML file the
 * embedded data: per window and per histogram bucket the slowest traces, and the waterfall (and the
 * typical-trace comparison) of every listed slow trace.
 */
import * as path from 'path';
import type { AnalysisOptions, GateSpec } from '../../analysis/options';
import type { Report } from '../model';
import { listTraces, type TraceSelection } from '../../analysis/trace/traceList';
import { MAX_PAGE_TRACE_SPANS, readTraceModel } from '../../analysis/trace/traceModel';
import { compareWithTypical } from '../../analysis/trace/typicalTrace';
import type { TraceComparison, TraceModel } from '../../analysis/trace/types';
import type { QueryRunner } from '../../store/duckStore';
import { gateLinks, runConfiguration } from './configuration';
import { envelopeHistogram, windowOwnerP95 } from './figures';
import { traceListKey, type EmbeddedData, type EmbeddedTraceList, type ReportViewModel } from './types';

export interface ReportViewInput {
  options: AnalysisOptions;
  gates: readonly GateSpec[];
  report: Report;
  /** The contract file the gates came from, when there is one. */
  contractPath?: string;
}

function runTitle(report: Report): string {
  const names = report.inputs.map((i) => path.basename(i.path));
  return names.length > 0 ? names.join(' + ') : 'Phasewise run';
}

export async function buildReportView(store: QueryRunner, input: ReportViewInput): Promise<ReportViewModel> {
  const contract = input.contractPath ?? null;
  return {
    title: runTitle(input.report),
    report: input.report,
    envelope_histogram: await envelopeHistogram(store),
    window_owners: await windowOwnerP95(store, input.options),
    configuration: runConfiguration(input.options, input.gates, contract),
    gate_links: gateLinks(input.gates, contract),
    embedded: null,
  };
}

/** Traces per embedded list: enough to pick from, small enough that a 1M-request run's file stays small. */
export const EMBEDDED_LIST_LIMIT = 10;

/** The data an exported HTML file answers from: lists for every window and bucket, waterfalls of the slow traces. */
export async function buildEmbeddedData(store: QueryRunner, view: ReportViewModel, options: AnalysisOptions): Promise<EmbeddedData> {
  const selections: TraceSelection[] = [
    ...view.report.windows.windows.filter((w) => w.client_total_ms.n > 0).map((w): TraceSelection => ({ kind: 'window', index: w.index })),
    ...view.envelope_histogram.bins.filter((b) => b.count > 0).map((b): TraceSelection => ({ kind: 'envelope', from_ms: b.from_ms, to_ms: b.to_ms })),
  ];
  const trace_lists: EmbeddedTraceList[] = [];
  for (const s of selections) trace_lists.push({ key: traceListKey(s), ...(await listTraces(store, options, s, EMBEDDED_LIST_LIMIT)) });
  const waterfalls: Record<string, TraceModel> = {};
  const comparisons: Record<string, TraceComparison | null> = {};
  for (const t of view.report.slow_traces) {
    const model = await readTraceModel(store, t.trace_id, options, MAX_PAGE_TRACE_SPANS);
    if (model === undefined) continue;
    waterfalls[t.trace_id] = model;
    comparisons[t.trace_id] = (await compareWithTypical(store, model, options)) ?? null;
  }
  return { trace_lists, list_limit: EMBEDDED_LIST_LIMIT, waterfalls, comparisons };
}
