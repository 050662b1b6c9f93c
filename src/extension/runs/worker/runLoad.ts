/**
 * Loading a run into its cache database without ever showing a half-loaded one: the load fills a new
 * file beside the target (`<key>.duckdb.loading`), which is checkpointed, closed and renamed to
 * `<key>.duckdb` only when every file is in; the manifest (`<key>.json`, what was loaded) is written
 * after the rename. A run is complete when both exist and agree, so a cancel, a failure or a killed
 * window leaves at most a stale loading file (removed by the next load) and the previous state.
 * (The CLI's `--db` follows the same rule for its own file.)
 */
import { existsSync } from 'fs';
import { copyFile, readFile, rename, rm, writeFile } from 'fs/promises';
import * as path from 'path';
import type { LoadedFile } from '../../../core/formats/loadFiles';
import type { ProgressSink } from '../../../core/formats/types';
import { loadRun, setLoadState } from '../../../core/run/loadRun';
import { DuckStore } from '../../../core/store/duckStore';
import { CACHE_FORMAT, type InputFingerprint } from '../cacheKey';
import type { MemorySettings } from './runStates';

/** What `<key>.json` says about `<key>.duckdb`. */
export interface RunManifest {
  format: number;
  key: string;
  traceIdTag: string;
  fingerprints: InputFingerprint[];
  loadedAt: number;
}

export function databasePath(dir: string, key: string): string {
  return path.join(dir, `${key}.duckdb`);
}

function manifestPath(dir: string, key: string): string {
  return path.join(dir, `${key}.json`);
}

/** The manifest of a complete run database, or undefined (never loaded, interrupted, or another format). */
export async function completeRun(dir: string, key: string): Promise<RunManifest | undefined> {
  if (!existsSync(databasePath(dir, key))) return undefined;
  try {
    const m = JSON.parse(await readFile(manifestPath(dir, key), 'utf8')) as RunManifest;
    return m.format === CACHE_FORMAT && m.key === key ? m : undefined;
  } catch {
    return undefined;
  }
}

export interface LoadRequest {
  dir: string;
  key: string;
  traceIdTag: string;
  fingerprints: InputFingerprint[];
  settings: MemorySettings;
  /** A complete database of a run holding a subset of these files: copied, then only the rest is loaded. */
  base?: { key: string; fingerprints: InputFingerprint[] };
  onFile?: (file: string, bytes: number, side: 'client' | 'server', totalBytes: number) => void;
  progress?: ProgressSink;
  /** The loading store, for a cancel to interrupt. */
  onStore?: (store: DuckStore) => void;
}

/** Loads the run into `<dir>/<key>.duckdb` (replacing nothing until it is complete); returns what each file gave. */
export async function loadRunDatabase(req: LoadRequest): Promise<LoadedFile[]> {
  const target = databasePath(req.dir, req.key);
  const loading = `${target}.loading`;
  await discard(loading);
  const have = new Set((req.base?.fingerprints ?? []).map((f) => `${f.side}\n${f.path}`));
  if (req.base !== undefined) await copyFile(databasePath(req.dir, req.base.key), loading);
  const todo = req.fingerprints.filter((f) => !have.has(`${f.side}\n${f.path}`));
  const store = new DuckStore({ database: loading, ...req.settings });
  req.onStore?.(store);
  try {
    const loaded = await loadRun(
      store,
      { run: todo.filter((f) => f.side === 'client').map((f) => f.path), spans: todo.filter((f) => f.side === 'server').map((f) => f.path) },
      { traceIdTag: req.traceIdTag, onFile: req.onFile, progress: req.progress },
    );
    // Marked as `phasewise analyze --db` marks its file: the view session of Compare Runs…, Query Run…
    // and Export Pairs… (and the CLI given this file) refuse a database whose load did not finish.
    await setLoadState(store, 'complete');
    await store.run('CHECKPOINT');
    await store.close();
    await rm(`${target}.wal`, { force: true });
    await rename(loading, target);
    const manifest: RunManifest = { format: CACHE_FORMAT, key: req.key, traceIdTag: req.traceIdTag, fingerprints: req.fingerprints, loadedAt: Date.now() };
    await writeFile(manifestPath(req.dir, req.key), JSON.stringify(manifest, null, 1));
    return loaded;
  } catch (err) {
    await store.close().catch(() => undefined);
    await discard(loading);
    throw err;
  }
}

async function discard(file: string): Promise<void> {
  await rm(file, { force: true });
  await rm(`${file}.wal`, { force: true });
}

/** Removes a run's database, its WAL, its manifest and any loading file; returns how many files went. */
export async function deleteRunFiles(dir: string, key: string): Promise<number> {
  const db = databasePath(dir, key);
  let n = 0;
  for (const f of [manifestPath(dir, key), db, `${db}.wal`, `${db}.loading`, `${db}.loading.wal`]) {
    if (!existsSync(f)) continue;
    await rm(f, { force: true });
    n++;
  }
  return n;
}
