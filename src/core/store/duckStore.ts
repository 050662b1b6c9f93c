import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from '@duckdb/node-api';
import { CancelledError, InputError, OutOfMemoryError, StoreError } from '../errors';
import { databaseTarget, EXPECTED_DATABASE, inspectDatabase, LEGACY_SCHEMA_VERSION, quotePath, type DatabaseState } from './databaseFile';
import { acquireDatabaseLock, type DatabaseLock } from './databaseLock';
import { removeStoreTempDirectory, storeTempDirectory } from '../tempDirectory';
import { createSchema, LOADED_TABLES } from './schema';

/** A row as JavaScript values; BIGINTs that fit are converted to numbers. */
export type Row = Record<string, unknown>;
export type Params = DuckDBValue[] | Record<string, DuckDBValue>;

/** The small query interface the readers and the analysis depend on (easy to fake in tests). */
export interface QueryRunner {
  run(sql: string, params?: Params): Promise<void>;
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]>;
  /**
   * `run`, calling `onFraction` every PROGRESS_MS while it runs with DuckDB's own estimate of how far
   * the statement is (0..1; for a file scan, the share of the file read), or undefined while DuckDB
   * has none. Optional: runners without it run plainly.
   */
  runWithProgress?(sql: string, params: Params | undefined, onFraction: (fraction: number | undefined) => void): Promise<void>;
  /**
   * The work that follows belongs to the named stage (read client, index, per-request table, a report
   * section…) until the next call: a timing runner (the bench) charges CPU and wall time to it, so a
   * regression shows in the stage that caused it. Optional: stores ignore it (store/stage.ts).
   */
  stage?(name: string): void;
}

/** How often a running statement's progress is read (DuckDB updates a JSON scan's estimate per ≈ 10 MB buffer). */
const PROGRESS_MS = 250;

/**
 * DuckDB's memory_limit unless the caller sets one. DuckDB allocates beyond it (JSON read buffers,
 * Node's own heap is extra): with 1200MB the bench's 1M-request load peaked at 1.7–1.9 GB RSS
 * (docs/performance.md: ≤ 2 GB); with 2GB an earlier 1M load peaked at 2.8 GB. The bench measures with this value.
 */
export const DEFAULT_MEMORY_LIMIT = '1200MB';

export interface StoreOptions {
  /**
   * Database file; ':memory:' (default) or a path so that re-analysis never re-parses. An existing
   * file is opened only when databaseFile.ts finds our marker in it (never written otherwise).
   */
  database?: string;
  /**
   * Open `database` without writing to it (a read-only file or directory): it is attached READ_ONLY
   * to an in-memory database that holds views of its loaded tables, so the analysis can still create
   * its derived tables (in memory: a re-analysis here recomputes them).
   */
  readOnly?: boolean;
  /**
   * Do not take `database`'s lock (databaseLock.ts): it is a load's private new file, and the caller
   * holds the lock of the file it will replace (loadRun.ts loadRunIntoDatabase).
   */
  unlocked?: boolean;
  /** DuckDB memory_limit, e.g. '2GB' (default DEFAULT_MEMORY_LIMIT): DuckDB spills to temp_directory instead of exhausting the host. */
  memoryLimit?: string;
  threads?: number;
  /** DuckDB's spill directory (default: one of this instance's own, tempDirectory.ts). */
  tempDirectory?: string;
}

/**
 * The DuckDB service: starts lazily on first query (the extension activates without loading the
 * native module), owns one connection, and creates the Phasewise tables.
 */
export class DuckStore implements QueryRunner {
  private instance: DuckDBInstance | undefined;
  private connection: Promise<DuckDBConnection> | undefined;
  /** Set by interrupt(): every later query is refused (see interrupt). */
  private cancelled = false;
  /** What the database file was when it was opened (undefined: in memory, or not opened yet). */
  private state: DatabaseState | undefined;
  private progressOn = false;
  /** Files attached READ_ONLY through attachReadOnly (a damaged block read later is blamed on the one there is). */
  private readonly attached: string[] = [];
  /** The spill directory this store made for its instance (removed on close). */
  private spillDirectory: string | undefined;
  /** The lock of a database file opened for writing (databaseLock.ts), held until close. */
  private lock: DatabaseLock | undefined;

