/**
 * The critical path of a span tree: the chain of work the root's end waited on. Walking back from the
 * root's end, the child that finished last (before the cursor) is on the path for its visible part,
 * then the cursor moves to that child's start and the next child that finished before it is taken,
 * and so on; the gaps between are the parent's own time. A child is visible only inside its parent's
 * window on the path (a child that outlasts its parent, or overlaps a later sibling, is clipped), so
 * overlapping siblings never both claim the same instant and the segments tile the root exactly.
 *
 * Iterative (an explicit stack; no recursion, so a 10k-deep chain cannot overflow the call stack) and
 * O(n log n): children are sorted by end once, and each child is visited at most once per parent.
 * Pure: used by the waterfall webview and by tests.
 */

/** The fields the walk reads; times in ms on one axis (the trace model's start_ms/duration_ms). */
export interface PathSpan {
  /** Index of the parent in the same array (null: none). */
  parent_index: number | null;
  start_ms: number;
  duration_ms: number;
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

/** Children per span index, each list sorted by end descending (ties: later start first, then index). */
export function childrenByEnd(spans: readonly PathSpan[]): Int32Array[] {
  const lists: number[][] = spans.map(() => []);
  spans.forEach((s, i) => {
    const p = s.parent_index;
    if (p !== null && p >= 0 && p < spans.length && p !== i) lists[p].push(i);
  });
  const end = (i: number): number => spans[i].start_ms + Math.max(0, spans[i].duration_ms);
  return lists.map((l) => Int32Array.from(l.sort((a, b) => end(b) - end(a) || spans[b].start_ms - spans[a].start_ms || a - b)));
}

/**
 * The critical path below `rootIndex` (default: the first span). `children` may be passed when the
 * caller keeps it (the webview computes it once per trace).
 */
export function computeCriticalPath(spans: readonly PathSpan[], rootIndex = 0, children: Int32Array[] = childrenByEnd(spans)): CriticalPath {
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
  // Each entry: a span and the window of it that lies on the path.
  const stack: { index: number; from: number; to: number }[] = [{ index: rootIndex, from: root.start_ms, to: root.start_ms + Math.max(0, root.duration_ms) }];
  seen[rootIndex] = 1;
  while (stack.length > 0) {
    const { index, from, to } = stack.pop() as { index: number; from: number; to: number };
    let cursor = to;
    for (const c of children[index]) {
      if (cursor <= from) break;
      const cs = spans[c].start_ms;
      const ce = cs + Math.max(0, spans[c].duration_ms);
      // A child that ends after the cursor overlaps the one already taken (or outlasts the parent):
      // only its part before the cursor can be on the path. One that starts at or after it cannot.
      if (cs >= cursor || ce <= from || seen[c]) continue;
      const childTo = Math.min(ce, cursor);
      const childFrom = Math.max(cs, from);
      if (childTo <= childFrom) continue;
      add(index, childTo, cursor);
      seen[c] = 1;
      stack.push({ index: c, from: childFrom, to: childTo });
      cursor = childFrom;
    }
    add(index, from, cursor);
  }
  segments.sort((a, b) => a.start_ms - b.start_ms || a.end_ms - b.end_ms);
  return { segments, onPath, selfMs };
}
