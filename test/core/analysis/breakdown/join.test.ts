import * as assert from 'assert';
import { buildBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { computeJoinSummary } from '../../../../src/core/analysis/figures/join';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import type { JoinSummary } from '../../../../src/core/report/model';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { insertRequests, insertSpans, rebuildWithWarnings, type SpanRow } from '../../../fixtures/analysis/tables';

const id = (n: number): string => n.toString(16).padStart(32, '0').replace(/^0/, 'a');
const [T1, T2, T3, T4, T5, T6, T7, T8, T9] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(id);

function serverRoot(trace: string, spanId: string, endMs = 100, parent: string | null = 'ffffffffffffffff'): SpanRow {
  return { trace, id: spanId, parent, name: 'POST /v1/chat/completions', kind: 'SERVER', startMs: 0, endMs };
}

function kid(trace: string, spanId: string, parent: string, name = 'auth.check', kind = 'INTERNAL'): SpanRow {
  return { trace, id: spanId, parent, name, kind, startMs: 1, endMs: 5 };
}

describe('join (docs/metrics.md §1 coverage, §3.3 roots and collisions)', () => {
  it('counts every category of a mixed run', async () => {
    const store = new DuckStore();
    try {
      await insertSpans(store, [
        serverRoot(T1, '1000000000000001'),
        serverRoot(T1, '1000000000000001'), // exported twice: one span, not a collision
        kid(T1, '1000000000000002', '1000000000000001'),
        serverRoot(T2, '2000000000000001'),
        serverRoot(T3, '3000000000000001'),
        serverRoot(T3, '3000000000000002'), // second root candidate: collision
        kid(T4, '4000000000000002', '4000000000000001'), // root 4…01 lost
        kid(T4, '4000000000000003', '4000000000000001', 'request.prepare'),
        serverRoot(T6, '6000000000000001'),
        serverRoot(T7, '7000000000000001'), // server-only root
        { trace: T8, id: '8000000000000001', parent: null, name: 'GET /', kind: 'CLIENT', startMs: 0, endMs: 50 }, // fallback root
        kid(T8, '8000000000000002', '8000000000000001', 'GET /api', 'SERVER'),
        kid(T9, '9000000000000002', '9000000000000001', 'x', 'UNSPECIFIED'), // lost root, no client record
        // A SERVER span of a downstream service with its parent in the trace is not a candidate.
        kid(T1, '1000000000000003', '1000000000000002', 'GET /internal', 'SERVER'),
      ]);
      await insertRequests(store, [
        { trace: T1, totalMs: 120 },
        { trace: T2, totalMs: 110 },
        { trace: T2, totalMs: 130 },
        { trace: T3, totalMs: 140 },
        { trace: '00000000000000000000000000000000', totalMs: 90 },
        { trace: 'xyz', totalMs: 90 },
        { trace: T1.toUpperCase().replace(/^A/, 'B'), totalMs: 90 },
        { trace: null, totalMs: 90 },
        { trace: T4, totalMs: 150 },
        { trace: T5, totalMs: 160 },
        { trace: T6, totalMs: 170, outcome: 'failed' },
      ]);
      const warnings = await rebuildWithWarnings(store, DEFAULT_ANALYSIS_OPTIONS);
      const join = await computeJoinSummary(store);
      const expected: JoinSummary = {
        key: 'trace_id',
        key_attribute: null,
        applicable: true,
        client_requests: 11,
        with_trace_id: 10,
        valid_trace_ids: 7, // T1, T2, T2, T3, T4, T5, T6
        invalid_trace_ids: 3, // all-zero, malformed, upper-case
        matched: 2, // T1 and T6 (matched regardless of outcome)
        coverage: 2 / 11,
        coverage_of_valid: 2 / 7,
        unmatched_client: 9,
        orphan_server_roots: 2, // T7, T8
        lost_roots: 1, // T4 (T9 has no client record)
        duplicate_trace_ids: 2, // T2 (client), T3 (server)
        client_duplicate_trace_ids: 1,
        server_multi_root_traces: 1,
        server_ambiguous_ids: 0,
        server_traces: 8, // T1 T2 T3 T4 T6 T7 T8 T9
        server_spans: 14,
      };
      assert.deepStrictEqual(join, expected);
      const flags = await store.all<{ trace_id: string | null; trace_valid: boolean; client_dup: boolean; matched: boolean; lost_root: boolean }>(
        'SELECT trace_id, trace_valid, client_dup, matched, lost_root FROM request_breakdown ORDER BY row_id',
      );
      assert.deepStrictEqual(
        flags.map((f) => [f.trace_valid, f.client_dup, f.matched, f.lost_root]),
        [
          [true, false, true, false],
          [true, true, false, false],
          [true, true, false, false],
          [true, false, false, false],
          [false, false, false, false],
          [false, false, false, false],
          [false, false, false, false],
          [false, false, false, false],
          [true, false, false, true],
          [true, false, false, false],
          [true, false, true, false],
        ],
      );
      const roots = await store.all<{ trace_id: string; root_candidates: number; root_span_id: string | null; has_spans_without_root: boolean; root_fallback: boolean }>(
        'SELECT trace_id, root_candidates, root_span_id, has_spans_without_root, root_fallback FROM trace_roots ORDER BY trace_id',
      );
      assert.deepStrictEqual(
        roots.map((r) => [r.trace_id, r.root_candidates, r.root_span_id, r.has_spans_without_root, r.root_fallback]),
        [
          [T1, 1, '1000000000000001', false, false],
          [T2, 1, '2000000000000001', false, false],
          [T3, 2, null, false, false],
          [T4, 0, null, true, false],
          [T6, 1, '6000000000000001', false, false],
          [T7, 1, '7000000000000001', false, false],
          [T8, 1, '8000000000000001', false, true],
          [T9, 0, null, true, false],
        ],
      );
      assert.ok(warnings.includes('1 duplicate spans (same trace and span ID) were counted once'), warnings.join('\n'));
      assert.ok(warnings.some((w) => w.startsWith('1 traces have no SERVER root candidate')), warnings.join('\n'));
    } finally {
      await store.close();
    }
  });

  it('restricts roots to options.root.service / spanName', async () => {
    const store = new DuckStore();
    try {
      // Two SERVER spans without parents in the trace: the edge proxy and the gateway (the proxy's
      // span to the gateway was not exported). Unrestricted that is a collision; naming the entry
      // service picks one root.
      await insertSpans(store, [
        { ...serverRoot(T1, '1000000000000001', 200), service: 'edge-proxy', name: 'ingress' },
        { ...serverRoot(T1, '1000000000000002', 150, '1000000000000099'), service: 'llm-gateway' },
      ]);
      await insertRequests(store, [{ trace: T1, totalMs: 210 }]);
      await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      assert.strictEqual((await computeJoinSummary(store)).server_multi_root_traces, 1);
      await buildBreakdown(store, { ...DEFAULT_ANALYSIS_OPTIONS, root: { service: 'llm-gateway' } });
      const [row] = await store.all<{ matched: boolean; server_root_ms: number }>('SELECT matched, server_root_ms FROM request_breakdown');
      assert.deepStrictEqual(row, { matched: true, server_root_ms: 150 });
      await buildBreakdown(store, { ...DEFAULT_ANALYSIS_OPTIONS, root: { spanName: 'ingress' } });
      const [row2] = await store.all<{ matched: boolean; server_root_ms: number }>('SELECT matched, server_root_ms FROM request_breakdown');
      assert.deepStrictEqual(row2, { matched: true, server_root_ms: 200 });
    } finally {
      await store.close();
    }
  });

  it('reports partial coverage', async () => {
    const store = new DuckStore();
    try {
      // 10 requests, spans exported for 3 of them (sampling), one more with its root lost.
      const traces = Array.from({ length: 10 }, (_, i) => id(0x100 + i));
      await insertSpans(store, [...traces.slice(0, 3).map((t, i) => serverRoot(t, `c00000000000000${i}`)), kid(traces[3], 'd000000000000001', 'd000000000000000')]);
      await insertRequests(store, traces.map((t) => ({ trace: t, totalMs: 200 })));
      await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const join = await computeJoinSummary(store);
      assert.strictEqual(join.matched, 3);
      assert.strictEqual(join.coverage, 0.3);
      assert.strictEqual(join.coverage_of_valid, 0.3);
      assert.strictEqual(join.lost_roots, 1);
      assert.strictEqual(join.unmatched_client, 7);
      assert.strictEqual(join.orphan_server_roots, 0);
    } finally {
      await store.close();
    }
  });
});
