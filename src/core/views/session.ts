/**
 * A loaded run opened for queries: the `--db` file attached READ_ONLY to an in-memory DuckDB, with
 * the query views (catalog.ts) created as temporary views over it. Nothing a query does can write to
 * the file; the views are created in memory, so a read-only file works too. For a user's SQL the
 * session is then sealed (untrustedQueries): no file access beyond the attached run, settings locked.
 *
 * The file is first inspected as every `--db` is (store/databaseFile.ts), reading only: a file that is
 * not a DuckDB database, someone else's database, one from a newer Phasewise or one whose load did not
 * finish is refused (InputError, exit 4) and left as it was.
 *
 * The views read derived relations (request_breakdown, root_breakdown, span_phase), which must be
 * current for the options (phase mapping, root). When they are not, or the database is from a release
 * before the marker, the run is analysed first through the ordinary store, as `analyze --db` does: a
 * writable file is marked (an old one) and only its stale relations are rebuilt, loaded rows are never
 * touched; a read-only file has its loaded tables copied into memory and analysed there.
 */
import { existsSync } from 'fs';
import * as path from 'path';
import { breakdownIsCurrent, breakdownStamps, ensureBreakdown } from '../analysis/breakdown/pipeline';
import type { Stamps } from '../analysis/catalog/stamps';
import { phaseColumns } from '../analysis/breakdown/phaseSelect';
import { readJoinKey } from '../analysis/joinKeyRecord';
import type { AnalysisOptions, JoinKey } from '../analysis/options';
import { InputError, StoreError } from '../errors';
import { checkLoadComplete, inspectDatabase, isWritable, LEGACY_SCHEMA_VERSION } from '../store/databaseFile';
import { DuckStore, type StoreOptions } from '../store/duckStore';
import { allViews } from './catalog';
import type { ViewContext } from './declarations';

export const EXPECTED_RUN_DATABASE = 'a database written by `phasewise analyze --db`';

/** The schema the run's tables are read from: the attached file's. */
const ALIAS = 'run';
/** The in-memory database of a read-only file's copy (StoreOptions.readOnly). */
const IN_MEMORY = 'memory';

export interface RunViews {
  /**
   * The in-memory store holding the views; the run file is attached to it READ_ONLY, or (a read-only
   * file that needed analysing) its loaded tables were copied into it and analysed there.
   */
  readonly store: DuckStore;
  readonly context: ViewContext;
  /** The names of the views created, in catalog order. */
  readonly views: readonly string[];
  /** The analysis stamps for the options: the figures stored under them (figures/figureCache.ts) are this run's. */
  readonly stamps?: Stamps;
  /** What joined client records to spans under these options (absent: the trace ID). */
  readonly joinKey?: JoinKey;
  close(): Promise<void>;
}

export interface OpenRunOptions {
  /** Called before a stale run is analysed (that can take seconds) with a note saying why. */
  onAnalyse?: (message: string) => void;
  /**
   * For a user's SQL: once the views exist, DuckDB's external access is disabled and its configuration
   * locked, so no query reads a file other than the run (read_csv, read_text, glob, a file name as a
   * table), writes one (COPY, EXPORT), attaches one, installs an extension or changes a setting back.
   * The session cannot write files after this (export does not ask for it).
   */
  untrustedQueries?: boolean;
  /** DuckDB's memory limit and threads for every store the session opens (--memory-limit, --threads). */
  memory?: Pick<StoreOptions, 'memoryLimit' | 'threads'>;
  /**
   * For a caller whose user named no join key: the key the database recorded (joinKeyRecord.ts)
   * replaces the options' trace-ID default, so a request-ID run is not rebuilt by trace ID; called
   * with the key when it is used.
   */
  onStoredJoinKey?: (key: JoinKey) => void;
}

