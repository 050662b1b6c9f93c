/**
 * The critical path of a span tree: the chain of work the root's end waited on (docs/metrics.md §3.4).
 *
 * Walking back from the root's end with a cursor: the child that finished last at or before the
 * cursor is on the path, whole; the stretch between its end and the cursor is the parent's own time;
 * the walk goes down into that child, and the cursor moves to the child's start. A child still running
 * at the cursor (it ends after it) is skipped, not clipped: nothing on the path waited for its end.
 * A child that ends exactly at the cursor (when the next one starts) is on the path.
 *
 * Before the walk, a child is clipped to its parent's window (a child that starts before its parent or
 * ends after it, clock skew across hosts or work that outlives the call, counts only inside it; one
 * wholly outside is dropped), as Jaeger UI's sanitizeOverFlowingChildren does. Ties on the end: the
 * child that started first (the longer one), then the earlier row. Asynchronous children (a CONSUMER
 * under a PRODUCER, a FOLLOWS_FROM reference; isAsyncChild) and their subtrees are never walked.
 *
 * Iterative (an explicit stack, no recursion: a 100k-deep chain cannot overflow the call stack) and
 * O(n log n): each span on the path sorts its children once. Pure: the waterfall webview, the HTML
 * export and `reconcile --format json` all read this one implementation.
 */

/** The fields the walk reads; times in ms on one axis (the trace model's start_ms/duration_ms). */
export interface PathSpan {
  /** Index of the parent in the same array (null: none). */
  parent_index: number | null;
  start_ms: number;
  duration_ms: number;
  /** SERVER, CLIENT, PRODUCER, CONSUMER, …: a CONSUMER under a PRODUCER is asynchronous. */
  kind?: string;
  /** The parent is a FOLLOWS_FROM reference (Jaeger): asynchronous. */
  follows_from?: boolean;
  /**
   * A second observer's copy of its parent row's span (Zipkin shared spans): the same work, never a
   * child on the path (it would compete with the span's real children).
   */
  shared_copy?: boolean;
}

/**
 * The span at `index` is asynchronous work of its parent: a producer does not wait for its consumer,
 * nor a span for one that merely follows from it (docs/metrics.md §3.4).
 */
export function isAsyncChild(spans: readonly PathSpan[], index: number): boolean {
  const s = spans[index];
  if (s.follows_from === true) return true;
  const p = s.parent_index;
  return s.kind === 'CONSUMER' && p !== null && spans[p]?.kind === 'PRODUCER';
}

/** A stretch of time on the critical path spent in the span at `index` (not in any of its children). */
export interface PathSegment {
  index: number;
  start_ms: number;
  end_ms: number;
}

export interface CriticalPath {
  /** Ordered by start; they tile [root start, root end] without overlap. */
  segments: PathSegment[];
  /** 1 for each span index with at least one segment of non-zero length. */
  onPath: Uint8Array;
  /** Σ segment lengths per span index (its self time on the path). */
  selfMs: Float64Array;
}

/** Children per span index in one array: those of p are list[offsets[p] … offsets[p + 1]), in row order. */
export interface ChildLists {
  offsets: Int32Array;
  list: Int32Array;
}

/**
 * The children of every span (parents out of range or pointing at themselves are ignored). Two typed
 * arrays, not one array per span: 100k small arrays cost ≈ 100 ms to allocate, this ≈ 2 ms.
 */
export function childrenOf(spans: readonly PathSpan[]): ChildLists {
  return childListsOf(Int32Array.from(spans, (s) => s.parent_index ?? -1));
}

/** childrenOf from a parent index per row (−1: none), as the waterfall's TraceIndex keeps it. */
export function childListsOf(parent: Int32Array): ChildLists {
  const n = parent.length;
  const parents = new Int32Array(n);
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    parents[i] = p >= 0 && p < n && p !== i ? p : -1;
    if (parents[i] >= 0) offsets[parents[i] + 1]++;
  }
  for (let i = 0; i < n; i++) offsets[i + 1] += offsets[i];
  const list = new Int32Array(offsets[n]);
  const fill = offsets.slice(0, n);
  for (let i = 0; i < n; i++) if (parents[i] >= 0) list[fill[parents[i]]++] = i;
  return { offsets, list };
}

