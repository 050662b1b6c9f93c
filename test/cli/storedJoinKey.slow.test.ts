import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fixture } from '../helpers/paths';
import { runCli } from './runCli';

const NOTE = /joining by request ID \(span attribute http\.request\.header\.x-request-id\), the key it was analysed with/;

/**
 * A run analysed with --join-by request-id into a --db file, then given to compare, sql, export and
 * analyze --db with no --join-by: each must join by request ID again (5 of 9 matched, by hand in
 * test/fixtures/tools/README.md and requestIdJoin.test.ts; by trace ID the same files match 0), and
 * the file's recorded key must stay request ID (it would read trace ID had one rebuilt it by trace ID).
 */
describe('a --db analysed by request ID keeps its join key (built CLI)', function () {
  this.timeout(120_000);
  const AIPERF = fixture('tools', 'aiperf-profile_export.from-docs.jsonl');
  const SPANS = fixture('tools', 'spans-x-request-id.otlp.jsonl');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-stored-join-key-'));
  const db = path.join(tmp, 'aiperf.duckdb');
  const sql = (query: string, extra: string[] = []): ReturnType<typeof runCli> => runCli(['sql', '--db', db, '--format', 'json', ...extra, query]);
  const recorded = async (): Promise<string> => {
    const res = await sql(`SELECT stamp FROM derived_meta WHERE relation = '(join key)'`);
    assert.strictEqual(res.status, 0, res.stderr);
    return (JSON.parse(res.stdout) as { rows: Array<{ stamp: string }> }).rows[0].stamp;
  };
  const matched = async (extra: string[] = []): Promise<{ n: number; stderr: string }> => {
    const res = await sql('SELECT count(*) FILTER (WHERE matched) AS n FROM pairs', extra);
    assert.strictEqual(res.status, 0, res.stderr);
    return { n: Number((JSON.parse(res.stdout) as { rows: Array<{ n: number }> }).rows[0].n), stderr: res.stderr };
  };

  beforeEach(async () => {
    fs.rmSync(db, { force: true });
    const res = await runCli(['analyze', '--run', AIPERF, '--spans', SPANS, '--join-by', 'request-id', '--db', db, '--quiet']);
    assert.ok(res.status !== null && res.status <= 3, res.stderr);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('sql and export without --join-by give the request-ID join, say so, and rebuild nothing by trace ID', async () => {
    assert.strictEqual(await recorded(), JSON.stringify({ by: 'request_id', attribute: 'http.request.header.x-request-id' }));
    const first = await matched();
    assert.strictEqual(first.n, 5);
    assert.match(first.stderr, NOTE);
    assert.strictEqual(first.stderr.split('\n').filter((l) => l !== '').length, 1, first.stderr);
    assert.doesNotMatch(first.stderr, /analysing it first/);

    const out = path.join(tmp, 'pairs.csv');
    const exp = await runCli(['export', '--db', db, '--out', out]);
    assert.strictEqual(exp.status, 0, exp.stderr);
    assert.match(exp.stderr, NOTE);
    const [header, ...rows] = fs.readFileSync(out, 'utf8').trim().split('\n');
    const col = header.split(',').indexOf('matched');
    assert.ok(col >= 0, header);
    assert.strictEqual(rows.length, 9);
    assert.strictEqual(rows.filter((r) => r.split(',')[col] === 'true').length, 5);
    assert.strictEqual(JSON.parse(await recorded()).by, 'request_id');
  });

  it('compare and analyze --db without --join-by show the request-ID join', async () => {
    const cmp = await runCli(['compare', db, db, '--format', 'json', '--resamples', '100']);
    assert.strictEqual(cmp.status, 0, cmp.stderr);
    assert.match(cmp.stderr, NOTE);
    const c = JSON.parse(cmp.stdout) as { base: { join: { key: string; matched: number; client_requests: number } }; head: { join: { key: string; matched: number } } };
    for (const side of [c.base, c.head]) assert.deepStrictEqual([side.join.key, side.join.matched], ['request_id', 5]);
    const ana = await runCli(['analyze', '--db', db, '--format', 'json']);
    assert.ok(ana.status !== null && ana.status <= 3, ana.stderr);
    assert.match(ana.stderr, NOTE);
    const r = JSON.parse(ana.stdout) as { join: { key: string; matched: number } };
    assert.deepStrictEqual([r.join.key, r.join.matched], ['request_id', 5]);
    assert.strictEqual(JSON.parse(await recorded()).by, 'request_id');
  });

  it('an explicit --join-by trace-id still overrides the recorded key, and is recorded in turn', async () => {
    const byTrace = await matched(['--join-by', 'trace-id']);
    assert.strictEqual(byTrace.n, 0);
    assert.doesNotMatch(byTrace.stderr, NOTE);
    assert.strictEqual(await recorded(), JSON.stringify({ by: 'trace_id' }));
    assert.strictEqual((await matched()).n, 0);
  });
});
