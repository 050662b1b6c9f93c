import * as assert from 'assert';
import { readFileSync } from 'fs';
import { analyzeRun } from '../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS, type GateSpec } from '../../../src/core/analysis/options';
import type { EnvelopeSummary, Report } from '../../../src/core/report/model';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../src/core/store/duckStore';
import { sharedSamplesDir } from '../../helpers/paths';
import * as path from 'path';
import { close, jsQuantile } from '../../fixtures/analysis/reportTables';

const dir = path.join(sharedSamplesDir, 'joined-otel-js');
const k6File = path.join(dir, 'k6.ndjson');
const spansFile = path.join(dir, 'spans.otlp.jsonl');
const summaryFile = path.join(sharedSamplesDir, 'k6-summary', 'k6-reporter_tests_test-data.json');

/**
 * Expected figures computed with python3 on the raw files while writing this test (not with
 * Phasewise): k6 http_req_duration Points grouped per request, roots = SERVER spans (kind 2) whose
 * parent is not in the trace after de-duplicating (trace, span) pairs, envelope = duration − root.
 *   120 requests (116 × status 200, 4 × 500), iterations 120, no dropped_iterations
 *   117 traces, 812 spans, 110 traces with exactly one root; 110 client requests matched
 *   client successes: n 116, p50 117.422157, p95 233.44299875, p99 315.0787984999998
 *   matched successes: n 107, client_total p95 240.9353326999998,
 *   envelope p50 1.292603999999983, p95 2.5041231000000073, 15 negative, most negative −1.4763980000000032
 */
const PY = {
  clientP95: 233.44299875,
  clientP99: 315.0787984999998,
  matchedTotalP95: 240.9353326999998,
  envelopeP50: 1.292603999999983,
  envelopeP95: 2.5041231000000073,
  mostNegative: -1.4763980000000032,
};

const GATES: GateSpec[] = [
  { id: 'slo.total_ms.p95', category: 'slo', metric: 'client_total_ms', stat: 'p95', op: '<=', limit: 800 },
  // the queue here is ~0.1 ms (4 GPU slots, 12 req/s): a 0.05 ms budget breaks on purpose
  { id: 'budget.gpu_queue_ms.p95', category: 'budget', metric: 'gpu_queue_ms', stat: 'p95', op: '<=', limit: 0.05, phase: 'gpu_queue' },
  { id: 'gates.join_coverage', category: 'coverage', metric: 'join_coverage', stat: 'value', op: '>=', limit: 0.9 },
  { id: 'gates.negative_envelope_share', category: 'instrumentation', metric: 'negative_envelope_share', stat: 'value', op: '<=', limit: 0.2 },
  { id: 'gates.error_rate', category: 'quality', metric: 'error_rate', stat: 'value', op: '<=', limit: 0.05 },
];

