/**
 * The editor's run cache: each run is `<key>.duckdb`, loaded by the core's loadRunIntoDatabase (the
 * rule `phasewise analyze --db` follows: a new database beside the target, renamed over it only when
 * every file is in), and `<key>.json`, the manifest of what was loaded, written after the rename. A run
 * is complete when both exist and agree, so a cancel, a failure or a killed window leaves at most a
 * loading file of a dead process (removed by the next load) and the previous state.
 */
import { existsSync } from 'fs';
import { readdir, readFile, rm, writeFile } from 'fs/promises';
import * as path from 'path';
import type { LoadedFile } from '../../../core/formats/loadFiles';
import type { ProgressSink } from '../../../core/formats/types';
import { loadRunIntoDatabase } from '../../../core/run/loadRun';
import type { DuckStore } from '../../../core/store/duckStore';
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
  const have = new Set((req.base?.fingerprints ?? []).map((f) => `${f.side}\n${f.path}`));
  const todo = req.fingerprints.filter((f) => !have.has(`${f.side}\n${f.path}`));
  const loaded = await loadRunIntoDatabase(
    databasePath(req.dir, req.key),
    { run: todo.filter((f) => f.side === 'client').map((f) => f.path), spans: todo.filter((f) => f.side === 'server').map((f) => f.path) },
    {
      traceIdTag: req.traceIdTag,
      onFile: req.onFile,
      progress: req.progress,
      store: req.settings,
      onStore: req.onStore,
      base: req.base === undefined ? undefined : databasePath(req.dir, req.base.key),
    },
  );
  const manifest: RunManifest = { format: CACHE_FORMAT, key: req.key, traceIdTag: req.traceIdTag, fingerprints: req.fingerprints, loadedAt: Date.now() };
  await writeFile(manifestPath(req.dir, req.key), JSON.stringify(manifest, null, 1));
  return loaded;
}

/** Removes a run's database, its WAL, its manifest and any loading file; returns how many files went. */
export async function deleteRunFiles(dir: string, key: string): Promise<number> {
  const db = databasePath(dir, key);
  let n = 0;
  // Loading files are `.<key>.duckdb.loading-<pid>.duckdb` (loadingPath), with their WAL.
  const loads = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(`.${key}.duckdb.loading-`));
  for (const f of [manifestPath(dir, key), db, `${db}.wal`, ...loads.map((n) => path.join(dir, n))]) {
    if (!existsSync(f)) continue;
    await rm(f, { force: true });
    n++;
  }
  return n;
}
