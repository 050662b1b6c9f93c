/**
 * The benchmark's baseline (d), the straightforward Node script, must compute the same envelope p95
 * as Phasewise on the same files, and both must equal the generator's ground truth (expected.json,
 * computed from the simulated requests, not from the files). Also checks the bare DuckDB extraction
 * counts the same Points and spans that were generated.
 */
import * as assert from 'assert';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DuckDBInstance } from '@duckdb/node-api';
import { extract } from '../../bench/baselines/duckExtract';
import { envelopeQuantiles, quantileSorted } from '../../bench/baselines/nodeScript';
import { DEFAULT_OPTIONS } from '../../bench/generate/options';
import { generateRun } from '../../bench/generate/run';
import { analyzeRun } from '../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../src/core/analysis/options';
import { loadFiles } from '../../src/core/formats/loadFiles';
import { DuckStore } from '../../src/core/store/duckStore';

interface Expected {
  counts: { spans_exported: number };
  matched_succeeded: { network_envelope_ms: { n: number; p50: number; p95: number; p99: number } };
}

describe('bench baselines', function () {
  this.timeout(180_000);
  let dir: string;
  let expected: Expected;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-bench-'));
    // A tiny run with every quirk of the bench presets: TLS, lost roots and spans, errors, timeouts.
    await generateRun({ ...DEFAULT_OPTIONS, seed: 4242, rate: 20, durationS: 15, rampS: 2, tls: true, droppedFraction: 0.002, runId: 'bench-test', outDir: dir });
    expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Expected;
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('interpolates quantiles at (n−1)·p like numpy and quantile_cont', () => {
    // By hand: n = 4, p = 0.95 → position 2.85 → 3 + 0.85·(4 − 3) = 3.85.
    assert.strictEqual(Number(quantileSorted([1, 2, 3, 4], 0.95).toFixed(12)), 3.85);
    assert.strictEqual(quantileSorted([7], 0.95), 7);
  });

  it('the Node script and Phasewise give the same envelope p95 as the ground truth', async () => {
    const script = await envelopeQuantiles(path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl'));
    const truth = expected.matched_succeeded.network_envelope_ms;
    assert.ok(truth.n > 200, `a run big enough to mean something (n = ${truth.n})`);
    assert.strictEqual(script.n, truth.n);
    assert.ok(Math.abs(script.p95 - truth.p95) <= 1e-6, `script p95 ${script.p95} vs truth ${truth.p95}`);
    assert.ok(Math.abs(script.p50 - truth.p50) <= 1e-6, `script p50 ${script.p50} vs truth ${truth.p50}`);

    const store = new DuckStore();
    try {
      await loadFiles(store, [path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl')]);
      const report = await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS }, []);
      const env = (report as unknown as { metrics: { network_envelope_ms: { n: number; p95: number } } }).metrics.network_envelope_ms;
      assert.strictEqual(env.n, script.n);
      assert.ok(Math.abs(env.p95 - script.p95) <= 1e-6, `Phasewise p95 ${env.p95} vs script ${script.p95}`);
    } finally {
      await store.close();
    }
  });

  it('the bare DuckDB extraction reads every generated span on both reading paths', async () => {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const conn = await instance.connect();
    try {
      const typed = await extract(conn, path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl'), 'typed', 'typed');
      const objects = await extract(conn, path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl'), 'objects', 'objects');
      assert.strictEqual(typed.spans, expected.counts.spans_exported);
      assert.strictEqual(objects.spans, expected.counts.spans_exported);
      // One http_req_duration Point per started request that got a response or failed (independent count below).
      const k6Lines = readFileSync(path.join(dir, 'k6.ndjson'), 'utf8').split('\n');
      const points = k6Lines.filter((l) => l.startsWith('{"metric":"http_req_duration","type":"Point"')).length;
      assert.ok(points > 0);
      assert.strictEqual(typed.k6Points, points);
      assert.strictEqual(objects.k6Points, points);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});
