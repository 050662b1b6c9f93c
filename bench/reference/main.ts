/**
 * Reference outputs of the CLI, to show that a change leaves every report byte-identical.
 *
 *   npm run compile-tests
 *   node out/bench/reference/main.js write --cli OLD/dist/cli.js --out /tmp/ref-old [--runs DIR] [--only ID,…]
 *   node out/bench/reference/main.js write --cli dist/cli.js --out /tmp/ref-new [--runs DIR]
 *   node out/bench/reference/main.js compare /tmp/ref-old /tmp/ref-new
 *
 * Run both `write`s from the same directory (the repository root): reports name their input files
 * by absolute path. The 10k run is the bench generator's `bench-10k` preset, generated into `--runs`
 * (default out/bench/runs/10k) when absent; the generator is deterministic. Each output file holds
 * the command's stdout; `<file>.meta` its exit code and stderr, with the scratch directory replaced
 * by `{tmp}`. `compare` exits 1 when a file differs; a JSON file that differs byte-wise but is equal
 * after parsing is listed apart, and so is one whose numbers differ by at most 1e-12 relative: DuckDB
 * sums a mean in parallel in no fixed order, so two runs of one build differ in the last digits.
 */
import { spawnSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { isDeepStrictEqual } from 'util';
import * as os from 'os';
import * as path from 'path';
import { parseArgs as parseGenerateArgs } from '../generate/options';
import { generateRun } from '../generate/run';
import { referenceSequences, type Sequence, type Step } from './cases';

function flag(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

async function ensureBenchRun(dir: string): Promise<void> {
  if (existsSync(path.join(dir, 'spans.otlp.jsonl'))) return;
  process.stderr.write(`generating the bench-10k run into ${dir}\n`);
  await generateRun(parseGenerateArgs(['--preset', 'bench-10k', '--out', dir]));
}

function runStep(cli: string, step: Step, format: string, db: string, tmp: string): { stdout: string; meta: string } {
  const args = step.args.map((a) => (a === '{db}' ? db : a));
  const result = spawnSync(process.execPath, [cli, step.command, ...args, '--format', format], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const scrub = (text: string): string => text.split(tmp).join('{tmp}');
  return { stdout: scrub(result.stdout), meta: `exit ${result.status ?? result.signal}\n--- stderr\n${scrub(result.stderr)}` };
}

async function write(argv: readonly string[]): Promise<void> {
  const cli = path.resolve(flag(argv, '--cli') ?? 'dist/cli.js');
  const out = path.resolve(flag(argv, '--out') ?? 'out/reference');
  const runs = path.resolve(flag(argv, '--runs') ?? 'out/bench/runs/10k');
  const only = flag(argv, '--only')?.split(',');
  await ensureBenchRun(runs);
  const sequences = referenceSequences({ samples: path.resolve('samples'), shared: '/work/shared/samples', bench10k: runs, contracts: path.resolve('bench/reference/contracts') });
  for (const seq of sequences.filter((s) => only === undefined || only.includes(s.id))) writeSequence(cli, out, seq);
}

function writeSequence(cli: string, out: string, seq: Sequence): void {
  const dir = path.join(out, seq.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'phasewise-ref-'));
  const t0 = Date.now();
  try {
    for (const step of seq.steps) {
      for (const format of step.formats) {
        const { stdout, meta } = runStep(cli, step, format, path.join(tmp, 'run.duckdb'), tmp);
        const file = path.join(dir, `${step.id}.${format}`);
        writeFileSync(file, stdout);
        writeFileSync(`${file}.meta`, meta);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stderr.write(`${seq.id}: ${seq.steps.length} steps in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(dir, path.join(prefix, e.name)) : [path.join(prefix, e.name)],
  );
}

function compare(a: string, b: string): number {
  const left = new Set(listFiles(a));
  const right = new Set(listFiles(b));
  const missing = [...left].filter((f) => !right.has(f));
  const extra = [...right].filter((f) => !left.has(f));
  const differ: string[] = [];
  const jsonEqual: string[] = [];
  const jsonClose: string[] = [];
  let same = 0;
  for (const f of [...left].filter((x) => right.has(x)).sort()) {
    const x = readFileSync(path.join(a, f));
    const y = readFileSync(path.join(b, f));
    if (x.equals(y)) {
      same++;
      continue;
    }
    const parsed = f.endsWith('.json') ? parseBoth(x.toString('utf8'), y.toString('utf8')) : undefined;
    if (parsed !== undefined && isDeepStrictEqual(parsed[0], parsed[1])) jsonEqual.push(f);
    else if (parsed !== undefined && closeValues(parsed[0], parsed[1])) jsonClose.push(f);
    else differ.push(f);
  }
  process.stdout.write(
    `${same} identical, ${jsonEqual.length} JSON equal after parsing, ${jsonClose.length} JSON equal within 1e-12, ` +
      `${differ.length} differ, ${missing.length} missing, ${extra.length} extra\n`,
  );
  const lists = [['differ', differ], ['json-equal-after-parse', jsonEqual], ['json-within-1e-12', jsonClose], ['missing', missing], ['extra', extra]] as const;
  for (const [label, list] of lists) {
    for (const f of list) process.stdout.write(`${label}: ${f}\n`);
  }
  return differ.length + missing.length + extra.length > 0 ? 1 : 0;
}

function parseBoth(x: string, y: string): [unknown, unknown] | undefined {
  try {
    return [JSON.parse(x), JSON.parse(y)];
  } catch {
    return undefined;
  }
}

/** Same structure and keys in the same order; numbers equal to a relative 1e-12. */
function closeValues(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) => closeValues((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'write') await write(rest);
  else if (command === 'compare' && rest.length === 2) process.exitCode = compare(rest[0], rest[1]);
  else throw new Error('usage: main.js write --cli CLI.js --out DIR [--runs DIR] [--only ID,…] | compare DIR_A DIR_B');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
