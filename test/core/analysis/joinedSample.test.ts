import * as assert from 'assert';
import { buildBreakdown } from '../../../src/core/analysis/breakdown/pipeline';
import { collectBreakdownWarnings } from '../../../src/core/analysis/breakdown/warnings';
import { computeJoinSummary } from '../../../src/core/analysis/figures/join';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../src/core/analysis/options';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../src/core/store/duckStore';
import { sharedSamplesDir } from '../../helpers/paths';
import * as path from 'path';

/**
 * Expected values computed independently in plain Python over the raw files
 * (test/fixtures/analysis/joined_expected.py: its own JSON parsing, parent walk and ≤ 1 ms overlap
 * rule, no DuckDB). The sample's spans have millisecond-granular starts with exact durations, so the
 * gateway spans appear to overlap by fractions of a millisecond and must be summed, not unioned.
 */
const EXPECTED_TRACES: Record<string, Record<string, number | null>> = {
  '0532eddab751c50f744d89c14ce890bb': { gateway_ms: 14.225294, gpu_queue_ms: 0.071204, generation_ms: 86.400994, server_root_ms: 102.920379, network_envelope_ms: 1.7993540000000081, unattributed_server_ms: 2.222887, server_ttft_ms: 30.310855 },
  '1f50d5283fa1827be0e2bad8c8c70859': { gateway_ms: 6.9177029999999995, gpu_queue_ms: 0.028614, generation_ms: 132.413793, server_root_ms: 141.04112, network_envelope_ms: 1.478904, unattributed_server_ms: 1.6810100000000148, server_ttft_ms: null },
  '4b0774c31277fbf27bad064f002264f9': { gateway_ms: 15.479524999999999, gpu_queue_ms: 0.033763, generation_ms: 51.455607, server_root_ms: 68.807423, network_envelope_ms: 1.014101999999994, unattributed_server_ms: 1.8385279999999966, server_ttft_ms: null },
  '84ad533f0af62656644c09dccacdad2a': { gateway_ms: 10.851989, gpu_queue_ms: 0.049583, generation_ms: 111.920837, server_root_ms: 124.8073, network_envelope_ms: 0.6505989999999997, unattributed_server_ms: 1.9848909999999904, server_ttft_ms: 37.86709 },
  a9335975cc6d1957016d90dc8653abc1: { gateway_ms: 12.546255, gpu_queue_ms: 0.041738, generation_ms: 81.221421, server_root_ms: 95.533367, network_envelope_ms: -0.13943100000000186, unattributed_server_ms: 1.7239529999999945, server_ttft_ms: null },
  c4de1c9874d3f1afa90b1a95f3dd9e78: { gateway_ms: 10.768974, gpu_queue_ms: 0.032871, generation_ms: 182.526371, server_root_ms: 195.027703, network_envelope_ms: 1.3800379999999848, unattributed_server_ms: 1.6994870000000049, server_ttft_ms: null },
  fe87eb3d1df6b3a291c7ccc7a5f79af7: { gateway_ms: 6.925626, gpu_queue_ms: 0.045265, generation_ms: 143.780747, server_root_ms: 152.594345, network_envelope_ms: 1.9953109999999867, unattributed_server_ms: 1.8427070000000185, server_ttft_ms: 32.308296 },
};
/** Σ over the 110 matched requests, same script. */
const EXPECTED_SUMS = { gateway_ms: 1305.114509000001, gpu_queue_ms: 5.7587909999999995, generation_ms: 11958.981499999998 };

describe('breakdown of the real joined sample (joined-otel-js)', () => {
  let store: DuckStore;
  let warnings: string[];
  before(async () => {
    store = new DuckStore();
    const dir = path.join(sharedSamplesDir, 'joined-otel-js');
    await loadFiles(store, [path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl')]);
    await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
    warnings = await collectBreakdownWarnings(store, DEFAULT_ANALYSIS_OPTIONS);
  });
  after(async () => store.close());

  it('joins like the independent Python count', async () => {
    const join = await computeJoinSummary(store);
    assert.strictEqual(join.client_requests, 120);
    assert.strictEqual(join.valid_trace_ids, 120);
    assert.strictEqual(join.matched, 110);
    assert.strictEqual(join.lost_roots, 7);
    assert.strictEqual(join.unmatched_client, 10); // 7 lost roots + 3 traces not exported at all
    assert.strictEqual(join.orphan_server_roots, 0);
    assert.strictEqual(join.server_traces, 117);
    assert.strictEqual(join.server_spans, 812);
    assert.strictEqual(join.duplicate_trace_ids, 0);
    assert.strictEqual(join.coverage, 110 / 120);
  });

  it('computes per-trace phases, envelopes and TTFT equal to the Python computation (1e-9 ms)', async () => {
    const rows = await Promise.all(
      Object.keys(EXPECTED_TRACES).map(async (t) => {
        const [r] = await store.all<Record<string, number | string | null>>(
          `SELECT trace_id, gateway_ms, gpu_queue_ms, generation_ms, server_root_ms, network_envelope_ms, unattributed_server_ms, server_ttft_ms
           FROM request_breakdown WHERE trace_id = $1`,
          [t],
        );
        return r;
      }),
    );
    assert.ok(rows.every((r) => r !== undefined), 'every expected trace has a request row');
    for (const row of rows) {
      const expected = EXPECTED_TRACES[row.trace_id as string];
      for (const [metric, value] of Object.entries(expected)) {
        const got = row[metric];
        if (value === null) assert.strictEqual(got, null, `${row.trace_id} ${metric}`);
        else assert.ok(typeof got === 'number' && Math.abs(got - value) < 1e-9, `${row.trace_id} ${metric}: expected ${value}, got ${got}`);
      }
    }
  });

  it('sums each phase over all matched requests like the Python computation', async () => {
    const [sums] = await store.all<Record<string, number>>(
      'SELECT sum(gateway_ms) AS gateway_ms, sum(gpu_queue_ms) AS gpu_queue_ms, sum(generation_ms) AS generation_ms FROM request_breakdown WHERE matched',
    );
    for (const [k, v] of Object.entries(EXPECTED_SUMS)) assert.ok(Math.abs(sums[k] - v) < 1e-7, `${k}: ${sums[k]} vs ${v}`);
  });

  it('warns about the 15 negative envelopes among the 107 matched successes', () => {
    const w = warnings.find((x) => x.includes('negative network envelope'));
    assert.ok(w, warnings.join('\n'));
    assert.ok(w.startsWith('15 of 107 matched successful requests'), w);
    assert.ok(w.includes('most negative -1.476 ms'), w);
    assert.ok(!warnings.some((x) => x.includes('µs written as ns')), 'no unit warning on a correct run');
  });
});