  constructor(private readonly options: StoreOptions = {}) {}

  /** Attaches `file` READ_ONLY as `alias` (an identifier of ours, never user text). */
  async attachReadOnly(file: string, alias: string): Promise<void> {
    await this.run(`ATTACH ${quotePath(file)} AS ${alias} (READ_ONLY)`);
    this.attached.push(file);
  }

  private connect(): Promise<DuckDBConnection> {
    if (!this.connection) {
      this.connection = (async () => {
        // Loaded here, not at module top, so importing the store costs nothing until first use.
        const { DuckDBInstance } = await import('@duckdb/node-api');
        // Spill files in a directory of this instance's own (tempDirectory.ts): DuckDB names them
        // alike in every instance, and two instances sharing a directory crashed each other.
        if (this.options.tempDirectory === undefined) this.spillDirectory ??= storeTempDirectory();
        const config: Record<string, string> = {
          memory_limit: this.options.memoryLimit ?? DEFAULT_MEMORY_LIMIT,
          temp_directory: this.options.tempDirectory ?? this.spillDirectory!,
          preserve_insertion_order: 'true',
        };
        if (this.options.threads !== undefined) config.threads = String(this.options.threads);
        // Through symbolic links to the database itself (databaseFile.ts databaseTarget).
        const file = this.options.database === undefined || this.options.database === ':memory:' ? undefined : databaseTarget(this.options.database);
        // Files are attached to an in-memory instance, after their marker was read from a READ_ONLY
        // attachment of the same file (databaseFile.ts): someone else's database is never opened
        // for writing, and one instance is started, not two.
        this.instance = await DuckDBInstance.create(':memory:', config);
        const conn = await this.instance.connect();
        if (file === undefined) {
          await createSchema(conn, true);
          return conn;
        }
        // Nothing of the file is read before its lock is ours: another process may be replacing it.
        if (!this.options.readOnly && !this.options.unlocked) this.lock = acquireDatabaseLock(file);
        this.state = await inspectDatabase(file, conn);
        if (this.options.readOnly) {
          if (this.state.kind !== 'ours') throw new InputError(file, undefined, EXPECTED_DATABASE, 'no such file');
          await copyReadOnly(conn, file);
        } else {
          try {
            await conn.run(`ATTACH ${quotePath(file)} AS run`);
          } catch (err) {
            throw new InputError(file, undefined, EXPECTED_DATABASE, `a file DuckDB cannot open for writing (${errorMessage(err).includes('lock') ? 'in use by another process' : 'permission or disk'}); it was not modified`);
          }
          await conn.run('USE run');
          await createSchema(conn, this.state.kind === 'missing', this.state.kind === 'ours' && this.state.schemaVersion === LEGACY_SCHEMA_VERSION);
        }
        return conn;
      })().catch((err: unknown) => {
        // A damaged file can fail while it is attached or copied (readOnly): the same InputError.
        throw damagedDatabase(errorMessage(err), this.options.database) ?? err;
      });
    }
    return this.connection;
  }

  /** Opens the store (if it is not open) and says what its database file held: see databaseFile.ts. */
  async open(): Promise<DatabaseState | undefined> {
    await this.connectUnlessCancelled();
    return this.state;
  }

  async run(sql: string, params?: Params): Promise<void> {
    const conn = await this.connectUnlessCancelled();
    try {
      await conn.run(sql, params);
    } catch (err) {
      throw this.storeError(err, sql);
    }
  }

