import * as assert from 'assert';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { sharedSamplesDir } from '../helpers/paths';
import { runCli } from './runCli';

const DIR = path.join(sharedSamplesDir, 'joined-otel-js');
const K6 = path.join(DIR, 'k6.ndjson');
const SPANS = path.join(DIR, 'spans.otlp.jsonl');

/** http_req_duration of every request of the k6 file, read with JSON.parse (not with Phasewise). */
function k6Durations(): { all: number[]; ok: number[] } {
  const all: number[] = [];
  const ok: number[] = [];
  for (const line of fs.readFileSync(K6, 'utf8').split('\n')) {
    if (!line.includes('"http_req_duration"') || !line.includes('"Point"')) continue;
    const point = JSON.parse(line) as { data: { value: number; tags: { status: string } } };
    all.push(point.data.value);
    if (/^2\d\d$/.test(point.data.tags.status)) ok.push(point.data.value);
  }
  return { all, ok };
}

function fingerprint(file: string): string {
  const st = fs.statSync(file);
  return `${createHash('sha1').update(fs.readFileSync(file)).digest('hex')} ${st.mtimeMs} ${st.size}`;
}

/** A CSV file's rows as records (RFC 4180 quoting), parsed here. */
function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let field = '';
  let row: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(field), (field = '');
    else if (ch === '\n') row.push(field.replace(/\r$/, '')), rows.push(row), (row = []), (field = '');
    else field += ch;
  }
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

/** The pairs view's SQL over a run attached as `run`, from the compiled view declarations. */
async function pairsViewSql(): Promise<string> {
  const { VIEWS } = await import('../../src/core/views/catalog');
  const { viewContext } = await import('../../src/core/views/session');
  const { DEFAULT_ANALYSIS_OPTIONS } = await import('../../src/core/analysis/options');
  const pairs = VIEWS.find((v) => v.name === 'pairs');
  assert.ok(pairs);
  return pairs.sql(viewContext(DEFAULT_ANALYSIS_OPTIONS));
}

