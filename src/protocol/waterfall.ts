/**
 * The waterfall webview's protocol (webview/waterfall.ts ⇄ a trace panel). Declared once here, with
 * schemas; common messages (ready, theme, copy, errors) are in common.ts.
 *
 * Order: `webview/ready` → host `waterfall/didLoad` (queued until ready). "Compare with a typical
 * trace" is a request (`waterfall/compare`); selection changes are told to the host
 * (`waterfall/select`) so it can save them for the serializer.
 */
import type { TraceComparison, TraceModel } from '../core/analysis/trace/types';
import { notification, request } from './ipc';
import { array, boolean, jsonText, literal, model, nullable, number, object, optional, string, type Infer, type Schema } from './schema';

const span = object({
  span_id: string,
  parent_span_id: nullable(string),
  name: string,
  kind: string,
  start_ms: number,
  duration_ms: number,
  depth: number,
  phase: nullable(string),
  status: string,
  attributes: array(object({ key: string, value: string, masked: boolean })),
  events: array(object({ name: string, time_ms: number })),
});

/** The fields the waterfall cannot draw without. */
export const traceModel: Schema<TraceModel> = model<TraceModel>()({
  trace_id: string,
  phases: array(string),
  matched: boolean,
  notes: array(string),
  reconciliation: array(string),
  root_span_id: nullable(string),
  spans: array(span) as unknown as Schema<TraceModel['spans']>,
  limits: array(string),
});

const figureDelta = object({ name: string, slow_ms: nullable(number), typical_ms: nullable(number), delta_ms: nullable(number) });

export const traceComparison: Schema<TraceComparison> = model<TraceComparison>()({
  group: string,
  group_size: number,
  typical: traceModel,
  phases: array(figureDelta),
  span_names: array(figureDelta),
});

/** The trace as JSON text on the wire (`encodeJson` on the host, `decodeJson(text, traceModelJson, …)` in the webview). */
export const traceModelJson = jsonText(traceModel);
export const traceComparisonJson = jsonText(traceComparison);

/** Saved with `setState` and handed to the WebviewPanelSerializer on reload. */
export const waterfallViewState = object({
  /** The host's key of the run the trace belongs to (opaque here). */
  run: nullable(string),
  trace_id: string,
  selected_span: optional(nullable(string)),
  /** Collapsed rows, as indices into TraceModel.spans (the model of one trace ID is stable). */
  collapsed: optional(array(number)),
  find: optional(string),
  find_mode: optional(literal('filter', 'highlight')),
  critical_path: optional(boolean),
  compare: optional(boolean),
  scroll_top: optional(number),
});
export type WaterfallViewState = Infer<typeof waterfallViewState>;

/**
 * Above the waterfall of a probe's trace (`Phasewise: Send Probe Request`): the request as the probe
 * sent it, whether its trace context reached the server (the root's parent is the probe's parent-id;
 * gateway, queue and generation spans present), and how the trace was fetched.
 */
export const probeBanner = object({
  url: string,
  traceparent: string,
  outcome: string,
  outcome_detail: string,
  http_status: nullable(number),
  propagation: nullable(
    object({
      ok: boolean,
      problems: array(string),
      expected_parent_span_id: string,
      root_parent_span_id: nullable(string),
      phases_present: array(string),
      phases_missing: array(string),
    }),
  ),
  fetch: nullable(object({ backend: string, status: literal('complete', 'partial', 'missing'), spans: number, waited_ms: number, reasons: array(string) })),
});
export type ProbeBanner = Infer<typeof probeBanner>;

/** Host → webview: the trace to draw, the state to restore, and for a probe's trace its banner. */
export const DidLoad = notification(
  'waterfall/didLoad',
  'toWebview',
  object({ run: nullable(string), trace: traceModelJson, state: optional(nullable(waterfallViewState)), probe: optional(nullable(probeBanner)) }),
);

/**
 * Webview → host: the typical trace of the same route and the deltas (core compareWithTypical);
 * `comparison` is null when the route has no other matched success, with `reason` saying so.
 */
export const Compare = request(
  'waterfall/compare',
  'toHost',
  object({ trace_id: string }),
  object({ comparison: nullable(traceComparisonJson), reason: nullable(string) }),
);

/** Webview → host: the selected span changed (null: none). */
export const Select = notification('waterfall/select', 'toHost', object({ trace_id: string, span_id: nullable(string) }));

/** Webview → host: open another trace's waterfall (the typical trace of a comparison). */
export const OpenTrace = notification('waterfall/openTrace', 'toHost', object({ trace_id: string }));

/** Webview → host: export this waterfall as one self-contained HTML file or as the model's JSON. */
export const ExportTrace = notification('waterfall/export', 'toHost', object({ format: literal('html', 'json') }));

/** Webview → host: remember the view state for the serializer. */
export const SaveState = notification('waterfall/saveState', 'toHost', object({ state: waterfallViewState }));
