/**
 * Ctrl-C or SIGTERM while a reader copies a file line by line (issue 31, item 18): the copy is
 * removed with the process's temporary directory. A real CLI process on a 150 MB k6 file that must
 * be read line by line (a malformed line and a blank one in its middle), signalled as soon as the copy is being written.
 */
import { strict as assert } from 'assert';
import { spawn } from 'child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { cliPath } from '../cli/runCli';
import { fixture } from '../helpers/paths';

/** The line copy being written: `phasewise-…/lines-N.txt` (or an older build's `phasewise-lines-…`), when it has bytes. */
function copyInProgress(tmp: string): boolean {
  for (const name of readdirSync(tmp)) {
    const full = path.join(tmp, name);
    if (name.startsWith('phasewise-lines-') && statSync(full).size > 0) return true;
    if (name.startsWith('phasewise-') && statSync(full).isDirectory()) {
      for (const inner of readdirSync(full)) if (inner.startsWith('lines-') && statSync(path.join(full, inner)).size > 0) return true;
    }
  }
  return false;
}

describe('hostile interruption of a line copy (issue 31 item 18)', function () {
  this.timeout(300_000);
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pw-hostile-copy-'));
    file = path.join(dir, 'k6.ndjson');
    const sample = readFileSync(fixture('shared-samples', 'joined-otel-js', 'k6.ndjson'));
    const fd = openSync(file, 'w');
    // A malformed line and a blank one in the middle: only the line-by-line copy numbers such a file exactly.
    for (let i = 0; i < 300; i++) writeSync(fd, i === 150 ? Buffer.concat([Buffer.from('{"metric": broken\n\n'), sample]) : sample);
    closeSync(fd);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} during the copy leaves nothing in TMPDIR`, async () => {
      const tmp = mkdtempSync(path.join(dir, 'tmp-'));
      const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
      delete env.PHASEWISE_DEBUG;
      const child = spawn(process.execPath, [cliPath, 'analyze', '--run', file], { cwd: dir, env, stdio: 'ignore' });
      const closed = new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (status, sig) => resolve({ status, signal: sig })));
      const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      try {
        const until = Date.now() + 100_000;
        while (!copyInProgress(tmp)) {
          assert.ok(Date.now() < until, 'the copy never started');
          await new Promise((r) => setTimeout(r, 20));
        }
        child.kill(signal);
        const r = await closed;
        assert.ok(r.signal === signal || r.status === 130, `exit ${r.status}, signal ${r.signal}`);
        assert.deepEqual(readdirSync(tmp), []);
      } finally {
        clearTimeout(killer);
      }
    });
  }
});
