/**
 * analyzeRun's parts (analyze.ts ReportPart): the first part, with the verdict, the join and the
 * owners of the p95, comes before the group dimensions are built; applied in order, the parts give
 * the final Report key for key; a staged analysis gives the Report an unobserved one gives.
 */
import * as assert from 'assert';
import * as path from 'path';
import { analyzeRun, type ReportPart } from '../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../src/core/analysis/options';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { DuckStore, type Params, type QueryRunner, type Row } from '../../../src/core/store/duckStore';

const SAMPLES = path.resolve(__dirname, '..', '..', '..', '..', 'samples');

/** Notes which statements ran before each part arrived. */
class Watch implements QueryRunner {
  readonly sql: string[] = [];
  constructor(private readonly inner: QueryRunner) {}
  run(sql: string, params?: Params): Promise<void> {
    this.sql.push(sql);
    return this.inner.run(sql, params);
  }
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    this.sql.push(sql);
    return this.inner.all<T>(sql, params);
  }
}

async function loaded(): Promise<DuckStore> {
  const store = new DuckStore();
  await loadFiles(store, [path.join(SAMPLES, 'k6.ndjson')], { expectSide: 'client' });
  await loadFiles(store, [path.join(SAMPLES, 'spans.otlp.jsonl')], { expectSide: 'server' });
  return store;
}

describe('analyzeRun parts', function () {
  this.timeout(120_000);

  it('gives the verdict, join and owners of the p95 before the group dimensions, and the parts add up to the Report', async () => {
    const store = await loaded();
    try {
      const watch = new Watch(store);
      const parts: Array<ReportPart & { statementsBefore: number }> = [];
      const report = await analyzeRun(watch, { ...DEFAULT_ANALYSIS_OPTIONS }, [], (p) => parts.push({ ...p, statementsBefore: watch.sql.length }));
      assert.deepStrictEqual(parts.map((p) => p.part), ['figures', 'groups', 'window_series', 'join_bias', 'user_observed', 'provenance', 'stages']);
      const first = parts[0];
      for (const key of ['verdict', 'join', 'metrics', 'tail_attribution', 'gates', 'outcomes', 'slow_traces']) assert.ok(key in first.report, key);
      assert.ok(!('groups' in first.report) && !('window_series' in first.report));
      const dims = watch.sql.findIndex((s) => /CREATE OR REPLACE TABLE request_dimensions/.test(s));
      assert.ok(dims >= 0, 'request_dimensions was built');
      assert.ok(first.statementsBefore <= dims, `the first part came after request_dimensions (statement ${dims}, part after ${first.statementsBefore})`);
      const merged = Object.assign({}, ...parts.map((p) => p.report)) as Record<string, unknown>;
      assert.strictEqual(JSON.stringify(merged), JSON.stringify(report), 'the parts in order are the Report, key order included');
    } finally {
      await store.close();
    }
  });

  it('a staged analysis and one without a listener give the same Report, first and again', async () => {
    const a = await loaded();
    const b = await loaded();
    try {
      const staged = await analyzeRun(a, { ...DEFAULT_ANALYSIS_OPTIONS }, [], () => undefined);
      const plain = await analyzeRun(b, { ...DEFAULT_ANALYSIS_OPTIONS }, []);
      assert.deepStrictEqual(staged, plain);
      // A re-analysis with other windows finds everything current (nothing rebuilt) and agrees too.
      const options = { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 10_000 };
      assert.deepStrictEqual(await analyzeRun(a, options, [], () => undefined), await analyzeRun(b, options, []));
    } finally {
      await a.close();
      await b.close();
    }
  });
});
