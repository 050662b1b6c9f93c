/**
 * A `--db` file on disk: what it is before anything is written to it, and how a load replaces it.
 *
 * - inspectDatabase reads only: the file's header bytes, then DuckDB opened READ_ONLY to read the
 *   marker (schema.ts). A file that is not a DuckDB database, a DuckDB database without our marker
 *   (someone else's data), or one marked by a newer Phasewise is refused with an InputError (exit 4)
 *   and never opened for writing. A database written by a release before the marker is recognised by
 *   its loaded tables (LEGACY_TABLES: all seven) and marked on its first writable open (schema version
 *   0 below). Names are not enough: every table of ours a file holds (the marker included) must have
 *   exactly our columns with our types, less those added since a release (schema.ts LEGACY_COLUMNS);
 *   someone's tables that merely share our names are someone else's data.
 * - A load never writes into the file it replaces: it builds a new database beside it
 *   (loadingPath), and commitLoad renames it over the target once it is complete and checkpointed.
 *   Ctrl-C, a crash or SIGKILL during the load leave the previous file as it was (plus a stale
 *   loading file, removed by the next load). The cost is the disk space of a second copy during a
 *   load; a transaction over the whole load instead held every inserted row in memory (or DuckDB's
 *   temp files) until the commit, which at 1M requests spilled gigabytes (see formats/spans/otlp.ts).
 */
import { constants, existsSync, lstatSync, readlinkSync } from 'fs';
import { access, open, readdir, rename, rm, stat } from 'fs/promises';
import * as path from 'path';
import { InputError } from '../errors';
import { processAlive } from '../processExit';
import { LEGACY_COLUMNS, LOADED_TABLES, MARKER_TABLE, schemaSqlIn, STORE_NAME, STORE_SCHEMA_VERSION } from './schema';

export const EXPECTED_DATABASE = 'a database written by `phasewise analyze --db` (or a path that does not exist yet)';

export type DatabaseState =
  | { kind: 'missing' }
  | { kind: 'ours'; schemaVersion: number; loadState: string; writtenBy: string };

/** DuckDB's file header: 8 bytes of checksum, then the magic bytes. */
const MAGIC = Buffer.from('DUCK');
const MAGIC_OFFSET = 8;

/**
 * The loaded tables of the releases before the marker (schema.ts LOADED_TABLES without load_skips and source_provenance).
 * Those releases had no load state: such a database is taken as complete, as they did.
 */
const LEGACY_TABLES = ['sources', 'load_issues', 'client_requests', 'run_counters', 'spans', 'span_events', 'k6_summary'];

/** Schema version of an unmarked database of an earlier release. */
export const LEGACY_SCHEMA_VERSION = 0;

/** Tables named in a refusal, so the user recognises their database. */
const NAMED_TABLES = 5;

/** The part of a DuckDB connection inspectDatabase needs. */
export interface ProbeConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): Array<Record<string, unknown>> }>;
}

/**
 * What `file` is, without writing anything. Throws InputError when it is not a Phasewise database
 * this version can read, or cannot be opened (in use by another process, unreadable). `conn` is a
 * connection to use (DuckStore's own, so that no second DuckDB instance is started: ≈ 60 ms); the
 * file is attached READ_ONLY to it, read and detached.
 */
