import * as assert from 'assert';
import { readFileSync } from 'fs';
import * as path from 'path';
import { analyzeRun } from '../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../src/core/analysis/options';
import type { EnvelopeSummary, QuantileSummary, Report } from '../../../src/core/report/model';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../src/core/store/duckStore';
import { repoRoot } from '../../helpers/paths';

/** The generator's in-memory truth for samples/ (never read back from the files). */
interface Expected {
  counts: Record<string, number>;
  matched_succeeded: Record<string, { n: number; p50: number; p95: number; p99: number }>;
  matched_streaming_succeeded: Record<string, { n: number; p50: number; p95: number; p99: number }>;
  client_only_succeeded: Record<string, { n: number; p50: number; p95: number; p99: number }>;
  server_only_roots: Record<string, { n: number; p50: number; p95: number; p99: number }>;
}

const samples = path.join(repoRoot, 'samples');
// samples/README.md: the files hold ms as decimal text, so compare within 1e-6 ms.
const TOLERANCE = 1e-6;

function assertQuantiles(actual: QuantileSummary | undefined, expected: { n: number; p50: number; p95: number; p99: number }, what: string): void {
  assert.ok(actual, `${what} present`);
  assert.strictEqual(actual.n, expected.n, `${what} n`);
  for (const k of ['p50', 'p95', 'p99'] as const) {
    const a = actual[k];
    assert.ok(a !== null && Math.abs(a - expected[k]) <= TOLERANCE, `${what} ${k}: ${a} vs ${expected[k]}`);
  }
}

describe('analyzeRun on samples/ against the generator truth (expected.json)', function () {
  this.timeout(180_000);
  const expected = JSON.parse(readFileSync(path.join(samples, 'expected.json'), 'utf8')) as Expected;
  let store: DuckStore;
  let report: Report;

  before(async () => {
    store = new DuckStore();
    await loadFiles(store, [path.join(samples, 'k6.ndjson'), path.join(samples, 'spans.otlp.jsonl')]);
    report = await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, []);
  });
  after(async () => store.close());

  it('reproduces the outcome ledger', () => {
    const c = expected.counts;
    const o = report.outcomes;
    assert.deepStrictEqual(
      [o.scheduled, o.started, o.succeeded, o.rejected, o.failed, o.timed_out, o.transport_failed, o.canceled, o.generator_dropped, o.reconciles],
      [c.scheduled, c.started, c.succeeded, c.rejected, c.failed, c.timed_out, c.transport_failed, c.canceled, c.generator_dropped, true],
    );
    assert.strictEqual(report.join.matched, c.matched);
  });

  it('reproduces every decomposition quantile over matched successes', () => {
    for (const [metric, exp] of Object.entries(expected.matched_succeeded)) assertQuantiles(report.metrics[metric], exp, metric);
    for (const [metric, exp] of Object.entries(expected.matched_streaming_succeeded)) assertQuantiles(report.metrics[metric], exp, metric);
    assert.strictEqual((report.metrics.network_envelope_ms as EnvelopeSummary).negative.count, expected.counts.negative_envelopes);
  });

  it('reproduces the client-only and server-only populations', () => {
    assertQuantiles(report.client_only.client_total_ms, expected.client_only_succeeded.client_total_ms, 'client_only client_total_ms');
    assertQuantiles(report.server_only.server_root_ms, expected.server_only_roots.server_root_ms, 'server_only server_root_ms');
  });
});
