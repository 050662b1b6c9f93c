/**
 * The bench's `compare` and `export` methods (issue 18), each the built CLI in its own process, timed
 * with /usr/bin/time (wall, user+system CPU, peak RSS):
 * - compare: `phasewise compare` of the input's loaded database (BASE) against the same preset with
 *   the GPU pool degraded to 80 % of its slots from the start (HEAD, generated and loaded once into
 *   `<data>/db/<input>-<size>-degraded.duckdb`, then reused), both already loaded (target ≤ 2 s at 100k);
 * - export: `phasewise export --db` of the input's database to Parquet (1M pairs: the 1m size).
 * Both need the input's database (`<data>/db/<input>-<size>.duckdb`, written by the load method or by
 * `phasewise analyze --db`); its run files are not read.
 */
import { execFile } from 'child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { emptyScenario } from '../generate/scenario';
import { generateRun } from '../generate/run';
import { presetOptions, type Input, type Size } from './generateCache';
import { loadAverage } from './results';

const REPO = path.resolve(__dirname, '..', '..', '..');
const CLI = path.join(REPO, 'dist', 'cli.js');
/** The degraded HEAD: the pool keeps this share of its slots for the whole run. */
const DEGRADED_POOL = 0.8;

export interface CliTiming {
  method: 'compare' | 'export';
  wallSeconds: number;
  cpuSeconds: number;
  maxRssMB: number;
  loadAvg: string;
  exit: number;
  /** compare: metric/stat pairs moved; export: rows written. */
  detail: string;
}

/** Runs the built CLI under /usr/bin/time; resolves with its exit code, stdout and the timing line. */
function timedCli(args: string[]): Promise<{ exit: number; stdout: string; wall: number; cpu: number; rssMB: number }> {
  return new Promise((resolve, reject) => {
    execFile('/usr/bin/time', ['-f', 'PWTIME %e %U %S %M', process.execPath, CLI, ...args], { maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      const m = /PWTIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      if (!m) {
        reject(new Error(`phasewise ${args.join(' ')}: no timing (${stderr.slice(0, 500) || err?.message})`));
        return;
      }
      const exit = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1;
      if (exit > 2) {
        reject(new Error(`phasewise ${args.join(' ')} exited ${exit}: ${stderr.slice(0, 500)}`));
        return;
      }
      resolve({ exit, stdout, wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), rssMB: Number(m[4]) / 1024 });
    });
  });
}

export function databasePath(dataDir: string, input: Input, size: Size, suffix = ''): string {
  return path.join(dataDir, 'db', `${input}-${size}${suffix}.duckdb`);
}

/** HEAD of the compare method: generated and loaded once (the run files are deleted once loaded). */
async function ensureDegraded(dataDir: string, input: Input, size: Size, log: (line: string) => void): Promise<string> {
  const db = databasePath(dataDir, input, size, '-degraded');
  if (existsSync(db)) return db;
  if (input === 'real') throw new Error('compare: the real input has no degraded variant (use compact or sdk)');
  const outDir = path.join(dataDir, `${input}-${size}-degraded`);
  log(`${size} ${input}: generating the degraded-pool HEAD (pool at ${DEGRADED_POOL} of its slots) …`);
  const run = await generateRun({ ...presetOptions(size, input, dataDir), outDir, runId: `bench-${size}-degraded`, scenario: { ...emptyScenario(), degrade: [{ kind: 'pool', atS: 0, factor: DEGRADED_POOL }] } });
  mkdirSync(path.dirname(db), { recursive: true });
  log(`${size} ${input}: loading it into ${db} …`);
  await timedCli(['analyze', '--run', run.files.k6, '--spans', run.files.spans, '--db', db, '--quiet']);
  rmSync(outDir, { recursive: true, force: true });
  return db;
}

/** One round of the requested methods on one input and size. */
export async function measureCompareExport(methods: readonly string[], dataDir: string, input: Input, size: Size, log: (line: string) => void): Promise<CliTiming[]> {
  const base = databasePath(dataDir, input, size);
  if (!existsSync(base)) throw new Error(`${base} is missing: run the load method (or phasewise analyze --db) first`);
  const out: CliTiming[] = [];
  if (methods.includes('compare')) {
    const head = await ensureDegraded(dataDir, input, size, log);
    const loadAvg = loadAverage();
    const r = await timedCli(['compare', base, head, '--format', 'json']);
    const c = JSON.parse(r.stdout) as { moved: Array<{ metric: string; stat: string }>; resamples: number };
    const moved = c.moved.map((m) => `${m.metric}.${m.stat}`);
    if (!moved.includes('gpu_queue_ms.p95')) throw new Error(`compare did not name the queue: moved ${moved.join(', ') || 'nothing'}`);
    out.push({ method: 'compare', wallSeconds: r.wall, cpuSeconds: r.cpu, maxRssMB: r.rssMB, loadAvg, exit: r.exit, detail: `${c.resamples} resamples; ${moved.length} metric/stat pairs moved, gpu_queue_ms.p95 among them` });
  }
  if (methods.includes('export')) {
    const file = path.join(os.tmpdir(), `phasewise-bench-export-${process.pid}.parquet`);
    try {
      const loadAvg = loadAverage();
      const r = await timedCli(['export', '--db', base, '--out', file]);
      const rows = await parquetRows(file);
      out.push({ method: 'export', wallSeconds: r.wall, cpuSeconds: r.cpu, maxRssMB: r.rssMB, loadAvg, exit: r.exit, detail: `${rows} rows, ${(statSync(file).size / 1e6).toFixed(0)} MB Parquet` });
    } finally {
      rmSync(file, { force: true });
    }
  }
  return out;
}

/** Rows of the written Parquet file, counted by DuckDB (not by the exporter's own report). */
async function parquetRows(file: string): Promise<number> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const conn = await instance.connect();
    const reader = await conn.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet('${file.replace(/'/g, "''")}')`);
    conn.closeSync();
    return Number(reader.getRowObjectsJS()[0].n);
  } finally {
    instance.closeSync();
  }
}

/** Markdown lines: the median round of each method by wall time, every round's wall and CPU beside it. */
export function compareExportLines(size: string, input: string, rounds: readonly CliTiming[][]): string[] {
  const lines: string[] = [];
  for (const method of ['compare', 'export'] as const) {
    const list = rounds.flat().filter((t) => t.method === method);
    if (list.length === 0) continue;
    const sorted = [...list].sort((a, b) => a.wallSeconds - b.wallSeconds);
    const mid = sorted[Math.floor((sorted.length - 1) / 2)];
    const what = method === 'compare' ? `compare of two loaded ${size} ${input} runs (healthy vs degraded pool; target ≤ 2 s)` : `export of the ${size} ${input} run's pairs to Parquet`;
    lines.push(
      `- ${what}: median wall ${mid.wallSeconds.toFixed(2)} s, CPU ${mid.cpuSeconds.toFixed(2)} s, peak RSS ${mid.maxRssMB.toFixed(0)} MB, load average ${mid.loadAvg} ` +
        `(runs, wall/CPU s: ${list.map((t) => `${t.wallSeconds.toFixed(2)}/${t.cpuSeconds.toFixed(2)}`).join(', ')}); ${mid.detail}`,
    );
  }
  return lines;
}
