/**
 * One benchmark method in its own process, so peak RSS (process.resourceUsage().maxRSS) belongs to
 * that method alone. Prints one JSON line (ChildResult) on stdout; the orchestrator (main.ts) spawns it.
 * Usage: node out/bench/run/child.js <load|load-memory|reanalyze|reanalyze-groups|reanalyze-phases|extract|script> <runDir> <db> [threads] [memoryLimit]
 */
import * as path from 'path';
import { monitorEventLoopDelay } from 'perf_hooks';
import { analyzeRun } from '../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions, type GateSpec } from '../../src/core/analysis/options';
import { loadFiles } from '../../src/core/formats/loadFiles';
import { DuckStore, type Params, type QueryRunner, type Row } from '../../src/core/store/duckStore';
import { extract, type ExtractPath } from '../baselines/duckExtract';
import { envelopeQuantiles } from '../baselines/nodeScript';
import { StageClock, type StageTiming } from './stageClock';

export type Method = 'load' | 'load-memory' | 'reanalyze' | 'reanalyze-groups' | 'reanalyze-phases' | 'extract' | 'script';

export interface StepTiming {
  step: string;
  seconds: number;
}

export interface ChildResult {
  method: Method;
  wallSeconds: number;
  maxRssMB: number;
  /** User + system CPU of the whole process (all DuckDB threads): a figure the machine's load does not inflate much. */
  cpuSeconds?: number;
  /** Envelope p95 the method computed (load, script) or that the reanalysis reported. */
  envelopeP95?: number;
  envelopeN?: number;
  /** Per-step timings: per file for loading, per analysis statement for analysing (slowest first). */
  steps: StepTiming[];
  /** Wall and CPU seconds per stage (read client, read spans, index, …), in the order they ran (stageClock.ts). */
  stages?: StageTiming[];
  /** Max event-loop delay (ms) while analyzeRun ran; DuckDB runs queries on its own threads. */
  eventLoopMaxMs?: number;
  eventLoopLoadMaxMs?: number;
  /** When the report's first part (verdict, join, owners of the p95) was ready: seconds since the process started, wall and CPU. */
  firstPart?: { wallSeconds: number; cpuSeconds: number };
  detail?: Record<string, unknown>;
}

/** Gate set of the first analysis. */
export const GATES_A: GateSpec[] = [
  { id: 'slo.total_ms.p95', category: 'slo', metric: 'client_total_ms', stat: 'p95', op: '<=', limit: 12_000 },
  { id: 'gates.join_coverage', category: 'coverage', metric: 'join_coverage', stat: 'value', op: '>=', limit: 0.95 },
];

/** A different contract for the re-analysis: other gates (a phase budget, error rate, p99 SLO). */
export const GATES_B: GateSpec[] = [
  { id: 'slo.total_ms.p99', category: 'slo', metric: 'client_total_ms', stat: 'p99', op: '<=', limit: 20_000 },
  { id: 'budget.gpu_queue_ms.p95', category: 'budget', metric: 'gpu_queue_ms', stat: 'p95', op: '<=', limit: 500, phase: 'gpu_queue' },
  { id: 'gates.error_rate', category: 'quality', metric: 'error_rate', stat: 'value', op: '<=', limit: 0.02 },
];

/** Wraps a store and records each statement's time, so the bench can say where the time goes. */
class TimingRunner implements QueryRunner {
  readonly timings: StepTiming[] = [];
  constructor(private readonly inner: QueryRunner, private readonly clock: StageClock) {}
  stage(name: string): void {
    this.clock.enter(name);
  }
  private label(sql: string): string {
    return sql.replace(/\s+/g, ' ').trim().slice(0, 110);
  }
  async run(sql: string, params?: Params): Promise<void> {
    const t0 = performance.now();
    await this.inner.run(sql, params);
    this.timings.push({ step: this.label(sql), seconds: (performance.now() - t0) / 1000 });
  }
  async runWithProgress(sql: string, params: Params | undefined, onFraction: (fraction: number | undefined) => void): Promise<void> {
    const t0 = performance.now();
    if (this.inner.runWithProgress) await this.inner.runWithProgress(sql, params, onFraction);
    else await this.inner.run(sql, params);
    this.timings.push({ step: this.label(sql), seconds: (performance.now() - t0) / 1000 });
  }
  async all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    const t0 = performance.now();
    const rows = await this.inner.all<T>(sql, params);
    this.timings.push({ step: this.label(sql), seconds: (performance.now() - t0) / 1000 });
    return rows;
  }
  slowest(count: number): StepTiming[] {
    return [...this.timings].sort((a, b) => b.seconds - a.seconds).slice(0, count);
  }
}

