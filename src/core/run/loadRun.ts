/**
 * Loading a run into a store, shared by the CLI and the editor so both read files the same way:
 * existence checked first (a clear InputError, not an ENOENT stack), `--run` files as the client side,
 * `--spans` files as the server side, one file at a time so progress can name the file being loaded.
 */
import { stat } from 'fs/promises';
import * as path from 'path';
import { checkDistinctFiles, checkReadableFile } from '../formats/inputFile';
import { loadFiles, type LoadedFile } from '../formats/loadFiles';
import type { ProgressSink } from '../formats/types';
import type { QueryRunner } from '../store/duckStore';
import { markLoadedTablesChanged } from '../analysis/catalog/derivedMeta';
import { LOADED_TABLES } from '../analysis/catalog/relations';


export interface RunFiles {
  run: readonly string[];
  spans: readonly string[];
}

export interface LoadRunOptions {
  traceIdTag?: string;
  /** Called before each file with its path and size, so a caller can show what is being loaded. */
  onFile?: (file: string, bytes: number, side: 'client' | 'server') => void;
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
  const loaded: LoadedFile[] = [];
  const sides: Array<['client' | 'server', readonly string[]]> = [
    ['client', files.run],
    ['server', files.spans],
  ];
  for (const [side, list] of sides) {
    for (const file of list) {
      options.onFile?.(path.resolve(file), (await stat(file)).size, side);
      loaded.push(
        ...(await loadFiles(store, [file], { traceIdTag: options.traceIdTag, progress: options.progress, expectSide: side })),
      );
    }
  }
  return loaded;
}

/**
 * Empties the loaded tables so a database file can be filled with another run (no duplicated rows),
 * and marks them changed: the same files loaded again give the same counts and rowids but not the
 * same row at each rowid, so nothing derived from the previous load may pass for current.
 */
export async function clearLoadedRun(store: QueryRunner): Promise<void> {
  for (const name of LOADED_TABLES) await store.run(`DELETE FROM ${name}`);
  await markLoadedTablesChanged(store);
}

/** How many files a store (a database file given with --db) holds: 0 means there is nothing to re-analyse. */
export async function loadedSourceCount(store: QueryRunner): Promise<number> {
  const [row] = await store.all<{ n: number }>('SELECT count(*) AS n FROM sources');
  return row?.n ?? 0;
}
