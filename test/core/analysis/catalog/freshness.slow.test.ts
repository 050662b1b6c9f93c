import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gunzipSync } from 'zlib';
import { analyzeRun } from '../../../../src/core/analysis/analyze';
import { LOADED_TABLES } from '../../../../src/core/analysis/catalog/relations';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions, type GateSpec } from '../../../../src/core/analysis/options';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import type { Report } from '../../../../src/core/report/model';
import { clearLoadedRun } from '../../../../src/core/run/loadRun';
import { DuckStore, type Params, type QueryRunner, type Row } from '../../../../src/core/store/duckStore';
import { MARKER_TABLE, STORE_NAME, STORE_SCHEMA_VERSION } from '../../../../src/core/store/schema';
import { fixture, repoRoot } from '../../../helpers/paths';
import { assertSameValues } from '../../../helpers/sameValues';
import { RecordingRunner } from '../../../fixtures/analysis/recording';

/**
 * The one freshness rule (catalog/stamps.ts) on stored databases: one written by the previous release,
 * one tampered with as an older build would have left it, a reload of the same files, an interrupted
 * rebuild. Each re-analysis must give the report of a fresh load of the same files; a current database
 * must be read, never rebuilt.
 *
 * predecessor-4d116d7.duckdb.gz: `phasewise analyze --db FILE --run samples/k6.ndjson --spans
 * samples/spans.otlp.jsonl` by the build of main at 4d116d7 (span_index_meta, trace_roots_meta,
 * breakdown_meta, breakdown_figures with build ids), gzip -9.
 */
const k6 = path.join(repoRoot, 'samples', 'k6.ndjson');
const spans = path.join(repoRoot, 'samples', 'spans.otlp.jsonl');

const PHASES_B: AnalysisOptions = {
  ...DEFAULT_ANALYSIS_OPTIONS,
  phases: [
    { name: 'gateway', anyOf: [{ names: ['auth.check', 'request.prepare', 'route.select'] }] },
    { name: 'gpu_queue', anyOf: [{ attributes: { 'llm.phase': 'queue' } }] },
    { name: 'generation', anyOf: [{ attributes: { 'llm.phase': 'generation' } }] },
  ],
};

/**
 * Reports name their inputs by absolute path, which differs between the stored run and a fresh load.
 * The provenance's hashes and OTLP resources are recorded at load time: a database written before
 * they were has none (its report says so), so they are compared by path only.
 */
function withoutPaths(report: Report): Report {
  const inputs = report.provenance.inputs.map((i) => ({ ...i, path: path.basename(i.path), sha256: null }));
  const provenance = { ...report.provenance, inputs, resources: [], resources_note: '' };
  return { ...report, inputs: report.inputs.map((i) => ({ ...i, path: path.basename(i.path) })), provenance };
}

/**
 * What the loading found is the loading release's: the earlier release's readers did not report what
 * today's do (issue 11's counted skips and warnings), so the figures are compared without it.
 */
function withoutLoadFindings(report: Report): Report {
  return { ...report, load_issues: { total: 0, by_code: {}, examples: [] }, inputs: report.inputs.map((i) => ({ ...i, skipped_by_kind: {} })) } as Report;
}

async function freshReport(options: AnalysisOptions, gates: readonly GateSpec[] = []): Promise<Report> {
  const store = new DuckStore();
  try {
    await loadFiles(store, [k6, spans]);
    return withoutPaths(await analyzeRun(store, options, gates));
  } finally {
    await store.close();
  }
}

async function relations(store: QueryRunner): Promise<string[]> {
  const rows = await store.all<{ name: string }>(
    'SELECT table_name AS name FROM duckdb_tables() WHERE NOT temporary UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary',
  );
  return rows.map((r) => r.name).sort();
}

/** Statements that write: a current database must see none of them on re-analysis. */
function writes(recorder: RecordingRunner): string[] {
  return recorder.statements.map((s) => s.sql.trim()).filter((sql) => /^(CREATE|INSERT|DELETE|DROP|UPDATE|ALTER)\b/.test(sql));
}

/** Fails the first statement matching `pattern`, as an interrupt or a crash half-way through a rebuild would. */
class FailOnce implements QueryRunner {
  private armed = true;
  constructor(
    private readonly inner: QueryRunner,
    private readonly pattern: RegExp,
  ) {}
  async run(sql: string, params?: Params): Promise<void> {
    if (this.armed && this.pattern.test(sql)) {
      this.armed = false;
      throw new Error('interrupted');
    }
    await this.inner.run(sql, params);
  }
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    return this.inner.all<T>(sql, params);
  }
}

