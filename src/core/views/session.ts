/**
 * A loaded run opened for queries: the `--db` file attached READ_ONLY to an in-memory DuckDB, with
 * the query views (catalog.ts) created as temporary views over it. Nothing a query does can write to
 * the file; the views are created in memory, so a read-only file works too. For a user's SQL the
 * session is then sealed (untrustedQueries): no file access beyond the attached run, settings locked.
 *
 * The views read derived relations (request_breakdown, root_breakdown, span_phase), which must be
 * current for the options (phase mapping, root). When they are not, and the file can be written, the
 * run is analysed first through the ordinary store (what `analyze --db` does: only stale relations are
 * rebuilt, loaded rows are never touched); a read-only file whose derived tables are out of date is
 * refused with what to do.
 */
import { constants, existsSync } from 'fs';
import { access } from 'fs/promises';
import * as path from 'path';
import { breakdownIsCurrent, ensureBreakdown } from '../analysis/breakdown/pipeline';
import { phaseColumns } from '../analysis/breakdown/phaseSelect';
import { LOADED_TABLES } from '../analysis/catalog/declarations';
import type { AnalysisOptions } from '../analysis/options';
import { InputError, StoreError } from '../errors';
import { DuckStore } from '../store/duckStore';
import { allViews } from './catalog';
import type { ViewContext } from './declarations';

export const EXPECTED_RUN_DATABASE = 'a database written by `phasewise analyze --db`';

/** The schema the run's tables are read from: the attached file's. */
const ALIAS = 'run';

export interface RunViews {
  /** The in-memory store holding the views; the run file is attached to it READ_ONLY. */
  readonly store: DuckStore;
  readonly context: ViewContext;
  /** The names of the views created, in catalog order. */
  readonly views: readonly string[];
  close(): Promise<void>;
}

export interface OpenRunOptions {
  /** Called before a stale run is analysed (that can take seconds): for a progress note. */
  onAnalyse?: (file: string) => void;
  /**
   * For a user's SQL: once the views exist, DuckDB's external access is disabled and its configuration
   * locked, so no query reads a file other than the run (read_csv, read_text, glob, a file name as a
   * table), writes one (COPY, EXPORT), attaches one, installs an extension or changes a setting back.
   * The session cannot write files after this (export does not ask for it).
   */
  untrustedQueries?: boolean;
}

/** Opens `file` for queries under `options`; throws InputError when it is not a run we can read. */
export async function openRunViews(file: string, options: AnalysisOptions, open: OpenRunOptions = {}): Promise<RunViews> {
  const abs = path.resolve(file);
  if (!existsSync(abs)) throw new InputError(abs, undefined, EXPECTED_RUN_DATABASE, 'no such file');
  const store = new DuckStore();
  try {
    await attachReadOnly(store, abs);
    await checkIsRun(store, abs);
    if (!(await isCurrent(store, options))) {
      if (!(await writable(abs))) {
        throw new InputError(abs, undefined, `${EXPECTED_RUN_DATABASE} analysed with these options`, 'a read-only file whose derived tables are out of date for them (run `phasewise analyze --db` on it with the same --contract/--window, or on a writable copy)');
      }
      await store.run(`DETACH ${ALIAS}`);
      open.onAnalyse?.(abs);
      const writer = new DuckStore({ database: abs });
      try {
        await ensureBreakdown(writer, options);
      } finally {
        await writer.close();
      }
      await attachReadOnly(store, abs);
    }
    const context = viewContext(options);
    const views = allViews(context);
    for (const view of views) {
      await store.run(`CREATE OR REPLACE TEMP VIEW ${view.name} AS ${view.sql(context)}`);
    }
    // Names no view takes resolve to the run's own tables (read-only), not to the empty in-memory ones.
    await store.run(`USE ${ALIAS}`);
    if (open.untrustedQueries === true) {
      await store.run('SET enable_external_access = false');
      await store.run('SET lock_configuration = true');
    }
    return { store, context, views: views.map((v) => v.name), close: () => store.close() };
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

/** The view context of a run opened under `options`, reading tables of the attached file. */
export function viewContext(options: AnalysisOptions, alias = ALIAS): ViewContext {
  return {
    table: (name) => `${alias}.main.${name}`,
    phaseColumns: phaseColumns(options.phases).map((p) => p.column),
    windowSizeMs: options.windowSizeMs,
  };
}

function quotePath(file: string): string {
  return `'${file.replace(/'/g, "''")}'`;
}

async function attachReadOnly(store: DuckStore, file: string): Promise<void> {
  try {
    await store.run(`ATTACH ${quotePath(file)} AS ${ALIAS} (READ_ONLY)`);
  } catch (err) {
    const message = err instanceof StoreError ? err.message : String(err);
    const found = /lock/i.test(message) ? 'a database in use by another process' : /not a valid DuckDB|Invalid Input|magic/i.test(message) ? 'a file that is not a DuckDB database' : 'a file DuckDB cannot open';
    throw new InputError(file, undefined, EXPECTED_RUN_DATABASE, found);
  }
}

/** A DuckDB database without our loaded tables is someone else's: refused, never opened for writing. */
async function checkIsRun(store: DuckStore, file: string): Promise<void> {
  const rows = await store.all<{ name: string }>(
    `SELECT table_name AS name FROM duckdb_tables() WHERE database_name = '${ALIAS}' AND schema_name = 'main'`,
  );
  const names = new Set(rows.map((r) => r.name));
  const missing = LOADED_TABLES.filter((t) => !names.has(t));
  if (missing.length > 0) {
    throw new InputError(file, undefined, EXPECTED_RUN_DATABASE, `a DuckDB database without ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''} (not a Phasewise run); it was not modified`);
  }
  const [sources] = await store.all<{ n: number }>(`SELECT count(*) AS n FROM ${ALIAS}.main.sources`);
  if (Number(sources?.n ?? 0) === 0) throw new InputError(file, undefined, `${EXPECTED_RUN_DATABASE} holding a loaded run`, 'an empty database');
}

async function isCurrent(store: DuckStore, options: AnalysisOptions): Promise<boolean> {
  await store.run(`USE ${ALIAS}`);
  try {
    return await breakdownIsCurrent(store, options);
  } finally {
    await store.run('USE memory');
  }
}

async function writable(file: string): Promise<boolean> {
  try {
    await access(file, constants.W_OK);
    await access(path.dirname(file), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
