import * as assert from 'assert';
import { buildBreakdown, ensureBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { computeJoinSummary } from '../../../../src/core/analysis/figures/join';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { reconcileTrace } from '../../../../src/core/analysis/trace/reconcile';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { insertEvent, insertRequests, insertSpans, rebuildWithWarnings, withStore, type SpanRow } from '../../../fixtures/analysis/tables';

const trace = (n: number): string => `c${n.toString(16).padStart(31, '0')}`;

function rootedTrace(t: string, rootMs: number, generationMs = rootMs / 2): SpanRow[] {
  return [
    { trace: t, id: 'a000000000000001', parent: 'ffffffffffffffff', name: 'POST /v1/chat/completions', kind: 'SERVER', startMs: 0, endMs: rootMs },
    { trace: t, id: 'a000000000000002', parent: 'a000000000000001', name: 'inference.generate', startMs: 1, endMs: 1 + generationMs },
  ];
}

describe('buildBreakdown', () => {
  it('reuses the stored breakdown for the same run and options, and rebuilds when the run is replaced by one with the same counts', () =>
    withStore(async (store) => {
      await insertSpans(store, [...rootedTrace(trace(1), 100), ...rootedTrace(trace(2), 100)]);
      await insertRequests(store, [{ trace: trace(1), totalMs: 110 }, { trace: trace(2), totalMs: 130 }]);
      await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const envelopes = async (): Promise<number[]> =>
        (await store.all<{ e: number }>('SELECT network_envelope_ms AS e FROM request_breakdown ORDER BY trace_id')).map((r) => r.e);
      assert.deepStrictEqual(await envelopes(), [10, 30]);
      // Same run, same options: the stored tables are kept, so a value written into them survives
      // (request_breakdown is a view; its figures live in request_figures).
      await store.run('UPDATE request_figures SET network_envelope_ms = -1');
      await ensureBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      assert.deepStrictEqual(await envelopes(), [-1, -1]);
      // The client side replaced by as many rows with other totals (as a reload into a --db file does):
      // the counts match the stamp, the rows do not, so the breakdown must be rebuilt.
      await store.run('DELETE FROM client_requests');
      await insertRequests(store, [{ trace: trace(1), totalMs: 150 }, { trace: trace(2), totalMs: 105 }]);
      await ensureBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      assert.deepStrictEqual(await envelopes(), [50, 5]);
    }));

  it('keeps negative envelopes, counts them and names the most negative', () =>
    withStore(async (store) => {
      // envelopes: 120 − 100 = 20, 97.5 − 100 = −2.5, 60 − 100 = −40, failed 50 − 100 (not in the success population)
      for (const i of [0, 1, 2, 3]) await insertSpans(store, rootedTrace(trace(i), 100));
      await insertRequests(store, [
        { trace: trace(0), totalMs: 120 },
        { trace: trace(1), totalMs: 97.5 },
        { trace: trace(2), totalMs: 60 },
        { trace: trace(3), totalMs: 50, outcome: 'failed' },
      ]);
      const warnings = await rebuildWithWarnings(store, DEFAULT_ANALYSIS_OPTIONS);
      const env = await store.all<{ e: number }>('SELECT network_envelope_ms AS e FROM request_breakdown ORDER BY row_id');
      assert.deepStrictEqual(env.map((r) => r.e), [20, -2.5, -40, -50]);
      assert.ok(
        warnings.some((w) => w.startsWith('2 of 3 matched successful requests have a negative network envelope (most negative -40 ms)')),
        warnings.join('\n'),
      );
    }));

  it('flags span durations that look like µs written as ns, and the reverse', () =>
    withStore(async (store) => {
      // Root spans of 0.1 ms for client requests of ~100 ms: median ratio 0.001.
      for (let i = 0; i < 5; i++) await insertSpans(store, rootedTrace(trace(i), 0.1 + i / 1000));
      await insertRequests(store, [0, 1, 2, 3, 4].map((i) => ({ trace: trace(i), totalMs: 100 + i })));
      const warnings = await rebuildWithWarnings(store, DEFAULT_ANALYSIS_OPTIONS);
      const w = warnings.find((x) => x.startsWith('median server_root_ms / client_total_ms over 5 matched requests is 0.00100:'));
      assert.ok(w?.includes('µs written as ns'), warnings.join('\n'));
      await store.run('UPDATE client_requests SET client_total_ms = client_total_ms / 1e6');
      const reverse = await rebuildWithWarnings(store, DEFAULT_ANALYSIS_OPTIONS);
      assert.ok(reverse.some((x) => x.includes('ns written as µs')), reverse.join('\n'));
    }));

  it('builds the server-only population when no client file was loaded', () =>
    withStore(async (store) => {
      await insertSpans(store, [...rootedTrace(trace(1), 80, 30), ...rootedTrace(trace(2), 40, 10)]);
      // a lost root: only a child, its parent not exported
      await insertSpans(store, [{ trace: trace(3), id: 'b000000000000002', parent: 'b000000000000001', name: 'auth.check', startMs: 0, endMs: 3 }]);
      await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const roots = await store.all<{ trace_id: string; server_root_ms: number; generation_ms: number; unattributed_server_ms: number }>(
        'SELECT trace_id, server_root_ms, generation_ms, unattributed_server_ms FROM root_breakdown ORDER BY trace_id',
      );
      assert.deepStrictEqual(roots, [
        { trace_id: trace(1), server_root_ms: 80, generation_ms: 30, unattributed_server_ms: 50 },
        { trace_id: trace(2), server_root_ms: 40, generation_ms: 10, unattributed_server_ms: 30 },
      ]);
      const join = await computeJoinSummary(store);
      assert.strictEqual(join.client_requests, 0);
      assert.strictEqual(join.coverage, null);
      assert.strictEqual(join.coverage_of_valid, null);
      assert.strictEqual(join.orphan_server_roots, 2);
      assert.strictEqual(join.server_traces, 3);
      assert.strictEqual(join.lost_roots, 0); // lost roots count client trace IDs
      const rec = await reconcileTrace(store, trace(1), DEFAULT_ANALYSIS_OPTIONS);
      assert.ok(rec);
      assert.strictEqual(rec.matched, false);
      assert.strictEqual(rec.breakdown.server_root_ms, 80);
      assert.strictEqual(rec.breakdown.network_envelope_ms, null);
      assert.deepStrictEqual(rec.notes, ['no client record carries this trace ID (server-only figures)']);
      const lost = await reconcileTrace(store, trace(3), DEFAULT_ANALYSIS_OPTIONS);
      assert.ok(lost?.notes.some((n) => n.startsWith('the root span was lost: 1 spans exported')));
      assert.deepStrictEqual(lost?.spans.map((s) => [s.name, s.depth, s.start_ms]), [['auth.check', 0, 0]]);
    }));

  it('builds the client-only breakdown when no span file was loaded', () =>
    withStore(async (store) => {
      await insertRequests(store, [
        { trace: trace(1), totalMs: 100, startMs: 1_000_000, itlMs: 12.5 },
        { trace: trace(2), totalMs: 150, startMs: 1_000_250.5 },
        { trace: null, totalMs: 90, startMs: 1_000_100 },
      ]);
      assert.deepStrictEqual(await rebuildWithWarnings(store, DEFAULT_ANALYSIS_OPTIONS), []);
      const rows = await store.all<Record<string, unknown>>(
        'SELECT offset_ms, matched, lost_root, server_root_ms, generation_ms, itl_ms, itl_source, transport_setup_ms FROM request_breakdown ORDER BY row_id',
      );
      assert.deepStrictEqual(rows, [
        { offset_ms: 0, matched: false, lost_root: false, server_root_ms: null, generation_ms: null, itl_ms: 12.5, itl_source: 'client', transport_setup_ms: null },
        { offset_ms: 250.5, matched: false, lost_root: false, server_root_ms: null, generation_ms: null, itl_ms: null, itl_source: null, transport_setup_ms: null },
        { offset_ms: 100, matched: false, lost_root: false, server_root_ms: null, generation_ms: null, itl_ms: null, itl_source: null, transport_setup_ms: null },
      ]);
      const join = await computeJoinSummary(store);
      assert.deepStrictEqual([join.client_requests, join.with_trace_id, join.matched, join.coverage, join.server_traces, join.server_spans], [3, 2, 0, 0, 0, 0]);
      const rec = await reconcileTrace(store, trace(2), DEFAULT_ANALYSIS_OPTIONS);
      assert.deepStrictEqual(rec?.notes, ['no span of this trace was exported (client-only figures)']);
      assert.strictEqual(rec?.breakdown.client_total_ms, 150);
      assert.deepStrictEqual(rec?.spans, []);
    }));

  it('pairs TTFT for streaming requests and prefers server ITL over the client figure', () =>
    withStore(async (store) => {
      await insertSpans(store, [...rootedTrace(trace(1), 300, 250), ...rootedTrace(trace(2), 300, 250)]);
      await insertEvent(store, trace(1), 'a000000000000002', 'first_token', 42.5);
      await insertEvent(store, trace(2), 'a000000000000002', 'first_token', 40);
      for (const at of [40, 50, 60.5]) await insertEvent(store, trace(2), 'a000000000000002', 'delta', at);
      await insertRequests(store, [
        { trace: trace(1), totalMs: 320, streaming: true, ttftMs: 50, itlMs: 11 },
        { trace: trace(2), totalMs: 320, streaming: false, ttftMs: 45, itlMs: 11 },
      ]);
      await buildBreakdown(store, { ...DEFAULT_ANALYSIS_OPTIONS, contentEvent: 'delta' });
      const rows = await store.all<Record<string, unknown>>(
        'SELECT server_ttft_ms, ttft_envelope_ms, itl_ms, itl_source FROM request_breakdown ORDER BY row_id',
      );
      assert.deepStrictEqual(rows, [
        { server_ttft_ms: 42.5, ttft_envelope_ms: 7.5, itl_ms: 11, itl_source: 'client' },
        { server_ttft_ms: 40, ttft_envelope_ms: null, itl_ms: 10.25, itl_source: 'server' },
      ]);
    }));

  it('explains collisions in reconcileTrace', () =>
    withStore(async (store) => {
      await insertSpans(store, [
        ...rootedTrace(trace(1), 100),
        { trace: trace(1), id: 'a000000000000009', parent: 'eeeeeeeeeeeeeeee', name: 'POST /v1/chat/completions', kind: 'SERVER', startMs: 5, endMs: 90 },
        ...rootedTrace(trace(2), 100),
      ]);
      await insertRequests(store, [{ trace: trace(1), totalMs: 120 }, { trace: trace(2), totalMs: 120 }, { trace: trace(2), totalMs: 130 }]);
      await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const multiRoot = await reconcileTrace(store, trace(1), DEFAULT_ANALYSIS_OPTIONS);
      assert.deepStrictEqual(multiRoot?.notes, ['2 root candidates (SERVER spans whose parent is not in the trace): a collision, not matched']);
      assert.strictEqual(multiRoot?.breakdown.server_root_ms, null);
      const dup = await reconcileTrace(store, trace(2), DEFAULT_ANALYSIS_OPTIONS);
      assert.deepStrictEqual(dup?.notes, ['the client file carries this trace ID 2 times: a collision, not matched']);
      assert.strictEqual(dup?.matched, false);
      assert.strictEqual(dup?.breakdown.network_envelope_ms, 20);
    }));

  it('rejects a phase name that is not an identifier or shadows a metric', async () => {
    const store = new DuckStore();
    try {
      await assert.rejects(
        buildBreakdown(store, { ...DEFAULT_ANALYSIS_OPTIONS, phases: [{ name: 'gpu queue; DROP TABLE spans', anyOf: [] }] }),
        /phase name "gpu queue; DROP TABLE spans" is not a valid name/,
      );
      await assert.rejects(buildBreakdown(store, { ...DEFAULT_ANALYSIS_OPTIONS, phases: [{ name: 'network_envelope', anyOf: [] }] }), /collides with the metric network_envelope_ms/);
    } finally {
      await store.close();
    }
  });
});
