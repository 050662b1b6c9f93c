/**
 * What `analyze` and `reconcile` share: options from defaults ← contract ← flags, gates from the
 * contract and --threshold, a store (in memory, or a --db file that keeps the loaded run so a second
 * call re-analyses without re-parsing), the load with progress, and Ctrl-C wired to DuckDB's interrupt.
 */
import { existsSync, rmSync } from 'fs';
import * as path from 'path';
import { DIMENSIONS, dimensionDecl, suggestDimension } from '../core/analysis/groups/dimensions';
import { DEFAULT_REQUEST_ID_ATTRIBUTE, type AnalysisOptions, type GateSpec, type JoinKey } from '../core/analysis/options';
import { readJoinKeyOfFile, storedJoinKeyNote } from '../core/analysis/joinKeyRecord';
import { InputError, StoreError } from '../core/errors';
import { loadedSourceCount, loadRun, loadRunIntoDatabase, type RunFiles } from '../core/run/loadRun';
import { checkDatabaseFile, checkLoadComplete, databaseTarget, inspectDatabase, isWritable, loadingPath } from '../core/store/databaseFile';
import { acquireDatabaseLock, type DatabaseLock } from '../core/store/databaseLock';
import { DuckStore } from '../core/store/duckStore';
import { normalizeMemoryLimit, normalizeThreads } from '../core/memorySettings';
import { flagBoolean, flagList, flagPositiveInt, flagString, parseDurationMs, UsageError, type FlagSpec, type ParsedArgs } from './args';
import { analysisFor, ANALYSING_MESSAGE } from '../core/run/analyzeFiles';
import { EXIT_INTERRUPTED } from './exitCodes';
import { markInterrupted } from './interrupt';
import { note, stderrIsTerminal } from './output';
import { createProgress } from './progress';
import { parseThreshold } from './thresholds';

export const SESSION_FLAGS: Readonly<Record<string, FlagSpec>> = {
  run: { kind: 'list' },
  spans: { kind: 'list' },
  contract: { kind: 'string' },
  db: { kind: 'string' },
  window: { kind: 'string' },
  'window-slide': { kind: 'string' },
  'group-by': { kind: 'list' },
  'min-group-size': { kind: 'string' },
  slow: { kind: 'string' },
  'trace-tag': { kind: 'string' },
  'join-by': { kind: 'string' },
  threshold: { kind: 'list' },
  progress: { kind: 'boolean' },
  quiet: { kind: 'boolean', alias: 'q' },
  'memory-limit': { kind: 'string' },
  threads: { kind: 'string' },
};

/** `--slow N`: each listed trace carries its breakdown; more than this is a typo, not a report. */
const MAX_SLOW_TRACES = 10_000;
/** A floor above any run's call count per group is a typo (and stays a small integer in SQL). */
const MAX_MIN_GROUP_SIZE = 100_000_000;

export interface Session {
  readonly store: DuckStore;
  options: AnalysisOptions;
  gates: GateSpec[];
  quiet: boolean;
  /** True once Ctrl-C was pressed: a failing query is then an interruption, not an error. */
  interrupted(): boolean;
  close(): Promise<void>;
}

