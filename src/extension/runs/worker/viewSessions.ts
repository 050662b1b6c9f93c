/**
 * Compare Runs…, Query Run… and Export Pairs… on the worker: each opens the run's database through the
 * core's read-only view session (core/views/session.ts), the one `phasewise compare`, `sql` and
 * `export` open, and calls the same core functions (compareRuns, runSelect, exportPairs), so the
 * editor and the CLI cannot disagree. A run of the Runs view is read under its last analysis (its
 * options and contract), with its own store closed while the session holds the file.
 */
import { stat } from 'fs/promises';
import { replaceOutput } from '../../../core/outputFile';
import type { AnalysisOptions } from '../../../core/analysis/options';
import { compareRuns, inputsOf, type CompareSettings } from '../../../core/compare/compareRuns';
import type { ExperimentFacts } from '../../../core/compare/experiment';
import { loadContractFile } from '../../../core/contract/index';
import { InputError } from '../../../core/errors';
import { setLoadState } from '../../../core/run/loadRun';
import { VIEWS, VIEWS_VERSION } from '../../../core/views/catalog';
import { exportPairs, type ExportFormat } from '../../../core/views/exportPairs';
import { QueryRefused, runSelect } from '../../../core/views/query';
import { cellText } from '../../../core/views/render';
import { writeSelect } from '../../../core/views/streamResult';
import { writeTextFile } from '../../../core/textFile';
import { openRunViews, viewContext, type OpenRunOptions, type RunViews } from '../../../core/views/session';
import type { MemorySettings } from './runStates';
import { encodeComparison } from '../../../protocol/compare';
import type { QueryAnswer, ViewDoc } from '../../../protocol/query';
import type { Job } from './jobs';
import type { RunStates, RunState } from './runStates';

/** What a session reads: a run the worker holds (under its analysis), or a database file. */
export interface SessionTarget {
  run?: RunState;
  file?: string;
  label: string;
  options: AnalysisOptions;
  /** The contract the figures were analysed with (its sections are diffed by Compare Runs…). */
  contract: string | null;
  memory: MemorySettings;
}

/** Opens the target's view session for `fn` and closes it after. */
async function session<T>(runs: RunStates, target: SessionTarget, open: OpenRunOptions, fn: (views: RunViews) => Promise<T>): Promise<T> {
  const file = target.run?.dbPath ?? target.file;
  if (file === undefined) throw new Error('a view session needs a run or a database file');
  const go = async (): Promise<T> => {
    const views = await openRunViews(file, target.options, { ...open, memory: target.memory });
    try {
      return await fn(views);
    } finally {
      await views.close();
    }
  };
  if (target.run === undefined) return go();
  // A cache database loaded before the editor marked its loads complete: its manifest says it is.
  await runs.withStore(target.run, target.memory, (store) => setLoadState(store, 'complete'));
  return runs.withoutStore(target.run, go);
}

async function contractSections(file: string | null): Promise<ExperimentFacts['contract']> {
  if (file === null) return undefined;
  const { contract } = await loadContractFile(file);
  if (!contract) throw new InputError(file, undefined, 'a load contract', 'a file that is not one');
  return { workload: contract.workload, request: contract.request, trace: contract.trace };
}

/** What a run records about how it was produced, as `phasewise compare` gathers it. */
async function factsOf(target: SessionTarget, views: RunViews): Promise<ExperimentFacts> {
  return {
    contract: await contractSections(target.contract),
    inputs: await inputsOf(views),
    analysis: { windowSizeMs: target.options.windowSizeMs, phases: views.context.phaseColumns.slice() },
  };
}

