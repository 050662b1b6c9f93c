/**
 * How long the extension host's event loop can be blocked while the editor works on a run (docs/performance.md:
 * never > 50 ms). Drives the run worker the way the editor does, and samples the main thread's
 * event-loop delay (perf_hooks monitorEventLoopDelay, 10 ms resolution) from start to end:
 *
 *   node out/bench/run/editorLoop.js <10k|100k|1m|DIR> [--in-process|--control]
 *
 * Default: through the run worker's client (runClient.ts → dist/runWorker.js when built, else the tsc
 * output next to the client), the steps of a session: Open Run (first load into a fresh cache
 * database, and analysis), Open Run again (the database reused, as after a reload), the report's view
 * model, the slow traces by GPU queue, the slowest trace's model and its comparison; each step's wall
 * time and longest hold are reported. `--in-process`: the core and DuckDB loaded and run on this
 * thread, for comparison. `--control`: the same analysis in a separate process (the CLI), so this
 * thread does nothing: what the machine's scheduler alone costs the event loop on a busy 2-core
 * machine. Prints one line of JSON. The histogram records each timer interval, so an idle loop already
 * shows ≈ 10 ms; `maxBlockedMs` subtracts that resolution.
 */
import { spawn } from 'child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'fs';
import { tmpdir } from 'os';
import { loadavg } from 'os';
import * as path from 'path';
import { monitorEventLoopDelay, performance } from 'perf_hooks';
import type { Report } from '../../src/core/report/model';
import { RunClient } from '../../src/extension/runs/runClient';
import * as P from '../../src/extension/runs/workerProtocol';

const RESOLUTION_MS = 10;

export type Mode = 'worker' | 'in-process' | 'control';

export interface EditorLoopResult {
  run: string;
  mode: Mode;
  worker: string | null;
  inputMB: number;
  wallSeconds: number;
  /** Largest sampled timer interval on the main thread, ms (includes the 10 ms resolution). */
  maxEventLoopDelayMs: number;
  /** maxEventLoopDelayMs minus the resolution: the longest the loop was actually held. */
  maxBlockedMs: number;
  p99EventLoopDelayMs: number;
  samples: number;
  /** The three longest gaps between 10 ms ticks of a plain timer, with the step the analysis was in. */
  longestGaps: Array<{ atS: number; ms: number; during: string }>;
  /** Worker mode: each step of the session, its wall time and the longest hold of this thread during it. */
  steps: Array<{ step: string; wallSeconds: number; maxBlockedMs: number }>;
  /** Load average over the last minute when the run ended: other work on the machine delays ticks too. */
  loadAverage1m: number;
  matched: number;
  envelopeP95: number | null;
}

const repoRoot = path.resolve(__dirname, '..', '..', '..');

function runDir(arg: string): string {
  return /^(10k|100k|1m)$/.test(arg) ? path.join(repoRoot, 'out', 'bench', 'runs', arg) : path.resolve(arg);
}

/** Which step the analysis is in, for attributing long gaps. */
let during = 'start';

