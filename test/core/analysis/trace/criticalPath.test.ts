import * as assert from 'assert';
import { computeCriticalPath, type PathSpan } from '../../../../src/core/analysis/trace/criticalPath';
import { Prng } from '../../../../src/core/prng';

/**
 * A second, recursive implementation written from the definition (the test may recurse; its trees are
 * small): walking back from the end of the window, take the child that ends last before the cursor
 * (clipped to the window; ties: the one that really ends last), recurse into its visible part, move the cursor to its start.
 */
function reference(spans: readonly PathSpan[], i: number, from: number, to: number, out: [number, number, number][]): void {
  const kids = spans
    .map((s, k) => ({ k, a: s.start_ms, b: s.start_ms + s.duration_ms }))
    .filter((c) => spans[c.k].parent_index === i);
  let cursor = to;
  const used = new Set<number>();
  for (;;) {
    let best: { k: number; a: number; b: number } | undefined;
    for (const c of kids) {
      if (used.has(c.k) || c.a >= cursor || c.b <= from) continue;
      const end = Math.min(c.b, cursor);
      const bestEnd = best ? Math.min(best.b, cursor) : -Infinity;
      // Ties on the clipped end (several children outlast the cursor): the one that ends last, then the later start.
      if (best === undefined || end > bestEnd || (end === bestEnd && (c.b > best.b || (c.b === best.b && c.a > best.a)))) best = c;
    }
    if (best === undefined) break;
    used.add(best.k);
    const a = Math.max(best.a, from);
    const b = Math.min(best.b, cursor);
    if (b <= a) continue;
    if (cursor > b) out.push([i, b, cursor]);
    reference(spans, best.k, a, b, out);
    cursor = a;
  }
  if (cursor > from) out.push([i, from, cursor]);
}

function randomTree(rng: Prng, n: number): PathSpan[] {
  const spans: PathSpan[] = [{ parent_index: null, start_ms: 0, duration_ms: 1000 }];
  for (let i = 1; i < n; i++) {
    const p = Math.floor(rng.uniform() * i);
    const ps = spans[p];
    // Children may overlap each other and even outlast their parent (async work).
    const a = ps.start_ms + rng.uniform() * ps.duration_ms;
    const d = rng.uniform() * ps.duration_ms * 0.8;
    spans.push({ parent_index: p, start_ms: Math.round(a * 1000) / 1000, duration_ms: Math.round(d * 1000) / 1000 });
  }
  return spans;
}

describe('critical path (iterative, overlapping siblings)', () => {
  it('takes the last-finishing child and clips an overlapping sibling to the cursor (hand example)', () => {
    // root [0,100]; A [10,60]; B [40,90] overlaps A; C [0,5]; B's child D [50,80].
    const spans: PathSpan[] = [
      { parent_index: null, start_ms: 0, duration_ms: 100 },
      { parent_index: 0, start_ms: 10, duration_ms: 50 },
      { parent_index: 0, start_ms: 40, duration_ms: 50 },
      { parent_index: 0, start_ms: 0, duration_ms: 5 },
      { parent_index: 2, start_ms: 50, duration_ms: 30 },
    ];
    const cp = computeCriticalPath(spans);
    const segs = cp.segments.map((s) => [s.index, s.start_ms, s.end_ms]);
    // 90–100 root; B [40,90] with D [50,80]; then A only up to 40 ([10,40]); 5–10 root; C [0,5].
    assert.deepStrictEqual(segs, [
      [3, 0, 5],
      [0, 5, 10],
      [1, 10, 40],
      [2, 40, 50],
      [4, 50, 80],
      [2, 80, 90],
      [0, 90, 100],
    ]);
    assert.deepStrictEqual([...cp.onPath], [1, 1, 1, 1, 1]);
    assert.strictEqual(cp.selfMs[1], 30, 'A is on the path only until B takes over');
  });

  it('agrees with the recursive reference on 300 random trees, and tiles the root exactly', () => {
    const rng = new Prng(7);
    for (let t = 0; t < 300; t++) {
      const spans = randomTree(rng, 2 + Math.floor(rng.uniform() * 60));
      const cp = computeCriticalPath(spans);
      const ref: [number, number, number][] = [];
      reference(spans, 0, 0, 1000, ref);
      ref.sort((x, y) => x[1] - y[1] || x[2] - y[2]);
      assert.deepStrictEqual(cp.segments.map((s) => [s.index, s.start_ms, s.end_ms]), ref, `tree ${t}`);
      let at = 0;
      for (const s of cp.segments) {
        assert.strictEqual(s.start_ms, at, `tree ${t}: segments tile the root without gap or overlap`);
        const sp = spans[s.index];
        assert.ok(s.start_ms >= sp.start_ms && s.end_ms <= sp.start_ms + sp.duration_ms + 1e-9, 'a segment lies inside its span');
        at = s.end_ms;
      }
      assert.strictEqual(at, 1000);
    }
  });

  it('walks a chain 100,000 spans deep without recursion', () => {
    const n = 100_000;
    const spans: PathSpan[] = Array.from({ length: n }, (_, i) => ({ parent_index: i === 0 ? null : i - 1, start_ms: i * 0.001, duration_ms: 1000 - i * 0.002 }));
    const cp = computeCriticalPath(spans);
    assert.strictEqual(cp.onPath.reduce((a, b) => a + b, 0), n);
    const total = cp.segments.reduce((a, s) => a + (s.end_ms - s.start_ms), 0);
    assert.ok(Math.abs(total - 1000) < 1e-6);
  });
});
