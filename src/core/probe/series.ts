/**
 * A probe series: N requests at a fixed rate with open arrivals (request i is planned at i/rate from
 * the origin and sent then whether or not the earlier ones have answered: a slow server cannot slow
 * the arrivals down, which is what coordinated omission would hide). Each request becomes one
 * per-request record; the series' records open as a run with `phasewise analyze --run`.
 */
import { performance } from 'perf_hooks';
import { randomBytes } from 'crypto';
import { toProbeRecord, type ProbeRecord } from './records';
import type { ProbeSend } from './result';
import { sendTimedRequest, type TimedRequestOptions } from './send/timedRequest';
import { sleep } from './sleep';

export interface SeriesOptions {
  request: Omit<TimedRequestOptions, 'traceparent' | 'signal'>;
  count: number;
  /** Requests per second (a low fixed rate: a probe series is not a load test). */
  ratePerSecond: number;
  /** Past this many requests in flight a planned request is not sent: it is recorded as generator-dropped. */
  maxInFlight?: number;
  signal?: AbortSignal;
  /** Each request as it completes (any order), with its record. */
  onResult?: (send: ProbeSend, record: ProbeRecord, index: number) => void;
}

export interface SeriesResult {
  runId: string;
  records: ProbeRecord[];
  sends: ProbeSend[];
  /** Planned requests not sent (cancel, or max in flight): generator_dropped records. */
  dropped: number;
}

export async function runSeries(options: SeriesOptions): Promise<SeriesResult> {
  const runId = `probe-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${randomBytes(3).toString('hex')}`;
  const interval = 1000 / options.ratePerSecond;
  const origin = performance.now();
  const maxInFlight = options.maxInFlight ?? Math.max(8, Math.ceil(options.ratePerSecond * 120));
  const records: Array<ProbeRecord | undefined> = new Array(options.count);
  const sends: ProbeSend[] = [];
  const inflight = new Set<Promise<void>>();
  let dropped = 0;
  for (let i = 0; i < options.count; i++) {
    const planned = i * interval;
    const wait = origin + planned - performance.now();
    if (wait > 0) await sleep(wait, options.signal);
    if (options.signal?.aborted || inflight.size >= maxInFlight) {
      records[i] = droppedRecord(runId, i, planned, options);
      dropped++;
      continue;
    }
    const attempt = performance.now() - origin;
    const p = sendTimedRequest({ ...options.request, signal: options.signal }).then((send) => {
      const record = toProbeRecord(send, { runId, requestId: String(i + 1), scheduledOffsetMs: planned, attemptOffsetMs: attempt });
      records[i] = record;
      sends.push(send);
      options.onResult?.(send, record, i);
    });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  }
  await Promise.all(inflight);
  return { runId, records: records.filter((r): r is ProbeRecord => r !== undefined), sends, dropped };
}

function droppedRecord(runId: string, i: number, planned: number, options: SeriesOptions): ProbeRecord {
  return {
    run_id: runId, request_id: String(i + 1), trace_id: '', route_id: '', model_class: options.request.model,
    prompt_shape_id: options.request.shape?.id ?? '', scheduled_offset_ms: Math.round(planned * 1000) / 1000,
    send_offset_ms: Math.round(planned * 1000) / 1000, first_content_offset_ms: null, final_content_offset_ms: null,
    scheduler_lag_ms: 0, input_token_count: null, output_token_count: null, http_status: null, outcome: 'canceled',
    retry_count: 0, generator_dropped: true, streaming: options.request.stream, start_ms: Date.now(),
  };
}

