import * as assert from 'assert';
import { readFileSync } from 'fs';
import * as path from 'path';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { buildReport, jsonSafe } from '../../../../src/core/analysis/figures/buildReport';
import { PHASEWISE_VERSION } from '../../../../src/core/version';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { repoRoot } from '../../../helpers/paths';
import { createBreakdownTables, insertRequests, joinSummary, PHASE_COLUMNS } from '../../../fixtures/analysis/reportTables';

describe('report bookkeeping', () => {
  it('stamps the package.json version', () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    assert.strictEqual(PHASEWISE_VERSION, pkg.version);
  });

  it('counts load issues by code and lists at most 20 examples, errors first, with their file paths', async () => {
    const store = new DuckStore();
    try {
      await createBreakdownTables(store);
      await insertRequests(store, [{ offset_ms: 0, client_total_ms: 10, server_root_ms: 8 }]);
      await store.run(`INSERT INTO sources VALUES (1, '/runs/k6.ndjson', 'k6-json', 'client', 100, 1, 24, 'line'), (2, '/runs/spans.jsonl', 'otlp-json', 'server', 50, 4, 1, 'line')`);
      // 24 malformed lines in the k6 file, 1 truncated line (an error) in the span file
      await store.run(`INSERT INTO load_issues SELECT 1, range + 1, 'warning', 'malformed-json', 'bad line' FROM range(24)`);
      await store.run(`INSERT INTO load_issues VALUES (2, 7, 'error', 'truncated-line', 'cut short')`);
      await store.run(`INSERT INTO load_skips VALUES (1, 'malformed-json', 'line', 24)`);
      await store.run(`INSERT INTO k6_summary VALUES (1, 'http_req_duration', 'p(95)', 30.5), (1, 'http_req_duration', 'avg', 21), (1, 'iterations', 'count', 1)`);
      const report = await buildReport(store, DEFAULT_ANALYSIS_OPTIONS, [], { phaseColumns: PHASE_COLUMNS, warnings: ['from the join'], join: joinSummary(1, 1), slowTraces: [] });
      assert.strictEqual(report.load_issues.total, 25);
      assert.deepStrictEqual(report.load_issues.by_code, { 'malformed-json': 24, 'truncated-line': 1 });
      assert.strictEqual(report.load_issues.examples.length, 20);
      assert.deepStrictEqual(report.load_issues.examples[0], { path: '/runs/spans.jsonl', line: 7, position: 'line', severity: 'error', code: 'truncated-line', message: 'cut short' });
      assert.deepStrictEqual([report.load_issues.examples[1].path, report.load_issues.examples[1].line], ['/runs/k6.ndjson', 1]);
      assert.deepStrictEqual(report.inputs[0], { path: '/runs/k6.ndjson', format: 'k6-json', side: 'client', bytes: 100, records: 1, skipped: 24, skipped_by_kind: { 'malformed-json': { unit: 'line', count: 24 } }, position: 'line' });
      assert.deepStrictEqual(report.k6_summaries, [{ path: '/runs/k6.ndjson', metrics: { http_req_duration: { avg: 21, 'p(95)': 30.5 }, iterations: { count: 1 } } }]);
      assert.strictEqual(report.warnings[0], 'from the join');
      assert.match(report.definitions.itl_ms, /after the first one \(TTFT excluded\)/);
      assert.match(report.definitions.client_ttfb_ms, /labelled TTFB, not TTFT/);
    } finally {
      await store.close();
    }
  });

  it('keeps NaN and Infinity out of every figure, and says so when client and server share no trace ID', async () => {
    const store = new DuckStore();
    try {
      await createBreakdownTables(store);
      await insertRequests(store, [
        { offset_ms: 0, client_total_ms: 10, matched: false },
        { offset_ms: 1, client_total_ms: 30, matched: false },
      ]);
      await store.run(`INSERT INTO request_breakdown (row_id, outcome, succeeded, matched, offset_ms, client_total_ms) VALUES (9, 'succeeded', true, false, 2, 'NaN'::DOUBLE), (10, 'succeeded', true, false, 3, 'Infinity'::DOUBLE)`);
      const join = { ...joinSummary(4, 0), server_traces: 5, server_spans: 20 };
      const report = await buildReport(store, DEFAULT_ANALYSIS_OPTIONS, [], { phaseColumns: PHASE_COLUMNS, warnings: [], join, slowTraces: [] });
      // only the two finite durations count: p95 of [10, 30] = 29
      assert.deepStrictEqual([report.client_only.client_total_ms.n, report.client_only.client_total_ms.p95, report.client_only.client_total_ms.max], [2, 29, 30]);
      assert.deepStrictEqual(report.metrics, {});
      assert.strictEqual(report.tail.tail_ratio, null);
      assert.ok(report.warnings.includes('join coverage 0 %: client and server files share no trace ID (4 valid client trace IDs, 5 server traces).'));
      const text = JSON.stringify(report);
      assert.ok(!/NaN|Infinity/.test(text));
      assert.deepStrictEqual(JSON.parse(text), report);
    } finally {
      await store.close();
    }
  });

  it('jsonSafe turns NaN, Infinity and bigints into JSON values', () => {
    assert.deepStrictEqual(jsonSafe({ a: NaN, b: [Infinity, 1], c: { d: BigInt(7), e: BigInt('90071992547409930') } }), {
      a: null,
      b: [null, 1],
      c: { d: 7, e: '90071992547409930' },
    });
  });
});
