import { clientTotalNs, type RequestTruth } from './truth';

/** A growable list of doubles (1M requests × a few series stays well under 100 MB). */
class Series {
  private data = new Float64Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }

  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }
}

export interface QuantileSummary {
  n: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** Linear interpolation between closest ranks, position (n−1)·p (numpy default, DuckDB quantile_cont). */
export function quantile(sorted: Float64Array, p: number): number {
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function summarise(values: Float64Array): QuantileSummary {
  if (values.length === 0) return { n: 0, p50: null, p95: null, p99: null };
  const s = values.slice().sort();
  return { n: s.length, p50: quantile(s, 0.5), p95: quantile(s, 0.95), p99: quantile(s, 0.99) };
}

const COMPONENTS = [
  'client_total_ms',
  'server_root_ms',
  'network_envelope_ms',
  'gateway_ms',
  'gpu_queue_ms',
  'generation_ms',
  'unattributed_server_ms',
] as const;
const TTFT = ['client_ttft_ms', 'server_ttft_ms', 'ttft_envelope_ms'] as const;

/**
 * The figures a generated run has by construction, tallied from the simulator's truth as each
 * iteration is created (never by reading the written files back).
 */
export class ExpectedTally {
  readonly counts = {
    scheduled: 0,
    generator_dropped: 0,
    started: 0,
    succeeded: 0,
    rejected: 0,
    rejected_429: 0,
    rejected_503: 0,
    failed: 0,
    timed_out: 0,
    transport_failed: 0,
    canceled: 0,
    streaming_started: 0,
    with_trace_id: 0,
    server_traces: 0,
    traces_not_exported: 0,
    lost_roots: 0,
    exported_roots: 0,
    matched: 0,
    matched_succeeded: 0,
    matched_streaming_succeeded: 0,
    negative_envelopes: 0,
    spans_exported: 0,
  };
  private readonly components = new Map<string, Series>(COMPONENTS.map((c) => [c, new Series()]));
  private readonly ttft = new Map<string, Series>(TTFT.map((c) => [c, new Series()]));
  private readonly clientOnlyTotal = new Series();
  private readonly serverOnlyRoot = new Series();

  add(r: RequestTruth): void {
    const c = this.counts;
    c.scheduled++;
    if (r.dropped) {
      c.generator_dropped++;
      return;
    }
    c.started++;
    if (r.traceId) c.with_trace_id++;
    if (r.streaming) c.streaming_started++;
    switch (r.outcome) {
      case 'succeeded': c.succeeded++; break;
      case 'rejected':
        c.rejected++;
        if (r.httpStatus === 429) c.rejected_429++;
        else c.rejected_503++;
        break;
      case 'failed': c.failed++; break;
      case 'timed_out': c.timed_out++; break;
      case 'transport_failed': c.transport_failed++; break;
      default: throw new Error(`request ${r.requestId} started without an outcome`);
    }
    const totalNs = clientTotalNs(r);
    if (r.outcome === 'succeeded') this.clientOnlyTotal.push(totalNs / 1e6);
    const s = r.server;
    if (!s) return;
    c.server_traces++;
    if (s.fate === 'none') {
      c.traces_not_exported++;
      return;
    }
    c.spans_exported += s.children.length + (s.fate === 'full' ? 1 : 0);
    if (s.fate === 'no-root') {
      c.lost_roots++;
      return;
    }
    c.exported_roots++;
    c.matched++;
    const rootNs = s.root.endNs - s.root.startNs;
    this.serverOnlyRoot.push(rootNs / 1e6);
    if (r.outcome !== 'succeeded') return;
    c.matched_succeeded++;
    const envelopeNs = totalNs - rootNs;
    if (envelopeNs < 0) c.negative_envelopes++;
    const values: Record<(typeof COMPONENTS)[number], number> = {
      client_total_ms: totalNs,
      server_root_ms: rootNs,
      network_envelope_ms: envelopeNs,
      gateway_ms: s.gatewayNs,
      gpu_queue_ms: s.gpuQueueNs,
      generation_ms: s.generationNs,
      unattributed_server_ms: rootNs - s.gatewayNs - s.gpuQueueNs - s.generationNs,
    };
    for (const k of COMPONENTS) this.components.get(k)?.push(values[k] / 1e6);
    if (r.streaming && r.clientTtftNs !== null && s.firstTokenNs !== null) {
      c.matched_streaming_succeeded++;
      const serverTtftNs = s.firstTokenNs - s.root.startNs;
      this.ttft.get('client_ttft_ms')?.push(r.clientTtftNs / 1e6);
      this.ttft.get('server_ttft_ms')?.push(serverTtftNs / 1e6);
      this.ttft.get('ttft_envelope_ms')?.push((r.clientTtftNs - serverTtftNs) / 1e6);
    }
  }

  toJSON(): Record<string, unknown> {
    const block = (m: Map<string, Series>): Record<string, QuantileSummary> =>
      Object.fromEntries([...m].map(([k, v]) => [k, summarise(v.sorted())]));
    return {
      counts: this.counts,
      matched_succeeded: block(this.components),
      matched_streaming_succeeded: block(this.ttft),
      client_only_succeeded: { client_total_ms: summarise(this.clientOnlyTotal.sorted()) },
      server_only_roots: { server_root_ms: summarise(this.serverOnlyRoot.sorted()) },
    };
  }
}
