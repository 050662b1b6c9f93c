import * as assert from 'assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureBreakdown } from '../../../src/core/analysis/breakdown/pipeline';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions } from '../../../src/core/analysis/options';
import { loadRunIntoDatabase } from '../../../src/core/run/loadRun';
import { DuckStore } from '../../../src/core/store/duckStore';
import { allViews, VIEWS, VIEWS_VERSION } from '../../../src/core/views/catalog';
import { viewsReference } from '../../../src/core/views/docs';
import { QueryRefused, runSelect } from '../../../src/core/views/query';
import { openRunViews, type RunViews } from '../../../src/core/views/session';
import { jsQuantile } from '../../fixtures/analysis/reportTables';
import { repoRoot } from '../../helpers/paths';

const SAMPLES = path.join(repoRoot, 'samples');

interface Truth {
  counts: Record<string, number>;
  matched_succeeded: Record<string, { n: number; p50: number; p95: number; p99: number }>;
}

/** The generator's truth for samples/ (figures known by construction, not read back from the files). */
const TRUTH = JSON.parse(readFileSync(path.join(SAMPLES, 'expected.json'), 'utf8')) as Truth;

async function loadSamples(db: string, options: AnalysisOptions): Promise<void> {
  await loadRunIntoDatabase(db, { run: [path.join(SAMPLES, 'k6.ndjson')], spans: [path.join(SAMPLES, 'spans.otlp.jsonl')] });
  const store = new DuckStore({ database: db });
  try {
    await ensureBreakdown(store, options);
  } finally {
    await store.close();
  }
}

