/**
 * How long the extension host's event loop can be blocked while "Analyze Run…" works (DESIGN §6: never
 * > 50 ms). Runs one analysis of a bench run directory the way the command does, and samples the main
 * thread's event-loop delay (perf_hooks monitorEventLoopDelay, 10 ms resolution) from start to report:
 *
 *   node out/bench/run/editorLoop.js <10k|100k|1m|DIR> [--in-process|--control]
 *
 * Default: through the worker client (analysisClient.ts → dist/analysisWorker.js when built, else the
 * tsc output next to the client). `--in-process`: the previous behaviour for comparison (the core and
 * DuckDB loaded and run on this thread). `--control`: the same analysis in a separate process (the
 * CLI), so this thread does nothing: what the machine's scheduler alone costs the event loop on a busy
 * 2-core machine. Prints one line of JSON. The histogram records each timer
 * interval, so an idle loop already shows ≈ 10 ms; `maxBlockedMs` subtracts that resolution.
 */
import { spawn } from 'child_process';
import { existsSync, statSync } from 'fs';
import { loadavg } from 'os';
import * as path from 'path';
import { monitorEventLoopDelay, performance } from 'perf_hooks';
import type { Report } from '../../src/core/report/model';
import { startAnalysis } from '../../src/extension/analysisClient';

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

async function analyse(dir: string, mode: Mode, worker: string | undefined): Promise<Report> {
  const request = { run: [path.join(dir, 'k6.ndjson')], spans: [path.join(dir, 'spans.otlp.jsonl')] };
  if (mode === 'control') {
    during = 'child process';
    return analyseInChild(request);
  }
  if (mode === 'worker') {
    const analysis = startAnalysis(
      request,
      { onFile: (file) => (during = `load ${path.basename(file)}`), onProgress: (message) => (during = message) },
      { workerFile: worker },
    );
    during = 'worker started';
    const outcome = await analysis.result;
    during = 'result received';
    return outcome.report;
  }
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
  const bundled = path.join(repoRoot, 'dist', 'analysisWorker.js');
  const worker = mode !== 'worker' ? undefined : existsSync(bundled) ? bundled : undefined;
  const loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  loop.enable();
  const t0 = performance.now();
  const gaps: Array<{ atS: number; ms: number; during: string }> = [];
  let last = t0;
  const ticker = setInterval(() => {
    const now = performance.now();
    gaps.push({ atS: Math.round((now - t0) / 10) / 100, ms: Math.round(now - last - RESOLUTION_MS), during });
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
    worker: mode !== 'worker' ? null : (worker ?? path.join(repoRoot, 'out', 'src', 'extension', 'analysisWorker.js')),
    inputMB: Math.round(((statSync(path.join(dir, 'k6.ndjson')).size + statSync(path.join(dir, 'spans.otlp.jsonl')).size) / 1e6) * 10) / 10,
    wallSeconds: Math.round(wallSeconds * 1000) / 1000,
    maxEventLoopDelayMs: Math.round(maxMs * 10) / 10,
    maxBlockedMs: Math.round(Math.max(0, maxMs - RESOLUTION_MS) * 10) / 10,
    p99EventLoopDelayMs: Math.round((loop.percentile(99) / 1e6) * 10) / 10,
    samples: loop.count,
    longestGaps: gaps,
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
