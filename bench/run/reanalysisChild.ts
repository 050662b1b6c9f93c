/**
 * One re-analysis of a loaded database by the build in `<buildOut>` (an `out/` directory compiled
 * with tsconfig.test.json: this build's or another checkout's, e.g. main's), in its own process so
 * its CPU seconds and peak RSS are its own. Prints one JSON line (ReanalysisResult).
 * Usage: node out/bench/run/reanalysisChild.js <buildOut> <db> <first|b|b-groups|b-phases>
 * - first: the first analysis of the loaded run ((a)'s options: 30 s windows, gate set A);
 * - b: another contract (10 s windows, gate set B, 5 slow traces);
 * - b-groups: b with --group-by model,route;
 * - b-phases: b with another phase mapping ((b′)).
 */
import * as path from 'path';
import type { AnalysisOptions, GateSpec } from '../../src/core/analysis/options';
import type { Report } from '../../src/core/report/model';

export type ReanalysisMode = 'first' | 'b' | 'b-groups' | 'b-phases';

export interface ReanalysisResult {
  mode: ReanalysisMode;
  /** analyzeRun alone (the database open and close excluded). */
  analyzeSeconds: number;
  /** The whole process: open, analyzeRun, close. */
  wallSeconds: number;
  cpuSeconds: number;
  maxRssMB: number;
  statements: number;
  envelopeP95: number | null;
  groups: number;
}

interface Build {
  analyzeRun: (store: unknown, options: AnalysisOptions, gates: readonly GateSpec[]) => Promise<Report>;
  DEFAULT_ANALYSIS_OPTIONS: AnalysisOptions;
  DuckStore: new (o: { database: string; threads?: number }) => { all: (sql: string) => Promise<unknown[]>; run: (sql: string) => Promise<void>; close: () => Promise<void> };
  GATES_A: GateSpec[];
  GATES_B: GateSpec[];
  PHASES_B: AnalysisOptions['phases'];
}

function loadBuild(out: string): Build {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const req = (p: string): Record<string, unknown> => require(path.join(out, p)) as Record<string, unknown>;
  return { ...req('src/core/analysis/analyze'), ...req('src/core/analysis/options'), ...req('src/core/store/duckStore'), ...req('bench/run/child') } as unknown as Build;
}

async function main(): Promise<void> {
  const [buildOut, db, mode] = process.argv.slice(2) as [string, string, ReanalysisMode];
  const t0 = performance.now();
  const b = loadBuild(path.resolve(buildOut));
  const store = new b.DuckStore({ database: db, threads: 2 });
  let statements = 0;
  // Counts the statements the analysis issues (a cached re-analysis issues few).
  const counted = {
    run: (sql: string, params?: unknown) => ((statements += 1), (store.run as (s: string, p?: unknown) => Promise<void>)(sql, params)),
    all: (sql: string, params?: unknown) => ((statements += 1), (store.all as (s: string, p?: unknown) => Promise<unknown[]>)(sql, params)),
  };
  const base = { ...b.DEFAULT_ANALYSIS_OPTIONS };
  const other: AnalysisOptions = { ...base, windowSizeMs: 10_000, slowTraceCount: 5 };
  const options: AnalysisOptions =
    mode === 'first' ? base : mode === 'b-groups' ? { ...other, groupBy: ['model', 'route'], groupBySource: 'option' } : mode === 'b-phases' ? { ...other, phases: b.PHASES_B } : other;
  const a0 = performance.now();
  const report = await b.analyzeRun(counted, options, mode === 'first' ? b.GATES_A : b.GATES_B);
  const analyzeSeconds = (performance.now() - a0) / 1000;
  await store.close();
  const usage = process.resourceUsage();
  const result: ReanalysisResult = {
    mode,
    analyzeSeconds,
    wallSeconds: (performance.now() - t0) / 1000,
    cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    maxRssMB: usage.maxRSS / 1024,
    statements,
    envelopeP95: report.metrics.network_envelope_ms?.p95 ?? null,
    groups: report.groups?.length ?? 0,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
