/**
 * Waiting for a probe's trace: look at the backend with backoff until the trace is complete (a root
 * span is there and no new span arrived for a quiet period: children end before their root, but
 * batches from several services arrive in any order) or the timeout runs out; then say why it may
 * be missing or partial, most likely cause first.
 */
import { performance } from 'perf_hooks';
import type { TraceFetch } from '../result';
import type { SpanDigest } from '../spans/digest';
import type { BackendEvidence, TraceBackend, TraceLook } from './backend';
import { sleep } from '../sleep';

export interface PollOptions {
  traceId: string;
  /** The probe's span ID: the root should name it as its parent. */
  expectedParent: string;
  timeoutMs: number;
  /** No new span for this long after the root arrived → complete (default 1500 ms). */
  quietMs?: number;
  /** performance.now() when the probe was sent (for the backend's evidence). */
  sentAtMs: number;
  signal?: AbortSignal;
  /** Called after each look (progress in the editor). */
  onLook?: (spans: number, waitedMs: number) => void;
}

export interface PollResult {
  fetch: TraceFetch;
  look: TraceLook;
}

/**
 * The server roots of a trace: SERVER spans whose parent is not in the trace (docs/metrics.md §3.3); without
 * one, the spans that have no parent at all (the reconciliation's root fallback, reported there).
 */
export function rootCandidates(spans: readonly SpanDigest[]): SpanDigest[] {
  const ids = new Set(spans.map((s) => s.spanId));
  // A span exported twice (a retried batch) is one span.
  const unique = [...new Map(spans.map((s) => [s.spanId, s])).values()];
  const server = unique.filter((s) => s.kind === 'SERVER' && (s.parentSpanId === null || !ids.has(s.parentSpanId)));
  return server.length > 0 ? server : unique.filter((s) => s.parentSpanId === null);
}

export async function pollTrace(backend: TraceBackend, options: PollOptions): Promise<PollResult> {
  const quiet = options.quietMs ?? 1500;
  const started = performance.now();
  let look: TraceLook = { spans: [], documents: [] };
  let lastCount = -1;
  let lastChange = started;
  let polls = 0;
  let delay = 100;
  const notes = new Set<string>();
  for (;;) {
    if (options.signal?.aborted) break;
    try {
      look = await backend.look(options.traceId, options.signal);
      if (look.note) notes.add(look.note);
    } catch (err) {
      notes.add(`${backend.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
    polls++;
    const now = performance.now();
    if (look.spans.length !== lastCount) {
      lastCount = look.spans.length;
      lastChange = now;
    }
    options.onLook?.(look.spans.length, now - started);
    const rooted = rootCandidates(look.spans).length > 0;
    if (rooted && now - lastChange >= quiet) return done('complete');
    const left = options.timeoutMs - (now - started);
    if (left <= 0) break;
    // Look again when the quiet period would end, sooner while nothing is there; never busy.
    const wait = Math.min(left, rooted ? Math.max(50, quiet - (now - lastChange)) : delay);
    delay = Math.min(2000, delay * 1.5);
    await sleep(wait, options.signal);
  }
  return done(look.spans.length > 0 ? 'partial' : 'missing');

  function done(status: TraceFetch['status']): PollResult {
    const evidence = backend.evidence?.(options.sentAtMs) ?? {};
    const fetch: TraceFetch = {
      backend: backend.name,
      status,
      spans: look.spans.length,
      waited_ms: performance.now() - started,
      polls,
      reasons: status === 'complete' ? [] : whyIncomplete(status, look.spans, options, evidence, backend, [...notes]),
    };
    return { fetch, look };
  }
}


/** The likely causes, from what the backend saw; the generic ones last. */
export function whyIncomplete(
  status: 'partial' | 'missing',
  spans: readonly SpanDigest[],
  options: Pick<PollOptions, 'timeoutMs' | 'expectedParent' | 'traceId'>,
  evidence: BackendEvidence,
  backend: Pick<TraceBackend, 'name' | 'ingestNote'>,
  notes: string[],
): string[] {
  const reasons: string[] = [];
  const wait = `${(options.timeoutMs / 1000).toFixed(1)} s`;
  if (status === 'partial') {
    reasons.push(
      `${spans.length} span(s) of the trace arrived but no server root (a SERVER span whose parent is not in the trace) within ${wait}: ` +
        'the root ends last and is exported in a later batch, or it was dropped (a span processor queue that overflowed, a crash before the export)',
    );
  }
  const roots = evidence.parentlessRoots ?? [];
  if (status === 'missing' && roots.length > 0) {
    const r = roots[roots.length - 1];
    reasons.push(
      `propagation broken: while the probe ran, ${roots.length} trace(s) started at the server without a parent ` +
        `(latest: trace ${r.traceId}, root '${r.name}'${r.service ? ` of ${r.service}` : ''}): the probe's traceparent did not reach the server. ` +
        'A proxy or load balancer in front of it stripped the header, or the server does not extract W3C trace context',
    );
  }
  if (status === 'missing' && evidence.spansSinceSend === 0) {
    reasons.push(
      `no span of any trace reached ${backend.name} in ${wait} since the probe was sent: the exporter has not flushed ` +
        '(SDK batch span processors wait seconds: OpenTelemetry JS and Java default to 5 s, OTEL_BSP_SCHEDULE_DELAY), ' +
        'or it exports elsewhere (check OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and the protocol)',
    );
  } else if (status === 'missing' && evidence.spansSinceSend !== undefined && roots.length === 0) {
    reasons.push(
      `${evidence.spansSinceSend} span(s) of other traces arrived, none of trace ${options.traceId}: the server's sampler dropped it ` +
        '(the probe sends flags 01, which a parent-based sampler keeps; a ratio or rate-limiting sampler may not), or the spans of this request are still in an exporter\'s batch',
    );
  }
  if (status === 'missing' && evidence.spansSinceSend === undefined) {
    reasons.push(
      `the exporter has not flushed yet (SDK batch delays are seconds) or ${backend.ingestNote ?? 'the backend has not stored it yet'}: try a longer --timeout`,
      "sampling: the server's or the collector's sampler dropped the trace (tail sampling, a ratio sampler)",
      'a proxy in front of the server stripped traceparent, so the server started a trace of its own under another ID',
    );
  }
  for (const n of notes.slice(0, 3)) reasons.push(`backend said: ${n}`);
  return reasons;
}
