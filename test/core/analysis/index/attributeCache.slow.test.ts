import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { analyzeRun } from '../../../../src/core/analysis/analyze';
import { CachedAttributeReader, ensureCachedKeys } from '../../../../src/core/analysis/index/attributeCache';
import { SpanAttributeLookups } from '../../../../src/core/analysis/index/attributeLookups';
import { SqlParams } from '../../../../src/core/analysis/sql/params';
import { buildBreakdown, ensureBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { type AnalysisOptions, DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { fixture } from '../../../helpers/paths';
import { RecordingRunner } from '../../../fixtures/analysis/recording';

/**
 * The per-key attribute cache (index/attributeCache.ts) and the reuse of the span index and trace_roots
 * across phase mappings (their stamps do not read the phases), on real OpenTelemetry JS spans
 * (joined-otel-js: 812 distinct spans).
 * Expected counts were taken with python3 (json module, first copy of each (traceId, spanId)):
 * llm.phase = queue on 117 spans and = generation on 117, gen_ai.usage.output_tokens on 113,
 * llm.output_tokens on 117, llm.stream on 461, llm.outlier on 3, gen_ai.operation.name on none.
 * Every report of a re-analysis on one database must equal the report of a fresh store (second method).
 */
const k6File = fixture('shared-samples', 'joined-otel-js', 'k6.ndjson');
const spansFile = fixture('shared-samples', 'joined-otel-js', 'spans.otlp.jsonl');

const PHASES_B: AnalysisOptions['phases'] = [
  { name: 'gateway', anyOf: [{ names: ['auth.check', 'request.prepare', 'route.select'] }] },
  { name: 'gpu_queue', anyOf: [{ attributes: { 'llm.phase': 'queue' } }] },
  { name: 'generation', anyOf: [{ attributes: { 'llm.phase': 'generation' } }, { attributePresent: ['gen_ai.operation.name'] }] },
];
// Keys the first analysis never looked up: scanned once, then cached.
const ATTR_ONLY: AnalysisOptions['phases'] = [
  { name: 'streamed', anyOf: [{ attributes: { 'llm.stream': 'true' } }] },
  { name: 'outlier', anyOf: [{ attributePresent: ['llm.outlier'] }] },
  { name: 'generation', anyOf: [{ attributes: { 'llm.phase': 'generation' } }] },
];

const SEQUENCE: Array<[string, AnalysisOptions]> = [
  ['default', DEFAULT_ANALYSIS_OPTIONS],
  ['phases B', { ...DEFAULT_ANALYSIS_OPTIONS, phases: PHASES_B }],
  ['default again', DEFAULT_ANALYSIS_OPTIONS],
  ['attribute-only', { ...DEFAULT_ANALYSIS_OPTIONS, phases: ATTR_ONLY }],
  ['another root service', { ...DEFAULT_ANALYSIS_OPTIONS, phases: PHASES_B, root: { service: 'no-such-service' } }],
  ['phases B, default root', { ...DEFAULT_ANALYSIS_OPTIONS, phases: PHASES_B }],
];

async function freshReport(options: AnalysisOptions): Promise<unknown> {
  const store = new DuckStore({ threads: 2 });
  try {
    await loadFiles(store, [k6File, spansFile]);
    return await analyzeRun(store, options, []);
  } finally {
    await store.close();
  }
}

describe('attribute cache and trace_roots reuse across phase mappings', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-attr-cache-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('re-analyses on one database file equal fresh analyses, in sequence', async () => {
    const db = path.join(dir, 'run.duckdb');
    let store = new DuckStore({ database: db, threads: 2 });
    await loadFiles(store, [k6File, spansFile]);
    await store.close();
    const rebuilt: Array<[boolean, boolean, boolean]> = [];
    const rootStamps: string[] = [];
    for (const [label, options] of SEQUENCE) {
      // A new process per step, as with `phasewise analyze --db`.
      store = new DuckStore({ database: db, threads: 2 });
      try {
        const recorder = new RecordingRunner(store);
        const report = await analyzeRun(recorder, options, []);
        assert.deepStrictEqual(report, await freshReport(options), label);
        rebuilt.push([recorder.creates('span_index').length > 0, recorder.creates('span_attr_cache').length > 0, recorder.creates('trace_roots').length > 0]);
        const [meta] = await store.all<{ stamp: string }>("SELECT stamp FROM derived_meta WHERE relation = 'trace_roots'");
        rootStamps.push(meta.stamp);
      } finally {
        await store.close();
      }
    }
    // [span index, attribute cache, trace_roots] built: all on the first analysis; afterwards the index
    // and the cache never again, trace_roots only for the other root service and back.
    assert.deepStrictEqual(rebuilt, [
      [true, true, true],
      [false, false, false],
      [false, false, false],
      [false, false, false],
      [false, false, true],
      [false, false, true],
    ]);
    const def = rootStamps[0];
    assert.deepStrictEqual(rootStamps.slice(0, 4), [def, def, def, def]);
    assert.notStrictEqual(rootStamps[4], def);
    assert.strictEqual(rootStamps[5], def);
  });

  it('with duplicate span copies (not every span indexed): the cached path equals the first-scan path', async () => {
    // 40 spans loaded twice: the later copies are dropped from the index, and span_phase must drop them too.
    const duplicate = 'INSERT INTO spans SELECT * FROM spans WHERE rowid < 40';
    const phasesB = { ...DEFAULT_ANALYSIS_OPTIONS, phases: PHASES_B };
    const viaCache = new DuckStore({ threads: 2 });
    const viaScan = new DuckStore({ threads: 2 });
    try {
      for (const store of [viaCache, viaScan]) {
        await loadFiles(store, [k6File, spansFile]);
        await store.run(duplicate);
      }
      await analyzeRun(viaCache, DEFAULT_ANALYSIS_OPTIONS, []);
      const cachedReport = await analyzeRun(viaCache, phasesB, []);
      const [meta] = await viaCache.all<{ indexed: number; rows: number }>('SELECT indexed_spans AS indexed, span_rows AS rows FROM span_index_counts');
      assert.deepStrictEqual([meta.indexed, meta.rows], [812, 852]);
      assert.deepStrictEqual(cachedReport, await analyzeRun(viaScan, phasesB, []));
      const phaseRows = async (store: DuckStore): Promise<unknown> =>
        store.all('SELECT node_id, phase_mask FROM span_phase ORDER BY node_id');
      assert.deepStrictEqual(await phaseRows(viaCache), await phaseRows(viaScan));
    } finally {
      await viaCache.close();
      await viaScan.close();
    }
  });

  it('gives, span by span, the values and presence of the direct lookups (OTLP edge cases, Zipkin tags)', async () => {
    // Edge file (by hand): `empty` has an empty AnyValue (present, NULL value), `k` appears twice (the
    // first wins), a nested kvlist or a string mentioning "llm.phase" is not the key itself.
    const cases: Array<[string, string[]]> = [
      [fixture('spans', 'otlp-attribute-edges.jsonl'), ['llm.phase', 'note', 'outer', 'llm.output_tokens', 'k', 'empty', 'a"b é', 'flag', 'no.such.key']],
      [fixture('shared-samples', 'zipkin-json', 'zipkin_zipkin-lens_testdata_yelp.json'), ['http.uri', 'http.uri.client', 'no.such.key']],
    ];
    for (const [file, keys] of cases) {
      const store = new DuckStore({ threads: 2 });
      try {
        await loadFiles(store, [file]);
        await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
        const numbers = await ensureCachedKeys(store, keys);
        const reader = new CachedAttributeReader('s');
        const cachedCols = keys.map((k, i) => `${reader.value(k)} AS v${i}, ${reader.has(k)} AS h${i}`);
        const cached = await store.all(
          `SELECT s.node_id, ${cachedCols.join(', ')} FROM ${reader.from('SELECT node_id FROM span_index', numbers)} ORDER BY s.node_id`,
        );
        const params = new SqlParams();
        const direct = new SpanAttributeLookups(params, 's');
        const directCols = keys.map((k, i) => `${direct.value(k)} AS v${i}, ${direct.has(k)} AS h${i}`);
        const expected = await store.all(
          `SELECT s.node_id, ${directCols.join(', ')}
           FROM ${direct.from('SELECT s.rowid AS node_id, s.attributes, s.otlp_attributes FROM spans s JOIN span_index i ON i.node_id = s.rowid')}
           ORDER BY s.node_id`,
          params.values,
        );
        assert.ok(cached.length > 0);
        assert.deepStrictEqual(cached, expected, file);
        if (file.endsWith('.jsonl')) {
          const col = (key: string, what: 'v' | 'h'): unknown[] => cached.map((r) => (r as Record<string, unknown>)[`${what}${keys.indexOf(key)}`]);
          assert.deepStrictEqual(col('empty', 'h').filter((h) => h === true).length, 1);
          assert.deepStrictEqual(col('empty', 'v').filter((v) => v !== null), []);
          assert.deepStrictEqual(col('k', 'v').filter((v) => v !== null), ['first']);
          assert.deepStrictEqual(col('llm.phase', 'v').filter((v) => v !== null), ['queue']);
          assert.deepStrictEqual(col('a"b é', 'v').filter((v) => v !== null), ['0.25']);
        }
      } finally {
        await store.close();
      }
    }
  });

  it('holds, per key, the spans having it with their values (counts from python3)', async () => {
    const store = new DuckStore({ threads: 2 });
    try {
      await loadFiles(store, [k6File, spansFile]);
      await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const firstKeys = await store.all<{ key: string }>('SELECT key FROM span_attr_keys ORDER BY key');
      // The default selectors' keys (the output-token keys are looked up too, but not kept).
      assert.deepStrictEqual(
        firstKeys.map((r) => r.key),
        ['gen_ai.operation.name', 'llm.phase'],
      );
      // A phase mapping with new keys scans them once; known keys keep their numbers and rows.
      await ensureBreakdown(store, { ...DEFAULT_ANALYSIS_OPTIONS, phases: ATTR_ONLY });
      const rows = await store.all<{ key: string; value: string | null; n: number; present: number }>(
        `SELECT k.key, c.value, count(*) AS n, count(*) FILTER (WHERE c.present) AS present
         FROM span_attr_cache c JOIN span_attr_keys k USING (key_no)
         WHERE k.key IN ('llm.phase', 'llm.stream', 'llm.outlier', 'gen_ai.operation.name')
         GROUP BY ALL ORDER BY ALL`,
      );
      const byKey = new Map<string, number>();
      for (const r of rows) byKey.set(r.key, (byKey.get(r.key) ?? 0) + r.n);
      assert.strictEqual(byKey.get('llm.phase'), 234);
      assert.deepStrictEqual(
        rows.filter((r) => r.key === 'llm.phase').map((r) => [r.value, r.n, r.present]),
        [['generation', 117, 117], ['queue', 117, 117]],
      );
      assert.strictEqual(byKey.get('llm.stream'), 461);
      assert.strictEqual(byKey.get('llm.outlier'), 3);
      assert.strictEqual(byKey.get('gen_ai.operation.name'), undefined);
      await ensureCachedKeys(store, ['gen_ai.usage.output_tokens', 'llm.output_tokens']);
      const [{ tokens, legacy }] = await store.all<{ tokens: number; legacy: number }>(
        `SELECT count(*) FILTER (WHERE k.key = 'gen_ai.usage.output_tokens') AS tokens,
                count(*) FILTER (WHERE k.key = 'llm.output_tokens') AS legacy
         FROM span_attr_cache c JOIN span_attr_keys k USING (key_no)`,
      );
      assert.deepStrictEqual([tokens, legacy], [113, 117]);
      // Asking again scans nothing: the key numbers are the ones already listed.
      const [{ n: before }] = await store.all<{ n: number }>('SELECT count(*) AS n FROM span_attr_cache');
      const numbers = await ensureCachedKeys(store, ['llm.stream', 'llm.phase']);
      const [{ n: after }] = await store.all<{ n: number }>('SELECT count(*) AS n FROM span_attr_cache');
      assert.strictEqual(after, before);
      assert.strictEqual(numbers.size, 6);
    } finally {
      await store.close();
    }
  });

  it('is dropped with the span index when the loaded run changes', async () => {
    const store = new DuckStore({ threads: 2 });
    try {
      await loadFiles(store, [spansFile]);
      await ensureBreakdown(store, { ...DEFAULT_ANALYSIS_OPTIONS, phases: ATTR_ONLY });
      const [{ n: stream }] = await store.all<{ n: number }>("SELECT count(*) AS n FROM span_attr_keys WHERE key = 'llm.stream'");
      assert.strictEqual(stream, 1);
      const cacheStamp = async (): Promise<string> =>
        (await store.all<{ stamp: string }>("SELECT stamp FROM derived_meta WHERE relation = 'span_attr_cache'"))[0].stamp;
      const before = await cacheStamp();
      // Appending the k6 file changes the loaded tables' stamp: the index, and with it the cache, is rebuilt.
      await loadFiles(store, [k6File]);
      await ensureBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const keys = await store.all<{ key: string }>('SELECT key FROM span_attr_keys ORDER BY key');
      assert.deepStrictEqual(keys.map((k) => k.key), ['gen_ai.operation.name', 'llm.phase']);
      assert.notStrictEqual(await cacheStamp(), before);
    } finally {
      await store.close();
    }
  });
});
