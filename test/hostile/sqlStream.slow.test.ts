import * as assert from 'assert';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { repoRoot } from '../helpers/paths';
import { cliPath, runCli } from '../cli/runCli';

/**
 * `phasewise sql --format csv|json --out` over millions of rows in bounded memory (issue 31, item 15:
 * 20M rows aborted on V8's heap limit, exit 134 at 6.7 GB). The CLI runs with a 96 MB V8 heap: the
 * rows must stream through it. Before streaming, 3M rows took 1.4 GB at 2M rows and died at 96 MB.
 */
describe('sql streams large results (bounded heap)', function () {
  this.timeout(300_000);
  let dir: string;
  let db: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-sql-stream-'));
    db = path.join(dir, 'run.duckdb');
    const load = await runCli(['analyze', '--run', path.join(repoRoot, 'samples', 'k6.ndjson'), '--db', db, '--format', 'json'], dir);
    assert.ok(load.status !== null && load.status <= 3, load.stderr);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The CLI with V8's old space capped at `mb` MB; resolves with its exit code (null on a signal) and stderr. */
  function cliWithHeap(mb: number, args: string[]): Promise<{ status: number | null; signal: string | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const env = { ...process.env };
      delete env.PHASEWISE_DEBUG;
      const child = spawn(process.execPath, [`--max-old-space-size=${mb}`, cliPath, ...args], { cwd: dir, env });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      child.on('error', reject);
      child.on('close', (status, signal) => resolve({ status, signal, stderr: stderr.slice(0, 2000) }));
    });
  }

  /** Line count and last line of a file, read in pieces. */
  function tailOf(file: string): { lines: number; last: string } {
    const fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(1 << 20);
    let lines = 0;
    let last = '';
    let carry = '';
    for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf)) {
      const text = carry + buf.toString('utf8', 0, n);
      const parts = text.split('\n');
      lines += parts.length - 1;
      carry = parts.pop() ?? '';
      if (parts.length > 0) last = parts[parts.length - 1];
    }
    fs.closeSync(fd);
    return { lines, last };
  }

  it('writes 3M rows of CSV with a 96 MB heap, every row in order', async () => {
    const out = path.join(dir, 'rows.csv');
    const r = await cliWithHeap(96, ['sql', '--db', db, '--format', 'csv', '--out', out, "SELECT i, i * 2 AS j, 'text ' || i AS t FROM range(3000000) r(i)"]);
    assert.deepStrictEqual([r.status, r.signal], [0, null], r.stderr);
    assert.deepStrictEqual(tailOf(out), { lines: 3_000_001, last: '2999999,5999998,text 2999999' });
  });

  it('writes 1M rows of JSON with a 96 MB heap, a document that parses to every row', async () => {
    const out = path.join(dir, 'rows.json');
    const r = await cliWithHeap(96, ['sql', '--db', db, '--format', 'json', '--out', out, 'SELECT i FROM range(1000000) r(i)']);
    assert.deepStrictEqual([r.status, r.signal], [0, null], r.stderr);
    const doc = JSON.parse(fs.readFileSync(out, 'utf8')) as { columns: unknown[]; rows: Array<{ i: number }>; truncated: boolean };
    assert.deepStrictEqual(doc.columns, [{ name: 'i', type: 'BIGINT' }]);
    assert.strictEqual(doc.rows.length, 1_000_000);
    assert.ok(doc.rows.every((row, k) => row.i === k));
    assert.strictEqual(doc.truncated, false);
  });
});
