/**
 * The trace model: everything the waterfall shows of one trace ID, as a plain JSON-serialisable object
 * (the webview's initial data, and the data embedded in an exported HTML file). Times are ms relative
 * to the server root's start (or the trace's earliest span when it has no unique root); durations are
 * each measured by one observer, never a difference of two machines' clocks.
 */
import type { TraceBreakdown, WaterfallSpan } from '../../report/model';

/** One attribute as the export holds it; a sensitive value is replaced (`masked`), never shipped. */
export interface SpanAttribute {
  key: string;
  /** The value as text; for a masked attribute, a note such as `‹masked: 1,204 characters›`. */
  value: string;
  masked: boolean;
}

/** A span event at its time relative to the trace's base. */
export interface TraceSpanEvent {
  name: string;
  time_ms: number;
}

/** GenAI semantic-convention figures of a span, shown as badges. */
export interface GenAiBadges {
  operation: string | null;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
}

/** A span with what its detail pane shows. `phase` is the first phase whose selector picks it. */
export interface TraceSpan extends WaterfallSpan {
  /** Index of the parent row in TraceModel.spans (null: top-most, or its parent is not in the export). */
  parent_index: number | null;
  /**
   * A later copy of the span ID of its parent row (B3 shared spans: Zipkin's client and server halves
   * carry one ID). Drawn under the kept copy; counts in no phase (the analysis reads one copy per ID).
   */
  shared_copy: boolean;
  attributes: SpanAttribute[];
  events: TraceSpanEvent[];
  genai: GenAiBadges | null;
  /** The file the span was loaded from and its line (null when the file loaded without line numbers). */
  source: string | null;
  line: number | null;
}

/** The client's view of the request (k6 timings when the source has them; null = not known). */
export interface ClientRequestTimings {
  outcome: string;
  http_status: number | null;
  method: string | null;
  url: string | null;
  route: string | null;
  scenario: string | null;
  model_class: string | null;
  /** k6 http_req_duration = sending + waiting + receiving. */
  total_ms: number | null;
  blocked_ms: number | null;
  connecting_ms: number | null;
  tls_handshaking_ms: number | null;
  sending_ms: number | null;
  waiting_ms: number | null;
  receiving_ms: number | null;
  ttft_ms: number | null;
  ttfb_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  source: string | null;
  line: number | null;
}

/** One trace, both sides. */
export interface TraceModel {
  trace_id: string;
  /** Phase names (without `_ms`) in the configured order: the colour order of the waterfall. */
  phases: string[];
  breakdown: TraceBreakdown;
  /** The request counts in the decomposition population. */
  matched: boolean;
  /** Why the figures are partial or not matched (reconcileTrace's notes). */
  notes: string[];
  /** The `phasewise reconcile` lines (`key=value`), the same text the CLI prints. */
  reconciliation: string[];
  client: ClientRequestTimings | null;
  root_span_id: string | null;
  /** Depth-first by start, the root first; fragments not under the root follow. */
  spans: TraceSpan[];
  /** The timestamps' resolution (analysis option timestampGranularityMs): the critical path's tolerance. */
  granularity_ms?: number;
  /** What the span detail cannot show, in plain words (resource attributes other than service.name are not kept at load). */
  limits: string[];
}

/** One figure of a slow trace beside the same figure of the typical trace. */
export interface FigureDelta {
  /** A phase name, `network_envelope`, `unattributed_server`, `client_total` or a span name. */
  name: string;
  slow_ms: number | null;
  typical_ms: number | null;
  /** slow − typical; null when either side is unknown. */
  delta_ms: number | null;
}

/** "Compare with a typical trace": the median-duration matched success of the same route. */
export interface TraceComparison {
  /** How the group was chosen, e.g. `route "chat"` or `root span "POST /v1/chat/completions"`. */
  group: string;
  /** Matched successes in the group (the slow trace included). */
  group_size: number;
  typical: TraceModel;
  /** client_total, network_envelope, each phase, unattributed_server. */
  phases: FigureDelta[];
  /** Σ duration per span name, largest |delta| first. */
  span_names: FigureDelta[];
}
