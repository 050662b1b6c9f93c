/**
 * The probe's result model: plain JSON (numbers, strings, arrays), the same object for
 * `phasewise probe --format json`, the editor's output and its waterfall view. Durations are
 * milliseconds on the probe's one monotonic clock; `null` means not measured (never 0).
 */
import type { Outcome } from '../formats/client/outcome';
import type { WaterfallSpan } from '../report/model';

/** Milliseconds since the attempt started (the request object was created), on the monotonic clock. */
export interface ClientMarks {
  dns_done: number | null;
  connected: number | null;
  tls_done: number | null;
  /** The connection is ready and the request starts to be written: the origin of total/TTFB/TTFT. */
  send_start: number | null;
  request_written: number | null;
  first_byte: number | null;
  first_content: number | null;
  last_content: number | null;
  end: number | null;
}

/** The client side of one request (docs/metrics.md §1 names). */
export interface ClientTimings {
  /** send_start → end of the response body (k6 http_req_duration: sending + waiting + receiving). */
  total_ms: number | null;
  /** send_start → response headers (the first byte and the headers arrive in one read for any sane header size). */
  ttfb_ms: number | null;
  /** Streaming: send_start → first content event; null for non-streaming (that is TTFB, labelled as such). */
  ttft_ms: number | null;
  /** DNS lookup; null when the host is an IP literal (no lookup). */
  dns_ms: number | null;
  connect_ms: number | null;
  /** null for plain HTTP. */
  tls_ms: number | null;
  /** The three above: k6's blocked + connecting + tls_handshaking (docs/metrics.md §1, transport_setup_ms). */
  transport_setup_ms: number | null;
  /** Mean interval between content events after the first (TTFT excluded); null below 2 events. */
  itl_ms: number | null;
  itl_definition: string;
  /** Events that carried output content (role-only and empty deltas excluded). */
  content_events: number;
  /** `data:` payloads that were not JSON (docs/metrics.md §2: content events that could not be parsed). */
  content_parse_errors: number;
  output_tokens: number | null;
  /** Where output_tokens came from: the server's `usage`, or a count of content events. */
  output_tokens_source: 'usage' | 'content_events' | null;
  input_tokens: number | null;
  marks: ClientMarks;
}

/** One request as sent and what came back, before any server side is known. */
export interface ProbeSend {
  trace_id: string;
  traceparent: string;
  /** The probe's own span ID, the parent-id of the traceparent: the server root must name it as its parent. */
  parent_span_id: string;
  /** URL without user info or query. */
  url: string;
  model: string;
  stream: boolean;
  prompt_shape_id: string;
  outcome: Outcome;
  /** Why the outcome is what it is, in words (status text, error code, timeout), never a stack. */
  outcome_detail: string;
  http_status: number | null;
  /** Epoch ms of the attempt (wall clock, for the records' start time only; never subtracted). */
  started_epoch_ms: number;
  client: ClientTimings;
}

/** The server side from the trace's root and phases (reconcileTrace). */
export interface ServerFigures {
  root_ms: number | null;
  phases: { gateway_ms: number | null; gpu_queue_ms: number | null; generation_ms: number | null; unattributed_ms: number | null } & Record<string, number | null>;
  server_ttft_ms: number | null;
}

/** Whether the probe's context reached the server, and what the trace lacks. */
export interface PropagationCheck {
  ok: boolean;
  /** Each problem in plain words; empty when ok. */
  problems: string[];
  /** The parent the root names (null: no root found, or a root without a parent). */
  root_parent_span_id: string | null;
  expected_parent_span_id: string;
  /** Phases with at least one span in the trace, in configured order. */
  phases_present: string[];
  phases_missing: string[];
}

/** How the trace was fetched and why it may be missing. */
export interface TraceFetch {
  backend: string;
  /** complete: root ended and nothing new for the quiet period; partial: spans but the wait ran out; missing: none. */
  status: 'complete' | 'partial' | 'missing';
  spans: number;
  waited_ms: number;
  polls: number;
  /** When status is not complete: the likely causes, most likely first. */
  reasons: string[];
}

/** The whole result of `phasewise probe` with a backend. */
export interface ProbeResult extends ProbeSend {
  server: ServerFigures | null;
  /** client total − server root for this request (never clamped). */
  network_envelope_ms: number | null;
  /** Streaming: client TTFT − server first-token write. */
  ttft_envelope_ms: number | null;
  propagation: PropagationCheck | null;
  trace: TraceFetch | null;
  /** The reconciliation block of `phasewise reconcile` with the streaming pairs, one line each. */
  reconcile: string[];
  /** The trace's spans for the waterfall (relative to the root start). */
  spans: WaterfallSpan[];
  /** Notes from the reconciliation (collisions, lost parents, negative envelope). */
  notes: string[];
}