/**
 * The critical path below `rootIndex` (default: the first span). `children` may be passed when the
 * caller keeps it (the webview computes it once per trace). `toleranceMs` is the timestamps'
 * resolution (the analysis option timestampGranularityMs): a child that ends no more than that after
 * the cursor ends at it as far as the clock can tell (OTel JS truncates starts to the ms, so the next
 * span may seem to start before this one ended), and is taken, cut at the cursor.
 */
export function computeCriticalPath(spans: readonly PathSpan[], rootIndex = 0, children: ChildLists = childrenOf(spans), toleranceMs = 0): CriticalPath {
  const onPath = new Uint8Array(spans.length);
  const selfMs = new Float64Array(spans.length);
  const segments: PathSegment[] = [];
  if (spans.length === 0 || rootIndex < 0 || rootIndex >= spans.length) return { segments, onPath, selfMs };
  const seen = new Uint8Array(spans.length);
  const add = (index: number, from: number, to: number): void => {
    if (to <= from) return;
    segments.push({ index, start_ms: from, end_ms: to });
    onPath[index] = 1;
    selfMs[index] += to - from;
  };
  const root = spans[rootIndex];
  // Each entry: a span on the path and its window (its times clipped to its parent's window).
  const stack: { index: number; from: number; to: number }[] = [{ index: rootIndex, from: root.start_ms, to: root.start_ms + Math.max(0, root.duration_ms) }];
  seen[rootIndex] = 1;
  while (stack.length > 0) {
    const { index, from, to } = stack.pop() as { index: number; from: number; to: number };
    const kids: { c: number; a: number; b: number }[] = [];
    for (let k = children.offsets[index]; k < children.offsets[index + 1]; k++) {
      const c = children.list[k];
      if (seen[c] || spans[c].shared_copy === true || isAsyncChild(spans, c)) continue;
      const a = Math.max(spans[c].start_ms, from);
      const b = Math.min(spans[c].start_ms + Math.max(0, spans[c].duration_ms), to);
      if (b > a) kids.push({ c, a, b });
    }
    kids.sort((x, y) => y.b - x.b || x.a - y.a || x.c - y.c);
    let cursor = to;
    for (const k of kids) {
      // Still running when the path moved on: nothing waited for its end.
      if (k.b > cursor + toleranceMs || k.a >= cursor) continue;
      const b = Math.min(k.b, cursor);
      add(index, b, cursor);
      seen[k.c] = 1;
      stack.push({ index: k.c, from: k.a, to: b });
      cursor = k.a;
      if (cursor <= from) break;
    }
    add(index, from, cursor);
  }
  segments.sort((a, b) => a.start_ms - b.start_ms || a.end_ms - b.end_ms);
  return { segments, onPath, selfMs };
}

/** One segment of the critical path as `reconcile --format json` writes it (ms from the root's start). */
export interface CriticalPathStep {
  span_id: string;
  start_ms: number;
  end_ms: number;
}

/**
 * The critical path of a span list whose first row is the root and whose times are ms from the
 * root's start (traceWaterfall's rows), parents found by span ID (the first row of an ID).
 */
export function criticalPathSteps(
  spans: readonly (Omit<PathSpan, 'parent_index'> & { span_id: string; parent_span_id: string | null })[],
  toleranceMs = 0,
): CriticalPathStep[] {
  const at = new Map<string, number>();
  spans.forEach((s, i) => {
    if (!at.has(s.span_id)) at.set(s.span_id, i);
  });
  const rows: PathSpan[] = spans.map((s, i) => {
    const p = s.parent_span_id === null ? undefined : at.get(s.parent_span_id);
    return { ...s, parent_index: p === undefined || p === i ? null : p };
  });
  return computeCriticalPath(rows, 0, childrenOf(rows), toleranceMs).segments.map((g) => ({ span_id: spans[g.index].span_id, start_ms: g.start_ms, end_ms: g.end_ms }));
}
