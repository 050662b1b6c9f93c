import * as assert from 'assert';
import { buildBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { insertSpans, type SpanRow } from '../../../fixtures/analysis/tables';

/**
 * Phase figures do not depend on the order DuckDB adds their spans in: they are Σ integer ns / 1e6,
 * computed here a second way (JavaScript integers, one division). A double sum of the per-span (or
 * per-group) milliseconds gives another last bit for some orders, which made two analyses of one run
 * write different CSV bytes.
 */

interface PhaseRow extends Record<string, unknown> {
  trace_id: string;
  gateway_ms: number;
  gpu_queue_ms: number;
  generation_ms: number;
  unattributed_server_ms: number;
}

const PHASES = 'trace_id, gateway_ms, gpu_queue_ms, generation_ms, unattributed_server_ms';
const MS = 1_000_000;

describe('phase sums are exact and order-independent', () => {
  it('sums 0.1 + 0.2 + 0.3 ms of gateway and 2.1 + 0.1 + 0.2 ms of generation groups exactly', async () => {
    // As doubles, 0.1 + 0.2 + 0.3 is 0.6000000000000001 in this order, and 2.1, 0.1 and 0.2 add up
    // to 2.4000000000000004 in every order; in integer ns they are 600000 and 2400000.
    const T = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
    const R = 'r000000000000001';
    const c = (id: string, name: string, startMs: number, endMs: number): SpanRow => ({ trace: T, id, parent: R, name, startMs, endMs });
    const spans: SpanRow[] = [
      { trace: T, id: R, parent: 'ffffffffffffffff', name: 'POST /v1/chat/completions', kind: 'SERVER', startMs: 0, endMs: 100 },
      c('a000000000000001', 'auth.check', 1, 1.1),
      c('a000000000000002', 'request.prepare', 2, 2.2),
      c('a000000000000003', 'route.select', 3, 3.3),
      // Overlapping by more than the 1 ms granularity: one group, the union [10, 12.1].
      c('g000000000000001', 'inference.generate', 10, 12.1),
      c('g000000000000002', 'inference.generate', 10.5, 11.5),
      c('g000000000000003', 'inference.generate', 20, 20.1),
      c('g000000000000004', 'inference.generate', 30, 30.2),
    ];
    const store = new DuckStore();
    try {
      await insertSpans(store, spans);
      await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const rows = await store.all<PhaseRow>(`SELECT ${PHASES} FROM root_breakdown`);
      assert.deepStrictEqual(rows, [
        { trace_id: T, gateway_ms: 0.6, gpu_queue_ms: 0, generation_ms: 2.4, unattributed_server_ms: 100 - (0.6 + 0 + 2.4) },
      ]);
    } finally {
      await store.close();
    }
  });

  it('gives the same bytes with 1 and 2 DuckDB threads over 20,000 traces, equal to Σ ns / 1e6', async function () {
    this.timeout(120_000);
    const n = 20_000;
    // Per trace t: four gateway spans of d(t, j) ns each, ten ms apart (summed); two generation spans
    // overlapping by more than 1 ms (their union: the first, 3 ms + x) and a third one later of z ns.
    // 8 spans × 20,000 = 160,000 rows: more than one DuckDB row group, so both threads scan.
    const d = (t: number, j: number): number => 1000 + ((t * 7919 + j * 104729) % 999983);
    const x = (t: number): number => (t * 31) % 1_000_000;
    const y = (t: number): number => (t * 17) % 500_000;
    const z = (t: number): number => 1000 + ((t * 613) % 777777);
    const spansSql = `
      INSERT INTO spans (source_id, line, trace_id, span_id, parent_span_id, name, kind, service, start_ns, end_ns, duration_ms, status, attributes)
      SELECT 1, row_number() OVER (), trace_id, span_id, parent, name, kind, 'llm-gateway', b + s, b + e, (e - s) / 1e6, 'UNSET', map([]::VARCHAR[], []::VARCHAR[])
      FROM (
        SELECT printf('%032x', t + 1) AS trace_id, printf('%016x', t * 16 + k + 1) AS span_id,
               CASE WHEN k = 0 THEN 'ffffffffffffffff' ELSE printf('%016x', t * 16 + 1) END AS parent,
               CASE WHEN k = 0 THEN 'POST /v1/chat/completions' WHEN k <= 4 THEN 'auth.check' ELSE 'inference.generate' END AS name,
               CASE WHEN k = 0 THEN 'SERVER' ELSE 'INTERNAL' END AS kind,
               1795965100000000000::BIGINT + t * 1000 * ${MS} AS b,
               CASE WHEN k = 0 THEN 0 WHEN k <= 4 THEN (k - 1) * 10 * ${MS} WHEN k = 5 THEN 50 * ${MS} WHEN k = 6 THEN 50 * ${MS} + 500000 ELSE 60 * ${MS} END::BIGINT AS s,
               CASE WHEN k = 0 THEN 100 * ${MS}
                    WHEN k <= 4 THEN (k - 1) * 10 * ${MS} + 1000 + ((t * 7919 + (k - 1) * 104729) % 999983)
                    WHEN k = 5 THEN 53 * ${MS} + (t * 31) % 1000000
                    WHEN k = 6 THEN 50 * ${MS} + 500000 + 1700000 + (t * 17) % 500000
                    ELSE 60 * ${MS} + 1000 + ((t * 613) % 777777) END::BIGINT AS e
        FROM range(${n}) r(t), range(8) q(k))`;
    const analyse = async (threads: number): Promise<PhaseRow[]> => {
      const store = new DuckStore({ threads });
      try {
        await store.run(spansSql);
        await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
        return await store.all<PhaseRow>(`SELECT ${PHASES} FROM root_breakdown ORDER BY trace_id`);
      } finally {
        await store.close();
      }
    };
    const one = await analyse(1);
    const two = await analyse(2);
    assert.strictEqual(one.length, n);
    const expected: PhaseRow[] = [];
    for (let t = 0; t < n; t++) {
      const gatewayNs = d(t, 0) + d(t, 1) + d(t, 2) + d(t, 3);
      const generationNs = 3 * MS + x(t) + z(t);
      assert.ok(50 * MS + 500000 + 1700000 + y(t) < 53 * MS + x(t), 'the second generation span ends inside the first');
      const gateway = gatewayNs / 1e6;
      const generation = generationNs / 1e6;
      expected.push({
        trace_id: (t + 1).toString(16).padStart(32, '0'),
        gateway_ms: gateway,
        gpu_queue_ms: 0,
        generation_ms: generation,
        unattributed_server_ms: 100 - (gateway + 0 + generation),
      });
    }
    assert.deepStrictEqual(one, expected, '1 thread: Σ ns / 1e6 per trace');
    assert.deepStrictEqual(two, one, '2 threads: the same figures, bit for bit');
  });
});
