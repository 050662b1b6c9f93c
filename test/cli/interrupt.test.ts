import * as assert from 'assert';
import { spawn } from 'child_process';
import * as path from 'path';
import { repoRoot, sharedSamplesDir } from '../helpers/paths';
import { cliPath } from './runCli';

describe('phasewise analyze: Ctrl-C', function () {
  this.timeout(60_000);

  it('interrupts DuckDB and exits 130', async () => {
    const dir = path.join(sharedSamplesDir, 'joined-otel-js');
    const child = spawn(process.execPath, [cliPath, 'analyze', '--progress', '--run', path.join(dir, 'k6.ndjson'), '--spans', path.join(dir, 'spans.otlp.jsonl')], {
      cwd: repoRoot,
    });
    let stderr = '';
    let stdout = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // Interrupt once while the span file is being loaded (the progress line says so), not before or
      // after. Once only: a second Ctrl-C means "quit at once", which ends the process by the signal.
      if (!sent && /loading server file spans\.otlp\.jsonl/.test(stderr) && child.exitCode === null) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.strictEqual(status, 130, stderr);
    assert.match(stderr, /phasewise: interrupted/);
    assert.strictEqual(stdout, '', 'no report after an interruption');
  });
});
