import * as assert from 'assert';
import { spawn } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DuckDBInstance } from '@duckdb/node-api';
import { repoRoot, sharedSamplesDir } from '../helpers/paths';
import { cliPath, runCli, runsAsRoot, UNPRIVILEGED_ID, type CliResult } from './runCli';
import { STORE_SCHEMA_VERSION } from '../../src/core/store/schema';

const JOINED = path.join(sharedSamplesDir, 'joined-otel-js');
const K6 = path.join(JOINED, 'k6.ndjson');
const RECORDS = path.join(JOINED, 'requests.ndjson');
const SPANS = path.join(JOINED, 'spans.otlp.jsonl');

/** What "untouched" means: the same bytes and the same modification time. */
function fingerprint(file: string): { sha1: string; mtimeMs: number; size: number } {
  const info = fs.statSync(file);
  return { sha1: crypto.createHash('sha1').update(fs.readFileSync(file)).digest('hex'), mtimeMs: info.mtimeMs, size: info.size };
}

async function makeDuckDb(file: string, statements: string[]): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  const conn = await instance.connect();
  for (const sql of statements) await conn.run(sql);
  conn.closeSync();
  instance.closeSync();
}

/** `analyze --db` as JSON, with the fields that depend on the moment removed. */
async function reportOf(db: string, unprivileged = false): Promise<{ result: CliResult; report: Record<string, unknown> }> {
  const result = await runCli(['analyze', '--db', db, '--format', 'json'], repoRoot, { debug: false, unprivileged });
  return { result, report: result.status === 0 ? (JSON.parse(result.stdout) as Record<string, unknown>) : {} };
}

/** Runs a --db load and signals it once the span file's load has started. */
function loadAndSignal(db: string, signal: NodeJS.Signals): Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [cliPath, 'analyze', '--progress', '--run', RECORDS, '--spans', SPANS, '--db', db], { cwd: repoRoot });
  let stderr = '';
  let sent = false;
  child.stdout.resume();
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (!sent && /loading server file spans\.otlp\.jsonl/.test(stderr) && child.exitCode === null) {
      sent = true;
      child.kill(signal);
    }
  });
  return new Promise((resolve) => child.on('close', (status, sig) => resolve({ status, signal: sig, stderr })));
}

function loadingFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.includes('.loading-'));
}

