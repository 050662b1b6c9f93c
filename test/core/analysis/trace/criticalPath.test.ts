import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { computeCriticalPath, type PathSpan } from '../../../../src/core/analysis/trace/criticalPath';
import { Prng } from '../../../../src/core/prng';

/**
 * A second, recursive implementation written from the definition (docs/metrics.md §3.4; the test may
 * recurse, its trees are small): clip each child to its parent's window, then walk back from the
 * window's end taking the child that ends last at or before the cursor (ties: earlier start, then
 * row), skipping children that end after the cursor.
 */
function reference(spans: readonly PathSpan[], i: number, from: number, to: number, out: [number, number, number][]): void {
  const kids = spans
    .map((s, k) => ({ k, a: Math.max(s.start_ms, from), b: Math.min(s.start_ms + s.duration_ms, to) }))
    .filter((c) => spans[c.k].parent_index === i && c.k !== i && c.b > c.a);
  let cursor = to;
  for (;;) {
    const fit = kids.filter((c) => c.b <= cursor);
    if (fit.length === 0) break;
    const best = fit.reduce((x, y) => (y.b > x.b || (y.b === x.b && (y.a < x.a || (y.a === x.a && y.k < x.k))) ? y : x));
    if (cursor > best.b) out.push([i, best.b, cursor]);
    reference(spans, best.k, best.a, best.b, out);
    cursor = best.a;
  }
  if (cursor > from) out.push([i, from, cursor]);
}

function randomTree(rng: Prng, n: number): PathSpan[] {
  const spans: PathSpan[] = [{ parent_index: null, start_ms: 0, duration_ms: 1000 }];
  for (let i = 1; i < n; i++) {
    const p = Math.floor(rng.uniform() * i);
    const ps = spans[p];
    // Children may overlap each other, start before their parent or outlast it (skew, async work).
    const a = ps.start_ms + (rng.uniform() * 1.2 - 0.1) * ps.duration_ms;
    const d = rng.uniform() * ps.duration_ms * 0.8;
    spans.push({ parent_index: p, start_ms: Math.round(a), duration_ms: Math.round(d) });
  }
  return spans;
}

/** [name, start, end] per span; the first is the root; parents by name. */
type Row = [string, string | null, number, number, string?];
function tree(rows: readonly Row[]): PathSpan[] {
  const at = new Map(rows.map((r, i) => [r[0], i]));
  return rows.map(([, parent, start, end, kind]) => ({
    parent_index: parent === null ? null : (at.get(parent) as number),
    start_ms: start,
    duration_ms: end - start,
    ...(kind === 'FOLLOWS_FROM' ? { follows_from: true } : kind !== undefined ? { kind } : {}),
  }));
}
function pathOf(rows: readonly Row[]): [string, number, number][] {
  return computeCriticalPath(tree(rows)).segments.map((s) => [rows[s.index][0], s.start_ms, s.end_ms]);
}

