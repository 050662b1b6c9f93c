import * as assert from 'assert';
import { buildSpanIndex } from '../../../../src/core/analysis/index/spanIndex';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { insertEvent, insertSpans, type SpanRow } from '../../../fixtures/analysis/tables';

const A = 'a0000000000000000000000000000001';
const B = 'b0000000000000000000000000000002';
const C = 'c0000000000000000000000000000003';

function span(trace: string, id: string, parent: string | null, startMs = 0, endMs = 10): SpanRow {
  return { trace, id, parent, name: `span ${id}`, startMs, endMs };
}

interface IndexedSpan {
  trace: string;
  id: string;
  top: string | null;
  depth: number | null;
  ancestors: string[] | null;
  start_ms: number;
}

/** span_index read back by span IDs (node IDs are spans rowids): one entry per indexed span. */
async function indexBySpanId(store: DuckStore): Promise<Map<string, IndexedSpan>> {
  const rows = await store.all<{ node_id: number; trace_id: string; span_id: string; top_node: number | null; depth: number | null; ancestors: number[] | null; start_ms: number }>(
    `SELECT i.node_id, t.trace_id, s.span_id, i.top_node, i.depth, i.ancestors, (i.start_ns - 1795965100000000000) / 1e6 AS start_ms
     FROM span_index i JOIN spans s ON s.rowid = i.node_id JOIN trace_index t USING (trace_no)`,
  );
  const idOf = new Map((await store.all<{ node: number; span_id: string }>('SELECT rowid AS node, span_id FROM spans')).map((r) => [r.node, r.span_id]));
  const byId = new Map<string, IndexedSpan>();
  for (const r of rows) {
    byId.set(`${r.trace_id}/${r.span_id}`, {
      trace: r.trace_id,
      id: r.span_id,
      top: r.top_node === null ? null : idOf.get(r.top_node) ?? '?',
      depth: r.depth,
      ancestors: r.ancestors === null ? null : r.ancestors.map((n) => idOf.get(Number(n)) ?? '?'),
      start_ms: r.start_ms,
    });
  }
  return byId;
}

describe('span index (tree placement without a walk where possible, duplicates, cycles)', () => {
  it('places every span of a deep forest, a lost-root fragment and a parent cycle', async () => {
    const store = new DuckStore();
    try {
      await insertSpans(store, [
        span(A, 'r', null),
        span(A, 'c1', 'r', 1, 9),
        span(A, 'g1', 'c1', 2, 8),
        span(A, 'gg1', 'g1', 3, 7),
        span(A, 'c1', 'r', 50, 60), // a later copy of c1: counted once, the first copy's times are kept
        span(B, 'f', 'lost'), // its parent was not exported: top-most, not a root candidate child
        span(B, 'f1', 'f'),
        span(B, 'f2', 'f1'),
        span(C, 'x', 'y'),
        span(C, 'y', 'x'), // x ↔ y: a parent cycle, never reached from a top-most span
        span(C, 'z', 'x'),
        span(C, 'self', 'self'),
      ]);
      await insertEvent(store, A, 'c1', 'first_token', 5);
      await buildSpanIndex(store);
      const idx = await indexBySpanId(store);
      // 11 distinct (trace, span) pairs: the second c1 is dropped.
      assert.strictEqual(idx.size, 11);
      const place = (t: string, id: string): [string | null, number | null, string[] | null] => {
        const s = idx.get(`${t}/${id}`);
        assert.ok(s, `${id} indexed`);
        return [s.top, s.depth, s.ancestors];
      };
      assert.deepStrictEqual(place(A, 'r'), ['r', 0, []]);
      assert.deepStrictEqual(place(A, 'c1'), ['r', 1, ['r']]);
      assert.deepStrictEqual(place(A, 'g1'), ['r', 2, ['r', 'c1']]);
      assert.deepStrictEqual(place(A, 'gg1'), ['r', 3, ['r', 'c1', 'g1']]);
      assert.strictEqual(idx.get(`${A}/c1`)?.start_ms, 1);
      assert.deepStrictEqual(place(B, 'f'), ['f', 0, []]);
      assert.deepStrictEqual(place(B, 'f1'), ['f', 1, ['f']]);
      assert.deepStrictEqual(place(B, 'f2'), ['f', 2, ['f', 'f1']]);
      for (const id of ['x', 'y', 'z', 'self']) assert.deepStrictEqual(place(C, id), [null, null, null], id);
      const traces = await store.all<{ trace_id: string; span_count: number }>('SELECT trace_id, span_count FROM trace_index ORDER BY trace_id');
      assert.deepStrictEqual(traces.map((t) => [t.trace_id, t.span_count]), [[A, 4], [B, 3], [C, 4]]);
      // The event is matched to the kept copy of c1 and carries c1's top-most span.
      const events = await store.all<{ span_id: string; top_id: string }>(
        `SELECT s.span_id, ts.span_id AS top_id FROM event_index e JOIN spans s ON s.rowid = e.node_id JOIN spans ts ON ts.rowid = e.top_node`,
      );
      assert.deepStrictEqual(events.map((e) => [e.span_id, e.top_id]), [['c1', 'r']]);
      const [meta] = await store.all<{ indexed_spans: number }>('SELECT indexed_spans FROM span_index_counts');
      assert.strictEqual(meta.indexed_spans, 11);
    } finally {
      await store.close();
    }
  });

  it('places the children of a lost-root fragment at depth 1 in a flat export (no walk needed)', async () => {
    const store = new DuckStore();
    try {
      await insertSpans(store, [span(A, 'r', null), span(A, 'k1', 'r'), span(A, 'k2', 'r'), span(B, 'f', 'lost'), span(B, 'f1', 'f')]);
      await buildSpanIndex(store);
      const idx = await indexBySpanId(store);
      const got = [...idx.values()].map((s) => [s.id, s.top, s.depth, s.ancestors]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
      assert.deepStrictEqual(got, [
        ['f', 'f', 0, []],
        ['f1', 'f', 1, ['f']],
        ['k1', 'r', 1, ['r']],
        ['k2', 'r', 1, ['r']],
        ['r', 'r', 0, []],
      ]);
    } finally {
      await store.close();
    }
  });
});