describe('query views (core/views)', function () {
  this.timeout(120_000);
  const db = path.join(os.tmpdir(), `phasewise-views-${process.pid}.duckdb`);
  let run: RunViews;

  before(async () => {
    rmSync(db, { force: true });
    await loadSamples(db, DEFAULT_ANALYSIS_OPTIONS);
    run = await openRunViews(db, DEFAULT_ANALYSIS_OPTIONS, { untrustedQueries: true });
  });
  after(async () => {
    await run?.close();
    rmSync(db, { force: true });
  });

  it('creates every declared view with exactly its declared columns and types', async () => {
    for (const view of allViews(run.context)) {
      const described = await run.store.all<{ column_name: string; column_type: string }>(`DESCRIBE ${view.name}`);
      assert.deepStrictEqual(
        described.map((d) => [d.column_name, d.column_type]),
        view.columns(run.context).map((c) => [c.name, c.type]),
        view.name,
      );
    }
  });

  it('pairs: one row per client request, and the owner quantiles over matched successes equal the generator truth', async () => {
    const [count] = await run.store.all<{ n: number; matched: number }>('SELECT count(*) AS n, count(*) FILTER (WHERE matched) AS matched FROM pairs');
    assert.strictEqual(count.n, TRUTH.counts.started);
    assert.strictEqual(count.matched, TRUTH.counts.matched);
    for (const [owner, truth] of Object.entries(TRUTH.matched_succeeded)) {
      const rows = await run.store.all<{ v: number }>(`SELECT ${owner} AS v FROM pairs WHERE matched AND outcome = 'succeeded' AND ${owner} IS NOT NULL`);
      const values = rows.map((r) => r.v);
      assert.strictEqual(values.length, truth.n, owner);
      for (const p of ['p50', 'p95', 'p99'] as const) {
        const q = jsQuantile(values, Number(p.slice(1)) / 100);
        assert.ok(Math.abs(q - truth[p]) < 1e-6, `${owner} ${p}: ${q} vs truth ${truth[p]}`);
      }
    }
  });

  it('outcomes: the ledger counts of the generator', async () => {
    const rows = await run.store.all<{ outcome: string; requests: number }>('SELECT outcome, requests FROM outcomes');
    const byOutcome = Object.fromEntries(rows.map((r) => [r.outcome, r.requests]));
    for (const o of ['succeeded', 'rejected', 'failed', 'timed_out', 'transport_failed']) {
      assert.strictEqual(byOutcome[o] ?? 0, TRUTH.counts[o], o);
    }
  });

  it('windows: per-window counts add up to the started requests, and a window p95 equals a quantile over its pairs', async () => {
    const windows = await run.store.all<{ window_index: number; started: number; client_total_p95_ms: number | null }>('SELECT window_index, started, client_total_p95_ms FROM windows');
    assert.strictEqual(windows.reduce((s, w) => s + w.started, 0), TRUTH.counts.started);
    const second = windows[1];
    const values = (await run.store.all<{ v: number }>(
      `SELECT client_total_ms AS v FROM pairs WHERE window_index = ${second.window_index} AND matched AND outcome = 'succeeded'`,
    )).map((r) => r.v);
    assert.ok(Math.abs((second.client_total_p95_ms as number) - jsQuantile(values, 0.95)) < 1e-6);
  });

  it('spans: every loaded span, phases named after the mapping', async () => {
    const [row] = await run.store.all<{ n: number; queue: number }>(`SELECT count(*) AS n, count(*) FILTER (WHERE phase = 'gpu_queue') AS queue FROM spans`);
    assert.strictEqual(row.n, TRUTH.counts.spans_exported);
    // One inference.acquire_slot span per exported root that reached the queue: at least the matched queue figures' n.
    assert.ok(row.queue >= TRUTH.matched_succeeded.gpu_queue_ms.n, `${row.queue} queue spans`);
  });

  it('refuses statements that write, several statements and syntax errors, before they run', async () => {
    for (const [sql, reason] of [
      ['DROP TABLE run.main.spans', /not a SELECT/],
      ['CREATE TABLE x AS SELECT 1', /not a SELECT/],
      ["COPY (SELECT 1) TO '/tmp/x.csv'", /not a SELECT/],
      ['ATTACH \'/tmp/other.duckdb\' AS o', /not a SELECT/],
      ['SELECT 1; SELECT 2', /2 statements/],
      ['SELEC 1', /syntax error at character 1/],
      ['   ', /empty/],
    ] as Array<[string, RegExp]>) {
      await assert.rejects(runSelect(run.store, sql), (err: unknown) => err instanceof QueryRefused && reason.test(err.message), sql);
    }
    const [row] = (await runSelect(run.store, 'WITH t AS (SELECT count(*) AS n FROM pairs) SELECT n FROM t')).rows;
    assert.deepStrictEqual(row, [TRUTH.counts.started]);
  });

  it('a sealed session reads no file but the run, writes none and keeps its settings, even past the SELECT check', async () => {
    const secret = path.join(os.tmpdir(), `phasewise-views-secret-${process.pid}.csv`);
    const copyTarget = path.join(os.tmpdir(), `phasewise-views-copy-${process.pid}.csv`);
    writeFileSync(secret, 'token\nhunter2\n');
    try {
      // SELECTs that read other files pass the statement check: the engine itself must refuse them.
      for (const sql of [`SELECT * FROM read_csv('${secret}')`, `SELECT * FROM read_text('${secret}')`, `SELECT * FROM '${secret}'`, `SELECT * FROM glob('${path.dirname(secret)}/*')`]) {
        await assert.rejects(runSelect(run.store, sql), (err: unknown) => err instanceof QueryRefused && /disabled by configuration/.test(err.message) && !err.message.includes('hunter2'), sql);
      }
      // Statements the check refuses, sent straight to the engine: refused there too.
      for (const [sql, reason] of [
        [`COPY (SELECT 1) TO '${copyTarget}'`, /disabled by configuration/],
        [`ATTACH '${copyTarget}.duckdb' AS other`, /disabled by configuration/],
        ['SET enable_external_access = true', /locked/],
        ['RESET lock_configuration', /locked/],
        ['INSERT INTO run.main.sources (source_id, path, format, side) VALUES (99, \'x\', \'x\', \'client\')', /read-only/],
        ['INSTALL httpfs', /disabled by configuration/],
      ] as Array<[string, RegExp]>) {
        await assert.rejects(run.store.run(sql), (err: unknown) => err instanceof Error && reason.test(err.message), sql);
      }
      assert.ok(!existsSync(copyTarget) && !existsSync(`${copyTarget}.duckdb`));
      const [row] = (await runSelect(run.store, "SELECT current_setting('enable_external_access') AS ext, current_setting('lock_configuration') AS locked")).rows;
      assert.deepStrictEqual(row, [false, true]);
    } finally {
      rmSync(secret, { force: true });
    }
  });

  it('a row limit reads that many rows and says more exist', async () => {
    const result = await runSelect(run.store, 'SELECT request_no FROM pairs ORDER BY request_no', 5);
    assert.deepStrictEqual(result.rows, [[1], [2], [3], [4], [5]]);
    assert.strictEqual(result.truncated, true);
  });

  it('follows a contract phase mapping: other phase columns, and the stale run is analysed first', async () => {
    const options: AnalysisOptions = {
      ...DEFAULT_ANALYSIS_OPTIONS,
      windowSizeMs: 10_000,
      phases: [{ name: 'slot_wait', anyOf: [{ names: ['inference.acquire_slot'] }] }],
    };
    const [b] = await run.store.all<{ s: number }>('SELECT sum(gpu_queue_ms) AS s FROM pairs');
    await run.close();
    let analysed = 0;
    const other = await openRunViews(db, options, { onAnalyse: () => analysed++ });
    try {
      assert.strictEqual(analysed, 1);
      const columns = (await other.store.all<{ column_name: string }>('DESCRIBE pairs')).map((c) => c.column_name);
      assert.ok(columns.includes('slot_wait_ms') && !columns.includes('gpu_queue_ms'), columns.join(','));
      const [w] = await other.store.all<{ n: number }>('SELECT count(*) AS n FROM windows');
      assert.ok(w.n >= 9, `${w.n} windows of 10 s over a 90 s run`);
      // The same spans as the default gpu_queue selector picks in samples/: the same per-request sums.
      const [a] = await other.store.all<{ s: number }>('SELECT sum(slot_wait_ms) AS s FROM pairs');
      assert.ok(a.s > 0 && Math.abs(a.s - b.s) < 1e-6, `${a.s} vs ${b.s}`);
    } finally {
      await other.close();
      run = await openRunViews(db, DEFAULT_ANALYSIS_OPTIONS, { untrustedQueries: true });
    }
  });

  it('--help documents every view and column, with the version', () => {
    const text = viewsReference();
    assert.ok(text.includes(`version ${VIEWS_VERSION}`));
    for (const view of VIEWS) {
      assert.ok(text.includes(`  ${view.name}: `), view.name);
    }
    assert.ok(text.includes('network_envelope_ms') && text.includes('window_index'));
  });
});