  async runWithProgress(sql: string, params: Params | undefined, onFraction: (fraction: number | undefined) => void): Promise<void> {
    const conn = await this.connectUnlessCancelled();
    // DuckDB keeps the estimate only with its progress bar on (printing it stays off); per connection, set once.
    if (!this.progressOn) {
      await conn.run('SET enable_progress_bar = true');
      await conn.run('SET enable_progress_bar_print = false');
      this.progressOn = true;
    }
    // The statement runs on DuckDB's threads; this thread only reads the estimate (duckdb_query_progress).
    const timer = setInterval(() => {
      const pct = conn.progress.percentage;
      onFraction(pct > 0 ? Math.min(1, pct / 100) : undefined);
    }, PROGRESS_MS);
    try {
      await conn.run(sql, params);
    } catch (err) {
      throw this.storeError(err, sql);
    } finally {
      clearInterval(timer);
    }
  }

  async all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    const conn = await this.connectUnlessCancelled();
    try {
      const reader = await conn.runAndReadAll(sql, params);
      return reader.getRowObjectsJS().map((row) => normalizeRow(row) as T);
    } catch (err) {
      throw this.storeError(err, sql);
    }
  }

  /**
   * DuckDB's failure as ours: out of memory says which limit was in force (errors.ts); a block of the
   * database file that fails its checksum is the file's fault, bad input naming it (damagedDatabase);
   * anything else keeps its SQL.
   */
  private storeError(err: unknown, sql: string): Error {
    const message = errorMessage(err);
    if (/^Out of Memory Error/.test(message)) return new OutOfMemoryError(this.options.memoryLimit ?? DEFAULT_MEMORY_LIMIT, this.options.threads);
    const file = this.options.database ?? (this.attached.length === 1 ? this.attached[0] : undefined);
    return damagedDatabase(message, file) ?? new StoreError(message, sql);
  }

  /**
   * A result as column names, DuckDB type names and rows of values (duplicate names kept): for a
   * user's query. With `maxRows`, reading stops once that many rows are in (streamed: a large result
   * is never held whole); the rows may then run a chunk past it.
   */
  async table(sql: string, maxRows?: number): Promise<{ columns: string[]; types: string[]; rows: unknown[][] }> {
    const conn = await this.connectUnlessCancelled();
    try {
      const reader = maxRows === undefined ? await conn.runAndReadAll(sql) : await conn.streamAndReadUntil(sql, maxRows);
      return { columns: reader.columnNames(), types: reader.columnTypes().map((t) => t.toString()), rows: reader.getRowsJS().map((r) => r.map(normalizeValue)) };
    } catch (err) {
      throw this.storeError(err, sql);
    }
  }

  /**
   * A user's query streamed: `head` gets its columns and DuckDB type names, then `rows` each chunk of
   * rows as it is fetched (DuckDB's vector size, 2048) and is awaited before the next one, so a slow
   * writer holds the query back and the result is never held whole (`sql --format csv` over 20M rows
   * held them all and ran V8 out of heap). With `maxRows`, reading stops once that many rows are in
   * (the last chunk may run past it). Returns the rows read.
   */
  async streamTable(
    sql: string,
    sink: { head(columns: string[], types: string[]): Promise<void>; rows(rows: unknown[][]): Promise<void> },
    maxRows?: number,
  ): Promise<number> {
    const conn = await this.connectUnlessCancelled();
    // DuckDB's failures become StoreErrors; the sink's own (a full disk, a closed pipe) pass as they are.
    const engine = async <T>(step: () => Promise<T>): Promise<T> => {
      try {
        return await step();
      } catch (err) {
        throw this.storeError(err, sql);
      }
    };
    const result = await engine(() => conn.stream(sql));
    await sink.head(result.columnNames(), result.columnTypes().map((t) => t.toString()));
    const chunks = result.yieldRowsJs()[Symbol.asyncIterator]();
    let read = 0;
    for (;;) {
      const next = await engine(() => chunks.next());
      if (next.done) return read;
      read += next.value.length;
      await sink.rows(next.value.map((r) => r.map(normalizeValue)));
      if (maxRows !== undefined && read >= maxRows) return read;
    }
  }

  /**
   * A result column by column (for numeric columns read whole, e.g. the values a bootstrap resamples):
   * far cheaper than row objects when there are many rows.
   */
  async columns(sql: string): Promise<Map<string, unknown[]>> {
    const conn = await this.connectUnlessCancelled();
    try {
      const reader = await conn.runAndReadAll(sql);
      const names = reader.columnNames();
      const values = reader.getColumnsJS();
      return new Map(names.map((n, i) => [n, values[i]]));
    } catch (err) {
      throw this.storeError(err, sql);
    }
  }

  /**
   * Cancels the work on this store (the editor's cancel button, Ctrl-C): interrupts the running query
   * and refuses every later one with CancelledError. Why sticky: DuckDB's interrupt only stops the
   * query running at that instant, so a cancel that lands between two queries (e.g. between two
   * files) was lost and the analysis ran to the end.
   */
  async interrupt(): Promise<void> {
    this.cancelled = true;
    if (this.connection) (await this.connection).interrupt();
  }

  private async connectUnlessCancelled(): Promise<DuckDBConnection> {
    if (this.cancelled) throw new CancelledError();
    const conn = await this.connect();
    if (this.cancelled) throw new CancelledError();
    return conn;
  }

  async close(): Promise<void> {
    try {
      // A store whose open failed has nothing to close but its instance (the open's error was reported).
      const conn = this.connection ? await this.connection.catch(() => undefined) : undefined;
      conn?.closeSync();
      this.instance?.closeSync();
    } finally {
      this.instance = undefined;
      this.connection = undefined;
      this.progressOn = false;
      this.lock?.release();
      this.lock = undefined;
      if (this.spillDirectory !== undefined) removeStoreTempDirectory(this.spillDirectory);
      this.spillDirectory = undefined;
    }
  }
}

