/**
 * `npm run bench [-- --sizes 10k,100k] [--inputs compact,sdk,real] [--repeat N] [--data DIR]
 *   [--threads N] [--memory-limit 1GB] [--methods load,reanalyze,reanalyze-groups,reanalyze-phases,load-memory,extract,script,compare,export]
 *   [--delete-runs] [--results FILE]`
 * Generates (or reuses) the bench runs of each input (generateCache.ts) and times, side by side and
 * each in its own process: (a) Phasewise first load + analysis into a fresh DuckDB file,
 * (b) re-analysis of that file with another contract (also with --group-by model,route; (b′) with another
 * phase mapping; bench/run/reanalysis.ts compares these with another build's), (c) DuckDB's
 * bare extraction of the same fields, (d) the straightforward Node script. With --repeat N the
 * methods run N times in turn (a b b′ c d a b b′ c d …) and the table gives medians. Asserts that
 * (a), (b), (b′) and (d) give the envelope p95 of expected.json, prints the table and writes
 * bench/RESULTS.md: this machine's section, the sizes and inputs measured now replacing the earlier
 * ones (results.ts mergeResults), with wall and CPU seconds per stage (stageClock.ts). Exit 1 when an
 * envelope disagrees or a method failed.
 * `compare` and `export` (compareExport.ts) time the built CLI on the input's loaded database: compare
 * against a degraded-pool run of the same preset (target ≤ 2 s at 100k), export of its pairs to
 * Parquet; with only these methods no run files are generated or read (the databases must exist).
 */
import { execFile } from 'child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { ChildResult } from './child';
import { measureContractTyping, measureContractValidation, type ActivationResult } from './editor';
import { webviewLines, type WebviewBenchResult } from './webview';
import { contractFormLines, type ContractFormBenchResult } from './contractForm';
import type { EditorLoopResult } from './editorLoop';
import { DEFAULT_MEMORY_LIMIT } from '../../src/core/store/duckStore';
import { ensureRun, INPUTS, SIZES, type Input, type Size } from './generateCache';
import { compareExportLines, measureCompareExport, type CliTiming } from './compareExport';
import { loadAverage, machineKey, machineLines, mergeResults, ratioLine, stageTable, table, type Measurement, type SizeSummary } from './results';

const REPO = path.resolve(__dirname, '..', '..', '..');
const OUT_BENCH = path.join(REPO, 'out', 'bench');
const TOLERANCE_MS = 1e-6;
/** Methods timed on an already loaded database with the built CLI (compareExport.ts). */
const CLI_METHODS = ['compare', 'export'];
const failures: string[] = [];

interface BenchArgs {
  sizes: Size[];
  inputs: Input[];
  methods: string[];
  repeat: number;
  data: string;
  threads: number;
  memoryLimit: string;
  results: string;
  /** Delete each input's run and database once it has been measured (the 1M inputs are ≈ 9 GB each). */
  deleteRuns: boolean;
}

function parseBenchArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = {
    sizes: [...SIZES],
    inputs: [...INPUTS],
    methods: ['load', 'reanalyze', 'reanalyze-groups', 'reanalyze-phases', 'load-memory', 'extract', 'script', ...CLI_METHODS],
    repeat: 1,
    data: path.join(OUT_BENCH, 'runs'),
    // Both cores: DuckDB parallelises JSON parsing per file block; the JS thread mostly waits.
    threads: os.cpus().length,
    // Keeps DuckDB + Node under the 2 GB peak RSS target; larger states spill to temp_directory.
    memoryLimit: DEFAULT_MEMORY_LIMIT,
    results: path.join(REPO, 'bench', 'RESULTS.md'),
    deleteRuns: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    if (argv[i] === '--sizes') {
      args.sizes = value.split(',').map((s) => s.trim().toLowerCase()).map((s) => {
        if (!(SIZES as readonly string[]).includes(s)) throw new Error(`--sizes expects a list of ${SIZES.join(', ')}, got '${s}'`);
        return s as Size;
      });
      i++;
    } else if (argv[i] === '--inputs') {
      args.inputs = value.split(',').map((s) => s.trim()).map((s) => {
        if (!(INPUTS as readonly string[]).includes(s)) throw new Error(`--inputs expects a list of ${INPUTS.join(', ')}, got '${s}'`);
        return s as Input;
      });
      i++;
    } else if (argv[i] === '--repeat') {
      args.repeat = Number(value);
      if (!Number.isInteger(args.repeat) || args.repeat < 1) throw new Error(`--repeat expects a positive integer, got '${value}'`);
      i++;
    } else if (argv[i] === '--data') {
      args.data = path.resolve(value);
      i++;
    } else if (argv[i] === '--methods') {
      args.methods = value.split(',');
      i++;
    } else if (argv[i] === '--threads') {
      args.threads = Number(value);
      i++;
    } else if (argv[i] === '--memory-limit') {
      args.memoryLimit = value;
      i++;
    } else if (argv[i] === '--delete-runs') {
      args.deleteRuns = true;
    } else if (argv[i] === '--results') {
      args.results = path.resolve(value);
      i++;
    } else {
      throw new Error(`unknown option '${argv[i]}'`);
    }
  }
  return args;
}

