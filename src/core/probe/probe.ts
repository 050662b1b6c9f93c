/**
 * The single-request check end to end: send one request with a fresh traceparent, wait for its trace
 * at a backend, reconcile both sides. The CLI and the editor call this; they only choose the backend
 * and render the ProbeResult.
 */
import { performance } from 'perf_hooks';
import type { AnalysisOptions } from '../analysis/options';
import type { TraceBackend } from './backends/backend';
import { ReceiverBackend } from './backends/localBackends';
import { pollTrace } from './backends/poll';
import { DEFAULT_LISTEN, OtlpReceiver } from './receiver/receiver';
import { JsonlFileSink, type SpanSink } from './receiver/sinks';
import { TraceIndex } from './receiver/traceIndex';
import { reconcileProbe } from './reconcileProbe';
import type { ProbeResult } from './result';
import { sendTimedRequest, type TimedRequestOptions } from './send/timedRequest';

export interface ProbeRunOptions {
  request: TimedRequestOptions;
  /** Where to fetch the trace; without one, only the client side is measured. */
  backend?: TraceBackend;
  /** How long to wait for the trace after the response ended. */
  traceTimeoutMs: number;
  quietMs?: number;
  analysis: AnalysisOptions;
  signal?: AbortSignal;
  /** `sending`, `waiting for the trace (n spans)`, `reconciling`: for a progress line. */
  onStage?: (stage: string) => void;
}

export async function runProbe(options: ProbeRunOptions): Promise<ProbeResult> {
  options.onStage?.('sending');
  const sentAt = performance.now();
  const send = await sendTimedRequest({ ...options.request, signal: options.signal });
  const backend = options.backend;
  // No status and no timeout: the request never reached a server, so no trace can exist.
  const reachedServer = send.http_status !== null || send.outcome === 'timed_out';
  if (!backend || !reachedServer || send.outcome === 'canceled') return reconcileProbe(send, null, null, options.analysis);
  const { fetch, look } = await pollTrace(backend, {
    traceId: send.trace_id,
    expectedParent: send.parent_span_id,
    timeoutMs: options.traceTimeoutMs,
    quietMs: options.quietMs,
    sentAtMs: sentAt,
    signal: options.signal,
    onLook: (spans, waited) => options.onStage?.(`waiting for trace ${send.trace_id} at ${backend.name}: ${spans} span(s) after ${(waited / 1000).toFixed(1)} s`),
  });
  options.onStage?.('reconciling');
  return reconcileProbe(send, fetch, look, options.analysis);
}

/** An embedded receiver for one probe or series: spans in memory (and in `out` when given). */
export interface EmbeddedReceiver {
  receiver: OtlpReceiver;
  index: TraceIndex;
  backend: ReceiverBackend;
}

export async function startEmbeddedReceiver(listen: { host: string; port: number } = DEFAULT_LISTEN, extraSinks: SpanSink[] = [], redact: readonly string[] = []): Promise<EmbeddedReceiver> {
  const index = new TraceIndex();
  const receiver = new OtlpReceiver({ host: listen.host, port: listen.port, sinks: [index, ...extraSinks], redact });
  const address = await receiver.listen();
  return { receiver, index, backend: new ReceiverBackend(index, address) };
}

export { JsonlFileSink };
