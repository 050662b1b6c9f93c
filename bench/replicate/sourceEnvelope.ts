/**
 * The expected envelope of a replicated run, from its source alone (never from the written copies):
 * the source's matched successful requests by docs/metrics.md §1 (a successful k6 http_req_duration whose
 * trace ID appears once on the client side and has exactly one root, a SERVER span whose parent is
 * not in the trace), each envelope `client_total_ms − server_root_ms`. A run of `copies` copies holds
 * each of these values `copies` times, so its quantiles follow from the source's sorted values.
 */
import type { QuantileSummary } from '../generate/expected';

interface Point {
  type?: string;
  metric?: string;
  data?: { value?: number; tags?: Record<string, string>; metadata?: Record<string, string> };
}

interface Span {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  kind?: number | string;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
}

/** The source run's envelopes (ms), sorted ascending. */
export function sourceEnvelopes(k6Text: string, spansText: string): number[] {
  const clientMs = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const line of k6Text.split('\n')) {
    if (!line) continue;
    const p = JSON.parse(line) as Point;
    if (p.type !== 'Point' || p.metric !== 'http_req_duration') continue;
    const id = p.data?.metadata?.trace_id ?? p.data?.tags?.trace_id;
    if (!id) continue;
    seen.set(id, (seen.get(id) ?? 0) + 1);
    if (p.data?.tags?.expected_response === 'true' && typeof p.data.value === 'number') clientMs.set(id, p.data.value);
  }
  const byTrace = new Map<string, Span[]>();
  for (const line of spansText.split('\n')) {
    if (!line) continue;
    const doc = JSON.parse(line) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Span[] }> }> };
    for (const rs of doc.resourceSpans ?? []) {
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          if (!s.traceId) continue;
          const list = byTrace.get(s.traceId) ?? [];
          list.push(s);
          byTrace.set(s.traceId, list);
        }
      }
    }
  }
  const out: number[] = [];
  for (const [id, ms] of clientMs) {
    if (seen.get(id) !== 1) continue;
    const spans = byTrace.get(id) ?? [];
    const ids = new Set(spans.map((s) => s.spanId));
    const roots = spans.filter((s) => (s.kind === 2 || s.kind === 'SPAN_KIND_SERVER') && !ids.has(s.parentSpanId));
    if (roots.length !== 1) continue;
    const rootNs = BigInt(roots[0].endTimeUnixNano ?? '0') - BigInt(roots[0].startTimeUnixNano ?? '0');
    out.push(ms - Number(rootNs) / 1e6);
  }
  return out.sort((a, b) => a - b);
}

/**
 * Quantiles (linear interpolation at (n−1)·p, as docs/metrics.md §1) of `sorted` with every value repeated
 * `copies` times: element i of the repeated sorted list is sorted[floor(i / copies)].
 */
export function repeatedQuantiles(sorted: readonly number[], copies: number): QuantileSummary {
  const n = sorted.length * copies;
  if (n === 0) return { n: 0, p50: null, p95: null, p99: null };
  const at = (i: number): number => sorted[Math.floor(i / copies)];
  const q = (p: number): number => {
    const pos = (n - 1) * p;
    const lo = Math.floor(pos);
    const hi = Math.ceil(pos);
    return at(lo) + (at(hi) - at(lo)) * (pos - lo);
  };
  return { n, p50: q(0.5), p95: q(0.95), p99: q(0.99) };
}
