import * as assert from 'assert';
import { buildBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { reconcileTrace } from '../../../../src/core/analysis/trace/reconcile';
import { slowTraces } from '../../../../src/core/analysis/trace/slowTraces';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { fixture } from '../../../helpers/paths';

const TRACE = '0000000000000007000000000000012f';

/**
 * The hand-written pair test/fixtures/analysis/reconcile.{k6.ndjson,otlp.jsonl}. Span times relative
 * to the root start (ms): root [0, 1691.4]; auth.check [1, 7.4]; request.prepare [7, 18.7] (starts
 * 0.4 ms before auth.check ends: ms-granular start, summed); route.select [19, 21.25];
 * inference.acquire_slot [22, 450.45]; inference.generate [450, 1659.9] with first_token at 512.3 and
 * a nested llm.phase=generation child [451, 1650] (not counted again); response.write [1672, 1688.35].
 * k6: http_req_duration 1842.45 = sending 0.12 + waiting 1790.33 + receiving 52; blocked 2.5, connecting 1.2, tls 0.
 */
const EXPECTED = {
  client_total_ms: 1842.45,
  server_root_ms: 1691.4,
  network_envelope_ms: 1842.45 - 1691.4, // 151.05
  gateway_ms: 6.4 + 11.7 + 2.25 + 16.35, // 36.7: per-span rounding would give 6 + 12 + 2 + 16 = 36, the union 36.3
  gpu_queue_ms: 428.45,
  generation_ms: 1209.9,
  unattributed_server_ms: 1691.4 - (36.7 + 428.45 + 1209.9), // 16.35
  server_ttft_ms: 512.3,
  transport_setup_ms: 3.7,
};

function near(actual: number | null | undefined, expected: number, what: string): void {
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-9, `${what}: expected ${expected}, got ${actual}`);
}

describe('reconcileTrace on the hand-written k6 + OTLP pair', () => {
  let store: DuckStore;
  before(async () => {
    store = new DuckStore();
    await loadFiles(store, [fixture('analysis', 'reconcile.k6.ndjson'), fixture('analysis', 'reconcile.otlp.jsonl')]);
  });
  after(async () => store.close());

  it('gives the exact single-request figures at full precision', async () => {
    const rec = await reconcileTrace(store, TRACE, DEFAULT_ANALYSIS_OPTIONS);
    assert.ok(rec);
    assert.strictEqual(rec.matched, true);
    assert.deepStrictEqual(rec.notes, []);
    const b = rec.breakdown;
    assert.strictEqual(b.trace_id, TRACE);
    assert.strictEqual(b.outcome, 'succeeded');
    near(b.client_total_ms, EXPECTED.client_total_ms, 'client_total_ms');
    near(b.server_root_ms, EXPECTED.server_root_ms, 'server_root_ms');
    near(b.network_envelope_ms, EXPECTED.network_envelope_ms, 'network_envelope_ms');
    near(b.phases.gateway_ms, EXPECTED.gateway_ms, 'gateway_ms');
    near(b.phases.gpu_queue_ms, EXPECTED.gpu_queue_ms, 'gpu_queue_ms');
    near(b.phases.generation_ms, EXPECTED.generation_ms, 'generation_ms');
    near(b.unattributed_server_ms, EXPECTED.unattributed_server_ms, 'unattributed_server_ms');
    near(b.server_ttft_ms, EXPECTED.server_ttft_ms, 'server_ttft_ms');
    near(b.transport_setup_ms, EXPECTED.transport_setup_ms, 'transport_setup_ms');
    // k6 Point time 15:11:41.84245 minus the duration: the request was sent at 15:11:40.000.
    near(b.start_ms, Date.UTC(2026, 10, 29, 15, 11, 40), 'start_ms');
  });

  it('rounds to the single-request report line only after full-precision computation', async () => {
    const rec = await reconcileTrace(store, TRACE, DEFAULT_ANALYSIS_OPTIONS);
    assert.ok(rec);
    const b = rec.breakdown;
    const line = [
      `trace_id=${b.trace_id}`,
      `k6_total_ms=${Math.round(b.client_total_ms ?? NaN)}`,
      `server_root_ms=${Math.round(b.server_root_ms ?? NaN)}`,
      `network_envelope_ms=${Math.round(b.network_envelope_ms ?? NaN)}`,
      `gateway_ms=${Math.round(b.phases.gateway_ms)}`,
      `gpu_queue_ms=${Math.round(b.phases.gpu_queue_ms)}`,
      `generation_ms=${Math.round(b.phases.generation_ms)}`,
      `unattributed_server_ms=${Math.round(b.unattributed_server_ms ?? NaN)}`,
    ].join(', ');
    assert.strictEqual(
      line,
      'trace_id=0000000000000007000000000000012f, k6_total_ms=1842, server_root_ms=1691, network_envelope_ms=151, gateway_ms=37, gpu_queue_ms=428, generation_ms=1210, unattributed_server_ms=16',
    );
  });

  it('lists the waterfall depth-first by start with depth and phase', async () => {
    const rec = await reconcileTrace(store, TRACE, DEFAULT_ANALYSIS_OPTIONS);
    assert.ok(rec);
    assert.deepStrictEqual(
      rec.spans.map((s) => [s.name, s.depth, s.phase, s.kind]),
      [
        ['POST /v1/chat/completions', 0, null, 'SERVER'],
        ['auth.check', 1, 'gateway', 'INTERNAL'],
        ['request.prepare', 1, 'gateway', 'INTERNAL'],
        ['route.select', 1, 'gateway', 'INTERNAL'],
        ['inference.acquire_slot', 1, 'gpu_queue', 'INTERNAL'],
        ['inference.generate', 1, 'generation', 'INTERNAL'],
        ['inference.decode', 2, 'generation', 'INTERNAL'],
        ['response.write', 1, 'gateway', 'INTERNAL'],
      ],
    );
    const starts = [0, 1, 7, 19, 22, 450, 451, 1672];
    const durations = [1691.4, 6.4, 11.7, 2.25, 428.45, 1209.9, 1199, 16.35];
    rec.spans.forEach((s, i) => {
      near(s.start_ms, starts[i], `${s.name} start`);
      near(s.duration_ms, durations[i], `${s.name} duration`);
    });
    assert.strictEqual(rec.spans[0].parent_span_id, '00f067aa0ba902b7');
  });

  it('computes ms per output token from the span attribute and lists the slow trace', async () => {
    await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
    const [row] = await store.all<{ generation_ms_per_output_token: number; server_output_tokens: number }>(
      'SELECT generation_ms_per_output_token, server_output_tokens FROM request_breakdown',
    );
    assert.strictEqual(row.server_output_tokens, 96);
    near(row.generation_ms_per_output_token, 1209.9 / 96, 'generation_ms_per_output_token');
    const slow = await slowTraces(store, DEFAULT_ANALYSIS_OPTIONS, 10);
    assert.strictEqual(slow.length, 1);
    assert.strictEqual(slow[0].trace_id, TRACE);
    near(slow[0].phases.generation_ms, 1209.9, 'slow trace generation_ms');
  });

  it('returns undefined for a trace ID neither side knows', async () => {
    assert.strictEqual(await reconcileTrace(store, 'ffffffffffffffffffffffffffffffff', DEFAULT_ANALYSIS_OPTIONS), undefined);
  });
});