describe('critical path: the chain of work the root end waited on (docs/metrics.md §3.4)', () => {
  // Hand-drawn timelines; each expected path is worked out by hand from the definition.
  const table: { name: string; rows: Row[]; expected: [string, number, number][] }[] = [
    {
      // X [1───────────────────────────101]
      //   A  [10──────50]
      //   C      [20──────60]
      // A is still running when C starts: nothing waited for A's end (issue 25, case 1).
      name: 'a sibling still running when the next one starts is skipped, not clipped',
      rows: [['X', null, 1, 101], ['A', 'X', 10, 50], ['C', 'X', 20, 60]],
      expected: [['X', 1, 20], ['C', 20, 60], ['X', 60, 101]],
    },
    {
      // X [0────────────────────────────100]
      //   A  [10────────────60]
      //   B     [20───40]
      //   C              [50─────────90]
      // A ends after C starts (skipped); B ended before C started (issue 25, case 2).
      name: 'a child that ended before the next one started is on the path',
      rows: [['X', null, 0, 100], ['A', 'X', 10, 60], ['B', 'X', 20, 40], ['C', 'X', 50, 90]],
      expected: [['X', 0, 20], ['B', 20, 40], ['X', 40, 50], ['C', 50, 90], ['X', 90, 100]],
    },
    {
      // X [0──────────────100]
      //   A [10────40]
      //   B         [40────80]
      name: 'a child that ends exactly when the next one starts is on the path',
      rows: [['X', null, 0, 100], ['A', 'X', 10, 40], ['B', 'X', 40, 80]],
      expected: [['X', 0, 10], ['A', 10, 40], ['B', 40, 80], ['X', 80, 100]],
    },
    {
      // X [0──────────────100]
      //   A     [30────70]
      //   B  [20───────70]
      name: 'two children ending together: the one that started first',
      rows: [['X', null, 0, 100], ['A', 'X', 30, 70], ['B', 'X', 20, 70]],
      expected: [['X', 0, 20], ['B', 20, 70], ['X', 70, 100]],
    },
    {
      // X [0──────────100]
      //   A      [60──────────140]   (outlives its parent: clipped to [60,100])
      //   B [10──50]
      name: 'a child that outlives its parent is clipped to the parent',
      rows: [['X', null, 0, 100], ['A', 'X', 60, 140], ['B', 'X', 10, 50]],
      expected: [['X', 0, 10], ['B', 10, 50], ['X', 50, 60], ['A', 60, 100]],
    },
    {
      // X [0──────────100]            gateway's clock
      //   S    [30──────80]           backend's clock, 10 ms ahead: really [20,70]...
      //   K [-5──20]                  ...and a child seen starting before its parent
      //   S's child Q [25───85]      outlives S on a third clock: clipped to S
      name: 'skew across services: children outside their parent count only inside it',
      rows: [['X', null, 0, 100], ['S', 'X', 30, 80], ['K', 'X', -5, 20], ['Q', 'S', 25, 85]],
      expected: [['K', 0, 20], ['X', 20, 30], ['Q', 30, 80], ['X', 80, 100]],
    },
    {
      // X [0──────50]
      //   L            [60───90]      wholly after its parent: dropped
      name: 'a child wholly outside its parent is dropped',
      rows: [['X', null, 0, 50], ['L', 'X', 60, 90]],
      expected: [['X', 0, 50]],
    },
    {
      // G [0───────────────────100]
      //   P PRODUCER [10──30]
      //     C CONSUMER   [25────────────90]   (the consumer's own work; P does not wait for it)
      //   W [40──60]
      name: 'a CONSUMER under a PRODUCER is asynchronous: not on the path, nor is its subtree',
      rows: [['G', null, 0, 100], ['P', 'G', 10, 30, 'PRODUCER'], ['C', 'P', 25, 90, 'CONSUMER'], ['D', 'C', 30, 80], ['W', 'G', 40, 60]],
      expected: [['G', 0, 10], ['P', 10, 30], ['G', 30, 40], ['W', 40, 60], ['G', 60, 100]],
    },
    {
      // X [0──────────────100]
      //   F [20──────────────90]   parent by FOLLOWS_FROM only
      //   A [10──50]
      name: 'a span that only follows from its parent (Jaeger FOLLOWS_FROM) is not on the path',
      rows: [['X', null, 0, 100], ['F', 'X', 20, 90, 'FOLLOWS_FROM'], ['A', 'X', 10, 50]],
      expected: [['X', 0, 10], ['A', 10, 50], ['X', 50, 100]],
    },
    {
      // A CONSUMER under a non-PRODUCER (a poll under a handler) is ordinary blocking work.
      name: 'a CONSUMER under a span that is not a PRODUCER is on the path',
      rows: [['X', null, 0, 100, 'SERVER'], ['C', 'X', 20, 70, 'CONSUMER']],
      expected: [['X', 0, 20], ['C', 20, 70], ['X', 70, 100]],
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      assert.deepStrictEqual(pathOf(c.rows), c.expected);
    });
  }

  it('a child ending within the timestamp resolution after the cursor is taken, cut at it', () => {
    // X [0────────────100]; Q [10──50.4]; G [50──90] (its start truncated to the ms).
    const spans = tree([['X', null, 0, 100], ['Q', 'X', 10, 50.4], ['G', 'X', 50, 90]]);
    const names = ['X', 'Q', 'G'];
    const at = (tol: number): [string, number, number][] =>
      computeCriticalPath(spans, 0, undefined, tol).segments.map((g) => [names[g.index], g.start_ms, g.end_ms]);
    assert.deepStrictEqual(at(1), [['X', 0, 10], ['Q', 10, 50], ['G', 50, 90], ['X', 90, 100]]);
    assert.deepStrictEqual(at(0), [['X', 0, 50], ['G', 50, 90], ['X', 90, 100]]);
  });

  it("a shared span's second observer (Zipkin) is not a child on the path", () => {
    // C [0──100] client half; S [5──95] its server half (same ID); K [10──90] the server's work, under C.
    const spans = tree([['C', null, 0, 100], ['S', 'C', 5, 95], ['K', 'C', 10, 90]]);
    spans[1].shared_copy = true;
    assert.deepStrictEqual(computeCriticalPath(spans).segments.map((g) => [g.index, g.start_ms, g.end_ms]), [[0, 0, 10], [2, 10, 90], [0, 90, 100]]);
  });

  it('selfMs and onPath follow the segments (issue 25, case 2)', () => {
    const cp = computeCriticalPath(tree(table[1].rows));
    assert.deepStrictEqual([...cp.onPath], [1, 0, 1, 1]);
    assert.deepStrictEqual([...cp.selfMs], [40, 0, 20, 40]);
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
        assert.ok(s.start_ms >= sp.start_ms && s.end_ms <= sp.start_ms + sp.duration_ms, 'a segment lies inside its span');
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

interface JaegerCase {
  name: string;
  spans: { id: string; parent: string | null; ref: string | null; kind: string | null; start: number; duration: number }[];
  expected: [string, number, number][];
}

describe("critical path: Jaeger UI's test cases (test/fixtures/trace/jaeger-ui-critical-path.json)", () => {
  const file = path.join(__dirname, '../../../../../test/fixtures/trace/jaeger-ui-critical-path.json');
  const cases = (JSON.parse(fs.readFileSync(file, 'utf8')) as { cases: JaegerCase[] }).cases;
  it('holds all nine cases', () => assert.strictEqual(cases.length, 9));
  for (const c of cases) {
    it(`${c.name}: the same sections as Jaeger UI`, () => {
      const at = new Map(c.spans.map((s, i) => [s.id, i]));
      const spans: PathSpan[] = c.spans.map((s) => ({
        parent_index: s.parent === null ? null : (at.get(s.parent) as number),
        start_ms: s.start,
        duration_ms: s.duration,
        kind: s.kind ?? 'UNSPECIFIED',
        follows_from: s.ref === 'FOLLOWS_FROM',
      }));
      const got = computeCriticalPath(spans).segments.map((s) => [c.spans[s.index].id, s.start_ms, s.end_ms]);
      assert.deepStrictEqual(got, c.expected);
    });
  }
});
