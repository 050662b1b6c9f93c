import type { LineSink } from './sink';
import { nsToMs } from './timefmt';
import type { RequestTruth } from './truth';

/**
 * Per-request records (docs/metrics.md §3.1), one JSON object per scheduled iteration, written when the
 * iteration ends. Offsets are ms since the run start; dropped iterations carry generator_dropped=true
 * and nulls where nothing happened. `streaming` is an extra field (unknown fields are kept on load).
 */
export class RecordsWriter {
  constructor(
    private readonly sink: LineSink,
    private readonly runId: string,
    private readonly windowNs: number,
  ) {}

  write(r: RequestTruth): void {
    const responded = r.outcome !== null && r.outcome !== 'transport_failed' && r.outcome !== 'timed_out';
    const record = {
      run_id: this.runId,
      request_id: r.requestId,
      trace_id: r.traceId,
      window_id: `w${String(Math.floor(r.scheduledNs / this.windowNs)).padStart(3, '0')}`,
      route_id: r.route ?? 'chat.completions',
      model_class: r.modelClass,
      prompt_shape_id: r.promptShape,
      scheduled_offset_ms: nsToMs(r.scheduledNs),
      send_offset_ms: r.dropped ? null : nsToMs(r.sendNs),
      first_content_offset_ms: r.firstContentNs === null ? null : nsToMs(r.firstContentNs),
      final_content_offset_ms: responded ? nsToMs(r.endNs) : null,
      scheduler_lag_ms: r.dropped ? null : nsToMs(r.sendNs - r.scheduledNs),
      input_token_count: r.inputTokens,
      output_token_count: r.outputTokens,
      http_status: r.httpStatus === 0 ? null : r.httpStatus,
      outcome: r.outcome,
      retry_count: 0,
      generator_dropped: r.dropped,
      streaming: r.streaming,
    };
    this.sink.line(JSON.stringify(record));
  }
}
