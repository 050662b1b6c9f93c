/**
 * The generator's in-memory truth for one scheduled iteration. Writers turn it into files; the
 * expected-figures tally reads it directly (never the files), so the two are independent.
 * All times are integer nanoseconds since the run start; all durations integer nanoseconds.
 */

export type Outcome = 'succeeded' | 'rejected' | 'timed_out' | 'transport_failed' | 'failed';

/** An attribute: key, OTLP value kind (s string, i int, b bool, d double), value. */
export type Attr = [string, 's', string] | [string, 'i', number] | [string, 'b', boolean] | [string, 'd', number];

export interface SpanEventTruth {
  name: string;
  timeNs: number;
  attrs: Attr[];
}

export interface SpanTruth {
  spanId: string;
  name: string;
  /** OTLP SpanKind: 1 INTERNAL, 2 SERVER. */
  kind: 1 | 2;
  startNs: number;
  endNs: number;
  attrs: Attr[];
  events: SpanEventTruth[];
  /** OTLP status code: 0 UNSET, 2 ERROR. */
  statusCode: 0 | 2;
  statusMessage?: string;
}

/** full: every span exported; no-root: children only (root lost); none: the trace never arrived. */
export type ExportFate = 'full' | 'no-root' | 'none';

export interface ServerTruth {
  /** The k6 client span's ID: the root's parent, deliberately absent from the trace. */
  clientSpanId: string;
  root: SpanTruth;
  /** Children in end order (the order a BatchSpanProcessor receives them). */
  children: SpanTruth[];
  fate: ExportFate;
  gatewayNs: number;
  gpuQueueNs: number;
  generationNs: number;
  /** Server write of the first token (streaming successes), else null. */
  firstTokenNs: number | null;
  generationStartNs: number | null;
  writeStartNs: number;
}

export interface RequestTruth {
  index: number;
  requestId: string;
  scheduledNs: number;
  dropped: boolean;
  traceId: string | null;
  streaming: boolean;
  /** Scenario routes only (scenario.ts): the route id and its HTTP path; absent in a default run. */
  route?: string;
  routePath?: string;
  modelClass: string;
  promptShape: string;
  inputTokens: number;
  outputTokens: number | null;
  outcome: Outcome | null;
  httpStatus: number;
  errorCode: number | null;
  errorMessage: string | null;
  newConnection: boolean;
  blockedNs: number;
  connectingNs: number;
  tlsNs: number;
  /** Request start as k6 times `http_req_duration` (after blocked/connecting/TLS). */
  sendNs: number;
  sendingNs: number;
  waitingNs: number;
  receivingNs: number;
  /** sendNs + sending + waiting + receiving: the end of the request (k6 Point time). */
  endNs: number;
  /** End of the k6 iteration (iteration_duration, data_sent …, the custom Trend). */
  iterationEndNs: number;
  iterationStartNs: number;
  firstContentNs: number | null;
  clientTtftNs: number | null;
  bytesSent: number;
  bytesReceived: number;
  server: ServerTruth | null;
}

export function clientTotalNs(r: RequestTruth): number {
  return r.sendingNs + r.waitingNs + r.receivingNs;
}
