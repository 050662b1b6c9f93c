/**
 * The waterfall's in-memory index of one trace: typed arrays over TraceModel.spans (depth-first order,
 * so a span's subtree is the run of rows after it with a greater depth), and the visible-row list under
 * collapse and the find filter. No DOM here: the tree, the minimap and the bench read it.
 */
import type { TraceModel } from '../../src/core/analysis/trace/types';
import { childListsOf, computeCriticalPath, type CriticalPath } from '../../src/core/analysis/trace/criticalPath';

export class TraceIndex {
  readonly n: number;
  readonly start: Float64Array;
  readonly end: Float64Array;
  readonly depth: Int32Array;
  readonly parent: Int32Array;
  /** Index one past the last row of i's subtree. */
  readonly subtreeEnd: Int32Array;
  /** Earliest start and latest end over all spans (the full time range of the axis). */
  readonly minStart: number;
  readonly maxEnd: number;
  private searchText: string[] | undefined;
  private critical: CriticalPath | undefined;

  constructor(readonly model: TraceModel) {
    const spans = model.spans;
    const n = spans.length;
    this.n = n;
    this.start = new Float64Array(n);
    this.end = new Float64Array(n);
    this.depth = new Int32Array(n);
    this.parent = new Int32Array(n);
    this.subtreeEnd = new Int32Array(n);
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const s = spans[i];
      this.start[i] = s.start_ms;
      this.end[i] = s.start_ms + Math.max(0, s.duration_ms);
      this.depth[i] = s.depth;
      this.parent[i] = s.parent_index ?? -1;
      if (this.start[i] < lo) lo = this.start[i];
      if (this.end[i] > hi) hi = this.end[i];
    }
    // Subtree ends with one stack pass: a row closes every open row of greater or equal depth.
    const stack: number[] = [];
    for (let i = 0; i < n; i++) {
      while (stack.length > 0 && this.depth[stack[stack.length - 1]] >= this.depth[i]) this.subtreeEnd[stack.pop() as number] = i;
      stack.push(i);
    }
    for (const i of stack) this.subtreeEnd[i] = n;
    this.minStart = n > 0 ? lo : 0;
    this.maxEnd = n > 0 ? Math.max(hi, lo) : 1;
  }

  hasChildren(i: number): boolean {
    return this.subtreeEnd[i] > i + 1;
  }

  /** The critical path of the root (row 0), computed once. */
  criticalPath(): CriticalPath {
    this.critical ??= computeCriticalPath(
      this.model.spans,
      0,
      childListsOf(this.parent),
      this.model.granularity_ms ?? 0,
    );
    return this.critical;
  }

  /**
   * Lower-cased text a find matches against: name, service, span ID, kind, status, phase and the
   * attributes (key=value; masked values match only by key). Built while idle after the first paint
   * (buildSearchText), or whole on a find that comes first.
   */
  private texts(): string[] {
    this.buildSearchText(this.n);
    return this.searchText as string[];
  }

  /** Rows whose search text is built. */
  get searchRows(): number {
    return this.searchText?.length ?? 0;
  }

  /**
   * Extends the search text to the first `upTo` rows; true when every row has it. The view calls it in
   * slices while idle after the first paint (a 100k-span trace's text takes ≈ 300 ms to build), so
   * the first find does not pay for it.
   */
  buildSearchText(upTo: number): boolean {
    const texts = (this.searchText ??= []);
    const spans = this.model.spans;
    for (let i = texts.length; i < Math.min(upTo, this.n); i++) {
      const s = spans[i];
      const attrs = s.attributes.map((a) => (a.masked ? a.key : `${a.key}=${a.value}`)).join('\n');
      texts.push(`${s.name}\n${s.service ?? ''}\n${s.span_id}\n${s.kind}\n${s.status}\n${s.phase ?? ''}\n${attrs}`.toLowerCase());
    }
    return texts.length >= this.n;
  }

  /** Rows whose text contains every word of `query` (case-insensitive); null for an empty query. */
  find(query: string): Uint8Array | null {
    const words = query.toLowerCase().split(/\s+/).filter((w) => w !== '');
    if (words.length === 0) return null;
    const texts = this.texts();
    const hits = new Uint8Array(this.n);
    for (let i = 0; i < this.n; i++) {
      const t = texts[i];
      let ok = true;
      for (const w of words) {
        if (!t.includes(w)) {
          ok = false;
          break;
        }
      }
      hits[i] = ok ? 1 : 0;
    }
    return hits;
  }

  /**
   * The rows to draw, in order: collapsed rows hide their subtrees; with `filter`, only matching rows
   * and their ancestors (the path to a match stays visible, so a match is never shown out of context).
   */
  visibleRows(collapsed: ReadonlySet<number>, filter: Uint8Array | null): Int32Array {
    let keep: Uint8Array | null = null;
    if (filter !== null) {
      keep = new Uint8Array(filter);
      for (let i = this.n - 1; i >= 0; i--) {
        const p = this.parent[i];
        if (keep[i] === 1 && p >= 0) keep[p] = 1;
      }
    }
    const out = new Int32Array(this.n);
    let count = 0;
    for (let i = 0; i < this.n; ) {
      if (keep !== null && keep[i] === 0) {
        i++;
        continue;
      }
      out[count++] = i;
      // A filter opens the path to each match even through collapsed rows.
      i = collapsed.has(i) && keep === null ? this.subtreeEnd[i] : i + 1;
    }
    return out.slice(0, count);
  }

  /** The ancestors of row i, nearest first. */
  ancestors(i: number): number[] {
    const out: number[] = [];
    for (let p = this.parent[i]; p >= 0; p = this.parent[p]) out.push(p);
    return out;
  }

  /** Self time: the span's duration minus the union of its children's intervals clipped to it. */
  selfTime(i: number): number {
    const a = this.start[i];
    const b = this.end[i];
    const kids: [number, number][] = [];
    for (let j = i + 1; j < this.subtreeEnd[i]; j = this.subtreeEnd[j]) kids.push([Math.max(a, this.start[j]), Math.min(b, this.end[j])]);
    kids.sort((x, y) => x[0] - y[0]);
    let covered = 0;
    let curA = -Infinity;
    let curB = -Infinity;
    for (const [x, y] of kids) {
      if (y <= x) continue;
      if (x > curB) {
        if (curB > curA) covered += curB - curA;
        curA = x;
        curB = y;
      } else if (y > curB) curB = y;
    }
    if (curB > curA) covered += curB - curA;
    return Math.max(0, b - a - covered);
  }
}
