/**
 * Loading a run into a store, shared by the CLI and the editor so both read files the same way:
 * existence checked first (a clear InputError, not an ENOENT stack), `--run` files as the client side,
 * `--spans` files as the server side, one file at a time so progress can name the file being loaded.
 */
import { copyFile, stat } from 'fs/promises';
import * as path from 'path';
import { checkDistinctFiles, checkReadableFile } from '../formats/input/inputFile';
import { loadFiles, type LoadedFile } from '../formats/loadFiles';
import { checkPlausibility } from '../formats/plausibility';
import type { ProgressSink } from '../formats/types';
import { markLoadedTablesChanged } from '../analysis/catalog/derivedMeta';
import { commitLoad, discardLoad, loadingPath, removeStaleLoads } from '../store/databaseFile';
import { acquireDatabaseLock } from '../store/databaseLock';
import { DuckStore, type QueryRunner, type StoreOptions } from '../store/duckStore';
import { LOADED_TABLES, MARKER_TABLE } from '../store/schema';

export interface RunFiles {
  run: readonly string[];
  spans: readonly string[];
}

export interface LoadRunOptions {
  traceIdTag?: string;
  /** Called before each file with its path and size (and the size of all the files), so a caller can show what is being loaded. */
  onFile?: (file: string, bytes: number, side: 'client' | 'server', totalBytes: number) => void;
  progress?: ProgressSink;
}

/** Throws an InputError for the first file that does not exist or cannot be read, or is given twice. */
export async function checkFilesExist(files: readonly string[]): Promise<void> {
  for (const file of files) await checkReadableFile(file);
  await checkDistinctFiles(files);
}

/** Loads client files then span files into the store; returns what each file contributed. */
export async function loadRun(store: QueryRunner, files: RunFiles, options: LoadRunOptions = {}): Promise<LoadedFile[]> {
  await checkFilesExist([...files.run, ...files.spans]);
  let totalBytes = 0;
  for (const file of [...files.run, ...files.spans]) totalBytes += (await stat(file)).size;
  const loaded: LoadedFile[] = [];
  const sides: Array<['client' | 'server', readonly string[]]> = [
    ['client', files.run],
    ['server', files.spans],
  ];
  for (const [side, list] of sides) {
    for (const file of list) {
      options.onFile?.(path.resolve(file), (await stat(file)).size, side, totalBytes);
      loaded.push(
        ...(await loadFiles(store, [file], { traceIdTag: options.traceIdTag, progress: options.progress, expectSide: side })),
      );
    }
  }
  await checkPlausibility(store);
  return loaded;
}

/**
 * Empties the loaded tables so a store can be filled with another run (no duplicated rows),
 * and marks them changed: the same files loaded again give the same counts and rowids but not the
 * same row at each rowid, so nothing derived from the previous load may pass for current.
 */
export async function clearLoadedRun(store: QueryRunner): Promise<void> {
  for (const name of LOADED_TABLES) await store.run(`DELETE FROM ${name}`);
  await markLoadedTablesChanged(store);
}

/**
 * Loads the files into the database file `file`, replacing the run it held only once the new one is
 * complete (databaseFile.ts): the load fills a new database beside it, marked 'loading' until the
 * last file is in, then checkpointed, closed and renamed over `file`. A failure, Ctrl-C or a killed
 * process leave `file` as it was. `onStore` receives the loading store (to interrupt it). With `base`
 * (a complete database of a run these files extend, closed by the caller) the new database starts as
 * its copy and only `files` are loaded into it: the editor's run cache adds a file that way.
 * Returns what each file contributed; the caller opens `file` again to analyse it.
 */
export async function loadRunIntoDatabase(
  file: string,
  files: RunFiles,
  options: LoadRunOptions & { store?: Omit<StoreOptions, 'database' | 'readOnly'>; onStore?: (store: DuckStore) => void; base?: string } = {},
): Promise<LoadedFile[]> {
  await checkFilesExist([...files.run, ...files.spans]);
  // Held from before the first write to after the rename (the caller may hold it longer: it counts).
  const lock = acquireDatabaseLock(path.resolve(file), file);
  try {
    await removeStaleLoads(file);
    const loading = loadingPath(file);
    await discardLoad(loading);
    if (options.base !== undefined) await copyFile(options.base, loading);
    const store = new DuckStore({ ...options.store, database: loading, unlocked: true });
    options.onStore?.(store);
    try {
      await setLoadState(store, 'loading');
      const loaded = await loadRun(store, files, options);
      await setLoadState(store, 'complete');
      await store.run('CHECKPOINT');
      await store.close();
      await commitLoad(loading, file);
      return loaded;
    } catch (err) {
      await store.close().catch(() => undefined);
      await discardLoad(loading);
      throw err;
    }
  } finally {
    lock.release();
  }
}

/** Marks the database's load as begun or finished (databaseFile.ts refuses a `--db` whose load did not finish). */
export async function setLoadState(store: QueryRunner, state: 'loading' | 'complete'): Promise<void> {
  await store.run(`UPDATE ${MARKER_TABLE} SET load_state = $1`, [state]);
}

/** How many files a store (a database file given with --db) holds: 0 means there is nothing to re-analyse. */
export async function loadedSourceCount(store: QueryRunner): Promise<number> {
  const [row] = await store.all<{ n: number }>('SELECT count(*) AS n FROM sources');
  return row?.n ?? 0;
}
