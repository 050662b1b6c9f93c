import * as assert from 'assert';
import { computeClientTable, computeMatchedTable, computeServerTable } from '../../../../src/core/analysis/figures/metrics';
import type { EnvelopeSummary } from '../../../../src/core/report/model';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { close, createBreakdownTables, insertRequests, jsQuantile, PHASE_COLUMNS, seededRandom, type FixtureRequest } from '../../../fixtures/analysis/reportTables';

describe('metric tables (quantile_cont in one pass)', () => {
  let store: DuckStore;
  const rand = seededRandom(20261129);
  const requests: FixtureRequest[] = [];
  // 1000 matched successes with skewed totals, 40 unmatched successes, 30 errors.
  for (let i = 0; i < 1000; i++) {
    const gateway = 2 + rand() * 8;
    const queue = rand() < 0.1 ? 200 + rand() * 800 : rand() * 20;
    const generation = 100 + rand() * 400;
    const extra = rand() * 5;
    const root = gateway + queue + generation + extra;
    // a few envelopes are negative (root ends after the response is flushed)
    const envelope = rand() < 0.03 ? -rand() * 4 : 5 + rand() * 60;
    requests.push({
      offset_ms: i * 10,
      client_total_ms: root + envelope,
      server_root_ms: root,
      phases: { gateway_ms: gateway, gpu_queue_ms: queue, generation_ms: generation },
      is_streaming: i % 2 === 0,
      client_ttft_ms: i % 2 === 0 ? gateway + queue + 30 : null,
      client_ttfb_ms: root + envelope - 1,
      scheduler_lag_ms: rand() * 3,
    });
  }
  for (let i = 0; i < 40; i++) requests.push({ offset_ms: 10_000 + i, matched: false, client_total_ms: 1000 + i, client_ttfb_ms: 900 });
  for (let i = 0; i < 30; i++) requests.push({ offset_ms: 11_000 + i, outcome: 'rejected', matched: true, client_total_ms: 1, server_root_ms: 0.5 });

  before(async () => {
    store = new DuckStore();
    await createBreakdownTables(store);
    await insertRequests(store, requests);
  });
  after(async () => store.close());

  const matched = requests.slice(0, 1000);

  function expectSummary(actual: { n: number; p50: number | null; p95: number | null; p99: number | null; mean: number | null; min: number | null; max: number | null } | undefined, values: number[]): void {
    assert.ok(actual, 'summary present');
    assert.strictEqual(actual.n, values.length);
    for (const p of [0.5, 0.95, 0.99] as const) {
      const key = p === 0.5 ? 'p50' : p === 0.95 ? 'p95' : 'p99';
      assert.ok(close(actual[key], jsQuantile(values, p)), `${key}: ${actual[key]} vs ${jsQuantile(values, p)}`);
    }
    assert.ok(close(actual.mean, values.reduce((a, b) => a + b, 0) / values.length));
    assert.ok(close(actual.min, Math.min(...values)));
    assert.ok(close(actual.max, Math.max(...values)));
  }

  it('matches an independent JS computation on 1000 pseudo-random matched successes', async () => {
    const table = await computeMatchedTable(store, PHASE_COLUMNS);
    expectSummary(table.client_total_ms, matched.map((r) => r.client_total_ms as number));
    expectSummary(table.server_root_ms, matched.map((r) => r.server_root_ms as number));
    expectSummary(table.gpu_queue_ms, matched.map((r) => r.phases?.gpu_queue_ms as number));
    // The envelope is the paired per-request difference, not p95(total) − p95(root).
    const envelopes = matched.map((r) => (r.client_total_ms as number) - (r.server_root_ms as number));
    expectSummary(table.network_envelope_ms, envelopes);
    const env = table.network_envelope_ms as EnvelopeSummary;
    const negatives = envelopes.filter((e) => e < 0);
    assert.ok(negatives.length > 10, 'fixture has negative envelopes');
    assert.strictEqual(env.negative.count, negatives.length);
    assert.ok(close(env.negative.share, negatives.length / 1000));
    assert.ok(close(env.negative.most_negative_ms, Math.min(...negatives)));
    const unattributed = matched.map((r) => (r.server_root_ms as number) - Object.values(r.phases ?? {}).reduce((a, b) => a + b, 0));
    expectSummary(table.unattributed_server_ms, unattributed);
    // client TTFT only on streaming requests; TTFB only on the non-streaming ones.
    expectSummary(table.client_ttft_ms, matched.filter((r) => r.is_streaming).map((r) => r.client_ttft_ms as number));
    expectSummary(table.client_ttfb_ms, matched.filter((r) => !r.is_streaming).map((r) => r.client_ttfb_ms as number));
    assert.strictEqual(table.client_ttfb_ms.n, 500);
    assert.strictEqual(table.server_ttft_ms.n, 0);
  });

  it('client_only covers every success (joined or not), server_only every root', async () => {
    const client = await computeClientTable(store);
    const successes = requests.filter((r) => (r.outcome ?? 'succeeded') === 'succeeded');
    assert.strictEqual(successes.length, 1040);
    expectSummary(client.client_total_ms, successes.map((r) => r.client_total_ms as number));
    const server = await computeServerTable(store, PHASE_COLUMNS);
    // every matched row got a root, the 30 rejected ones included
    assert.strictEqual(server.server_root_ms.n, 1030);
    expectSummary(server.generation_ms, [...matched.map((r) => r.phases?.generation_ms as number), ...new Array<number>(30).fill(0)]);
  });
});