/** Every file a session reads: --run, --spans, --contract and --db (the --out check: outputFile.ts). */
export function sessionInputs(args: ParsedArgs): Array<string | undefined> {
  return [...flagList(args, 'run'), ...flagList(args, 'spans'), flagString(args, 'contract'), flagString(args, 'db')];
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
  const slide = flagString(args, 'window-slide');
  if (slide !== undefined) options.windowSlideMs = parseDurationMs(slide, '--window-slide');
  if (options.windowSlideMs !== undefined && options.windowSlideMs >= options.windowSizeMs) {
    throw new UsageError(`--window-slide (${options.windowSlideMs} ms) must be shorter than the window (${options.windowSizeMs} ms)`);
  }
  if (args.flags.has('group-by')) {
    options.groupBy = parseGroupBy(flagList(args, 'group-by'));
    options.groupBySource = 'option';
  }
  const floor = flagPositiveInt(args, 'min-group-size', MAX_MIN_GROUP_SIZE);
  if (floor !== undefined) options.minGroupSize = floor;
  const slow = flagPositiveInt(args, 'slow', MAX_SLOW_TRACES);
  if (slow !== undefined) options.slowTraceCount = slow;
  const tag = flagString(args, 'trace-tag');
  if (tag !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(tag)) throw new UsageError(`--trace-tag expects a k6 tag name, got '${tag}'`);
    options.traceIdTag = tag;
  }
  const joinBy = flagString(args, 'join-by');
  if (joinBy !== undefined) {
    // By trace ID is the default: unset, so the derived tables keep the stamp a run without the flag has.
    const key = parseJoinBy(joinBy);
    options.joinKey = key.by === 'trace_id' ? undefined : key;
  }
  for (const text of flagList(args, 'threshold')) gates.push(parseThreshold(text, options.phases));
  return { options, gates };
}

/**
 * Whether the user named the join key: --join-by (trace-id included), or a contract whose
 * trace.id_source is request_id. When not, a run database's recorded key is used (joinKeyRecord.ts).
 */
export function joinKeyNamed(args: ParsedArgs, options: AnalysisOptions): boolean {
  return args.flags.has('join-by') || options.joinKey !== undefined;
}

/**
 * OpenRunOptions.onStoredJoinKey for `sql`, `export` and a database side of `compare`: undefined when
 * the user named the key, else a one-line note saying the database's recorded key is used.
 */
export function storedJoinKeyHook(args: ParsedArgs, options: AnalysisOptions, file: string, quiet = false): ((key: JoinKey) => void) | undefined {
  if (joinKeyNamed(args, options)) return undefined;
  return (key) => {
    if (!quiet) note(storedJoinKeyNote(path.resolve(file), key));
  };
}

/** `--join-by trace-id`, `--join-by request-id` or `--join-by request-id=ATTRIBUTE` (the contract's trace.id_source / id_attribute). */
export function parseJoinBy(value: string): JoinKey {
  const [by, attribute, ...rest] = value.split('=');
  if (by === 'trace-id' && attribute === undefined) return { by: 'trace_id' };
  if (by === 'request-id' && rest.length === 0 && (attribute === undefined || /^[A-Za-z0-9_.:\-]+$/.test(attribute))) {
    return { by: 'request_id', attribute: attribute ?? DEFAULT_REQUEST_ID_ATTRIBUTE };
  }
  throw new UsageError(`--join-by expects trace-id, request-id or request-id=SPAN_ATTRIBUTE (e.g. request-id=${DEFAULT_REQUEST_ID_ATTRIBUTE}), got '${value}'`);
}

/** `--group-by model,route` (or `--group-by model route`; `none` for no groups): known dimension names, each once. */
export function parseGroupBy(values: readonly string[]): string[] {
  const names = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  if (names.length === 1 && names[0] === 'none') return [];
  for (const name of names) {
    if (dimensionDecl(name) !== undefined) continue;
    const hint = suggestDimension(name);
    throw new UsageError(`--group-by: unknown dimension '${name}'${hint ? ` (did you mean ${hint}?)` : ''}; expected ${DIMENSIONS.map((d) => d.name).join(', ')} or none`);
  }
  if (new Set(names).size !== names.length) throw new UsageError(`--group-by names a dimension twice: ${names.join(',')}`);
  return names;
}

/**
 * Opens the store and loads the inputs, or reuses a --db file; throws InputError/UsageError on bad
 * input. A --db file is inspected before anything is written (databaseFile.ts): someone else's
 * database, or one from a newer Phasewise, is refused untouched; a load replaces the file only when
 * complete; a read-only file is re-analysed without writing. `resolved`: the options and gates
 * resolveAnalysis(args) gave the caller already (its contract notes are not printed twice).
 */