export async function inspectDatabase(file: string, conn?: ProbeConnection): Promise<DatabaseState> {
  if (!existsSync(file)) return { kind: 'missing' };
  await checkDatabaseFile(file);
  if (conn) return probe(file, conn);
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  try {
    const own = await instance.connect();
    try {
      return await probe(file, own);
    } finally {
      own.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/**
 * Throws InputError unless `file` (which exists) is a regular file that starts like a DuckDB
 * database: checked before DuckDB opens it, which on a FIFO or a device waits for data forever.
 */
export async function checkDatabaseFile(file: string): Promise<void> {
  const info = await stat(file);
  if (!info.isFile()) throw new InputError(file, undefined, EXPECTED_DATABASE, info.isDirectory() ? 'a directory' : 'not a regular file (a pipe or a device); it was not opened');
  await checkHeader(file);
}

/** SQL literal of a path (ATTACH takes no bound parameters). */
export function quotePath(file: string): string {
  return `'${file.replace(/'/g, "''")}'`;
}

async function probe(file: string, conn: ProbeConnection): Promise<DatabaseState> {
  try {
    await conn.run(`ATTACH ${quotePath(file)} AS phasewise_probe (READ_ONLY)`);
  } catch (err) {
    throw openError(file, err);
  }
  try {
    const tables = (await conn.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = 'phasewise_probe' AND schema_name = 'main' ORDER BY table_name`))
      .getRowObjectsJS()
      .map((r) => String(r.table_name));
    if (!tables.includes(MARKER_TABLE) && !LEGACY_TABLES.every((t) => tables.includes(t))) throw foreign(file, tables);
    const mismatch = await columnMismatch(conn, 'phasewise_probe');
    if (mismatch !== undefined) throw foreign(file, tables, mismatch);
    if (!tables.includes(MARKER_TABLE)) return { kind: 'ours', schemaVersion: LEGACY_SCHEMA_VERSION, loadState: 'complete', writtenBy: 'a Phasewise release before the marker' };
    const rows = (await conn.runAndReadAll(`SELECT name, schema_version, written_by, load_state FROM phasewise_probe.main.${MARKER_TABLE}`)).getRowObjectsJS();
    const marker = rows.length === 1 ? rows[0] : undefined;
    if (!marker || marker.name !== STORE_NAME || typeof marker.schema_version !== 'number') throw foreign(file, tables);
    if (marker.schema_version > STORE_SCHEMA_VERSION) {
      throw new InputError(file, undefined, EXPECTED_DATABASE, `a database written by a newer Phasewise (${String(marker.written_by)}, schema version ${marker.schema_version}; this Phasewise reads up to ${STORE_SCHEMA_VERSION}); it was not modified`);
    }
    return { kind: 'ours', schemaVersion: marker.schema_version, loadState: String(marker.load_state), writtenBy: String(marker.written_by) };
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw openError(file, err);
  } finally {
    await conn.run('DETACH DATABASE IF EXISTS phasewise_probe');
  }
}

/**
 * A database to re-analyse or query must hold a load that finished (one whose load was interrupted,
 * or that never had one, is refused: InputError, exit 4, the file untouched).
 */
export function checkLoadComplete(file: string, state: DatabaseState | undefined): void {
  if (state?.kind !== 'ours' || state.loadState === 'complete') return;
  throw new InputError(file, undefined, 'a database holding a complete loaded run', `${state.loadState === 'loading' ? 'a load that did not finish' : 'no loaded run'}; load it again with --run/--spans`);
}

/** Whether `file` starts like a DuckDB database (its magic bytes), read without opening it in DuckDB. */
export async function hasDuckDbHeader(file: string): Promise<boolean> {
  return checkHeader(file).then(
    () => true,
    () => false,
  );
}

async function checkHeader(file: string): Promise<void> {
  const handle = await open(file, 'r').catch((err: unknown) => {
    throw new InputError(file, undefined, EXPECTED_DATABASE, `a file this user cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  });
  try {
    const head = Buffer.alloc(MAGIC_OFFSET + MAGIC.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (bytesRead === 0) throw new InputError(file, undefined, EXPECTED_DATABASE, 'an empty file; it was not modified');
    if (bytesRead < head.length || !head.subarray(MAGIC_OFFSET).equals(MAGIC)) {
      throw new InputError(file, undefined, EXPECTED_DATABASE, 'a file that is not a DuckDB database; it was not modified');
    }
  } finally {
    await handle.close();
  }
}

function foreign(file: string, tables: readonly string[], mismatch?: string): InputError {
  const named = tables.length === 0 ? 'no tables' : `tables ${tables.slice(0, NAMED_TABLES).join(', ')}${tables.length > NAMED_TABLES ? ', …' : ''}`;
  return new InputError(file, undefined, EXPECTED_DATABASE, `a DuckDB database that Phasewise did not write (${named}${mismatch ? `; ${mismatch}` : ''}); it was not modified (give a new path to --db)`);
}

/** The columns (name → DuckDB type) of our marker and loaded tables, as this DuckDB creates them: read once per process. */
let ourColumns: Promise<Map<string, Map<string, string>>> | undefined;

/** Table → column → type of the tables of `database` (an attached database) that have our tables' names. */
async function columnsOf(conn: ProbeConnection, database: string): Promise<Map<string, Map<string, string>>> {
  const names = [MARKER_TABLE, ...LOADED_TABLES].map((t) => `'${t}'`).join(', ');
  const rows = (await conn.runAndReadAll(
    `SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = '${database}' AND schema_name = 'main' AND table_name IN (${names}) ORDER BY table_name, column_index`,
  )).getRowObjectsJS();
  const out = new Map<string, Map<string, string>>();
  for (const r of rows) {
    const table = String(r.table_name);
    if (!out.has(table)) out.set(table, new Map());
    out.get(table)!.set(String(r.column_name), String(r.data_type));
  }
  return out;
}

function expectedColumns(conn: ProbeConnection): Promise<Map<string, Map<string, string>>> {
  ourColumns ??= (async () => {
    await conn.run(`ATTACH ':memory:' AS phasewise_expected`);
    try {
      await conn.run(schemaSqlIn('phasewise_expected'));
      return await columnsOf(conn, 'phasewise_expected');
    } finally {
      await conn.run('DETACH DATABASE IF EXISTS phasewise_expected');
    }
  })();
  ourColumns.catch(() => (ourColumns = undefined));
  return ourColumns;
}

/** Columns an earlier release may lack, per table. */
const OPTIONAL = new Set(LEGACY_COLUMNS.map(([table, definition]) => `${table}.${definition.split(' ')[0]}`));

/**
 * What makes the file's tables of our names not ours (see the file header), or undefined: a column we
 * never wrote, one of another type, one we always wrote that is missing.
 */
async function columnMismatch(conn: ProbeConnection, database: string): Promise<string | undefined> {
  const expected = await expectedColumns(conn);
  for (const [table, columns] of await columnsOf(conn, database)) {
    const ours = expected.get(table);
    if (ours === undefined) continue;
    for (const [column, type] of columns) {
      if (ours.get(column) !== type) return `${table}.${column} ${type} is not a column Phasewise writes`;
    }
    for (const column of ours.keys()) {
      if (!columns.has(column) && !OPTIONAL.has(`${table}.${column}`)) return `${table} has no ${column} column`;
    }
  }
  return undefined;
}

/** DuckDB could not open the file: another process holds it, or it is damaged. No DuckDB text is passed on. */
function openError(file: string, err: unknown): InputError {
  const message = err instanceof Error ? err.message : String(err);
  const pid = /\(PID (\d+)\)/.exec(message)?.[1];
  if (/lock/i.test(message)) {
    return new InputError(file, undefined, EXPECTED_DATABASE, `a database in use by another process${pid ? ` (PID ${pid})` : ''}; close it there first`);
  }
  if (/version|storage/i.test(message)) {
    return new InputError(file, undefined, EXPECTED_DATABASE, 'a DuckDB database in a storage format this DuckDB cannot read; it was not modified');
  }
  return new InputError(file, undefined, EXPECTED_DATABASE, 'a DuckDB database that cannot be opened (damaged?); it was not modified');
}

/** Whether this process may write the file and create files beside it (DuckDB writes `FILE.wal`). */
export async function isWritable(link: string): Promise<boolean> {
  const file = databaseTarget(link);
  const dir = path.dirname(file);
  try {
    await access(dir, constants.W_OK);
    if (existsSync(file)) await access(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const LOADING_SUFFIX = /^\.(.+)\.loading-(\d+)\.duckdb(\.wal|\.old-wal)?$/;

/** Symbolic links followed at most this many times (Linux's own limit); past it the open reports the loop. */
const MAX_LINKS = 40;

/**
 * The file a `--db` path stands for: symbolic links followed, a dangling one's target included. A
 * load replaces that file, never the link (as `--out` writes through a link); DuckDB opens it there,
 * so its WAL and our lock and loading files sit beside the data, whichever link named it.
 */
export function databaseTarget(file: string): string {
  let current = path.resolve(file);
  for (let i = 0; i < MAX_LINKS; i++) {
    const info = lstatSync(current, { throwIfNoEntry: false });
    if (!info?.isSymbolicLink()) return current;
    current = path.resolve(path.dirname(current), readlinkSync(current));
  }
  return current;
}

/** The new database a load into `file` builds, beside it (same file system, so the rename is atomic). */
export function loadingPath(file: string): string {
  const abs = databaseTarget(file);
  return path.join(path.dirname(abs), `.${path.basename(abs)}.loading-${process.pid}.duckdb`);
}

/** Removes loading files of `file` left by loads that were killed (their process is gone). */
export async function removeStaleLoads(file: string): Promise<void> {
  const abs = databaseTarget(file);
  const dir = path.dirname(abs);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = LOADING_SUFFIX.exec(name);
    if (!m || m[1] !== path.basename(abs) || processAlive(Number(m[2]))) continue;
    await rm(path.join(dir, name), { force: true });
  }
}

/** Removes a load's new database (and its WAL): the load failed or was interrupted. */
export async function discardLoad(loading: string): Promise<void> {
  await rm(loading, { force: true });
  await rm(`${loading}.wal`, { force: true });
}

/**
 * Puts the complete new database in place of `file` (closed and checkpointed by the caller, so it
 * has no WAL). The old file's WAL, if a killed process left one, belongs to the old data and would be
 * replayed into the new file: it is moved aside first and removed after the rename (what it held were
 * derived tables, which the next analysis recomputes).
 */
export async function commitLoad(loading: string, file: string): Promise<void> {
  const abs = databaseTarget(file);
  const staleWal = `${abs}.wal`;
  const aside = `${loading}.old-wal`;
  if (existsSync(staleWal)) await rename(staleWal, aside);
  await rename(loading, abs);
  await rm(aside, { force: true });
}
