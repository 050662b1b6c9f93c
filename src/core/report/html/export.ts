/**
 * `--format html` for `phasewise analyze` (the report, with the waterfall of every listed slow trace)
 * and `phasewise reconcile` (one trace): the view models built from the store, then one page.
 */
import type { AnalysisOptions, GateSpec } from '../../analysis/options';
import type { Report } from '../model';
import { MAX_PAGE_TRACE_SPANS, readTraceModel } from '../../analysis/trace/traceModel';
import { compareWithTypical } from '../../analysis/trace/typicalTrace';
import type { QueryRunner } from '../../store/duckStore';
import { buildEmbeddedData, buildReportView } from '../view/build';
import { renderHtmlPage } from './page';

export async function reportHtml(store: QueryRunner, input: { options: AnalysisOptions; gates: readonly GateSpec[]; report: Report; contractPath?: string }): Promise<string> {
  const view = await buildReportView(store, input);
  view.embedded = await buildEmbeddedData(store, view, input.options);
  return renderHtmlPage({ title: `Phasewise report: ${view.title}`, data: { kind: 'report', model: view }, bundles: ['report', 'waterfall'] });
}

/** Undefined when neither side knows the trace. */
export async function traceHtml(store: QueryRunner, traceId: string, options: AnalysisOptions): Promise<string | undefined> {
  const trace = await readTraceModel(store, traceId, options, MAX_PAGE_TRACE_SPANS);
  if (trace === undefined) return undefined;
  const comparison = trace.matched ? ((await compareWithTypical(store, trace, options)) ?? null) : null;
  const reason = comparison !== null ? null : trace.matched ? 'no other matched success of this route in the run' : 'this trace is not matched: it has no route population to compare with';
  return renderHtmlPage({ title: `Phasewise trace ${trace.trace_id}`, data: { kind: 'trace', run: null, trace, comparison, reason }, bundles: ['waterfall'] });
}