/**
 * The loaded tables of `file`, copied into the in-memory database (StoreOptions.readOnly). Copied, not
 * viewed: with the file attached, its derived tables from an earlier analysis show in the catalog
 * (duckdb_tables()) but not under their plain names, and the analysis would take them for its own.
 */
async function copyReadOnly(conn: DuckDBConnection, file: string): Promise<void> {
  await conn.run(`ATTACH ${quotePath(file)} AS loaded_run (READ_ONLY)`);
  try {
    await createSchema(conn, true);
    const present = new Set(
      (await conn.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = 'loaded_run' AND schema_name = 'main'`)).getRowObjectsJS().map((r) => String(r.table_name)),
    );
    // An earlier release's database lacks the tables added since (databaseFile.ts): they stay empty.
    for (const table of LOADED_TABLES) if (present.has(table)) await conn.run(`INSERT INTO main.${table} BY NAME SELECT * FROM loaded_run.main.${table}`);
  } finally {
    await conn.run('DETACH DATABASE IF EXISTS loaded_run');
  }
}

/** A VARCHAR[] parameter (e.g. the file list of a multi-file read); loads the DuckDB module like the store does. */
export async function listParam(items: readonly string[]): Promise<DuckDBValue> {
  const { listValue } = await import('@duckdb/node-api');
  return listValue([...items]);
}

/**
 * The InputError for a database file DuckDB found damaged (a block whose checksum does not match, or
 * one past the end of a truncated file: DuckDB checks each block as it reads it, so this can surface
 * in any statement), or undefined for any other failure. A damaged file made every command fail with exit 5 ("a bug in Phasewise").
 */
export function damagedDatabase(message: string, file: string | undefined): InputError | undefined {
  if (file === undefined || file === ':memory:' || !/^IO Error: (Corrupt database file|Could not read enough bytes from file)/.test(message)) return undefined;
  return new InputError(file, undefined, EXPECTED_DATABASE, 'a damaged database (a block fails its checksum or lies past the end of the file: a disk error, a copy cut short, or bytes changed by something else)');
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function normalizeValue(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (Array.isArray(value)) return value.map(normalizeValue);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalizeValue(v);
    return out;
  }
  return value;
}

function normalizeRow(row: Record<string, unknown>): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) out[k] = normalizeValue(v);
  return out;
}
