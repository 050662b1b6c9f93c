import * as fs from 'fs';

/** Plain-JS readers of the generated files, written independently of the generator's bookkeeping. */

export interface K6Point {
  metric: string;
  type: 'Point';
  data: { time: string; value: number; tags: Record<string, string>; metadata?: { trace_id?: string } };
}

export interface K6File {
  metricLines: string[];
  points: K6Point[];
  /** Metric names in the order their Metric line appeared, with the index of the first Point before it (-1 = none). */
  declaredBeforeFirstPoint: boolean;
}

export function readNdjson<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as T);
}

export function readK6(file: string): K6File {
  const metricLines: string[] = [];
  const points: K6Point[] = [];
  const declared = new Set<string>();
  let declaredBeforeFirstPoint = true;
  for (const o of readNdjson<{ type: string; metric: string } & Partial<K6Point>>(file)) {
    if ((o.type as string) === 'Metric') {
      if (declared.has(o.metric)) declaredBeforeFirstPoint = false;
      declared.add(o.metric);
      metricLines.push(o.metric);
    } else {
      if (!declared.has(o.metric)) declaredBeforeFirstPoint = false;
      points.push(o as K6Point);
    }
  }
  return { metricLines, points, declaredBeforeFirstPoint };
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  events?: Array<{ name: string; timeUnixNano: string }>;
  status: { code?: number };
}

export function readOtlp(file: string): { spans: OtlpSpan[]; batchSizes: number[] } {
  const spans: OtlpSpan[] = [];
  const batchSizes: number[] = [];
  for (const req of readNdjson<{ resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> }>(file)) {
    let n = 0;
    for (const rs of req.resourceSpans) {
      const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
      if (service !== 'llm-gateway') throw new Error(`unexpected service ${service}`);
      for (const ss of rs.scopeSpans) {
        spans.push(...ss.spans);
        n += ss.spans.length;
      }
    }
    batchSizes.push(n);
  }
  return { spans, batchSizes };
}

/** Span duration in ms from decimal-string ns, exact (BigInt subtraction before dividing). */
export function spanMs(s: OtlpSpan): number {
  return Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6;
}

/** Quantile with linear interpolation, position (n−1)·p: numpy's default, a second implementation. */
export function numpyQuantile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  const h = (s.length - 1) * p;
  const i = Math.floor(h);
  return i + 1 < s.length ? s[i] + (h - i) * (s[i + 1] - s[i]) : s[i];
}

export interface RecordLine {
  request_id: string;
  trace_id: string | null;
  outcome: string | null;
  http_status: number | null;
  generator_dropped: boolean;
  streaming: boolean;
  send_offset_ms: number | null;
  scheduled_offset_ms: number;
  scheduler_lag_ms: number | null;
}
