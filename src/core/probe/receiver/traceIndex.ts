/**
 * The receiver's memory of recent traces, for the probe's poll and propagation check: spans by trace
 * ID with the time the last one arrived, and the recent parentless SERVER roots (a gateway that never
 * saw the probe's traceparent starts a trace of its own, and that root is how the break is seen).
 * Bounded: the oldest traces are forgotten past `maxSpans`; the receiver's files keep everything.
 */
import type { SpanDigest } from '../spans/digest';
import type { ReceivedBatch, SpanSink } from './sinks';

interface TraceEntry {
  spans: SpanDigest[];
  lastArrivalMs: number;
  /** The raw lines that carried this trace's spans, for reconciliation (only spans of this trace kept). */
  lines: string[];
}

/** A root span the receiver saw with no parent at all: a trace that started at the server. */
export interface ParentlessRoot {
  span: SpanDigest;
  receivedAtMs: number;
}

export class TraceIndex implements SpanSink {
  readonly label = 'memory';
  private readonly traces = new Map<string, TraceEntry>();
  private readonly roots: ParentlessRoot[] = [];
  private spanCount = 0;
  /** (arrival time, spans) per export, the most recent 10k: how much traffic came since a probe was sent. */
  private readonly arrivals: Array<{ at: number; n: number }> = [];
  /** Every span received (even those forgotten), and when the last one arrived. */
  totalSpans = 0;
  lastArrivalMs: number | undefined;

  constructor(
    private readonly maxSpans = 200_000,
    private readonly maxRoots = 2_000,
  ) {}

  write(batch: ReceivedBatch): Promise<void> {
    this.totalSpans += batch.spans.length;
    if (batch.spans.length > 0) {
      this.lastArrivalMs = batch.receivedAtMs;
      this.arrivals.push({ at: batch.receivedAtMs, n: batch.spans.length });
      if (this.arrivals.length > 10_000) this.arrivals.shift();
    }
    // Per trace, the lines already listed for it in this export.
    const touched = new Map<string, Set<number>>();
    for (const [i, span] of batch.spans.entries()) {
      let entry = this.traces.get(span.traceId);
      if (!entry) {
        entry = { spans: [], lastArrivalMs: batch.receivedAtMs, lines: [] };
        this.traces.set(span.traceId, entry);
      }
      entry.spans.push(span);
      entry.lastArrivalMs = batch.receivedAtMs;
      const line = batch.lineOfSpan[i];
      const listed = touched.get(span.traceId) ?? new Set<number>();
      if (!listed.has(line)) {
        listed.add(line);
        touched.set(span.traceId, listed);
        entry.lines.push(batch.lines[line]);
      }
      this.spanCount++;
      if (span.parentSpanId === null && span.kind === 'SERVER') {
        this.roots.push({ span, receivedAtMs: batch.receivedAtMs });
        if (this.roots.length > this.maxRoots) this.roots.shift();
      }
    }
    while (this.spanCount > this.maxSpans && this.traces.size > 1) {
      const [oldest, entry] = this.traces.entries().next().value as [string, TraceEntry];
      this.traces.delete(oldest);
      this.spanCount -= entry.spans.length;
    }
    return Promise.resolve();
  }

  /** The spans of one trace and when the last arrived (undefined: none seen, or forgotten). */
  trace(traceId: string): { spans: readonly SpanDigest[]; lastArrivalMs: number; lines: readonly string[] } | undefined {
    return this.traces.get(traceId);
  }

  /** Parentless SERVER roots received since `sinceMs` (performance.now()). */
  parentlessRootsSince(sinceMs: number): ParentlessRoot[] {
    return this.roots.filter((r) => r.receivedAtMs >= sinceMs);
  }

  /** Spans of any trace received since `sinceMs` (performance.now()). */
  totalSpansSince(sinceMs: number): number {
    return this.arrivals.reduce((n, a) => (a.at >= sinceMs ? n + a.n : n), 0);
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  backlogBytes(): number {
    return 0;
  }
}