/** The CLI's JSON report, from a child process this thread only waits for. */
function analyseInChild(request: { run: string[]; spans: string[] }): Promise<Report> {
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  const args = [cli, 'analyze', ...request.run.flatMap((r) => ['--run', r]), ...request.spans.flatMap((s) => ['--spans', s]), '--format', 'json'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${cli} exited with ${String(code)}`));
      else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Report);
    });
  });
}

/** The gaps of the current step (reset per step). */
let stepMax = 0;
const steps: EditorLoopResult['steps'] = [];

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  during = name;
  stepMax = 0;
  const t0 = performance.now();
  const value = await fn();
  steps.push({ step: name, wallSeconds: Math.round((performance.now() - t0) / 10) / 100, maxBlockedMs: Math.round(stepMax) });
  return value;
}

/** A session on one run through the run worker, into a throwaway cache folder. */
async function runWorkerSession(request: { run: string[]; spans: string[] }, worker: string | undefined): Promise<Report> {
  const cache = mkdtempSync(path.join(tmpdir(), 'phasewise-editorloop-'));
  const client = new RunClient({ workerFile: worker });
  try {
    const settings: P.RunSettings = { slowTraceCount: 10 };
    const inputs = { ...request, contract: null };
    const first = await step('open run: load + analysis', () => client.job(P.OpenRun, { dir: cache, inputs, settings, base: null }, (e) => (during = `open run: ${e.file !== null ? `load ${path.basename(e.file)}` : e.message}`)));
    const key = first.key;
    await step('open run again: cache database reused', () => client.job(P.OpenRun, { dir: cache, inputs, settings, base: null }));
    await step('report view model', () => client.call(P.ReportView, { key }));
    await step('slow traces by GPU queue', () => client.call(P.SlowTraces, { key, order: 'gpu_queue', limit: 10 }));
    const slowest = first.summary.slow_traces[0]?.trace.trace_id;
    if (slowest !== undefined) {
      await step('slowest trace model', () => client.call(P.Trace, { key, trace_id: slowest }));
      await step('compare with a typical trace', () => client.call(P.Compare, { key, trace_id: slowest }));
    }
    during = 'report';
    return JSON.parse((await client.call(P.GetReport, { key })).report) as Report;
  } finally {
    await client.dispose();
    rmSync(cache, { recursive: true, force: true });
  }
}

async function analyse(dir: string, mode: Mode, worker: string | undefined): Promise<Report> {
  const request = { run: [path.join(dir, 'k6.ndjson')], spans: [path.join(dir, 'spans.otlp.jsonl')] };
  if (mode === 'control') {
    during = 'child process';
    return analyseInChild(request);
  }
  if (mode === 'worker') return runWorkerSession(request, worker);
  // What the command did before the worker: load the core on first use and run it on this thread
  // (the core bundle no longer carries the analysis, so the tsc output is loaded instead).
  during = 'require the analysis core';
  const { analyzeFiles } = await import('../../src/core/run/analyzeFiles');
  const { renderMarkdownReport } = await import('../../src/core/report/markdown');
  during = 'analyzeFiles on this thread';
  const report = await analyzeFiles(request);
  renderMarkdownReport(report);
  return report;
}

export async function measureEditorLoop(arg: string, mode: Mode): Promise<EditorLoopResult> {
  const dir = runDir(arg);
  for (const f of ['k6.ndjson', 'spans.otlp.jsonl']) {
    if (!existsSync(path.join(dir, f))) throw new Error(`${path.join(dir, f)} is missing: generate the run first (npm run bench or npm run generate)`);
  }
  const bundled = path.join(repoRoot, 'dist', 'runWorker.js');
  const worker = mode !== 'worker' ? undefined : existsSync(bundled) ? bundled : undefined;
  const loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  loop.enable();
  const t0 = performance.now();
  const gaps: Array<{ atS: number; ms: number; during: string }> = [];
  let last = t0;
  const ticker = setInterval(() => {
    const now = performance.now();
    const held = now - last - RESOLUTION_MS;
    stepMax = Math.max(stepMax, held);
    gaps.push({ atS: Math.round((now - t0) / 10) / 100, ms: Math.round(held), during });
    gaps.sort((a, b) => b.ms - a.ms).splice(3);
    last = now;
  }, RESOLUTION_MS);
  const report = await analyse(dir, mode, worker);
  const wallSeconds = (performance.now() - t0) / 1000;
  clearInterval(ticker);
  loop.disable();
  const maxMs = loop.max / 1e6;
  return {
    run: dir,
    mode,
    worker: mode !== 'worker' ? null : (worker ?? path.join(repoRoot, 'out', 'src', 'extension', 'runs', 'runWorker.js')),
    inputMB: Math.round(((statSync(path.join(dir, 'k6.ndjson')).size + statSync(path.join(dir, 'spans.otlp.jsonl')).size) / 1e6) * 10) / 10,
    wallSeconds: Math.round(wallSeconds * 1000) / 1000,
    maxEventLoopDelayMs: Math.round(maxMs * 10) / 10,
    maxBlockedMs: Math.round(Math.max(0, maxMs - RESOLUTION_MS) * 10) / 10,
    p99EventLoopDelayMs: Math.round((loop.percentile(99) / 1e6) * 10) / 10,
    samples: loop.count,
    longestGaps: gaps,
    steps,
    loadAverage1m: Math.round(loadavg()[0] * 100) / 100,
    matched: report.join.matched,
    envelopeP95: report.metrics.network_envelope_ms?.p95 ?? null,
  };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const target = args.find((a) => !a.startsWith('--'));
  if (target === undefined) {
    process.stderr.write('usage: node out/bench/run/editorLoop.js <10k|100k|1m|DIR> [--in-process|--control]\n');
    process.exit(2);
  }
  const mode: Mode = args.includes('--in-process') ? 'in-process' : args.includes('--control') ? 'control' : 'worker';
  measureEditorLoop(target, mode)
    .then((r) => process.stdout.write(`${JSON.stringify(r)}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
}