export async function openSession(args: ParsedArgs, resolved?: { options: AnalysisOptions; gates: GateSpec[] }): Promise<Session> {
  const run = flagList(args, 'run');
  const spans = flagList(args, 'spans');
  const db = flagString(args, 'db');
  const loading = run.length > 0 || spans.length > 0;
  if (!loading && db === undefined) {
    throw new UsageError('give --run FILE... and/or --spans FILE... (or --db FILE holding a loaded run)');
  }
  // --memory-limit/--threads apply to every store of the session (the loading database, the one analysed).
  const memory = storeFlags(args);
  const dbPath = db === undefined ? undefined : path.resolve(db);
  // The file's lock first (databaseLock.ts): of two processes given this --db, one writes it.
  const lock = dbPath !== undefined ? await lockForSession(dbPath, loading) : undefined;
  let analysis: { options: AnalysisOptions; gates: GateSpec[] };
  try {
    if (dbPath !== undefined && loading) await checkLoadTarget(dbPath);
    // A caller that resolved the options already (compare, before loading anything) passes them.
    analysis = resolved ?? (await resolveAnalysis(args));
  } catch (err) {
    lock?.release();
    throw err;
  }
  const { options, gates } = analysis;
  const quiet = flagBoolean(args, 'quiet');

  // The store being worked on: the loading database during a --db load, then the one analysed.
  let store = new DuckStore(memory);
  let interrupted = false;
  const onSigint = (): void => {
    if (interrupted) quitNow(dbPath);
    interrupted = true;
    markInterrupted();
    note('phasewise: interrupted; stopping DuckDB (Ctrl-C again to quit at once)');
    void store.interrupt();
    // A reader busy in JavaScript cannot be interrupted by DuckDB: do not leave the user waiting.
    setTimeout(() => quitNow(dbPath), 3000).unref();
  };
  process.on('SIGINT', onSigint);
  const session: Session = {
    get store() {
      return store;
    },
    options,
    gates,
    quiet,
    interrupted: () => interrupted,
    close: async () => {
      process.off('SIGINT', onSigint);
      // A store that never opened (a bad --db path) rejects again here; the first error is the one to report.
      await store.close().catch(() => undefined);
      lock?.release();
    },
  };

  try {
    if (loading) {
      await loadInputs(session, { run, spans }, args, { dbPath, memory }, (s) => (store = s));
      if (dbPath !== undefined) store = new DuckStore({ ...memory, database: dbPath });
    } else if (dbPath !== undefined) {
      if (!existsSync(dbPath)) throw new InputError(dbPath, undefined, 'a database file written by an earlier `phasewise analyze --db`', 'no such file');
      // Before any DuckDB open (the join key's read below): a pipe would keep it waiting.
      await checkDatabaseFile(dbPath);
      const writable = await isWritable(dbPath);
      if (!writable && !quiet) note(`phasewise: ${dbPath} is read-only: analysing it without writing to it (the derived tables are computed in memory, so this is slower than on a writable file)`);
      // Read before the store opens the file for writing; the analysis later runs with this key.
      if (!joinKeyNamed(args, options)) {
        const stored = await readJoinKeyOfFile(dbPath, memory);
        if (stored?.by === 'request_id') {
          options.joinKey = stored;
          if (!quiet) note(storedJoinKeyNote(dbPath, stored));
        }
      }
      store = new DuckStore({ ...memory, database: dbPath, readOnly: !writable });
      checkLoadComplete(dbPath, await store.open());
      if ((await loadedSourceCount(store)) === 0) {
        throw new InputError(dbPath, undefined, 'a database holding a loaded run (give --run/--spans to load one)', 'an empty database');
      }
      if (flagString(args, 'trace-tag') !== undefined) note('phasewise: --trace-tag only applies while loading; the run in --db was loaded already');
    }
  } catch (err) {
    await session.close();
    throw err;
  }
  return session;
}

