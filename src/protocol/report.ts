/**
 * The run report webview's protocol (webview/report.ts ⇄ the report panel). Every message is declared
 * once here with its schema; host and bundle both import it. Common messages (ready, theme, copy,
 * errors) are in common.ts.
 *
 * Order: the webview sends `webview/ready`; the host answers with `report/didLoad` (its queue holds
 * it until then). The webview then asks for traces (`report/listTraces`) and tells the host what the
 * user opened (`report/openTrace`, `report/openContract`, `report/export`).
 */
import type { ReportViewModel } from '../core/report/view/types';
import type { TraceBreakdown } from '../core/report/model';
import { notification, request } from './ipc';
import { array, boolean, jsonText, literal, model, nullable, number, object, optional, record, string, tagged, unknown, type Infer, type Schema } from './schema';

/** One trace's figures (a slow-trace row), as the report and the editor's views list them. */
export const breakdown: Schema<TraceBreakdown> = model<TraceBreakdown>()({
  trace_id: string,
  outcome: string,
  client_total_ms: nullable(number),
  server_root_ms: nullable(number),
  network_envelope_ms: nullable(number),
  phases: record(number),
  unattributed_server_ms: nullable(number),
});

/** The fields the report cannot render without (the rest is read as the core declares it). */
export const reportViewModel: Schema<ReportViewModel> = model<ReportViewModel>()({
  title: string,
  report: object({
    phasewise_version: string,
    verdict: object({ status: string, broken_phase: nullable(string), reasons: array(string) }),
    join: object({ client_requests: number, matched: number }),
    metrics: record(object({ n: number })),
    windows: object({ size_ms: number, windows: array(object({ index: number, started: number })), worst: nullable(number) }),
    gates: array(object({ id: string, status: string })),
    slow_traces: array(breakdown),
    definitions: record(string),
    grouping: object({ by: array(string), min_group_size: number, mixes: array(object({ dimension: string, values: array(object({ value: string, calls: number })) })), definitions: record(string) }),
    groups: array(object({ key: string, successes: number, too_small: boolean, metrics: record(object({ n: number })) })),
    window_series: object({
      kind: literal('fixed', 'sliding', 'stages'),
      owners: array(string),
      windows: array(object({ index: number, start_offset_ms: number, end_offset_ms: number, started_per_s: number, completed_per_s: number, in_flight: number, owners: record(object({ n: number })) })),
      worst: array(object({ metric: string, window: number })),
    }),
    diagnoses: array(object({ code: string, title: string, first_check: string, evidence: array(object({ figure: string, text: string })) })),
    diagnosis_status: object({ summary: string }),
    join_bias: object({ message: string, biased: boolean }),
    user_observed: object({ definitions: record(string) }),
    provenance: object({ phasewise_version: string, inputs: array(object({ path: string, bytes: number, sha256: nullable(string) })) }),
  }) as unknown as Schema<ReportViewModel['report']>,
  envelope_histogram: object({ n: number, bin_ms: number, bins: array(object({ from_ms: number, to_ms: number, count: number })), negative: number }),
  window_owners: array(object({ index: number, n: number, p95: record(nullable(number)) })),
  gate_links: record(object({ path: string, line: nullable(number) })),
});

/** The view model as JSON text on the wire (`encodeJson` / `decodeJson(text, reportViewModelJson, …)`). */
export const reportViewModelJson = jsonText(reportViewModel);

/**
 * What the webview saves with `setState` (and the host's WebviewPanelSerializer receives on reload):
 * which run, and where the user was. `run` is the host's key of the run (its cache key); opaque here.
 */
export const reportViewState = object({
  run: nullable(string),
  /** The section scrolled to (an element id of the report). */
  section: optional(nullable(string)),
  scroll_y: optional(number),
  /** The window or bucket whose traces are listed. */
  selection: optional(nullable(unknown)),
});
export type ReportViewState = Infer<typeof reportViewState>;

/** Host → webview: the report to show (again after a re-analysis), and the state to restore. */
export const DidLoad = notification('report/didLoad', 'toWebview', object({ run: nullable(string), model: reportViewModelJson, state: optional(nullable(reportViewState)) }));

/** Which requests a chart click selects: a window by index, or envelope values in [from_ms, to_ms). */
export const traceSelection = tagged('kind', {
  window: object({ kind: literal('window'), index: number }),
  envelope: object({ kind: literal('envelope'), from_ms: number, to_ms: number }),
});
export type TraceSelectionParams = Infer<typeof traceSelection>;

/** Webview → host: the slowest matched successes of a window or a histogram bucket (core listTraces). */
export const ListTraces = request(
  'report/listTraces',
  'toHost',
  object({ selection: traceSelection, limit: number }),
  object({ traces: array(breakdown), total: number }),
);

/** Webview → host: open the waterfall of this trace (a panel per trace, reused). */
export const OpenTrace = notification('report/openTrace', 'toHost', object({ trace_id: string }));

/** Webview → host: open the contract at the gate's line (1-based; null = the top of the file). */
export const OpenContract = notification('report/openContract', 'toHost', object({ path: string, line: nullable(number), gate: string }));

/** Webview → host: export the report (the host asks where and writes it). */
export const ExportReport = notification('report/export', 'toHost', object({ format: literal('markdown', 'json', 'html') }));

/** Webview → host: remember the view state (also kept by `setState`; this reaches the host's run cache). */
export const SaveState = notification('report/saveState', 'toHost', object({ state: reportViewState }));
