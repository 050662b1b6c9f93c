// Compare Runs…, Query Run… and Export Pairs… on the run worker in plain Node (a real worker thread,
// real DuckDB, the committed samples/): each answer is checked against the built CLI on a database it
// loads from the same files, and the run's own store is shown to work again after each session.
import * as assert from 'assert';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Comparison } from '../../src/core/compare/compareRuns';
import { RunClient } from '../../src/extension/runs/runClient';
import * as P from '../../src/extension/runs/workerProtocol';
import { repoRoot } from '../helpers/paths';
import { runCli } from '../cli/runCli';

const samples = path.join(repoRoot, 'samples');
const inputs: P.RunInputs = { run: [path.join(samples, 'k6.ndjson')], spans: [path.join(samples, 'spans.otlp.jsonl')], contract: path.join(samples, 'steady.loadcontract.yaml') };
const settings: P.RunSettings = { slowTraceCount: 10 };

describe('run worker: view sessions (compare, sql, export pairs) against the CLI', function () {
  this.timeout(240_000);
  let dir: string;
  let client: RunClient;
  let key: string;
  let db: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-viewsessions-'));
    client = new RunClient();
    key = (await client.job(P.OpenRun, { dir, inputs, settings, base: null })).key;
    db = path.join(dir, 'cli.duckdb');
    const res = await runCli(['analyze', '--run', inputs.run[0], '--spans', inputs.spans[0], '--contract', inputs.contract as string, '--db', db, '--quiet']);
    assert.ok(res.status !== null && res.status <= 2, res.stderr);
  });
  after(async () => {
    await client.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a run against itself: every delta is zero, nothing moved, the same experiment; the CLI agrees on the same file twice', async () => {
    const side = { key, file: null, label: 'samples' };
    const { comparison } = await client.job(P.CompareRuns, { base: side, head: side, settings, compare: { resamples: 200, confidence: 0.95, seed: 3 } });
    const c = JSON.parse(comparison) as Comparison;
    assert.strictEqual(c.same_experiment, true, c.differences.join('; '));
    assert.deepStrictEqual(c.moved, []);
    const cliJson = JSON.parse((await runCli(['compare', db, db, '--contract', inputs.contract as string, '--format', 'json', '--resamples', '200', '--seed', '3'])).stdout) as Comparison;
    for (const m of c.metrics) {
      for (const s of Object.values(m.stats)) assert.strictEqual(s?.delta, 0, m.metric);
      const other = cliJson.metrics.find((x) => x.metric === m.metric);
      assert.deepStrictEqual(m.stats, other?.stats, m.metric);
    }
    assert.deepStrictEqual(c.base.outcomes, cliJson.base.outcomes);
    assert.deepStrictEqual(c.base.join, cliJson.base.join);
    // the run's own store opens again after the session closed it
    const rows = JSON.parse((await client.call(P.Query, { key, sql: 'SELECT count(*)::INTEGER AS n FROM sources', params: [] })).rows) as { n: number }[];
    assert.strictEqual(rows[0].n, 2, 'k6.ndjson and spans.otlp.jsonl');
  });

  it('a run against the CLI database file: the same figures, and the contracts differ from none', async () => {
    const { comparison } = await client.job(P.CompareRuns, { base: { key, file: null, label: 'run' }, head: { key: null, file: db, label: db }, settings, compare: { resamples: 200, confidence: 0.95, seed: 3 } });
    const c = JSON.parse(comparison) as Comparison;
    // The file is read under the editor's settings without a contract: the comparison says so.
    assert.strictEqual(c.same_experiment, false);
    assert.ok(c.differences.includes('contract: given for BASE, none for HEAD'), c.differences.join('; '));
    const gpu = c.metrics.find((m) => m.metric === 'gpu_queue_ms');
    assert.strictEqual(gpu?.stats.p95?.delta, 0);
  });

  it('sql: the rows of phasewise sql --format json; a refusal and a DuckDB failure as readable text', async () => {
    const sql = 'SELECT request_no, trace_id, outcome, client_total_ms, gpu_queue_ms FROM pairs ORDER BY request_no';
    const a = await client.job(P.RunSql, { key, sql, max_rows: 50 });
    assert.strictEqual(a.error, null);
    assert.strictEqual(a.truncated, true);
    const cli = JSON.parse((await runCli(['sql', '--db', db, '--format', 'json', '--max-rows', '50', sql])).stdout) as { columns: { name: string; type: string }[]; rows: Record<string, unknown>[] };
    assert.deepStrictEqual(a.columns, cli.columns.map((c) => c.name));
    assert.deepStrictEqual(a.types, cli.columns.map((c) => c.type));
    assert.deepStrictEqual(a.rows, cli.rows.map((r) => cli.columns.map((c) => r[c.name])));
    const refused = await client.job(P.RunSql, { key, sql: 'DELETE FROM pairs', max_rows: 10 });
    assert.strictEqual(refused.error, 'The query was refused: it is a statement that is not a SELECT (the run is opened read-only: only SELECT and WITH … SELECT queries run).');
    const failed = await client.job(P.RunSql, { key, sql: 'SELECT nope FROM pairs', max_rows: 10 });
    assert.ok(failed.error?.startsWith('DuckDB could not run the query: Binder Error: Referenced column "nope" not found in FROM clause!'), String(failed.error));
    // external access is off, as in phasewise sql
    const file = await client.job(P.RunSql, { key, sql: `SELECT * FROM read_csv('${path.join(samples, 'k6.ndjson')}')`, max_rows: 10 });
    assert.ok(file.error !== null && /disabled|external/i.test(file.error), String(file.error));
  });

  it('sql: a query that would run for hours is cancelled mid-statement; the worker and the run answer the next query', async () => {
    // 10^12 joined rows: uncancelled this runs far past the suite's timeout, so only an interrupt ends it.
    const slow = 'SELECT count(*) AS n FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1';
    const listeners: (() => void)[] = [];
    const signal = { isCancellationRequested: false, onCancellationRequested: (l: () => void) => (listeners.push(l), { dispose: () => undefined }) };
    const fire = (): void => {
      signal.isCancellationRequested = true;
      for (const l of listeners) l();
    };
    const pending = client.job(P.RunSql, { key, sql: slow, max_rows: 10 }, undefined, signal);
    // Cancel once DuckDB is well inside the statement (the session is open and the check has run).
    await new Promise((r) => setTimeout(r, 1500));
    fire();
    await assert.rejects(pending, (err: Error) => err.name === 'CancelledError');
    // The next query answers on the same worker and run, with the figure counted here from the file.
    const k6Requests = readFileSync(inputs.run[0], 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { type: string; metric: string })
      .filter((o) => o.type === 'Point' && o.metric === 'http_reqs').length;
    const next = await client.job(P.RunSql, { key, sql: 'SELECT count(*) AS n FROM pairs', max_rows: 10 });
    assert.strictEqual(next.error, null);
    assert.strictEqual(next.cancelled, false);
    assert.deepStrictEqual(next.rows, [[k6Requests]]);
    assert.strictEqual(k6Requests, 825);
    // and the run's own store too
    const rows = JSON.parse((await client.call(P.Query, { key, sql: 'SELECT count(*)::INTEGER AS n FROM sources', params: [] })).rows) as { n: number }[];
    assert.strictEqual(rows[0].n, 2);
  });

  it('sql to CSV and export pairs: the bytes of phasewise sql --format csv and phasewise export', async () => {
    const sql = 'SELECT * FROM windows ORDER BY 1';
    const out = path.join(dir, 'windows.csv');
    const r = await client.job(P.SqlToCsv, { key, sql, path: out });
    assert.strictEqual(readFileSync(out, 'utf8'), (await runCli(['sql', '--db', db, '--format', 'csv', sql])).stdout);
    assert.strictEqual(r.bytes, readFileSync(out).length);
    for (const format of ['csv', 'parquet'] as const) {
      const mine = path.join(dir, `pairs.${format}`);
      const theirs = path.join(dir, `cli-pairs.${format}`);
      const e = await client.job(P.ExportPairs, { key, path: mine, format });
      const res = await runCli(['export', '--db', db, '--out', theirs, '--contract', inputs.contract as string]);
      assert.strictEqual(res.status, 0, res.stderr);
      if (format === 'csv') {
        assert.ok(readFileSync(mine).equals(readFileSync(theirs)), 'the CSV differs from the CLI export');
        assert.strictEqual(e.rows, readFileSync(mine, 'utf8').trimEnd().split('\n').length - 1);
      } else assert.strictEqual(readFileSync(mine).subarray(0, 4).toString('latin1'), 'PAR1');
    }
    assert.deepStrictEqual(readdirSync(dir).filter((f) => f.includes('.phasewise-')), []);
  });
});