/**
 * The lock of a --db file this session may write: one a load replaces, or one re-analysed in place.
 * None for a path nothing will be written to (a read-only file, a missing directory, a file that is
 * not there to re-analyse): the checks after this refuse those with their own message.
 */
async function lockForSession(dbPath: string, loading: boolean): Promise<DatabaseLock | undefined> {
  if (!existsSync(path.dirname(databaseTarget(dbPath))) || !(await isWritable(dbPath))) return undefined;
  if (!loading && !existsSync(dbPath)) return undefined;
  return acquireDatabaseLock(dbPath);
}

/**
 * A --db path a load will replace, before any file is read: refused (InputError) when it is not
 * ours (inspectDatabase) or cannot be written; nothing is written here.
 */
async function checkLoadTarget(dbPath: string): Promise<void> {
  const state = await inspectDatabase(dbPath);
  const dir = path.dirname(databaseTarget(dbPath));
  if (!existsSync(dir)) throw new InputError(dbPath, undefined, 'a --db path in an existing directory', `a directory that does not exist (${dir})`);
  if (!(await isWritable(dbPath))) {
    throw new InputError(dbPath, undefined, 'a --db file this user can write (a load replaces it; re-analysis without --run/--spans works on a read-only file)', state.kind === 'missing' ? `a directory this user cannot write (${dir})` : 'a read-only file or directory');
  }
}

/** The second Ctrl-C, or a reader that does not stop: exit now, leaving no half-loaded database behind. */
function quitNow(dbPath: string | undefined): never {
  if (dbPath !== undefined) {
    const loading = loadingPath(dbPath);
    for (const f of [loading, `${loading}.wal`]) rmSync(f, { force: true });
  }
  process.exit(EXIT_INTERRUPTED);
}

async function loadInputs(
  session: Session,
  files: RunFiles,
  args: ParsedArgs,
  target: { dbPath: string | undefined; memory: StoreMemoryFlags },
  onStore: (store: DuckStore) => void,
): Promise<void> {
  const progress = createProgress(!session.quiet && (flagBoolean(args, 'progress') || stderrIsTerminal()));
  let current = '';
  const options = {
    traceIdTag: session.options.traceIdTag,
    progress: progress.sink,
    onFile: (file: string, bytes: number, side: 'client' | 'server', totalBytes: number) => {
      current = file;
      progress.onFile(file, bytes, side, totalBytes);
    },
  };
  try {
    if (target.dbPath === undefined) await loadRun(session.store, files, options);
    else await loadRunIntoDatabase(target.dbPath, files, { ...options, store: target.memory, onStore });
  } catch (err) {
    // Readers turn bad input into InputErrors; a DuckDB failure left over is ours, but name the file.
    if (err instanceof StoreError && !session.interrupted()) throw err.withContext(`while loading ${current}`);
    throw err;
  }
  progress.done('loaded');
  progress.sink(ANALYSING_MESSAGE);
}

/** DuckDB's memory limit and threads as the flags gave them (absent: the store's defaults). */
export interface StoreMemoryFlags {
  memoryLimit?: string;
  threads?: number;
}

/** --memory-limit and --threads, checked (a bad value is a usage error, exit 4). */
export function storeFlags(args: ParsedArgs): StoreMemoryFlags {
  const out: StoreMemoryFlags = {};
  const memory = flagString(args, 'memory-limit');
  const threads = flagString(args, 'threads');
  try {
    if (memory !== undefined) out.memoryLimit = normalizeMemoryLimit(memory);
  } catch (err) {
    throw new UsageError(`--memory-limit ${(err as Error).message}`);
  }
  try {
    if (threads !== undefined) out.threads = normalizeThreads(threads);
  } catch (err) {
    throw new UsageError(`--threads ${(err as Error).message}`);
  }
  return out;
}