describe('analyzeRun end to end on joined-otel-js (real OpenTelemetry JS spans)', function () {
  this.timeout(120_000);
  let store: DuckStore;
  let report: Report;

  before(async () => {
    store = new DuckStore();
    await loadFiles(store, [k6File, spansFile, summaryFile]);
    report = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 2000 }, GATES);
  });
  after(async () => store.close());

  it('matches the python3 figures for the client-only, matched and envelope populations', () => {
    const client = report.client_only.client_total_ms;
    assert.strictEqual(client.n, 116);
    assert.ok(close(client.p95, PY.clientP95), `client p95 ${client.p95}`);
    assert.ok(close(client.p99, PY.clientP99));
    assert.strictEqual(report.metrics.client_total_ms.n, 107);
    assert.ok(close(report.metrics.client_total_ms.p95, PY.matchedTotalP95));
    const env = report.metrics.network_envelope_ms as EnvelopeSummary;
    assert.strictEqual(env.n, 107);
    assert.ok(close(env.p50, PY.envelopeP50, 1e-6));
    assert.ok(close(env.p95, PY.envelopeP95, 1e-6));
    assert.strictEqual(env.negative.count, 15);
    assert.ok(close(env.negative.most_negative_ms, PY.mostNegative, 1e-6));
    assert.strictEqual(report.join.matched, 110);
    assert.strictEqual(report.join.client_requests, 120);
  });

  it('agrees with a second, plain-JS parse of the k6 file for the client p95', () => {
    const durations = readFileSync(k6File, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { type: string; metric?: string; data: { value: number; tags?: Record<string, string> } })
      .filter((o) => o.type === 'Point' && o.metric === 'http_req_duration' && o.data.tags?.status === '200')
      .map((o) => o.data.value);
    assert.strictEqual(durations.length, report.client_only.client_total_ms.n);
    assert.ok(close(report.client_only.client_total_ms.p95, jsQuantile(durations, 0.95)));
  });

  it('reconciles the ledger: 120 iterations = 116 succeeded + 4 failed (HTTP 500)', () => {
    const o = report.outcomes;
    assert.deepStrictEqual(
      [o.scheduled, o.started, o.succeeded, o.failed, o.generator_dropped, o.in_flight, o.reconciles],
      [120, 120, 116, 4, 0, 0, true],
    );
    assert.ok(close(o.error_rate, 4 / 120));
  });

  it('fails on the gpu_queue budget while the total SLO passes, and names gpu_queue', () => {
    const byId = Object.fromEntries(report.gates.map((g) => [g.id, g]));
    assert.strictEqual(byId['slo.total_ms.p95'].status, 'pass');
    assert.ok(close(byId['slo.total_ms.p95'].observed, PY.matchedTotalP95));
    assert.strictEqual(byId['budget.gpu_queue_ms.p95'].status, 'fail');
    assert.strictEqual(byId['budget.gpu_queue_ms.p95'].observed, report.metrics.gpu_queue_ms.p95);
    assert.ok(close(byId['gates.join_coverage'].observed, 110 / 120));
    assert.ok(close(byId['gates.negative_envelope_share'].observed, 15 / 107));
    assert.strictEqual(byId['gates.error_rate'].status, 'pass');
    assert.strictEqual(report.verdict.status, 'fail');
    assert.strictEqual(report.verdict.broken_phase, 'gpu_queue');
  });

  it('windows the 10 s run into 2 s windows that add up to the ledger', () => {
    const w = report.windows.windows;
    assert.strictEqual(w.reduce((s, x) => s + x.started, 0), 120);
    assert.strictEqual(w.reduce((s, x) => s + x.succeeded, 0), 116);
    assert.strictEqual(w.reduce((s, x) => s + x.client_total_ms.n, 0), 107);
    const worst = w.find((x) => x.index === report.windows.worst);
    assert.ok(worst);
    assert.strictEqual(worst.client_total_ms.p95, Math.max(...w.map((x) => x.client_total_ms.p95 ?? -1)));
  });

  it('carries the inputs, the k6 summary beside our figures, slow traces and a JSON-safe shape', () => {
    assert.deepStrictEqual(report.inputs.map((i) => [path.basename(i.path), i.side]), [
      ['k6.ndjson', 'client'],
      ['spans.otlp.jsonl', 'server'],
      ['k6-reporter_tests_test-data.json', 'summary'],
    ]);
    // from the raw summary file: metrics.http_req_duration.values['p(95)']
    assert.strictEqual(report.k6_summaries[0].metrics.http_req_duration['p(95)'], 30.0256841);
    assert.strictEqual(report.slow_traces.length, DEFAULT_ANALYSIS_OPTIONS.slowTraceCount);
    assert.ok(report.slow_traces[0].client_total_ms !== null && report.slow_traces[0].client_total_ms >= (report.metrics.client_total_ms.max ?? Infinity));
    assert.deepStrictEqual(JSON.parse(JSON.stringify(report)), report);
  });

  it('re-analyses the loaded run with other options without re-parsing, same figures', async () => {
    const again = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 5000 }, []);
    assert.strictEqual(again.windows.windows.length, 2);
    assert.deepStrictEqual(again.metrics.client_total_ms, report.metrics.client_total_ms);
    assert.strictEqual(again.verdict.status, 'not_evaluated');
  });
});
