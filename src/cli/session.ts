/**
 * What `analyze` and `reconcile` share: options from defaults ← contract ← flags, gates from the
 * contract and --threshold, a store (in memory, or a --db file that keeps the loaded run so a second
 * call re-analyses without re-parsing), the load with progress, and Ctrl-C wired to DuckDB's interrupt.
 */
import { existsSync } from 'fs';
import * as path from 'path';
import type { AnalysisOptions, GateSpec } from '../core/analysis/options';
import { InputError, StoreError } from '../core/errors';
import { clearLoadedRun, loadedSourceCount, loadRun } from '../core/run/loadRun';
import { DuckStore } from '../core/store/duckStore';
import { flagBoolean, flagList, flagPositiveInt, flagString, parseDurationMs, UsageError, type FlagSpec, type ParsedArgs } from './args';
import { analysisFor } from '../core/run/analyzeFiles';
import { EXIT_INTERRUPTED } from './exitCodes';
import { markInterrupted } from './interrupt';
import { note } from './output';
import { createProgress } from './progress';
import { parseThreshold } from './thresholds';

export const SESSION_FLAGS: Readonly<Record<string, FlagSpec>> = {
  run: { kind: 'list' },
  spans: { kind: 'list' },
  contract: { kind: 'string' },
  db: { kind: 'string' },
  window: { kind: 'string' },
  slow: { kind: 'string' },
  'trace-tag': { kind: 'string' },
  threshold: { kind: 'list' },
  progress: { kind: 'boolean' },
  quiet: { kind: 'boolean', alias: 'q' },
};

/** `--slow N`: each listed trace carries its breakdown; more than this is a typo, not a report. */
const MAX_SLOW_TRACES = 10_000;

export interface Session {
  store: DuckStore;
  options: AnalysisOptions;
  gates: GateSpec[];
  quiet: boolean;
  /** True once Ctrl-C was pressed: a failing query is then an interruption, not an error. */
  interrupted(): boolean;
  close(): Promise<void>;
}

/** Options and gates from defaults, the contract and the flags (flags win). */
export async function resolveAnalysis(args: ParsedArgs): Promise<{ options: AnalysisOptions; gates: GateSpec[] }> {
  const contract = flagString(args, 'contract');
  if (contract !== undefined && !existsSync(contract)) {
    throw new InputError(contract, undefined, 'an existing load contract file', 'no such file');
  }
  const { options, gates, notes } = await analysisFor(contract);
  for (const line of notes) note(line);
  const window = flagString(args, 'window');
  if (window !== undefined) options.windowSizeMs = parseDurationMs(window, '--window');
  const slow = flagPositiveInt(args, 'slow', MAX_SLOW_TRACES);
  if (slow !== undefined) options.slowTraceCount = slow;
  const tag = flagString(args, 'trace-tag');
  if (tag !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(tag)) throw new UsageError(`--trace-tag expects a k6 tag name, got '${tag}'`);
    options.traceIdTag = tag;
  }
  for (const text of flagList(args, 'threshold')) gates.push(parseThreshold(text, options.phases));
  return { options, gates };
}

/** Opens the store and loads the inputs (or reuses a --db file); throws InputError/UsageError on bad input. */
export async function openSession(args: ParsedArgs): Promise<Session> {
  const run = flagList(args, 'run');
  const spans = flagList(args, 'spans');
  const db = flagString(args, 'db');
  if (run.length === 0 && spans.length === 0 && db === undefined) {
    throw new UsageError('give --run FILE... and/or --spans FILE... (or --db FILE holding a loaded run)');
  }
  if (db !== undefined && run.length === 0 && spans.length === 0 && !existsSync(db)) {
    throw new InputError(db, undefined, 'a database file written by an earlier `phasewise analyze --db`', 'no such file');
  }
  const { options, gates } = await resolveAnalysis(args);
  const quiet = flagBoolean(args, 'quiet');
  const store = new DuckStore(db === undefined ? {} : { database: path.resolve(db) });

  let interrupted = false;
  const onSigint = (): void => {
    if (interrupted) process.exit(EXIT_INTERRUPTED);
    interrupted = true;
    markInterrupted();
    note('phasewise: interrupted; stopping DuckDB (Ctrl-C again to quit at once)');
    void store.interrupt();
    // A reader busy in JavaScript cannot be interrupted by DuckDB: do not leave the user waiting.
    setTimeout(() => process.exit(EXIT_INTERRUPTED), 3000).unref();
  };
  process.on('SIGINT', onSigint);
  const session: Session = {
    store,
    options,
    gates,
    quiet,
    interrupted: () => interrupted,
    close: async () => {
      process.off('SIGINT', onSigint);
      // A store that never opened (a bad --db path) rejects again here; the first error is the one to report.
      await store.close().catch(() => undefined);
    },
  };

  try {
    if (db !== undefined) await openDatabase(store, db);
    if (run.length > 0 || spans.length > 0) {
      if (db !== undefined) await clearLoadedRun(store);
      await loadInputs(session, run, spans, args);
    } else if ((await loadedSourceCount(store)) === 0) {
      throw new InputError(db ?? '', undefined, 'a database holding a loaded run (give --run/--spans to load one)', 'an empty database');
    } else if (flagString(args, 'trace-tag') !== undefined) {
      note('phasewise: --trace-tag only applies while loading; the run in --db was loaded already');
    }
  } catch (err) {
    await session.close();
    throw err;
  }
  return session;
}

async function loadInputs(session: Session, run: string[], spans: string[], args: ParsedArgs): Promise<void> {
  const progress = createProgress(!session.quiet && (flagBoolean(args, 'progress') || process.stderr.isTTY === true));
  let current = '';
  try {
    await loadRun(
      session.store,
      { run, spans },
      {
        traceIdTag: session.options.traceIdTag,
        progress: progress.sink,
        onFile: (file, bytes, side) => {
          current = file;
          progress.onFile(file, bytes, side);
        },
      },
    );
  } catch (err) {
    // Readers turn bad input into InputErrors; a DuckDB failure left over is ours, but name the file.
    if (err instanceof StoreError && !session.interrupted()) throw err.withContext(`while loading ${current}`);
    throw err;
  }
  progress.done('loaded');
}

/** Opens the --db file now, so that a path to something else (a JSON file, say) is bad input, not a crash. */
async function openDatabase(store: DuckStore, db: string): Promise<void> {
  try {
    await store.all('SELECT 1 AS ok');
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new InputError(db, undefined, 'a DuckDB database file written by phasewise (or a new path)', firstLine(message));
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0];
}
