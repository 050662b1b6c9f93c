/**
 * What the panels and views ask of an analysed run, answered from its store with the core's own
 * functions (the same ones the CLI and the exported HTML use), under the run's last analysis. Models
 * leave as JSON text: the host hands them to the webview without parsing them.
 */
import { writeFile } from 'fs/promises';
import type { TraceSelection } from '../../../core/analysis/trace/traceList';
import { listTraces } from '../../../core/analysis/trace/traceList';
import { normalizeTraceId } from '../../../core/traceId';
import { readTraceModel } from '../../../core/analysis/trace/traceModel';
import { slowTracesBy } from '../../../core/analysis/trace/slowTraceOrder';
import { compareWithTypical } from '../../../core/analysis/trace/typicalTrace';
import type { TraceModel } from '../../../core/analysis/trace/types';
import { InputError } from '../../../core/errors';
import { reportHtml, traceHtml } from '../../../core/report/html/export';
import { renderReport } from '../../../core/report/index';
import { buildReportView } from '../../../core/report/view/build';
import type { Params, QueryRunner } from '../../../core/store/duckStore';
import type { ReportViewModel } from '../../../core/report/view/types';
import { encodeJson, type JsonText } from '../../../protocol/schema';
import { slowTraceRows } from './summary';
import type { SlowTraceRow } from '../workerProtocol';
import type { RunAnalysis } from './runStates';

function traceIdOf(raw: string): string {
  const id = normalizeTraceId(raw);
  if (id === undefined) throw new InputError('trace ID', undefined, 'a W3C trace ID of 32 hex digits (or a 16-digit Zipkin ID), not all zero', `'${raw.slice(0, 80)}'`);
  return id;
}

export async function reportViewJson(store: QueryRunner, a: RunAnalysis): Promise<JsonText<ReportViewModel>> {
  const view = await buildReportView(store, { options: a.options, gates: a.gates, report: a.report, contractPath: a.contract ?? undefined });
  return encodeJson(view);
}

export async function traceJson(store: QueryRunner, a: RunAnalysis, traceId: string): Promise<JsonText<TraceModel> | null> {
  const model = await readTraceModel(store, traceIdOf(traceId), a.options);
  return model === undefined ? null : encodeJson(model);
}

export async function tracesOf(store: QueryRunner, a: RunAnalysis, selection: TraceSelection, limit: number): ReturnType<typeof listTraces> {
  return listTraces(store, a.options, selection, Math.min(Math.max(0, limit), 1000));
}

export async function comparison(store: QueryRunner, a: RunAnalysis, traceId: string): Promise<{ comparison: string | null; reason: string | null }> {
  const model = await readTraceModel(store, traceIdOf(traceId), a.options);
  if (model === undefined) return { comparison: null, reason: `trace ${traceId} is not in this run` };
  if (!model.matched) return { comparison: null, reason: 'this trace is not matched: it has no route population to compare with' };
  const c = await compareWithTypical(store, model, a.options);
  return c === undefined ? { comparison: null, reason: 'no other matched success of this route in the run' } : { comparison: encodeJson(c), reason: null };
}

export async function slowTraces(store: QueryRunner, a: RunAnalysis, order: string, limit: number): Promise<{ traces: SlowTraceRow[]; total: number }> {
  const { traces, total } = await slowTracesBy(store, a.options, order, Math.min(Math.max(0, limit), 1000));
  return { traces: slowTraceRows(traces, a.options.phases.map((p) => p.name)), total };
}

/** Writes the report; returns the bytes written. */
export async function exportReport(store: QueryRunner, a: RunAnalysis, format: 'markdown' | 'json' | 'html', file: string): Promise<number> {
  const text =
    format === 'html'
      ? await reportHtml(store, { options: a.options, gates: a.gates, report: a.report, contractPath: a.contract ?? undefined })
      : renderReport(a.report, format === 'markdown' ? 'md' : 'json');
  await writeFile(file, text, 'utf8');
  return Buffer.byteLength(text);
}

export async function exportTrace(store: QueryRunner, a: RunAnalysis, traceId: string, format: 'html' | 'json', file: string): Promise<number> {
  const id = traceIdOf(traceId);
  let text: string | undefined;
  if (format === 'html') text = await traceHtml(store, id, a.options);
  else {
    const model = await readTraceModel(store, id, a.options);
    text = model === undefined ? undefined : JSON.stringify(model, null, 2) + '\n';
  }
  if (text === undefined) throw new InputError('trace ID', undefined, 'a trace ID present in the run', `${id}: absent from its files`);
  await writeFile(file, text, 'utf8');
  return Buffer.byteLength(text);
}

/** A read-only question: rows as JSON text (BIGINTs outside the safe range come as strings: duckStore.ts). */
export async function queryRows(store: QueryRunner, sql: string, params: unknown[]): Promise<string> {
  if (!/^\s*(select|with|describe|summarize|explain)\b/i.test(sql)) throw new Error('runs/query takes one read-only statement (SELECT, WITH, DESCRIBE, SUMMARIZE or EXPLAIN)');
  // JSON values (strings, numbers, booleans, null) are DuckDB values as they are.
  const rows = await store.all(sql, params as Params);
  return JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
