import * as path from 'path';
import { readK6, readNdjson, readOtlp, spanMs, type K6Point, type OtlpSpan, type RecordLine } from './generateHelpers';

export const HTTP_METRICS = [
  'http_reqs',
  'http_req_duration',
  'http_req_blocked',
  'http_req_connecting',
  'http_req_tls_handshaking',
  'http_req_sending',
  'http_req_waiting',
  'http_req_receiving',
  'http_req_failed',
];
export const ITERATION_METRICS = ['data_sent', 'data_received', 'iteration_duration', 'iterations'];

export interface ClientRequest {
  traceId: string;
  http: Map<string, K6Point>;
  iteration: Map<string, K6Point>;
  ttft?: K6Point;
}

export interface FileView {
  requests: Map<string, ClientRequest>;
  points: K6Point[];
  declaredBeforeFirstPoint: boolean;
  metricLines: string[];
  records: RecordLine[];
  spans: OtlpSpan[];
  batchSizes: number[];
  traces: Map<string, OtlpSpan[]>;
}

/** Reads a generated directory with plain JS: client requests grouped by metadata.trace_id, spans by trace. */
export function readRunDir(dir: string): FileView {
  const k6 = readK6(path.join(dir, 'k6.ndjson'));
  const requests = new Map<string, ClientRequest>();
  for (const p of k6.points) {
    const id = p.data.metadata?.trace_id;
    if (!id) continue;
    let r = requests.get(id);
    if (!r) requests.set(id, (r = { traceId: id, http: new Map(), iteration: new Map() }));
    if (HTTP_METRICS.includes(p.metric)) {
      if (r.http.has(p.metric)) throw new Error(`trace ${id}: two ${p.metric} Points`);
      r.http.set(p.metric, p);
    } else if (ITERATION_METRICS.includes(p.metric)) {
      r.iteration.set(p.metric, p);
    } else if (p.metric === 'llm_ttft_ms') {
      r.ttft = p;
    }
  }
  const records = readNdjson<RecordLine>(path.join(dir, 'requests.ndjson'));
  const { spans, batchSizes } = readOtlp(path.join(dir, 'spans.otlp.jsonl'));
  const traces = new Map<string, OtlpSpan[]>();
  for (const s of spans) {
    const list = traces.get(s.traceId);
    if (list) list.push(s);
    else traces.set(s.traceId, [s]);
  }
  return { requests, points: k6.points, declaredBeforeFirstPoint: k6.declaredBeforeFirstPoint, metricLines: k6.metricLines, records, spans, batchSizes, traces };
}

/** The SERVER span whose parent is not in the trace, if exactly one. */
export function rootOf(spans: OtlpSpan[]): OtlpSpan | undefined {
  const ids = new Set(spans.map((s) => s.spanId));
  const roots = spans.filter((s) => s.kind === 2 && !ids.has(s.parentSpanId ?? ''));
  return roots.length === 1 ? roots[0] : undefined;
}

/** Counts taken from the files alone, in the vocabulary of expected.json `counts`. */
export function countFromFiles(v: FileView): Record<string, number> {
  const c: Record<string, number> = {
    scheduled: v.records.length,
    generator_dropped: v.points.filter((p) => p.metric === 'dropped_iterations').reduce((a, p) => a + p.data.value, 0),
    started: v.points.filter((p) => p.metric === 'http_reqs').length,
    succeeded: 0,
    rejected: 0,
    rejected_429: 0,
    rejected_503: 0,
    failed: 0,
    timed_out: 0,
    transport_failed: 0,
    streaming_started: v.records.filter((r) => !r.generator_dropped && r.streaming).length,
    with_trace_id: v.requests.size,
    lost_roots: 0,
    traces_not_exported: 0,
    matched: 0,
    matched_succeeded: 0,
    spans_exported: v.spans.length,
  };
  for (const r of v.requests.values()) {
    const tags = (r.http.get('http_reqs') as K6Point).data.tags;
    const status = Number(tags.status);
    const code = tags.error_code;
    let outcome: string;
    if (status >= 200 && status < 300) outcome = 'succeeded';
    else if (status === 429 || status === 503) outcome = 'rejected';
    else if (status === 0 && code === '1050') outcome = 'timed_out';
    else if (status === 0) outcome = 'transport_failed';
    else outcome = 'failed';
    c[outcome]++;
    if (status === 429) c.rejected_429++;
    if (status === 503) c.rejected_503++;
    const spans = v.traces.get(r.traceId);
    if (!spans) {
      if (outcome !== 'transport_failed') c.traces_not_exported++;
      continue;
    }
    if (rootOf(spans)) {
      c.matched++;
      if (outcome === 'succeeded') c.matched_succeeded++;
    } else {
      c.lost_roots++;
    }
  }
  return c;
}

const GATEWAY = new Set(['auth.check', 'request.prepare', 'route.select', 'response.write']);

function attr(s: OtlpSpan, key: string): unknown {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
}

/** Per matched success, the decomposition recomputed from the files (ms). */
export function componentsFromFiles(v: FileView): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const r of v.requests.values()) {
    const status = Number((r.http.get('http_reqs') as K6Point).data.tags.status);
    const spans = v.traces.get(r.traceId);
    if (status < 200 || status >= 300 || !spans) continue;
    const root = rootOf(spans);
    if (!root) continue;
    const client = (r.http.get('http_req_duration') as K6Point).data.value;
    const rootMs = spanMs(root);
    const sum = (pick: (s: OtlpSpan) => boolean): number => spans.filter(pick).reduce((a, s) => a + spanMs(s), 0);
    const gateway = sum((s) => GATEWAY.has(s.name));
    const queue = sum((s) => attr(s, 'llm.phase') === 'queue');
    const generation = sum((s) => attr(s, 'llm.phase') === 'generation');
    out.set(r.traceId, {
      client_total_ms: client,
      server_root_ms: rootMs,
      network_envelope_ms: client - rootMs,
      gateway_ms: gateway,
      gpu_queue_ms: queue,
      generation_ms: generation,
      unattributed_server_ms: rootMs - gateway - queue - generation,
    });
  }
  return out;
}
