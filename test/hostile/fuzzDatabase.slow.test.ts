import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { cliPath, runCli, type CliResult } from '../cli/runCli';
import { fixture } from '../helpers/paths';
import { contractViolations } from './corpus';
import { pick, rng } from './fuzzCases';

/**
 * Seeded fuzzing of `--db` files (issue 31): a real Phasewise database (the joined sample, loaded and
 * analysed) with bytes flipped, a block zeroed or the file cut short, then opened by analyze, sql,
 * reconcile or export in a child process (a crash must not take the test down with it). Each run must
 * keep the error contract (exit 0–4, never 5 or a signal; no DuckDB text or stack), and a refused file
 * (exit 4) must be named and left byte for byte, with nothing written beside it. A change DuckDB does
 * not notice (free space, a block it never reads) may load: the run is then checked like any other.
 * Knobs: PHASEWISE_FUZZ_DB_CASES (default 40: ≈ 1 s each), PHASEWISE_FUZZ_SEED (first seed, default 1).
 */
const CASES = Number(process.env.PHASEWISE_FUZZ_DB_CASES ?? 40);
const FIRST_SEED = Number(process.env.PHASEWISE_FUZZ_SEED ?? 1);
const TRACE = '0b71e6178914501b1e906d2ed642d4a0';
const BLOCK = 256 * 1024;

const DAMAGE: Readonly<Record<string, (b: Buffer, r: () => number) => Buffer>> = {
  flipBytes: (b, r) => {
    const out = Buffer.from(b);
    for (let i = 1 + pick(r, 8); i > 0; i--) out[pick(r, out.length)] ^= 1 + pick(r, 255);
    return out;
  },
  /** The headers and the first blocks: where the catalog and the metadata live. */
  flipNearStart: (b, r) => {
    const out = Buffer.from(b);
    out[pick(r, Math.min(out.length, 3 * BLOCK))] ^= 1 + pick(r, 255);
    return out;
  },
  zeroBlock: (b, r) => {
    const out = Buffer.from(b);
    const at = pick(r, out.length);
    out.fill(0, at, Math.min(out.length, at + 4096 * (1 + pick(r, 64))));
    return out;
  },
  truncate: (b, r) => b.subarray(0, pick(r, b.length)),
};

function fingerprint(file: string): string {
  return crypto.createHash('sha1').update(fs.readFileSync(file)).digest('hex');
}

describe(`fuzzing --db files (${CASES} seeded cases from seed ${FIRST_SEED})`, function () {
  this.timeout(900_000);
  let dir: string;
  let base: Buffer;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-fuzz-db-'));
    const db = path.join(dir, 'base.duckdb');
    const shared = fixture('shared-samples', 'joined-otel-js');
    const load = await runCli(['analyze', '--run', path.join(shared, 'k6.ndjson'), '--spans', path.join(shared, 'spans.otlp.jsonl'), '--db', db, '--format', 'json'], dir);
    assert.ok(load.status !== null && load.status <= 3, load.stderr);
    base = fs.readFileSync(db);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the error contract on every damaged database, and leaves a refused one as it was', () => {
    const failures: string[] = [];
    const outcomes: Record<string, number> = {};
    for (let seed = FIRST_SEED; seed < FIRST_SEED + CASES; seed++) {
      const r = rng(seed);
      const damage = Object.keys(DAMAGE)[pick(r, Object.keys(DAMAGE).length)];
      const caseDir = path.join(dir, `case-${seed}`);
      fs.mkdirSync(caseDir);
      const db = path.join(caseDir, 'run.duckdb');
      fs.writeFileSync(db, DAMAGE[damage](base, r));
      const commands = [
        ['analyze', '--db', db, '--format', 'json'],
        ['sql', '--db', db, 'SELECT count(*) AS n, avg(client_total_ms) AS mean FROM pairs'],
        ['reconcile', '--db', db, '--trace', TRACE, '--format', 'json'],
        ['export', '--db', db, '--out', path.join(caseDir, 'pairs.csv')],
      ];
      const args = commands[pick(r, commands.length)];
      const label = `seed ${seed} (${damage}, ${args[0]})`;
      const before = fingerprint(db);
      const env = { ...process.env };
      delete env.PHASEWISE_DEBUG;
      const child = spawnSync(process.execPath, [cliPath, ...args], { cwd: caseDir, env, encoding: 'utf8', timeout: 120_000 });
      const result: CliResult = { status: child.status, stdout: child.stdout, stderr: child.stderr };
      outcomes[`exit ${child.status ?? child.signal}`] = (outcomes[`exit ${child.status ?? child.signal}`] ?? 0) + 1;
      const problems = contractViolations(result);
      if (child.signal !== null) problems.push(`killed by ${child.signal}`);
      if (child.status === 4) {
        if (!child.stderr.includes(db)) problems.push(`exit 4 without naming the file: ${child.stderr.slice(0, 200)}`);
        if (!fs.existsSync(db) || fingerprint(db) !== before) problems.push('the refused database was modified');
        const beside = fs.readdirSync(caseDir).filter((f) => f !== 'run.duckdb');
        if (beside.length > 0) problems.push(`files left beside it: ${beside.join(', ')}`);
      }
      for (const p of problems) failures.push(`${label}: ${p}`);
      fs.rmSync(caseDir, { recursive: true, force: true });
    }
    process.stdout.write(`      db fuzz: ${CASES} damaged databases, ${JSON.stringify(outcomes)}\n`);
    assert.deepStrictEqual(failures, []);
    // The damage must be found, not only missed.
    assert.ok((outcomes['exit 4'] ?? 0) >= CASES / 4, `only ${outcomes['exit 4'] ?? 0} of ${CASES} damaged databases were refused`);
  });
});
