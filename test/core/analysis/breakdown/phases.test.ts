import * as assert from 'assert';
import { buildBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions } from '../../../../src/core/analysis/options';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { insertEvent, insertRequests, insertSpans, type SpanRow } from '../../../fixtures/analysis/tables';

const T = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';

function root(endMs: number, trace = T): SpanRow {
  return { trace, id: 'r000000000000001', parent: 'ffffffffffffffff', name: 'POST /v1/chat/completions', kind: 'SERVER', startMs: 0, endMs };
}

function child(id: string, name: string, startMs: number, endMs: number, extra: Partial<SpanRow> = {}): SpanRow {
  return { trace: T, id, parent: 'r000000000000001', name, startMs, endMs, ...extra };
}

interface PhaseRow extends Record<string, unknown> {
  server_root_ms: number;
  gateway_ms: number;
  gpu_queue_ms: number;
  generation_ms: number;
  unattributed_server_ms: number;
  server_ttft_ms: number | null;
  server_itl_ms: number | null;
}

async function phasesOf(spans: SpanRow[], options: AnalysisOptions = DEFAULT_ANALYSIS_OPTIONS, setup?: (s: DuckStore) => Promise<void>): Promise<PhaseRow> {
  const store = new DuckStore();
  try {
    await insertSpans(store, spans);
    if (setup) await setup(store);
    await buildBreakdown(store, options);
    const rows = await store.all<PhaseRow>('SELECT * FROM root_breakdown WHERE trace_id = $1', [T]);
    assert.strictEqual(rows.length, 1, 'one root_breakdown row');
    return rows[0];
  } finally {
    await store.close();
  }
}