describe('phasewise sql and export (built CLI)', function () {
  this.timeout(180_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-sql-'));
  const db = path.join(tmp, 'run.duckdb');

  before(async () => {
    const res = await runCli(['analyze', '--run', K6, '--spans', SPANS, '--db', db, '--quiet']);
    assert.ok(res.status === 0 || res.status === 1 || res.status === 2, res.stderr);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('answers a SELECT over the views in JSON, with figures equal to an independent count', async () => {
    const { all, ok } = k6Durations();
    const res = await runCli(['sql', '--db', db, '--format', 'json', "SELECT count(*) AS n, count(*) FILTER (WHERE outcome = 'succeeded') AS ok, sum(client_total_ms) AS total FROM pairs"]);
    assert.strictEqual(res.status, 0, res.stderr);
    const out = JSON.parse(res.stdout) as { columns: Array<{ name: string; type: string }>; rows: Array<{ n: number; ok: number; total: number }> };
    assert.deepStrictEqual(out.columns.map((c) => c.name), ['n', 'ok', 'total']);
    assert.strictEqual(out.rows[0].n, all.length);
    assert.strictEqual(out.rows[0].ok, ok.length);
    assert.ok(Math.abs(out.rows[0].total - all.reduce((a, b) => a + b, 0)) < 1e-6);
  });

  it('refuses every statement that writes, and leaves the file byte for byte as it was', async () => {
    const before = fingerprint(db);
    for (const sql of ['DELETE FROM run.main.client_requests', 'DROP VIEW pairs', 'CREATE TABLE t AS SELECT 1', "COPY pairs TO '/tmp/x.csv'", 'SELECT 1; DELETE FROM run.main.spans']) {
      const res = await runCli(['sql', '--db', db, sql]);
      assert.strictEqual(res.status, 4, `${sql}: ${res.stderr}`);
      assert.match(res.stderr, /SELECT/, sql);
      assert.doesNotMatch(res.stderr, /at \w+ \(|Error: /, 'no stack trace');
    }
    assert.strictEqual(fingerprint(db), before);
  });

  it('refuses a DuckDB database Phasewise did not write, and a file that is not a database, without touching them', async () => {
    const foreign = path.join(tmp, 'foreign.duckdb');
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(foreign);
    const conn = await instance.connect();
    await conn.run('CREATE TABLE customers AS SELECT 1 AS id');
    conn.closeSync();
    instance.closeSync();
    const json = path.join(tmp, 'report.json');
    fs.writeFileSync(json, '{"not": "a database"}\n');
    for (const file of [foreign, json]) {
      const before = fingerprint(file);
      const res = await runCli(['sql', '--db', file, 'SELECT 1']);
      assert.strictEqual(res.status, 4, res.stderr);
      assert.match(res.stderr, new RegExp(`${path.basename(file)}: expected a database written by`));
      assert.strictEqual(fingerprint(file), before, file);
      const exp = await runCli(['export', '--db', file, '--out', path.join(tmp, 'x.csv')]);
      assert.strictEqual(exp.status, 4, exp.stderr);
    }
  });

  it('exports the pairs as CSV: one row per request, durations equal to the k6 file', async () => {
    const out = path.join(tmp, 'pairs.csv');
    const res = await runCli(['export', '--db', db, '--out', out]);
    assert.strictEqual(res.status, 0, res.stderr);
    const rows = parseCsv(fs.readFileSync(out, 'utf8'));
    const { all } = k6Durations();
    assert.strictEqual(rows.length, all.length);
    const exported = rows.map((r) => Number(r.client_total_ms)).sort((a, b) => a - b);
    const expected = [...all].sort((a, b) => a - b);
    exported.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-9, `${v} vs ${expected[i]}`));
    assert.ok(!('url' in rows[0]) && 'gpu_queue_ms' in rows[0] && 'network_envelope_ms' in rows[0] && 'window_index' in rows[0]);
    // the envelope column is the per-request difference of the two durations it names
    for (const r of rows.filter((x) => x.matched === 'true')) {
      assert.ok(Math.abs(Number(r.network_envelope_ms) - (Number(r.client_total_ms) - Number(r.server_root_ms))) < 1e-9);
    }
  });

  it('exports Parquet that reads back equal to the pairs view', async () => {
    const out = path.join(tmp, 'pairs.parquet');
    const res = await runCli(['export', '--db', db, '--out', out]);
    assert.strictEqual(res.status, 0, res.stderr);
    assert.strictEqual(fs.readFileSync(out).subarray(0, 4).toString('latin1'), 'PAR1');
    // Read back with a DuckDB of the test's own (phasewise sql may not read other files).
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run(`ATTACH '${db}' AS run (READ_ONLY)`);
      const viewSql = await pairsViewSql();
      const reader = await conn.runAndReadAll(
        `WITH pairs AS (${viewSql}) SELECT (SELECT count(*) FROM pairs)::INTEGER AS n, (SELECT count(*) FROM (SELECT * FROM read_parquet('${out}') EXCEPT ALL SELECT * FROM pairs))::INTEGER AS differ`,
      );
      assert.deepStrictEqual(reader.getRowObjectsJS()[0], { n: k6Durations().all.length, differ: 0 });
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });

  it('sql reads no other file: read_text of a file beside the run exits 4 without its content', async () => {
    const secret = path.join(tmp, 'secret.txt');
    fs.writeFileSync(secret, 'hunter2\n');
    const res = await runCli(['sql', '--db', db, `SELECT content FROM read_text('${secret}')`]);
    assert.strictEqual(res.status, 4, res.stderr);
    assert.match(res.stderr, /disabled by configuration/);
    assert.doesNotMatch(res.stdout + res.stderr, /hunter2/);
  });

  it('asks for a format it can write', async () => {
    const res = await runCli(['export', '--db', db, '--out', path.join(tmp, 'pairs.xlsx')]);
    assert.strictEqual(res.status, 4);
    assert.match(res.stderr, /\.parquet or \.csv/);
  });
});