/** Opens `file` for queries under `options`; throws InputError when it is not a run we can read. */
export async function openRunViews(file: string, options: AnalysisOptions, open: OpenRunOptions = {}): Promise<RunViews> {
  const abs = path.resolve(file);
  if (!existsSync(abs)) throw new InputError(abs, undefined, EXPECTED_RUN_DATABASE, 'no such file');
  const state = await inspectDatabase(abs);
  checkLoadComplete(abs, state);
  const legacy = state.kind === 'ours' && state.schemaVersion === LEGACY_SCHEMA_VERSION;
  const memory = open.memory ?? {};
  let store = new DuckStore(memory);
  try {
    let alias = ALIAS;
    await attachReadOnly(store, abs);
    await checkHasRun(store, abs);
    if (open.onStoredJoinKey !== undefined && options.joinKey === undefined) {
      const stored = await readJoinKey(store, ALIAS);
      if (stored?.by === 'request_id') {
        options = { ...options, joinKey: stored };
        open.onStoredJoinKey(stored);
      }
    }
    // An old database lacks columns the views read: it is upgraded as analyze --db upgrades it.
    if (legacy || !(await isCurrent(store, options))) {
      await store.run(`DETACH ${ALIAS}`);
      const why = legacy ? 'a database of a release before the marker: marking it and analysing it first' : 'analysing it first (its derived tables are out of date for these options)';
      if (await isWritable(abs)) {
        open.onAnalyse?.(`phasewise: ${abs}: ${why}`);
        const writer = new DuckStore({ ...memory, database: abs });
        try {
          await ensureBreakdown(writer, options);
        } finally {
          await writer.close();
        }
        await attachReadOnly(store, abs);
      } else {
        open.onAnalyse?.(`phasewise: ${abs} is read-only: analysing it in memory without writing to it (its loaded tables are copied first, so this is slower than on a writable file)`);
        await store.close();
        store = new DuckStore({ ...memory, database: abs, readOnly: true });
        await ensureBreakdown(store, options);
        alias = IN_MEMORY;
      }
    }
    return await createViews(store, alias, options, open);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

/**
 * A run loaded into an in-memory store (core/run/loadRun.ts, as `analyze` without --db loads it)
 * opened for queries: its derived relations are built for `options`, then the views are created as
 * for a file. The returned session owns the store (closing it closes the store); on error the store
 * is left to the caller.
 */
export async function openLoadedViews(store: DuckStore, options: AnalysisOptions, open: OpenRunOptions = {}): Promise<RunViews> {
  await ensureBreakdown(store, options);
  return createViews(store, IN_MEMORY, options, open);
}

async function createViews(store: DuckStore, alias: string, options: AnalysisOptions, open: OpenRunOptions): Promise<RunViews> {
  // Read before the views exist: they shadow the run's table names the stamps are computed from.
  const stamps = await stampsOf(store, alias, options);
  const context = viewContext(options, alias);
  const views = allViews(context);
  for (const view of views) {
    await store.run(`CREATE OR REPLACE TEMP VIEW ${view.name} AS ${view.sql(context)}`);
  }
  // Names no view takes resolve to the run's own tables (read-only), not to the empty in-memory ones.
  if (alias === ALIAS) await store.run(`USE ${ALIAS}`);
  if (open.untrustedQueries === true) {
    await store.run('SET enable_external_access = false');
    await store.run('SET lock_configuration = true');
  }
  return { store, context, views: views.map((v) => v.name), stamps, joinKey: options.joinKey, close: () => store.close() };
}

/** The view context of a run opened under `options`, reading tables of the attached file. */
export function viewContext(options: AnalysisOptions, alias = ALIAS): ViewContext {
  return {
    table: (name) => `${alias}.main.${name}`,
    phaseColumns: phaseColumns(options.phases).map((p) => p.column),
    windowSizeMs: options.windowSizeMs,
  };
}

async function attachReadOnly(store: DuckStore, file: string): Promise<void> {
  try {
    await store.attachReadOnly(file, ALIAS);
  } catch (err) {
    const message = err instanceof StoreError ? err.message : String(err);
    const found = /lock/i.test(message) ? 'a database in use by another process' : /not a valid DuckDB|Invalid Input|magic/i.test(message) ? 'a file that is not a DuckDB database' : 'a file DuckDB cannot open';
    throw new InputError(file, undefined, EXPECTED_RUN_DATABASE, found);
  }
}

/** A database of ours (inspectDatabase said so) that holds no loaded run is refused: there is nothing to query. */
async function checkHasRun(store: DuckStore, file: string): Promise<void> {
  const [sources] = await store.all<{ n: number }>(`SELECT count(*) AS n FROM ${ALIAS}.main.sources`);
  if (Number(sources?.n ?? 0) === 0) throw new InputError(file, undefined, `${EXPECTED_RUN_DATABASE} holding a loaded run`, 'an empty database');
}

async function stampsOf(store: DuckStore, alias: string, options: AnalysisOptions): Promise<Stamps> {
  if (alias === IN_MEMORY) return breakdownStamps(store, options);
  await store.run(`USE ${ALIAS}`);
  try {
    return await breakdownStamps(store, options);
  } finally {
    await store.run('USE memory');
  }
}

async function isCurrent(store: DuckStore, options: AnalysisOptions): Promise<boolean> {
  await store.run(`USE ${ALIAS}`);
  try {
    return await breakdownIsCurrent(store, options);
  } finally {
    await store.run('USE memory');
  }
}