function near(actual: number | null, expected: number, what: string): void {
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${what}: expected ${expected}, got ${actual}`);
}

describe('phase sums (docs/metrics.md §1)', () => {
  it('merges genuinely concurrent generation spans by interval union', async () => {
    // Two concurrent generations [100, 400] and [150, 520.5]: union 420.5 ms, not 300 + 370.5.
    const r = await phasesOf([
      root(600),
      child('g000000000000001', 'inference.generate', 100, 400),
      child('g000000000000002', 'llm.call', 150, 520.5, { attributes: { 'llm.phase': 'generation' } }),
    ]);
    near(r.generation_ms, 420.5, 'generation_ms');
    near(r.gateway_ms, 0, 'gateway_ms');
    near(r.unattributed_server_ms, 600 - 420.5, 'unattributed');
  });

  it('counts a nested selected span once (parent only)', async () => {
    // inference.generate [10, 110] has a child with llm.phase=generation [20, 105] and a grandchild GenAI span.
    const r = await phasesOf([
      root(120),
      child('g000000000000001', 'inference.generate', 10, 110),
      { trace: T, id: 'g000000000000002', parent: 'g000000000000001', name: 'decode', startMs: 20, endMs: 105, attributes: { 'llm.phase': 'generation' } },
      { trace: T, id: 'g000000000000003', parent: 'g000000000000002', name: 'chat', startMs: 21, endMs: 90, attributes: { 'gen_ai.operation.name': 'chat' } },
    ]);
    near(r.generation_ms, 100, 'generation_ms');
  });

  it('sums sequential spans that appear to overlap by ≤ 1 ms, merges overlaps > 1 ms', async () => {
    // auth.check [1, 7.4] then request.prepare from 7.0 (0.4 ms apparent overlap): summed 6.4 + 11.7.
    // route.select [17.3, 30] overlaps request.prepare (ends 18.7) by 1.4 ms: union with it.
    // response.write starts exactly 1 ms before route.select ends: summed (≤ 1 ms is the rule).
    const r = await phasesOf([
      root(100),
      child('a000000000000001', 'auth.check', 1, 7.4),
      child('a000000000000002', 'request.prepare', 7, 18.7),
      child('a000000000000003', 'route.select', 17.3, 30),
      child('a000000000000004', 'response.write', 29, 35.25),
    ]);
    // groups: {auth} 6.4, {prepare, route} 30 − 7 = 23, {write} 6.25
    near(r.gateway_ms, 6.4 + 23 + 6.25, 'gateway_ms');
  });

  it('merges a short span nested in time inside a long sibling', async () => {
    // A 0.5 ms sibling entirely inside a 50 ms sibling adds nothing to the union.
    const r = await phasesOf([
      root(100),
      child('q000000000000001', 'inference.acquire_slot', 10, 60),
      child('q000000000000002', 'slot.poll', 20, 20.5, { attributes: { 'llm.phase': 'queue' } }),
    ]);
    near(r.gpu_queue_ms, 50, 'gpu_queue_ms');
  });

  it('keeps negative unattributed time when phases overlap each other', async () => {
    // gateway's response.write runs during generation: Σ phases 90 + 30 = 120 > root 100.
    const r = await phasesOf([
      root(100),
      child('g000000000000001', 'inference.generate', 5, 95),
      child('w000000000000001', 'response.write', 65, 95),
    ]);
    near(r.unattributed_server_ms, -20, 'unattributed_server_ms');
  });

  it('counts only spans under the root', async () => {
    // A generation span whose parent (p…99) was not exported is detached from the root: not counted.
    const r = await phasesOf([
      root(100),
      child('g000000000000001', 'inference.generate', 10, 40),
      { trace: T, id: 'g000000000000002', parent: 'p000000000000099', name: 'inference.generate', startMs: 50, endMs: 90 },
    ]);
    near(r.generation_ms, 30, 'generation_ms');
  });

  it('honours a coarser timestampGranularityMs and custom phases', async () => {
    const options: AnalysisOptions = {
      ...DEFAULT_ANALYSIS_OPTIONS,
      timestampGranularityMs: 2,
      phases: [
        { name: 'gateway', anyOf: [{ names: ['auth.check', 'request.prepare'] }] },
        { name: 'gpu_queue', anyOf: [{ names: ['nothing'] }] },
        { name: 'generation', anyOf: [{ names: ['x'], service: 'other-service' }] },
      ],
    };
    // 1.4 ms apparent overlap is within a 2 ms granularity: summed 6.4 + 11.7.
    const r = await phasesOf(
      [
        root(100),
        child('a000000000000001', 'auth.check', 1, 7.4),
        child('a000000000000002', 'request.prepare', 6, 17.7),
        child('x000000000000001', 'x', 20, 30),
        child('x000000000000002', 'x', 40, 45, { service: 'other-service' }),
      ],
      options,
    );
    near(r.gateway_ms, 6.4 + 11.7, 'gateway_ms');
    near(r.generation_ms, 5, 'generation_ms (service filter)');
    near(r.gpu_queue_ms, 0, 'gpu_queue_ms');
  });

  it('measures server TTFT from the first_token event, else from the end of response.first_token, and ITL from content events', async () => {
    const withEvent = await phasesOf(
      [root(500), child('g000000000000001', 'inference.generate', 10, 490), child('f000000000000001', 'response.first_token', 20, 90)],
      { ...DEFAULT_ANALYSIS_OPTIONS, contentEvent: 'chunk' },
      async (s) => {
        await insertEvent(s, T, 'g000000000000001', 'first_token', 77.25);
        await insertEvent(s, T, 'g000000000000001', 'first_token', 80);
        for (const at of [77.25, 87.25, 99.75, 127.25]) await insertEvent(s, T, 'g000000000000001', 'chunk', at);
      },
    );
    near(withEvent.server_ttft_ms, 77.25, 'server_ttft_ms (event)');
    near(withEvent.server_itl_ms, (127.25 - 77.25) / 3, 'server ITL');
    const withSpan = await phasesOf([root(500), child('f000000000000001', 'response.first_token', 20, 90.5)]);
    near(withSpan.server_ttft_ms, 90.5, 'server_ttft_ms (span end)');
    assert.strictEqual(withSpan.server_itl_ms, null);
  });

  it('fills request_breakdown phase columns for matched requests only', async () => {
    const store = new DuckStore();
    try {
      await insertSpans(store, [root(200), child('g000000000000001', 'inference.generate', 10, 110, { attributes: { 'gen_ai.usage.output_tokens': '40' } })]);
      await insertRequests(store, [
        { trace: T, totalMs: 230.5, outcome: 'succeeded' },
        { trace: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2', totalMs: 99 },
      ]);
      const info = await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      assert.deepStrictEqual(info.phaseColumns, ['gateway_ms', 'gpu_queue_ms', 'generation_ms']);
      const rows = await store.all<Record<string, number | boolean | null>>(
        `SELECT matched, network_envelope_ms, gateway_ms, generation_ms, generation_ms_per_output_token, unattributed_server_ms
         FROM request_breakdown ORDER BY row_id`,
      );
      assert.deepStrictEqual(rows[1], {
        matched: false,
        network_envelope_ms: null,
        gateway_ms: null,
        generation_ms: null,
        generation_ms_per_output_token: null,
        unattributed_server_ms: null,
      });
      assert.strictEqual(rows[0].matched, true);
      near(rows[0].network_envelope_ms as number, 30.5, 'envelope');
      near(rows[0].gateway_ms as number, 0, 'gateway 0 when matched without spans');
      near(rows[0].generation_ms_per_output_token as number, 100 / 40, 'ms per output token (span attribute)');
    } finally {
      await store.close();
    }
  });
});
