/**
 * A probe as a per-request record (docs/metrics.md §3.1, the generator-neutral format that the records reader
 * loads): offsets on the probe's monotonic clock from the series' origin, so a series opens as a run.
 * `final_content_offset_ms` is the end of the response body, so that the reader's
 * client_total_ms (final − send) is the request's full duration as k6 measures it; the last content
 * event is in the ProbeResult, not here. No prompt, response, header or token is ever written.
 */
import type { ProbeSend } from './result';

/** One line of a records NDJSON file; field names and meaning from docs/metrics.md §3.1. */
export interface ProbeRecord {
  run_id: string;
  request_id: string;
  trace_id: string;
  route_id: string;
  model_class: string;
  prompt_shape_id: string;
  scheduled_offset_ms: number;
  send_offset_ms: number;
  first_content_offset_ms: number | null;
  final_content_offset_ms: number | null;
  scheduler_lag_ms: number;
  input_token_count: number | null;
  output_token_count: number | null;
  http_status: number | null;
  outcome: string;
  retry_count: number;
  generator_dropped: boolean;
  streaming: boolean;
  /** Epoch ms of the attempt (the reader's absolute start time). */
  start_ms: number;
}

export interface RecordPlacement {
  runId: string;
  requestId: string;
  /** When the request was planned, ms from the series' origin. */
  scheduledOffsetMs: number;
  /** When the attempt actually started (performance.now() − origin). */
  attemptOffsetMs: number;
}

export function toProbeRecord(send: ProbeSend, at: RecordPlacement): ProbeRecord {
  const m = send.client.marks;
  const rel = (mark: number | null): number | null => (mark === null ? null : round3(at.attemptOffsetMs + mark));
  // A request that never got a connection has no send: its attempt time stands in (the ledger still counts it).
  const send0 = m.send_start ?? 0;
  return {
    run_id: at.runId,
    request_id: at.requestId,
    trace_id: send.trace_id,
    route_id: new URL(send.url).pathname,
    model_class: send.model,
    prompt_shape_id: send.prompt_shape_id,
    scheduled_offset_ms: round3(at.scheduledOffsetMs),
    send_offset_ms: round3(at.attemptOffsetMs + send0),
    first_content_offset_ms: send.stream && send.client.ttft_ms !== null ? rel(m.first_content) : null,
    final_content_offset_ms: m.send_start === null ? null : rel(m.end),
    scheduler_lag_ms: round3(Math.max(0, at.attemptOffsetMs - at.scheduledOffsetMs)),
    input_token_count: send.client.input_tokens,
    output_token_count: send.client.output_tokens,
    http_status: send.http_status,
    outcome: send.outcome,
    retry_count: 0,
    generator_dropped: false,
    streaming: send.stream,
    start_ms: send.started_epoch_ms,
  };
}

/** Microsecond precision is what the clock gives; more digits would only be noise in the file. */
function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