function envelopeOf(report: unknown): { p95?: number; n?: number } {
  const metrics = (report as { metrics?: Record<string, { p95?: number; n?: number }> }).metrics;
  return { p95: metrics?.network_envelope_ms?.p95, n: metrics?.network_envelope_ms?.n };
}

async function analyzeTimed(store: QueryRunner, options: AnalysisOptions, gates: GateSpec[]): Promise<{ report: unknown; seconds: number; loopMaxMs: number; firstPart?: ChildResult['firstPart'] }> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const t0 = performance.now();
  let firstPart: ChildResult['firstPart'];
  const report = await analyzeRun(store, options, gates, (p) => {
    if (p.part !== 'figures') return;
    const u = process.cpuUsage();
    firstPart = { wallSeconds: performance.now() / 1000, cpuSeconds: (u.user + u.system) / 1e6 };
  });
  const seconds = (performance.now() - t0) / 1000;
  loop.disable();
  return { report, seconds, loopMaxMs: loop.max / 1e6, firstPart };
}

async function runLoad(dir: string, db: string, storeOptions: { threads?: number; memoryLimit?: string }, clock: StageClock, method: 'load' | 'load-memory' = 'load'): Promise<Omit<ChildResult, 'maxRssMB'>> {
  const t0 = performance.now();
  // 'load-memory': what `phasewise analyze --run … --spans …` does without --db (an in-memory database).
  const store = new DuckStore({ database: method === 'load' ? db : ':memory:', ...storeOptions });
  const timed = new TimingRunner(store, clock);
  clock.enter('open (DuckDB, schema)');
  await store.open();
  const steps: StepTiming[] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  for (const [file, side] of [['k6.ndjson', 'client'], ['spans.otlp.jsonl', 'server']] as const) {
    const s = performance.now();
    // A progress sink, as the editor always has one (and the CLI on a terminal): its polling is measured too.
    await loadFiles(timed, [path.join(dir, file)], { expectSide: side, progress: () => undefined });
    steps.push({ step: `load ${file}`, seconds: (performance.now() - s) / 1000 });
  }
  loop.disable();
  const loadStatements = timed.slowest(6);
  timed.timings.length = 0;
  const a = await analyzeTimed(timed, { ...DEFAULT_ANALYSIS_OPTIONS }, GATES_A);
  steps.push({ step: 'analyzeRun', seconds: a.seconds });
  const s = performance.now();
  clock.enter('close (checkpoint)');
  await store.close();
  steps.push({ step: 'close (checkpoint)', seconds: (performance.now() - s) / 1000 });
  const env = envelopeOf(a.report);
  return {
    method,
    wallSeconds: (performance.now() - t0) / 1000,
    envelopeP95: env.p95,
    envelopeN: env.n,
    steps: [...steps, ...loadStatements.map((t) => ({ step: `  load SQL: ${t.step}`, seconds: t.seconds })), ...timed.slowest(8).map((t) => ({ step: `  analysis SQL: ${t.step}`, seconds: t.seconds }))],
    eventLoopMaxMs: a.loopMaxMs,
    eventLoopLoadMaxMs: loop.max / 1e6,
    firstPart: a.firstPart,
  };
}

/**
 * Another phase mapping (docs/performance.md counts it as a re-analysis): the GPU queue by its attribute only,
 * generation by its attribute or a GenAI operation attribute, the gateway without response.write.
 */
export const PHASES_B: AnalysisOptions['phases'] = [
  { name: 'gateway', anyOf: [{ names: ['auth.check', 'request.prepare', 'route.select'] }] },
  { name: 'gpu_queue', anyOf: [{ attributes: { 'llm.phase': 'queue' } }] },
  { name: 'generation', anyOf: [{ attributes: { 'llm.phase': 'generation' } }, { attributePresent: ['gen_ai.operation.name'] }] },
];