describe('stored databases re-analyse like a fresh load', function () {
  this.timeout(180_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-freshness-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a database written by the previous release (4d116d7): every relation rebuilt, its meta tables dropped', async () => {
    const db = path.join(dir, 'old.duckdb');
    fs.writeFileSync(db, gunzipSync(fs.readFileSync(fixture('analysis', 'predecessor-4d116d7.duckdb.gz'))));
    const store = new DuckStore({ database: db });
    try {
      const before = await relations(store);
      assert.ok(before.includes('breakdown_meta') && before.includes('span_index_meta') && before.includes('trace_roots_meta'), before.join());
      for (const options of [DEFAULT_ANALYSIS_OPTIONS, PHASES_B, DEFAULT_ANALYSIS_OPTIONS]) {
        assertSameValues(withoutLoadFindings(withoutPaths(await analyzeRun(store, options, []))), withoutLoadFindings(await freshReport(options)), 'report');
      }
      const after = await relations(store);
      for (const retired of ['breakdown_meta', 'span_index_meta', 'trace_roots_meta']) assert.ok(!after.includes(retired), retired);
      // Recognised by its seven loaded tables and marked on this first writable open, as a complete run.
      assert.deepStrictEqual(await store.all(`SELECT name, schema_version, load_state FROM ${MARKER_TABLE}`), [{ name: STORE_NAME, schema_version: STORE_SCHEMA_VERSION, load_state: 'complete' }]);
      const [figures] = await store.all<{ c: string }>(
        "SELECT string_agg(column_name, ',' ORDER BY column_index) AS c FROM duckdb_columns() WHERE table_name = 'breakdown_figures'",
      );
      assert.strictEqual(figures.c, 'stamp,name,json');
    } finally {
      await store.close();
    }
  });

  it('a tampered database (a metric column dropped, the view recreated, the figures emptied) shows the metric again', async () => {
    const db = path.join(dir, 'run.duckdb');
    let store = new DuckStore({ database: db });
    await loadFiles(store, [k6, spans]);
    await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, []);
    // What a build that lacked ttft_envelope_ms would have left, with the stamps of this one.
    await store.run('ALTER TABLE request_figures DROP COLUMN ttft_envelope_ms');
    await store.run('CREATE OR REPLACE VIEW request_breakdown AS SELECT c.*, f.* FROM client_requests c POSITIONAL JOIN request_figures f');
    await store.run('DELETE FROM breakdown_figures');
    await store.close();
    store = new DuckStore({ database: db });
    try {
      const report = withoutPaths(await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, []));
      assert.ok((report.metrics.ttft_envelope_ms?.n ?? 0) > 0, 'ttft_envelope_ms is back');
      assertSameValues(report, await freshReport(DEFAULT_ANALYSIS_OPTIONS), 'report');
    } finally {
      await store.close();
    }
  });

  it('a current database is read, never rebuilt: a second analysis with the same options writes nothing', async () => {
    const store = new DuckStore();
    try {
      await loadFiles(store, [k6, spans]);
      const first = await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, []);
      const recorder = new RecordingRunner(store);
      // An option no stored relation or figure reads: the slow-trace count (a shorter list is the stored
      // one's prefix). The window size is no longer one: the window series are stored per window grid.
      const again = await analyzeRun(recorder, { ...DEFAULT_ANALYSIS_OPTIONS, slowTraceCount: 3 }, []);
      assert.deepStrictEqual(writes(recorder), []);
      assert.deepStrictEqual(again.metrics, first.metrics);
      assert.deepStrictEqual(again.slow_traces, first.slow_traces.slice(0, 3));
      // Another window grid rebuilds no relation: it only stores its series beside the other figures.
      const windows = new RecordingRunner(store);
      await analyzeRun(windows, { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 10_000 }, []);
      const written = writes(windows);
      assert.ok(written.length > 0 && written.every((sql) => /^(INSERT INTO|DELETE FROM) breakdown_figures\b/.test(sql)), written.join('\n'));
    } finally {
      await store.close();
    }
  });

  it('a reload of the same rows in another order (same counts, same highest rowid) rebuilds everything', async () => {
    const db = path.join(dir, 'run.duckdb');
    const reorder = async (store: DuckStore, clear: (s: DuckStore) => Promise<void>): Promise<void> => {
      for (const t of LOADED_TABLES) await store.run(`CREATE TEMP TABLE keep_${t} AS SELECT * FROM ${t}`);
      const [before] = await store.all<{ rows: number; top: number }>('SELECT count(*) AS rows, max(rowid) AS top FROM spans');
      await clear(store);
      // A checkpoint after the delete lets DuckDB hand out the same rowids again, as a reload in a new process does.
      await store.run('CHECKPOINT');
      for (const t of LOADED_TABLES.filter((x) => x !== 'spans')) await store.run(`INSERT INTO ${t} SELECT * FROM keep_${t}`);
      await store.run('INSERT INTO spans SELECT * FROM keep_spans ORDER BY span_id');
      const [after] = await store.all<{ rows: number; top: number }>('SELECT count(*) AS rows, max(rowid) AS top FROM spans');
      // The precondition that makes this a test: what the stamp counts cannot tell the two loads apart.
      assert.deepStrictEqual(after, before);
    };
    const run = async (clear: (s: DuckStore) => Promise<void>): Promise<Report> => {
      for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f));
      let store = new DuckStore({ database: db });
      await loadFiles(store, [k6, spans]);
      await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, []);
      await store.close();
      store = new DuckStore({ database: db });
      await reorder(store, clear);
      await store.close();
      store = new DuckStore({ database: db });
      try {
        return withoutPaths(await analyzeRun(store, PHASES_B, []));
      } finally {
        await store.close();
      }
    };
    const expected = await freshReport(PHASES_B);
    assertSameValues(await run(clearLoadedRun), expected, 'report');
    // The same reload with the rows deleted behind the loader's back serves the stale index: the
    // loaded tables' own stamp (clearLoadedRun) is what tells the loads apart.
    const behindTheBack = async (s: DuckStore): Promise<void> => {
      for (const t of LOADED_TABLES) await s.run(`DELETE FROM ${t}`);
    };
    assert.notDeepStrictEqual((await run(behindTheBack)).metrics, expected.metrics);
  });

  it('every input a stored relation or figure reads, changed one after another on one database, gives a fresh analysis\'s report', async () => {
    // A stamp that missed an input would serve the figures of the previous step here. Each step
    // changes one input against the step before (the phase mapping twice: the split tables must
    // follow it both ways), and is compared with a fresh load analysed with the same options.
    const budget: GateSpec[] = [{ id: 'budget.gpu_queue_ms.p95', category: 'budget', metric: 'gpu_queue_ms', stat: 'p95', op: '<=', limit: 1, phase: 'gpu_queue' }];
    const steps: Array<[string, AnalysisOptions, GateSpec[]]> = [];
    let options: AnalysisOptions = DEFAULT_ANALYSIS_OPTIONS;
    const step = (name: string, change: Partial<AnalysisOptions>, gates: GateSpec[] = []): void => {
      options = { ...options, ...change };
      steps.push([name, options, gates]);
    };
    step('first analysis', {});
    step('phases', { phases: PHASES_B.phases });
    step('windows', { windowSizeMs: 10_000 });
    step('sliding windows', { windowSlideMs: 5_000 });
    step('budget gate', {}, budget);
    step('tail budget', { tailBudgetMs: 50 });
    step('group-by', { groupBy: ['model'], groupBySource: 'option' });
    step('phases back', { phases: DEFAULT_ANALYSIS_OPTIONS.phases });
    step('timestamp granularity', { timestampGranularityMs: 0 });
    step('first-token event', { firstTokenEvent: 'no.such.event' });
    step('timeout', { timeoutMs: 100 });
    step('stages', { stages: [{ label: 'one', startMs: 0, endMs: 1_000 }, { label: 'two', startMs: 1_000, endMs: 60_000 }] });
    const store = new DuckStore();
    try {
      await loadFiles(store, [k6, spans]);
      for (const [name, stepOptions, gates] of steps) {
        assertSameValues(withoutPaths(await analyzeRun(store, stepOptions, gates)), await freshReport(stepOptions, gates), name);
      }
    } finally {
      await store.close();
    }
  });

  it('a rebuild that fails half-way leaves no stamp behind: the next analysis rebuilds what it had not finished', async () => {
    const store = new DuckStore();
    try {
      await loadFiles(store, [k6, spans]);
      await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, []);
      // Another mapping, failing where request_phase_figures is written (after root_phase_figures was replaced).
      await assert.rejects(analyzeRun(new FailOnce(store, /^\s*CREATE OR REPLACE TABLE request_phase_figures\b/), PHASES_B, []), /interrupted/);
      const [meta] = await store.all<{ n: number }>("SELECT count(*) AS n FROM derived_meta WHERE relation IN ('request_phase_figures', 'request_breakdown')");
      assert.strictEqual(meta.n, 0);
      // The same mapping again: what was finished (root_phase_figures) is kept, the rest rebuilt, and
      // the phase-independent tables (root_figures, request_figures) are never rebuilt; then back.
      const recorder = new RecordingRunner(store);
      assertSameValues(withoutPaths(await analyzeRun(recorder, PHASES_B, [])), await freshReport(PHASES_B), 'report');
      const creates = ['root_figures', 'root_phase_figures', 'request_figures', 'request_phase_figures'].map((t) => recorder.creates(t).length);
      assert.deepStrictEqual(creates, [0, 0, 0, 1]);
      assertSameValues(withoutPaths(await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, [])), await freshReport(DEFAULT_ANALYSIS_OPTIONS), 'report');
    } finally {
      await store.close();
    }
  });
});
