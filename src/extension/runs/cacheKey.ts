/**
 * The run cache's key: a run's database under the extension's global storage is named by what was
 * loaded into it (each input's absolute path, size and modification time, and the k6 tag the trace ID
 * was read from), so the same files open the same database after a reload and a changed file never
 * opens a database of its old content. The contract is not part of it: re-analysis with another
 * contract reuses the loaded run. No vscode import (the worker and the host both use it).
 */
import { createHash } from 'crypto';
import { stat } from 'fs/promises';
import * as path from 'path';
import { InputError } from '../../core/errors';

/** One input file as it was when the run was loaded. */
export interface InputFingerprint {
  path: string;
  side: 'client' | 'server';
  size: number;
  mtimeMs: number;
}

/** Bumped when what a run database holds for the same inputs changes (then old caches are not reused). */
export const CACHE_FORMAT = 1;

/** Absolute paths, sorted, each side on its own: the key does not depend on the order files were picked in. */
export function normalizeInputs(files: { run: readonly string[]; spans: readonly string[] }): { run: string[]; spans: string[] } {
  const norm = (list: readonly string[]): string[] => [...new Set(list.map((f) => path.resolve(f)))].sort();
  return { run: norm(files.run), spans: norm(files.spans) };
}

/** Stats every input (an InputError for a missing one, naming it). */
export async function fingerprintInputs(files: { run: readonly string[]; spans: readonly string[] }): Promise<InputFingerprint[]> {
  const { run, spans } = normalizeInputs(files);
  const out: InputFingerprint[] = [];
  for (const [side, list] of [['client', run], ['server', spans]] as const) {
    for (const file of list) {
      const info = await stat(file).catch(() => undefined);
      if (info === undefined) throw new InputError(file, undefined, 'an existing, readable file', 'no such file');
      if (!info.isFile()) throw new InputError(file, undefined, 'a file', 'a directory');
      out.push({ path: file, side, size: info.size, mtimeMs: Math.round(info.mtimeMs) });
    }
  }
  return out;
}

/** 24 hex digits of SHA-256 over the fingerprints and the trace-ID tag: the database file's name. */
export function runCacheKey(fingerprints: readonly InputFingerprint[], traceIdTag: string): string {
  const material = JSON.stringify({ format: CACHE_FORMAT, traceIdTag, inputs: fingerprints.map((f) => [f.side, f.path, f.size, f.mtimeMs]) });
  return createHash('sha256').update(material).digest('hex').slice(0, 24);
}

/** The inputs whose size or modification time differ from what was loaded (or that are gone). */
export async function changedInputs(fingerprints: readonly InputFingerprint[]): Promise<string[]> {
  const changed: string[] = [];
  for (const f of fingerprints) {
    const info = await stat(f.path).catch(() => undefined);
    if (info === undefined || info.size !== f.size || Math.round(info.mtimeMs) !== f.mtimeMs) changed.push(f.path);
  }
  return changed;
}