async function runReanalyze(db: string, storeOptions: { threads?: number; memoryLimit?: string }, clock: StageClock, method: 'reanalyze' | 'reanalyze-groups' | 'reanalyze-phases'): Promise<Omit<ChildResult, 'maxRssMB'>> {
  const phases = method === 'reanalyze-phases';
  const t0 = performance.now();
  const store = new DuckStore({ database: db, ...storeOptions });
  const timed = new TimingRunner(store, clock);
  clock.enter('open (DuckDB, schema)');
  const [{ n }] = await store.all<{ n: number }>('SELECT count(*) AS n FROM sources');
  if (n === 0) throw new Error(`${db} holds no loaded run`);
  // Another contract: 10 s windows instead of 30 s, a 5-trace slow list, the gate set B (and, for
  // 'reanalyze-phases', another phase mapping; for 'reanalyze-groups', --group-by model,route: every
  // group's tables, tail, user-observed figures and window series).
  const options: AnalysisOptions = {
    ...DEFAULT_ANALYSIS_OPTIONS,
    windowSizeMs: 10_000,
    slowTraceCount: 5,
    ...(phases ? { phases: PHASES_B } : {}),
    ...(method === 'reanalyze-groups' ? { groupBy: ['model', 'route'], groupBySource: 'option' as const } : {}),
  };
  const a = await analyzeTimed(timed, options, GATES_B);
  clock.enter('close (checkpoint)');
  await store.close();
  const env = envelopeOf(a.report);
  return {
    method,
    wallSeconds: (performance.now() - t0) / 1000,
    envelopeP95: env.p95,
    envelopeN: env.n,
    steps: [{ step: 'analyzeRun', seconds: a.seconds }, ...timed.slowest(8).map((t) => ({ step: `  analysis SQL: ${t.step}`, seconds: t.seconds }))],
    eventLoopMaxMs: a.loopMaxMs,
    firstPart: a.firstPart,
  };
}

async function runExtract(dir: string, threads: number | undefined, memoryLimit: string | undefined, k6Path: ExtractPath, spanPath: ExtractPath): Promise<Omit<ChildResult, 'maxRssMB'>> {
  const t0 = performance.now();
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const config: Record<string, string> = { memory_limit: memoryLimit ?? '1500MB' };
  if (threads !== undefined) config.threads = String(threads);
  const instance = await DuckDBInstance.create(':memory:', config);
  const conn = await instance.connect();
  const r = await extract(conn, path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl'), k6Path, spanPath);
  conn.closeSync();
  instance.closeSync();
  return {
    method: 'extract',
    wallSeconds: (performance.now() - t0) / 1000,
    steps: [
      { step: `k6 (${k6Path}): ${r.k6Points} points`, seconds: r.k6Seconds },
      { step: `otlp (${spanPath}): ${r.spans} spans`, seconds: r.spansSeconds },
    ],
    detail: { k6Path, spanPath, k6Points: r.k6Points, spans: r.spans },
  };
}

async function runScript(dir: string): Promise<Omit<ChildResult, 'maxRssMB'>> {
  const t0 = performance.now();
  const r = await envelopeQuantiles(path.join(dir, 'k6.ndjson'), path.join(dir, 'spans.otlp.jsonl'));
  return { method: 'script', wallSeconds: (performance.now() - t0) / 1000, envelopeP95: r.p95, envelopeN: r.n, steps: [], detail: { ...r } };
}

async function main(): Promise<void> {
  const clock = StageClock.sinceProcessStart();
  const [method, dir, db, threadsArg, memoryLimit, k6Path, spanPath] = process.argv.slice(2);
  const threads = threadsArg && threadsArg !== '-' ? Number(threadsArg) : undefined;
  const mem = memoryLimit && memoryLimit !== '-' ? memoryLimit : undefined;
  const storeOptions = { ...(threads !== undefined ? { threads } : {}), ...(mem !== undefined ? { memoryLimit: mem } : {}) };
  let result: Omit<ChildResult, 'maxRssMB'>;
  if (method === 'load' || method === 'load-memory') result = await runLoad(dir, db, storeOptions, clock, method);
  else if (method === 'reanalyze' || method === 'reanalyze-groups' || method === 'reanalyze-phases') result = await runReanalyze(db, storeOptions, clock, method);
  else if (method === 'extract') result = await runExtract(dir, threads, mem, (k6Path ?? 'typed') as ExtractPath, (spanPath ?? 'objects') as ExtractPath);
  else if (method === 'script') result = await runScript(dir);
  else throw new Error(`unknown method '${method}'`);
  const usage = process.resourceUsage();
  const stages = clock.finish();
  const out: ChildResult = { ...result, ...(stages.length > 1 ? { stages } : {}), maxRssMB: usage.maxRSS / 1024, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6 };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