function runNode(script: string, args: string[], nodeFlags: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...nodeFlags, script, ...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(script)} ${args.join(' ')} failed: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

async function runChild(method: string, dir: string, db: string, a: BenchArgs): Promise<ChildResult> {
  // The script keeps every span of every trace in Maps: give it the heap it needs at 1M.
  const flags = method === 'script' ? ['--max-old-space-size=8192'] : [];
  const out = await runNode(path.join(__dirname, 'child.js'), [method, dir, db, String(a.threads), a.memoryLimit], flags);
  return JSON.parse(out.trim().split('\n').pop() as string) as ChildResult;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * One input at one size: every method `repeat` times in turn, so that each method sees the same
 * machine load as the others; a method's row is its median run (wall time), with every run's wall
 * time kept beside it.
 */
async function benchInput(size: Size, input: Input, a: BenchArgs): Promise<SizeSummary> {
  const dir = await ensureRun(input, size, a.data, log);
  const inputBytes = statSync(path.join(dir, 'k6.ndjson')).size + statSync(path.join(dir, 'spans.otlp.jsonl')).size;
  const dbDir = path.join(a.data, 'db');
  mkdirSync(dbDir, { recursive: true });
  const db = path.join(dbDir, `${input}-${size}.duckdb`);
  const runs = new Map<string, Measurement[]>();
  for (let round = 0; round < a.repeat; round++) {
    let loaded = !a.methods.includes('load');
    for (const method of a.methods) {
      if (method === 'load') for (const f of [db, `${db}.wal`]) rmSync(f, { force: true });
      // Re-analysis needs the database a successful (a) of this round wrote: a failed load leaves a partial one.
      if (method.startsWith('reanalyze') && (!existsSync(db) || !loaded)) continue;
      const loadAvg = loadAverage();
      log(`${size} ${input}: ${method}${a.repeat > 1 ? ` (${round + 1}/${a.repeat})` : ''} … (load average ${loadAvg})`);
      try {
        const result = await runChild(method, dir, db, a);
        log(`${size} ${input}: ${method} ${result.wallSeconds.toFixed(2)} s, peak RSS ${result.maxRssMB.toFixed(0)} MB`);
        runs.set(method, [...(runs.get(method) ?? []), { size, input, inputBytes, loadAvg, result }]);
        if (method === 'load') loaded = true;
      } catch (err) {
        // A failed method (e.g. out of memory at 1M) is reported in the table, not allowed to lose the others.
        const message = err instanceof Error ? err.message : String(err);
        log(`${size} ${input}: ${method} FAILED: ${message.split('\n').slice(0, 3).join(' ')}`);
        failures.push(`${size} ${input} ${method}: ${message.split('\n')[0].slice(0, 300)}`);
        writeFileSync(path.join(OUT_BENCH, `failure-${input}-${size}-${method}.txt`), message);
      }
    }
  }
  const rows: Measurement[] = [];
  for (const method of a.methods) {
    const list = runs.get(method);
    if (!list || list.length === 0) continue;
    const mid = median(list.map((m) => m.result.wallSeconds));
    const pick = list.reduce((best, m) => (Math.abs(m.result.wallSeconds - mid) < Math.abs(best.result.wallSeconds - mid) ? m : best));
    rows.push({ ...pick, wallSeconds: list.map((m) => m.result.wallSeconds), medianWall: mid, maxRssMB: Math.max(...list.map((m) => m.result.maxRssMB)) });
  }
  const expected = (JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { matched_succeeded: { network_envelope_ms: { p95: number } } })
    .matched_succeeded.network_envelope_ms.p95;
  // Every run's envelope is checked, not only the median's. It does not depend on the phase mapping, so (b′) must agree too.
  const all = [...runs.values()].flat();
  const checks = all.filter((m) => m.result.envelopeP95 !== undefined).map((m) => [m.result.method, m.result.envelopeP95 as number] as const);
  const ok = checks.every(([, v]) => Math.abs(v - expected) <= TOLERANCE_MS);
  const byMethod = (m: string): number | undefined => checks.find(([k]) => k === m)?.[1];
  const envelope = { phasewise: byMethod('load'), inMemory: byMethod('load-memory'), script: byMethod('script'), reanalysis: byMethod('reanalyze'), reanalysisPhases: byMethod('reanalyze-phases'), expected };
  const note = Object.entries(envelope).filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${(v as number).toFixed(9)}`).join(', ') +
    ` ms (tolerance ${TOLERANCE_MS} ms${checks.length > 4 ? `, all ${checks.length} runs checked` : ''})`;
  if (a.deleteRuns) {
    for (const f of [dir, db, `${db}.wal`]) rmSync(f, { recursive: true, force: true });
    log(`${size} ${input}: deleted ${dir} and its database (--delete-runs)`);
  }
  return { measuredAt: new Date().toISOString(), size, input, inputBytes, rows, envelope: { ...envelope, ok, note } };
}

/** The extension host's event loop while the editor opens a run and reads its views, per size (editorLoop.ts, worker mode). */
async function editorLoopFigures(sizes: readonly string[], dataDir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const size of sizes) {
    try {
      // The SDK shape: the file an editor user opens most (what a sink or the probe's receiver stores).
      const r = JSON.parse((await runNode(path.join(__dirname, 'editorLoop.js'), [path.join(dataDir, `sdk-${size}`)])).trim()) as EditorLoopResult;
      const gap = r.longestGaps[0];
      lines.push(
        `- Open Run and its views (run worker), ${size} SDK shape: extension host event loop held at most ${r.maxBlockedMs.toFixed(0)} ms ` +
          `(target ≤ 50 ms; longest gap during "${gap?.during ?? 'n/a'}") over ${r.wallSeconds.toFixed(1)} s; load avg ${r.loadAverage1m.toFixed(1)}` +
          (r.steps.length > 0 ? `; per step (wall s / longest hold ms): ${r.steps.map((x) => `${x.step} ${x.wallSeconds.toFixed(2)} / ${x.maxBlockedMs}`).join('; ')}` : ''),
      );
    } catch (err) {
      lines.push(`- Open Run and its views (run worker), ${size}: FAILED (${(err instanceof Error ? err.message : String(err)).split('\n')[0]})`);
    }
  }
  return lines;
}

async function editorFigures(sizes: readonly string[], dataDir: string): Promise<string[]> {
  const lines: string[] = [];
  if (existsSync(path.join(REPO, 'dist', 'extension.js'))) {
    const r = JSON.parse((await runNode(path.join(__dirname, 'editor.js'), [])).trim()) as ActivationResult;
    lines.push(
      `- Extension activation: require ${r.requireMs.toFixed(1)} ms + activate() ${r.activateMs.toFixed(1)} ms = ${(r.requireMs + r.activateMs).toFixed(1)} ms ` +
        `(target ≤ 50 ms), ${r.commands} commands registered, DuckDB loaded: ${r.duckdbLoaded ? 'YES (should not)' : 'no'}`,
    );
    if (r.duckdbLoaded) throw new Error('activation loaded @duckdb: DuckDB must load on first use only');
  } else {
    lines.push('- Extension activation: not measured (dist/extension.js missing: run npm run build)');
  }
  lines.push(`- Contract validation per change: ${measureContractValidation(OUT_BENCH).text}`);
  lines.push(...(await measureContractTyping(OUT_BENCH)));
  lines.push(...(await editorLoopFigures(sizes, dataDir)));
  lines.push(...(await webviewFigures(dataDir)));
  lines.push(...(await contractFormFigures()));
  return lines;
}

/** The contract form's first paint and keystroke → update, in Chromium, in their own process (contractForm.ts). */
async function contractFormFigures(): Promise<string[]> {
  try {
    const r = JSON.parse((await runNode(path.join(__dirname, 'contractForm.js'), [])).trim()) as ContractFormBenchResult;
    return contractFormLines(r);
  } catch (err) {
    return [`- Contract form figures: not measured (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`];
  }
}

/** The webview figures, in Chromium, in their own process (webview.ts). */
async function webviewFigures(dataDir: string): Promise<string[]> {
  try {
    const r = JSON.parse((await runNode(path.join(__dirname, 'webview.js'), ['--data', dataDir])).trim()) as WebviewBenchResult;
    return webviewLines(r);
  } catch (err) {
    return [`- Webview figures: not measured (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`];
  }
}

function duckdbVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'node_modules', '@duckdb', 'node-api', 'package.json'), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return 'unknown';
  }
}

/** Writes the results file with this machine's section merged (results.ts mergeResults). */
function writeResults(a: BenchArgs, summaries: SizeSummary[], machine: string[], editor: string[], command: string): void {
  const existing = existsSync(a.results) ? readFileSync(a.results, 'utf8') : undefined;
  writeFileSync(a.results, mergeResults(existing, { key: machineKey(), machine, commands: [command], summaries, editor }));
}

/** compare and export on every size and input's loaded database, `repeat` rounds in turn. */
async function cliFigures(methods: readonly string[], a: BenchArgs): Promise<string[]> {
  if (methods.length === 0) return [];
  const lines: string[] = [];
  for (const size of a.sizes) {
    for (const input of a.inputs) {
      const rounds: CliTiming[][] = [];
      try {
        for (let round = 0; round < a.repeat; round++) {
          const r = await measureCompareExport(methods, a.data, input, size, log);
          for (const t of r) log(`${size} ${input}: ${t.method} ${t.wallSeconds.toFixed(2)} s wall, ${t.cpuSeconds.toFixed(2)} s CPU (load average ${t.loadAvg}); ${t.detail}`);
          rounds.push(r);
        }
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log(`${size} ${input}: ${methods.join(',')} FAILED: ${message.split('\n')[0]}`);
        failures.push(`${size} ${input} ${methods.join(',')}: ${message.split('\n')[0].slice(0, 300)}`);
      }
      lines.push(...compareExportLines(size, input, rounds));
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const a = parseBenchArgs(process.argv.slice(2));
  log(`phasewise bench: sizes ${a.sizes.join(', ')}; inputs ${a.inputs.join(', ')}; ${a.repeat} run(s) each; DuckDB threads ${a.threads}, memory_limit ${a.memoryLimit}; data in ${a.data}`);
  const summaries: SizeSummary[] = [];
  const machine = machineLines(duckdbVersion());
  const methods = process.argv.includes('--methods') ? ` --methods ${a.methods.join(',')}` : '';
  const command = `npm run bench -- --sizes ${a.sizes.join(',')} --inputs ${a.inputs.join(',')}${a.repeat > 1 ? ` --repeat ${a.repeat}` : ''}${methods}${a.deleteRuns ? ' --delete-runs' : ''}`;
  const cliMethods = a.methods.filter((m) => CLI_METHODS.includes(m));
  a.methods = a.methods.filter((m) => !CLI_METHODS.includes(m));
  for (const size of a.sizes) {
    for (const input of a.inputs) {
      if (a.methods.length === 0) continue;
      summaries.push(await benchInput(size, input, a));
      // Written after each input so that a long 1M run leaves the smaller results behind.
      writeResults(a, summaries, machine, [], command);
    }
  }
  const cli = await cliFigures(cliMethods, a);
  const editorLines = a.methods.length === 0 ? [] : a.inputs.includes('sdk') ? await editorFigures(a.sizes, a.data) : ['- (editor figures are measured on the SDK input)'];
  const editor = [...cli, ...editorLines, ...failures.map((f) => `- FAILED: ${f}`)];
  log('');
  const stages = ['load', 'load-memory', 'reanalyze', 'reanalyze-phases'].flatMap((m) => stageTable(summaries, m).map((l, i) => (i === 0 ? `${m}: ${l}` : l)));
  for (const line of [...machine, '', ...table(summaries), '', ...summaries.map((s) => `${s.size} ${s.input}: ${ratioLine(s)}`), '', ...stages, '', ...editor]) log(line);
  for (const s of summaries) log(`${s.size} ${s.input}: envelope p95 ${s.envelope.ok ? 'OK' : 'MISMATCH'}: ${s.envelope.note}`);
  writeResults(a, summaries, machine, editor, command);
  log(`wrote ${path.relative(REPO, a.results)}`);
  if (summaries.some((s) => !s.envelope.ok) || failures.length > 0) {
    process.stderr.write('envelope p95 mismatch between methods, or a method failed (see above)\n');
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(2);
});