/** The comparison of BASE and HEAD as JSON text (the CLI's `--format json` without `fail_on`). */
export async function compareTargets(runs: RunStates, base: SessionTarget, head: SessionTarget, settings: CompareSettings, job: Job, onAnalyse: (m: string) => void): Promise<string> {
  const open: OpenRunOptions = { untrustedQueries: true, onAnalyse };
  const compare = async (bv: RunViews, hv: RunViews): Promise<string> => {
    job.attach(bv.store);
    job.attach(hv.store);
    const c = await compareRuns({ label: base.label, views: bv, facts: await factsOf(base, bv) }, { label: head.label, views: hv, facts: await factsOf(head, hv) }, settings);
    return encodeComparison(c);
  };
  // One run against itself: one session (its lock is not taken twice).
  if (base.run !== undefined && base.run === head.run) return session(runs, base, open, (v) => compare(v, v));
  // Two runs' locks are always taken in key order, so two comparisons never wait for each other.
  const swap = base.run !== undefined && head.run !== undefined && head.run.key < base.run.key;
  const [first, second] = swap ? [head, base] : [base, head];
  return session(runs, first, open, (a) => session(runs, second, open, (b) => (swap ? compare(b, a) : compare(a, b))));
}

/** The documented views under the run's phase mapping, as `phasewise sql --help` lists them. */
export function viewDocs(options: AnalysisOptions): { views: ViewDoc[]; version: number } {
  const ctx = viewContext(options);
  return { views: VIEWS.map((v) => ({ name: v.name, meaning: v.meaning, columns: v.columns(ctx) })), version: VIEWS_VERSION };
}

/** A cell as a JSON scalar: lists, structs and times as the CLI's table prints them. */
function cellValue(v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  return cellText(v);
}

/** A user's SELECT, as `phasewise sql` runs it; a refused or failing query answers with its reason. */
export async function runSql(runs: RunStates, target: SessionTarget, sql: string, maxRows: number, job: Job): Promise<QueryAnswer> {
  const t0 = performance.now();
  try {
    return await session(runs, target, { untrustedQueries: true }, async (views) => {
      job.attach(views.store);
      const r = await runSelect(views.store, sql, maxRows);
      return { columns: r.columns, types: r.types, rows: r.rows.map((row) => row.map(cellValue)), truncated: r.truncated, ms: performance.now() - t0, error: null, cancelled: false };
    });
  } catch (err) {
    if (!(err instanceof QueryRefused)) throw err;
    return { columns: [], types: [], rows: [], truncated: false, ms: performance.now() - t0, error: readableRefusal(err.reason), cancelled: false };
  }
}

const DUCKDB_FAILED = 'a query DuckDB could not run: ';

/** The core's reason as a sentence: DuckDB's own first line when the engine failed, else why the check refused it. */
export function readableRefusal(reason: string): string {
  const text = reason.startsWith(DUCKDB_FAILED) ? `DuckDB could not run the query: ${reason.slice(DUCKDB_FAILED.length)}` : `The query was refused: it is ${reason}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Every row of a user's SELECT as CSV (`phasewise sql --format csv`), written beside `out` and renamed into place. */
export async function sqlToCsv(runs: RunStates, target: SessionTarget, sql: string, out: string, job: Job): Promise<{ rows: number; bytes: number }> {
  return session(runs, target, { untrustedQueries: true }, async (views) => {
    job.attach(views.store);
    // Streamed as the query runs (streamResult.ts), as `phasewise sql --format csv --out` writes it.
    const result = await replaceOutput(out, (file, mode) =>
      writeTextFile(file, mode, (write) => writeSelect(views.store, sql, 'csv', async (text) => {
        job.check();
        await write(text);
      })),
    );
    return { rows: result.rows, bytes: (await stat(out)).size };
  });
}

/** The run's pairs through the core export (`phasewise export`), written beside `out` and renamed into place. */
export async function exportPairsTo(runs: RunStates, target: SessionTarget, out: string, format: ExportFormat, job: Job): Promise<{ rows: number; bytes: number }> {
  return session(runs, target, {}, async (views) => {
    job.attach(views.store);
    const rows = await replaceOutput(out, (file) => exportPairs(views, file, format));
    return { rows, bytes: (await stat(out)).size };
  });
}
