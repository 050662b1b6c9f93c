import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../../../src/cli/dispatch';
import { BASE_YAML, edit } from './helpers';

/** Captures what a command writes to stdout and stderr. */
async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  // The commands wait for the write's callback (writeStdout), so the stand-in calls it.
  const fake = (sink: string[]) => ((s: string | Uint8Array, ...rest: unknown[]) => {
    sink.push(String(s));
    const done = rest.find((r): r is () => void => typeof r === 'function');
    done?.();
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = fake(out);
  process.stderr.write = fake(err);
  try {
    const code = await fn();
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}

const runValidate = (argv: string[]): Promise<number> => main(['validate', ...argv]);
const runK6 = (argv: string[]): Promise<number> => main(['k6', ...argv]);

describe('phasewise validate / k6 commands', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-contract-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints file:line:col: severity code message and exits 1 on errors', async () => {
    const file = path.join(dir, 'bad.loadcontract.yaml');
    // Line 10 is the plateau (warning), line 12 the warm-up (error: not shorter than the plateau).
    fs.writeFileSync(file, edit(edit(BASE_YAML, 'plateau: 10m', 'plateau: 5m'), 'warmup_exclude: 1m', 'warmup_exclude: 5m'));
    const r = await capture(() => runValidate([file]));
    assert.strictEqual(r.code, 1);
    const lines = r.out.trim().split('\n');
    assert.strictEqual(lines.length, 2);
    assert.match(lines[0], new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:10:12: warning plateau-too-short `));
    assert.match(lines[1], /:12:19: error warmup-exceeds-plateau /);
    assert.match(r.err, /1 error, 1 warning/);
  });

  it('exits 0 for warnings only, 1 with --strict, 4 without files', async () => {
    const file = path.join(dir, 'warn.loadcontract.yaml');
    fs.writeFileSync(file, edit(BASE_YAML, 'plateau: 10m', 'plateau: 5m'));
    assert.strictEqual((await capture(() => runValidate([file]))).code, 0);
    assert.strictEqual((await capture(() => runValidate(['--strict', file]))).code, 1);
    assert.strictEqual((await capture(() => runValidate([]))).code, 4);
  });

  it('reports a missing file as bad input (exit 4, like analyze), naming it', async () => {
    const missing = path.join(dir, 'nope.loadcontract.yaml');
    const r = await capture(() => runValidate([missing]));
    assert.strictEqual(r.code, 4);
    assert.strictEqual(r.out, '');
    assert.match(r.err, /nope\.loadcontract\.yaml: expected a load contract file .*, found no such file/);
  });

  it('k6 writes the script with --out and refuses a contract with errors (exit 4)', async () => {
    const good = path.join(dir, 'good.loadcontract.yaml');
    fs.writeFileSync(good, BASE_YAML);
    const out = path.join(dir, 'script.js');
    assert.strictEqual((await capture(() => runK6([good, '--out', out]))).code, 0);
    assert.match(fs.readFileSync(out, 'utf8'), /"executor": "constant-arrival-rate"/);
    const bad = path.join(dir, 'bad2.loadcontract.yaml');
    fs.writeFileSync(bad, edit(BASE_YAML, 'warmup_exclude: 1m', 'warmup_exclude: 10m'));
    const r = await capture(() => runK6([bad]));
    assert.strictEqual(r.code, 4);
    assert.strictEqual(r.out, '');
    assert.match(r.err, /warmup-exceeds-plateau/);
  });
});
