/**
 * Baseline (d): the script a user would otherwise write to get the network envelope p95 from a k6
 * JSON output and an OTLP JSONL span export. Deliberately straightforward: readline + JSON.parse per
 * line, a Map joined by trace ID, the root = the span whose parent is not in its trace, sort for the
 * quantiles. It computes only the envelope; Phasewise computes the whole report in the same time budget.
 *
 * It follows docs/metrics.md §1: successful requests only (k6 `expected_response` tag), a trace joins when it
 * has exactly one root and its trace ID appears once in the client file, durations are subtracted per
 * request, quantiles are linear interpolation at (n−1)·p (numpy default, DuckDB quantile_cont).
 * Run: node out/bench/baselines/nodeScript.js k6.ndjson spans.otlp.jsonl
 */
import { createReadStream } from 'fs';
import { createInterface } from 'readline';

export interface EnvelopeResult {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  /** Client requests whose trace ID appears more than once (excluded, as collisions). */
  clientCollisions: number;
  /** Traces with more than one root candidate (excluded). */
  rootCollisions: number;
}

interface OtlpValue {
  stringValue?: string;
}
interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  kind?: number | string;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
}
interface OtlpDoc {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: OtlpValue }> };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}
interface K6Line {
  type?: string;
  metric?: string;
  data?: { value?: number; tags?: Record<string, string>; metadata?: Record<string, string> };
}

/** Spans of one trace: parallel arrays keep memory at ~3 small values per span. */
interface TraceSpans {
  ids: string[];
  server: boolean[];
  parents: string[];
  durations: number[];
}

async function* lines(file: string): AsyncGenerator<string> {
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) if (line.length > 0) yield line;
}

/** Linear interpolation between closest ranks, position (n−1)·p, on a sorted array. */
export function quantileSorted(sorted: readonly number[], p: number): number {
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export async function envelopeQuantiles(k6File: string, otlpFile: string): Promise<EnvelopeResult> {
  // Client side: trace ID → http_req_duration of the successful request.
  const client = new Map<string, number>();
  const seen = new Map<string, number>();
  for await (const line of lines(k6File)) {
    const rec = JSON.parse(line) as K6Line;
    if (rec.type !== 'Point' || rec.metric !== 'http_req_duration' || !rec.data) continue;
    const traceId = rec.data.metadata?.trace_id ?? rec.data.tags?.trace_id;
    if (!traceId) continue;
    seen.set(traceId, (seen.get(traceId) ?? 0) + 1);
    if (rec.data.tags?.expected_response === 'true' && typeof rec.data.value === 'number') client.set(traceId, rec.data.value);
  }
  let clientCollisions = 0;
  for (const [id, count] of seen) {
    if (count > 1) {
      clientCollisions += count;
      client.delete(id);
    }
  }
  seen.clear();

  // Server side: spans of the client's traces only (the others cannot join).
  const traces = new Map<string, TraceSpans>();
  for await (const line of lines(otlpFile)) {
    const doc = JSON.parse(line) as OtlpDoc;
    for (const rs of doc.resourceSpans ?? []) {
      for (const ss of rs.scopeSpans ?? []) {
        for (const span of ss.spans ?? []) {
          if (!span.traceId || !span.spanId || !client.has(span.traceId)) continue;
          let t = traces.get(span.traceId);
          if (!t) traces.set(span.traceId, (t = { ids: [], server: [], parents: [], durations: [] }));
          t.ids.push(span.spanId);
          t.server.push(span.kind === 2 || span.kind === 'SPAN_KIND_SERVER');
          t.parents.push(span.parentSpanId ?? '');
          // Epoch nanoseconds exceed 2^53: subtract as BigInt, then convert the small difference.
          const ns = BigInt(span.endTimeUnixNano ?? 0) - BigInt(span.startTimeUnixNano ?? 0);
          t.durations.push(Number(ns) / 1e6);
        }
      }
    }
  }

  const envelopes: number[] = [];
  let rootCollisions = 0;
  for (const [traceId, t] of traces) {
    const ids = new Set(t.ids);
    let root = -1;
    let roots = 0;
    for (let i = 0; i < t.ids.length; i++) {
      if (t.server[i] && !ids.has(t.parents[i])) {
        roots++;
        root = i;
      }
    }
    if (roots !== 1) {
      if (roots > 1) rootCollisions++;
      continue;
    }
    envelopes.push((client.get(traceId) as number) - t.durations[root]);
  }
  envelopes.sort((a, b) => a - b);
  return {
    n: envelopes.length,
    p50: quantileSorted(envelopes, 0.5),
    p95: quantileSorted(envelopes, 0.95),
    p99: quantileSorted(envelopes, 0.99),
    clientCollisions,
    rootCollisions,
  };
}

if (require.main === module) {
  const [k6File, otlpFile] = process.argv.slice(2);
  envelopeQuantiles(k6File, otlpFile)
    .then((r) => process.stdout.write(`${JSON.stringify(r)}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
}
