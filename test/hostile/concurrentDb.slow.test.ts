/**
 * Two processes writing one `--db` file (issue 31, item 4): real CLI processes started together.
 * Exactly one load wins; the other exits 4 ("in use by another process") having changed nothing, and
 * the file holds the winner's run. A receiver holding the file keeps it. A lock left by a process that
 * is gone is swept; one held on another machine is not. Bounded: a handful of pairs of small loads.
 */
import { strict as assert } from 'assert';
import { spawnSync } from 'child_process';
import * as crypto from 'crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DuckDBInstance } from '@duckdb/node-api';
import { runCliProcess, type CliResult } from '../cli/runCli';
import { fixture } from '../helpers/paths';
import { contractViolations } from './corpus';
import { postExport, smallJsonExport, spansInDatabase, startReceive } from './receiverCli';

const K6 = fixture('shared-samples', 'joined-otel-js', 'k6.ndjson');
const SPANS = fixture('shared-samples', 'joined-otel-js', 'spans.otlp.jsonl');
const RECORDS = fixture('shared-samples', 'joined-otel-js', 'requests.ndjson');

/** The built CLI in a child process, as a user runs it (two processes at once need two children). */
function cli(args: string[], cwd: string): Promise<CliResult> {
  return runCliProcess(args, cwd, { debug: false });
}

/** The file names of the run a database holds (its sources), read-only. */
async function sourcesOf(file: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await conn.run(`ATTACH '${file.replace(/'/g, "''")}' AS r (READ_ONLY)`);
    return (await conn.runAndReadAll('SELECT path FROM r.sources ORDER BY path')).getRowObjectsJS().map((r) => path.basename(String(r.path)));
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

const fingerprint = (file: string): string => `${statSync(file).size}:${statSync(file).mtimeMs}:${crypto.createHash('sha1').update(readFileSync(file)).digest('hex')}`;

describe('hostile --db: two writers of one database (issue 31 item 4)', function () {
  this.timeout(300_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'pw-hostile-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('two loads started together, 5 pairs: one exits 0 and its run is in the file, the other exits 4 (in use) and changed nothing', async () => {
    for (let pair = 0; pair < 5; pair++) {
      const db = path.join(dir, `pair-${pair}.duckdb`);
      const [a, b] = await Promise.all([
        cli(['analyze', '--run', K6, '--spans', SPANS, '--db', db, '--format', 'json'], dir),
        cli(['analyze', '--run', RECORDS, '--db', db, '--format', 'json'], dir),
      ]);
      for (const r of [a, b]) assert.deepEqual(contractViolations(r), [], r.stderr);
      assert.deepEqual([a.status, b.status].sort(), [0, 4], `pair ${pair}: exits ${a.status} and ${b.status}\n${a.stderr}\n${b.stderr}`);
      const [winner, loser] = a.status === 0 ? [a, b] : [b, a];
      assert.match(loser.stderr, /in use by another process \(PID \d+/);
      assert.equal(loser.stdout, '');
      const expected = winner === a ? ['k6.ndjson', 'spans.otlp.jsonl'] : ['requests.ndjson'];
      assert.deepEqual(await sourcesOf(db), expected, `pair ${pair}`);
      // Nothing left beside it: no loading file, no lock.
      assert.deepEqual(readdirSync(dir).filter((n) => n.includes(`pair-${pair}`) && n !== `pair-${pair}.duckdb`), []);
    }
  });

  it('a load into the database a receiver is writing exits 4 and leaves the receiver its file', async () => {
    const db = path.join(dir, 'live.duckdb');
    const recv = await startReceive(['--db', db], dir);
    try {
      assert.equal((await postExport(recv.address, smallJsonExport(2), 'application/json')).status, 200);
      const r = await cli(['analyze', '--run', RECORDS, '--db', db], dir);
      assert.equal(r.status, 4, r.stderr);
      assert.match(r.stderr, /in use by another process \(PID \d+/);
      assert.equal((await postExport(recv.address, smallJsonExport(3, 10), 'application/json')).status, 200);
    } finally {
      assert.equal(await recv.stop('SIGTERM'), 0, recv.stderr());
    }
    assert.equal((await spansInDatabase(db)).spans, 5);
  });

  it('a lock left by a process that is gone is swept; one held on another machine is refused, the database untouched', async () => {
    const db = path.join(dir, 'r.duckdb');
    const first = await cli(['analyze', '--run', RECORDS, '--db', db, '--format', 'json'], dir);
    assert.equal(first.status, 0, first.stderr);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(`${db}.phasewise-lock`, JSON.stringify({ pid: Number(gone), host: os.hostname(), token: 'stale', since: new Date().toISOString() }) + '\n');
    const again = await cli(['analyze', '--run', K6, '--spans', SPANS, '--db', db, '--format', 'json'], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.ok(!existsSync(`${db}.phasewise-lock`), 'the stale lock is still there');
    assert.deepEqual(await sourcesOf(db), ['k6.ndjson', 'spans.otlp.jsonl']);

    writeFileSync(`${db}.phasewise-lock`, JSON.stringify({ pid: 1, host: 'another-machine.example', token: 'far', since: new Date().toISOString() }) + '\n');
    const before = fingerprint(db);
    const refused = await cli(['analyze', '--run', RECORDS, '--db', db], dir);
    assert.equal(refused.status, 4, refused.stderr);
    assert.match(refused.stderr, /in use by another process \(PID 1 on another-machine\.example/);
    assert.match(refused.stderr, /r\.duckdb\.phasewise-lock/);
    assert.equal(fingerprint(db), before);
    assert.ok(existsSync(`${db}.phasewise-lock`), 'a lock of another machine was removed');
  });
});
