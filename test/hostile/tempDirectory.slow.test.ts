/**
 * Each process's temporary files in a directory of its own (issue 31, item 14 and the deliverable):
 * two real CLI processes spilling at once no longer crash each other; the directory is gone when the
 * process ends, by exit, SIGINT or SIGTERM; one a killed process left is swept by the next start,
 * never a live process's nor another host's. Every child gets a TMPDIR of the test's own.
 */
import { strict as assert } from 'assert';
import { spawn, spawnSync } from 'child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_OPTIONS } from '../../bench/generate/options';
import { generateRun } from '../../bench/generate/run';
import { cliPath, runsAsRoot, UNPRIVILEGED_ID, type CliResult } from '../cli/runCli';
import { fixture } from '../helpers/paths';
import { hostTag } from '../../src/core/tempDirectory';

interface Child {
  done: Promise<CliResult & { signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

function start(args: string[], cwd: string, tmp: string): Child {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  delete env.PHASEWISE_DEBUG;
  const child = spawn(process.execPath, [cliPath, ...args], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  return {
    done: new Promise((resolve) =>
      child.on('close', (status, signal) => {
        clearTimeout(timer);
        resolve({ status, signal, stdout, stderr });
      }),
    ),
    kill: (signal) => child.kill(signal),
  };
}

const ours = (tmp: string): string[] => readdirSync(tmp).filter((n) => n.startsWith('phasewise-'));

/** Resolves once `tmp` holds a phasewise directory with something in it (the process is writing there). */
async function untilWriting(tmp: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const dirs = ours(tmp);
    if (dirs.some((d) => readdirSync(path.join(tmp, d)).length > 0)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing written under ${tmp} in ${ms} ms`);
}

describe('hostile temporary files: one directory per process (issue 31 item 14)', function () {
  this.timeout(600_000);
  let dir: string;
  let run: { k6: string; spans: string };
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pw-hostile-temp-'));
    // 12k requests (≈ 105 MB): at --memory-limit 128MB --threads 1 its load and analysis spill.
    const generated = await generateRun({ ...DEFAULT_OPTIONS, seed: 7, rate: 20, durationS: 600, outDir: path.join(dir, 'run') });
    run = { k6: generated.files.k6, spans: generated.files.spans };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const args = (): string[] => ['analyze', '--run', run.k6, '--spans', run.spans, '--memory-limit', '128MB', '--threads', '1', '--format', 'json'];

  it('two analyses spilling at once both exit 0 with the same report, and leave nothing in TMPDIR', async () => {
    const tmp = mkdtempSync(path.join(dir, 'tmp-'));
    const [a, b] = await Promise.all([start(args(), dir, tmp).done, start(args(), dir, tmp).done]);
    assert.equal(a.status, 0, `${a.signal ?? ''} ${a.stderr}`);
    assert.equal(b.status, 0, `${b.signal ?? ''} ${b.stderr}`);
    const strip = (s: string): unknown => {
      const r = JSON.parse(s) as Record<string, unknown>;
      delete r.generated_at;
      delete r.timings;
      return r.join;
    };
    assert.deepEqual(strip(a.stdout), strip(b.stdout));
    assert.deepEqual(readdirSync(tmp), []);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} during a load removes the process's directory`, async () => {
      const tmp = mkdtempSync(path.join(dir, 'tmp-'));
      const child = start(args(), dir, tmp);
      await untilWriting(tmp);
      child.kill(signal);
      const r = await child.done;
      assert.ok(r.signal === signal || r.status === 130, `exit ${r.status} signal ${r.signal}: ${r.stderr}`);
      assert.deepEqual(readdirSync(tmp), []);
    });
  }

  it("a killed process's directory is swept by the next start; a live process's and another host's are kept", async () => {
    const tmp = mkdtempSync(path.join(dir, 'tmp-'));
    const killed = start(args(), dir, tmp);
    await untilWriting(tmp);
    killed.kill('SIGKILL');
    await killed.done;
    const left = ours(tmp);
    assert.equal(left.length, 1, 'SIGKILL left no directory to sweep');
    const gone = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
    const dead = `phasewise-${hostTag()}-${gone}-aaaaaa`;
    const live = `phasewise-${hostTag()}-${process.pid}-bbbbbb`;
    const far = `phasewise-0000beef-${gone}-cccccc`;
    for (const d of [dead, live, far]) {
      mkdirSync(path.join(tmp, d, 'duckdb-1'), { recursive: true });
      writeFileSync(path.join(tmp, d, 'duckdb-1', 'duckdb_temp_storage_DEFAULT-0.tmp'), 'x');
    }
    const small = await start(['analyze', '--run', fixture('shared-samples', 'joined-otel-js', 'k6.ndjson')], dir, tmp).done;
    assert.equal(small.status, 0, small.stderr);
    assert.ok(!existsSync(path.join(tmp, left[0])), 'the killed process\'s directory is still there');
    assert.ok(!existsSync(path.join(tmp, dead)));
    assert.ok(existsSync(path.join(tmp, live, 'duckdb-1', 'duckdb_temp_storage_DEFAULT-0.tmp')), 'a live process\'s directory was swept');
    assert.ok(existsSync(path.join(tmp, far)), "another host's directory was swept");
    assert.deepEqual(ours(tmp).sort(), [far, live].sort());
  });

  it('a TMPDIR that does not exist is bad input naming it (exit 4), not an internal error', async () => {
    const missing = path.join(dir, 'no-such-folder');
    const r = await start(['analyze', '--run', fixture('shared-samples/joined-otel-js/k6.ndjson'), '--format', 'json'], dir, missing).done;
    assert.equal(r.status, 4, r.stderr);
    assert.match(r.stderr, new RegExp(`^phasewise: ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: expected a folder for temporary files .*set TMPDIR.*, found no such folder`, 'm'));
    assert.doesNotMatch(r.stderr, /XXXXXX|internal error/);
  });

  it("another user's stale directory it cannot remove is left, and the command goes on", async function () {
    if (!runsAsRoot()) this.skip();
    chmodSync(dir, 0o755);
    const tmp = mkdtempSync(path.join(dir, 'tmp-other-user-'));
    chmodSync(tmp, 0o1777);
    // Left by a process of root that is gone (a PID above the kernel's maximum is never alive).
    const stale = path.join(tmp, `phasewise-${hostTag()}-4194305-abcdef`);
    mkdirSync(path.join(stale, 'duckdb-1'), { recursive: true });
    writeFileSync(path.join(stale, 'duckdb-1', 'spill.tmp'), 'x');
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
    delete env.PHASEWISE_DEBUG;
    const r = spawnSync(process.execPath, [cliPath, 'analyze', '--run', fixture('shared-samples/joined-otel-js/k6.ndjson'), '--format', 'json'], { cwd: tmp, env, uid: UNPRIVILEGED_ID, gid: UNPRIVILEGED_ID, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(stale), 'root\'s directory was removed by another user');
  });
});