describe('phasewise analyze --db: never harms a database', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-db-'));
    fs.chmodSync(dir, 0o777);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a DuckDB database that Phasewise did not write, and leaves it as it was', async () => {
    const db = path.join(dir, 'user.duckdb');
    await makeDuckDb(db, ['CREATE TABLE spans (id INTEGER, note VARCHAR)', "INSERT INTO spans VALUES (1, 'mine'), (2, 'also mine')"]);
    const before = fingerprint(db);
    for (const args of [['analyze', '--run', K6, '--spans', SPANS, '--db', db], ['analyze', '--db', db], ['reconcile', '--trace', '0b71e6178914501b1e906d2ed642d4a0', '--db', db]]) {
      const r = await runCli(args, repoRoot, { debug: false });
      assert.strictEqual(r.status, 4, r.stderr);
      assert.match(r.stderr, /user\.duckdb: expected a database written by `phasewise analyze --db`.*found a DuckDB database that Phasewise did not write \(tables spans\); it was not modified/);
      assert.deepStrictEqual(fingerprint(db), before, args.join(' '));
    }
    assert.deepStrictEqual(loadingFiles(dir), []);
    const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
    const conn = await instance.connect();
    assert.deepStrictEqual((await conn.runAndReadAll('SELECT count(*) FROM spans')).getRows(), [[2n]]);
    conn.closeSync();
    instance.closeSync();
  });

  it('refuses a file that is not a database (or is empty) and one from a newer Phasewise, untouched', async () => {
    const json = path.join(dir, 'notes.json');
    fs.writeFileSync(json, '{"mine": true}\n');
    const empty = path.join(dir, 'empty.duckdb');
    fs.writeFileSync(empty, '');
    const newer = path.join(dir, 'newer.duckdb');
    await makeDuckDb(newer, [
      'CREATE TABLE phasewise_store (name VARCHAR, schema_version INTEGER, written_by VARCHAR, load_state VARCHAR)',
      "INSERT INTO phasewise_store VALUES ('phasewise-run', 999, 'phasewise 9.0.0', 'complete')",
    ]);
    const cases: Array<[string, RegExp]> = [
      [json, /notes\.json: expected a database written by .*, found a file that is not a DuckDB database; it was not modified/],
      [empty, /empty\.duckdb: expected .*, found an empty file; it was not modified/],
      [newer, /newer\.duckdb: expected .*, found a database written by a newer Phasewise \(phasewise 9\.0\.0, schema version 999; this Phasewise reads up to 3\); it was not modified/],
    ];
    for (const [file, message] of cases) {
      const before = fingerprint(file);
      for (const args of [['analyze', '--run', K6, '--db', file], ['analyze', '--db', file]]) {
        const r = await runCli(args, repoRoot, { debug: false });
        assert.strictEqual(r.status, 4, r.stderr);
        assert.match(r.stderr, message);
        assert.deepStrictEqual(fingerprint(file), before);
      }
    }
  });

  it('refuses to re-analyse a database whose load did not finish', async () => {
    const db = path.join(dir, 'interrupted.duckdb');
    assert.strictEqual((await runCli(['analyze', '--run', K6, '--db', db, '-q'], repoRoot, { debug: false })).status, 0);
    await makeDuckDb(db, ["UPDATE phasewise_store SET load_state = 'loading'"]);
    const r = await runCli(['analyze', '--db', db], repoRoot, { debug: false });
    assert.strictEqual(r.status, 4);
    assert.match(r.stderr, /interrupted\.duckdb: expected a database holding a complete loaded run, found a load that did not finish; load it again with --run\/--spans/);
  });

  it('re-analyses a read-only database without writing to it, with the same report', async () => {
    const db = path.join(dir, 'ro.duckdb');
    assert.strictEqual((await runCli(['analyze', '--run', K6, '--spans', SPANS, '--db', db, '-q'], repoRoot, { debug: false })).status, 0);
    const writable = await reportOf(db);
    assert.strictEqual(writable.result.status, 0, writable.result.stderr);
    fs.chmodSync(db, 0o444);
    const before = fingerprint(db);
    const readOnly = await reportOf(db, true);
    assert.strictEqual(readOnly.result.status, 0, readOnly.result.stderr);
    assert.match(readOnly.result.stderr, /ro\.duckdb is read-only: analysing it without writing to it/);
    assert.deepStrictEqual(readOnly.report, writable.report);
    assert.deepStrictEqual(fingerprint(db), before);
    assert.ok(!fs.existsSync(`${db}.wal`));
    // Loading into it is refused, naming why (and what works instead).
    const load = await runCli(['analyze', '--run', K6, '--db', db], repoRoot, { debug: false, unprivileged: true });
    assert.strictEqual(load.status, 4, load.stderr);
    assert.match(load.stderr, /ro\.duckdb: expected a --db file this user can write \(a load replaces it; re-analysis without --run\/--spans works on a read-only file\), found a read-only file or directory/);
    assert.deepStrictEqual(fingerprint(db), before);
    if (runsAsRoot()) assert.strictEqual(UNPRIVILEGED_ID, 65534);
  });

  it('re-analyses a schema-version-1 database (before source_provenance and region/priority): read-only as it is, writable upgraded to the current version', async () => {
    const current = path.join(dir, 'v2.duckdb');
    assert.strictEqual((await runCli(['analyze', '--run', K6, '--spans', SPANS, '--db', current, '-q'], repoRoot, { debug: false })).status, 0);
    const v2 = await reportOf(current);
    assert.strictEqual(v2.result.status, 0, v2.result.stderr);
    // The same run as a version-1 Phasewise wrote it: without what version 2 added.
    const v1 = path.join(dir, 'v1.duckdb');
    fs.copyFileSync(current, v1);
    await makeDuckDb(v1, [
      'DROP TABLE source_provenance',
      'ALTER TABLE client_requests DROP COLUMN region',
      'ALTER TABLE client_requests DROP COLUMN priority',
      'ALTER TABLE spans DROP COLUMN follows_from',
      'UPDATE phasewise_store SET schema_version = 1',
    ]);
    const withoutProvenance = (r: Record<string, unknown>): Record<string, unknown> => ({ ...r, provenance: null });
    const hashes = (r: Record<string, unknown>): unknown[] => (r.provenance as { inputs: Array<{ sha256: unknown }> }).inputs.map((i) => i.sha256);
    assert.ok(hashes(v2.report).every((h) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h)), JSON.stringify(hashes(v2.report)));

    fs.chmodSync(v1, 0o444);
    const before = fingerprint(v1);
    const readOnly = await reportOf(v1, true);
    assert.strictEqual(readOnly.result.status, 0, readOnly.result.stderr);
    assert.deepStrictEqual(fingerprint(v1), before);
    assert.deepStrictEqual(withoutProvenance(readOnly.report), withoutProvenance(v2.report));
    assert.deepStrictEqual(hashes(readOnly.report), [null, null]);

    fs.chmodSync(v1, 0o644);
    const upgraded = await reportOf(v1);
    assert.strictEqual(upgraded.result.status, 0, upgraded.result.stderr);
    assert.deepStrictEqual(withoutProvenance(upgraded.report), withoutProvenance(v2.report));
    const instance = await DuckDBInstance.create(v1, { access_mode: 'READ_ONLY' });
    const conn = await instance.connect();
    try {
      assert.deepStrictEqual((await conn.runAndReadAll('SELECT schema_version, load_state FROM phasewise_store')).getRows(), [[STORE_SCHEMA_VERSION, 'complete']]);
      assert.deepStrictEqual((await conn.runAndReadAll('SELECT count(*) FROM source_provenance')).getRows(), [[0n]]);
      const columns = (await conn.runAndReadAll("SELECT column_name FROM duckdb_columns() WHERE table_name = 'client_requests' AND column_name IN ('region', 'priority') ORDER BY 1")).getRows();
      assert.deepStrictEqual(columns, [['priority'], ['region']]);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });

  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    it(`${signal} during a --db load leaves the previous run in place, whole`, async () => {
      const db = path.join(dir, `${signal}.duckdb`);
      assert.strictEqual((await runCli(['analyze', '--run', K6, '--spans', SPANS, '--db', db, '-q'], repoRoot, { debug: false })).status, 0);
      const previous = await reportOf(db);
      assert.strictEqual(previous.result.status, 0);
      const before = fingerprint(db);

      const killed = await loadAndSignal(db, signal);
      if (signal === 'SIGINT') {
        assert.strictEqual(killed.status, 130, killed.stderr);
        assert.match(killed.stderr, /phasewise: interrupted/);
        assert.deepStrictEqual(loadingFiles(dir), [], 'an interrupted load removes what it built');
      } else {
        assert.strictEqual(killed.signal, 'SIGKILL');
        const left = loadingFiles(dir);
        assert.ok(left.length > 0 && left.every((f) => f.startsWith(`.${signal}.duckdb.loading-`)), `a killed load leaves its new database beside the old one: ${left.join(', ')}`);
      }
      assert.deepStrictEqual(fingerprint(db), before, 'the database was not written during the load');
      const after = await reportOf(db);
      assert.strictEqual(after.result.status, 0, after.result.stderr);
      assert.deepStrictEqual(after.report, previous.report, 'the previous run, reported as before');
      // The next load replaces the run and removes what a killed load left.
      const reload = await runCli(['analyze', '--run', RECORDS, '--spans', SPANS, '--db', db, '-q'], repoRoot, { debug: false });
      assert.strictEqual(reload.status, 0, reload.stderr);
      assert.deepStrictEqual(loadingFiles(dir), []);
      const inputs = (await reportOf(db)).report.inputs as Array<{ path: string }>;
      assert.deepStrictEqual(inputs.map((i) => path.basename(i.path)), ['requests.ndjson', 'spans.otlp.jsonl']);
    });
  }
});
