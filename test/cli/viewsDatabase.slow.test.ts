import * as assert from 'assert';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gunzipSync } from 'zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { META_TABLE } from '../../src/core/analysis/catalog/derivedMeta';
import { STORE_SCHEMA_VERSION } from '../../src/core/store/schema';
import { fixture, repoRoot } from '../helpers/paths';
import { runCli } from './runCli';

/**
 * sql, export and compare open a --db file under the rules analyze --db follows (store/databaseFile.ts):
 * a newer schema or an unfinished load is refused with exit 4 and the file untouched; a database of a
 * release before the marker is marked on a writable open and read in memory when read-only; a
 * read-only file whose derived tables are stale is analysed in memory, never written.
 */
const SAMPLES = path.join(repoRoot, 'samples');
const K6 = path.join(SAMPLES, 'k6.ndjson');
const SPANS = path.join(SAMPLES, 'spans.otlp.jsonl');
/** Figures of the pairs view that the window size changes (window_index) and that it does not. */
const QUERY = 'SELECT count(*) AS n, sum(window_index) AS w, round(sum(gpu_queue_ms), 3) AS q FROM pairs';

function fingerprint(file: string): string {
  const info = fs.statSync(file);
  return `${crypto.createHash('sha1').update(fs.readFileSync(file)).digest('hex')} ${info.mtimeMs} ${info.size}`;
}

async function runSql(statements: string[], file: string): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  const conn = await instance.connect();
  for (const sql of statements) await conn.run(sql);
  conn.closeSync();
  instance.closeSync();
}

async function markerOf(file: string): Promise<unknown[][]> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    return (await conn.runAndReadAll('SELECT schema_version, load_state FROM phasewise_store')).getRows();
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('sql, export and compare: the --db rules of analyze', function () {
  this.timeout(180_000);
  let dir: string;
  let fresh: string;
  let expected: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-views-db-'));
    fs.chmodSync(dir, 0o777);
    fresh = path.join(dir, 'fresh.duckdb');
    const load = await runCli(['analyze', '--run', K6, '--spans', SPANS, '--db', fresh, '-q']);
    assert.ok(load.status === 0 || load.status === 1 || load.status === 2, load.stderr);
    const r = await runCli(['sql', '--db', fresh, '--window', '10s', '--format', 'csv', QUERY]);
    assert.strictEqual(r.status, 0, r.stderr);
    expected = r.stdout;
    assert.match(expected, /^n,w,q\n\d+,\d+,[\d.]+\n$/);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a newer schema and an unfinished load with exit 4, the file untouched', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['newer.duckdb', 'UPDATE phasewise_store SET schema_version = 999', /newer\.duckdb: expected .*, found a database written by a newer Phasewise .*schema version 999.*; it was not modified/],
      ['loading.duckdb', "UPDATE phasewise_store SET load_state = 'loading'", /loading\.duckdb: expected a database holding a complete loaded run, found a load that did not finish/],
    ];
    for (const [name, change, message] of cases) {
      const db = path.join(dir, name);
      fs.copyFileSync(fresh, db);
      await runSql([change], db);
      const before = fingerprint(db);
      for (const args of [['sql', '--db', db, 'SELECT 1'], ['export', '--db', db, '--out', path.join(dir, 'x.csv')], ['compare', fresh, db]]) {
        const r = await runCli(args, repoRoot, { debug: false });
        assert.strictEqual(r.status, 4, `${args[0]} ${name}: ${r.stderr}`);
        assert.match(r.stderr, message);
        assert.deepStrictEqual(fingerprint(db), before, `${args[0]} ${name}`);
      }
      assert.ok(!fs.existsSync(path.join(dir, 'x.csv')));
    }
  });

  it('a read-only database whose derived tables are stale is analysed in memory: the same figures, the file untouched', async () => {
    const db = path.join(dir, 'ro.duckdb');
    fs.copyFileSync(fresh, db);
    // Without the derived tables' stamps nothing derived passes for current (catalog/derivedMeta.ts).
    await runSql([`DROP TABLE ${META_TABLE}`], db);
    fs.chmodSync(db, 0o444);
    const before = fingerprint(db);
    const r = await runCli(['sql', '--db', db, '--window', '10s', '--format', 'csv', QUERY], repoRoot, { unprivileged: true });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.match(r.stderr, /ro\.duckdb is read-only: analysing it in memory without writing to it/);
    assert.strictEqual(r.stdout, expected);
    assert.deepStrictEqual(fingerprint(db), before);
    assert.ok(!fs.existsSync(`${db}.wal`));
  });

  it('a database of a release before the marker: marked on a writable open, read in memory when read-only, the same figures', async () => {
    const old = gunzipSync(fs.readFileSync(fixture('analysis', 'predecessor-4d116d7.duckdb.gz')));
    const ro = path.join(dir, 'old-ro.duckdb');
    fs.writeFileSync(ro, old);
    fs.chmodSync(ro, 0o444);
    const before = fingerprint(ro);
    const read = await runCli(['sql', '--db', ro, '--window', '10s', '--format', 'csv', QUERY], repoRoot, { unprivileged: true });
    assert.strictEqual(read.status, 0, read.stderr);
    assert.strictEqual(read.stdout, expected);
    assert.deepStrictEqual(fingerprint(ro), before);

    const rw = path.join(dir, 'old.duckdb');
    fs.writeFileSync(rw, old);
    const r = await runCli(['sql', '--db', rw, '--window', '10s', '--format', 'csv', QUERY]);
    assert.strictEqual(r.status, 0, r.stderr);
    assert.match(r.stderr, /old\.duckdb: a database of a release before the marker: marking it and analysing it first/);
    assert.strictEqual(r.stdout, expected);
    assert.deepStrictEqual(await markerOf(rw), [[STORE_SCHEMA_VERSION, 'complete']]);
  });

  it('--out is checked before the run is opened and written whole', async () => {
    const missing = path.join(dir, 'no-such-dir', 'pairs.csv');
    const r = await runCli(['export', '--db', fresh, '--out', missing], repoRoot, { debug: false });
    assert.strictEqual(r.status, 4, r.stderr);
    assert.match(r.stderr, /pairs\.csv: expected a file path for --out .*, found a directory that does not exist/);
    const out = path.join(dir, 'pairs.csv');
    fs.writeFileSync(out, 'previous\n');
    const ok = await runCli(['export', '--db', fresh, '--out', out, '-q']);
    assert.strictEqual(ok.status, 0, ok.stderr);
    assert.match(fs.readFileSync(out, 'utf8'), /^request_no,/);
    assert.deepStrictEqual(fs.readdirSync(dir).filter((f) => f.includes('.phasewise-')), []);
  });
});
