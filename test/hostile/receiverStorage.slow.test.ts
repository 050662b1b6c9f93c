/**
 * Hostile receiver cases (issue 31, items 1–3): what `phasewise receive` answers is what it stored.
 * An export answered 200 is in the database or the file when the receiver stops, whatever its size;
 * an export that could not be stored is answered with a retryable 5xx (OTLP/HTTP: 503 with
 * Retry-After), and the summary and the exit code say so. Real sockets on 127.0.0.1, one receiver
 * process per case, a handful of requests each.
 */
import { strict as assert } from 'assert';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runCli } from '../cli/runCli';
import { contractViolations } from './corpus';
import { postExport, smallJsonExport, spansInDatabase, startReceive, wideExport } from './receiverCli';

describe('hostile receiver: an acknowledged span is a stored span (issue 31 items 1–3)', function () {
  this.timeout(300_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'pw-hostile-recv-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('item 1: a 5,000-span × 420-attribute protobuf export (≈ 22 MB, under --max-body) is stored whole, and the next export still gets in', async () => {
    const db = path.join(dir, 'r.duckdb');
    const body = wideExport(5000, 420);
    assert.ok(body.length > 20e6 && body.length < 24e6, `${body.length} bytes`);
    const recv = await startReceive(['--db', db, '--max-body', '32MiB'], dir);
    const big = await postExport(recv.address, body, 'application/x-protobuf');
    const small = await postExport(recv.address, smallJsonExport(3, 100_001), 'application/json');
    const status = await recv.stop('SIGTERM');
    const stored = await spansInDatabase(db);
    // Whatever was answered 200 must be in the database; a refusal must be a status the exporter acts on.
    const acknowledged = (big.status === 200 ? 5000 : 0) + (small.status === 200 ? 3 : 0);
    assert.equal(big.status, 200, `the big export was answered ${big.status}`);
    assert.equal(small.status, 200, `the export after it was answered ${small.status}`);
    assert.equal(stored.spans, acknowledged, recv.stderr());
    assert.equal(stored.traces, 5003);
    assert.equal(status, 0, recv.stderr());
    assert.match(recv.stdout(), /received 5003 span\(s\) in 2 export\(s\)/);
    assert.deepEqual(contractViolations({ status, stdout: recv.stdout(), stderr: recv.stderr() }), []);
  });

  it('item 2: one span received into --db, then SIGTERM: analyze --db opens the run (exit 0, the span in its report)', async () => {
    const db = path.join(dir, 'r.duckdb');
    const recv = await startReceive(['--db', db], dir);
    const answer = await postExport(recv.address, smallJsonExport(1), 'application/json');
    assert.equal(answer.status, 200);
    assert.equal(await recv.stop('SIGTERM'), 0, recv.stderr());
    assert.equal((await spansInDatabase(db)).loadState, 'complete');
    const r = await runCli(['analyze', '--db', db, '--format', 'json'], dir, { debug: false });
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { inputs: Array<{ records: number }> };
    assert.equal(report.inputs.reduce((n, i) => n + i.records, 0), 1);
  });

  it('item 3: --out /dev/full: every export is answered 503 with Retry-After, the summary says nothing was stored, exit 4', async function () {
    if (!existsSync('/dev/full')) this.skip();
    const recv = await startReceive(['--out', '/dev/full'], dir);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const a = await postExport(recv.address, smallJsonExport(7, 1 + 7 * i), 'application/json');
      statuses.push(a.status);
      if (a.status === 503) assert.ok(a.headers['retry-after'] !== undefined, 'a 503 without Retry-After');
    }
    const status = await recv.stop('SIGTERM');
    assert.deepEqual(statuses, [503, 503, 503, 503]);
    assert.equal(status, 4, recv.stderr());
    assert.match(recv.stdout(), /received 0 span\(s\) in 0 export\(s\)/);
    assert.match(recv.stdout(), /not stored: 4 export\(s\) \(28 span\(s\)\) to file \/dev\/full: no space left on the device/);
    assert.deepEqual(contractViolations({ status, stdout: recv.stdout(), stderr: recv.stderr() }, 4), []);
  });
});
