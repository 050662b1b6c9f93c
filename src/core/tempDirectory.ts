/**
 * Every temporary file of a process in one directory of its own: `$TMPDIR/phasewise-HOST-PID-XXXXXX`
 * (HOST a hash of the host name, PID the process's, XXXXXX random), with one subdirectory per DuckDB
 * instance for its spill files (storeTempDirectory), the readers' line copies and pieces, the
 * receiver's chunks and the probe's scratch files beside them.
 *
 * Why: every process used to spill to `$TMPDIR/phasewise-duckdb`, and DuckDB names its spill files
 * the same in every instance (`duckdb_temp_storage_DEFAULT-0.tmp`, …): two analyses spilling at once
 * (two editor windows, two CI jobs) wrote into each other's files and ended in SIGSEGV or "Corrupt
 * temporary file", and a finishing process deleted the other's. Measured on a 12k-request run at
 * --memory-limit 128MB --threads 1, two at once: one of the two crashed in 3 of 3 pairs.
 *
 * The directory is removed when the process ends (processExit.ts: exit, Ctrl-C, SIGTERM, an uncaught
 * exception). A worker thread the editor terminates runs no code on the way out: its host makes the
 * directory and removes it when the worker exits (workerTempDirectory, WORKER_TEMP_ENV), and the
 * worker adopts it. What a SIGKILL or a native crash leaves is swept
 * by the next process that creates its own: a directory of this host whose process is gone. A live
 * process's directory is never touched (its pid runs), nor another host's (a shared /tmp).
 */
import * as crypto from 'crypto';
import { mkdtempSync, readdirSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { isMainThread } from 'worker_threads';
import { InputError } from './errors';
import { onProcessExit, processAlive } from './processExit';

/** The variable through which a host hands a worker thread the directory it made for it (and removes). */
export const WORKER_TEMP_ENV = 'PHASEWISE_WORKER_TEMP_DIRECTORY';

/** The directories' names: phasewise-HOST-PID-XXXXXX. */
export const PROCESS_DIRECTORY = /^phasewise-([0-9a-f]{8})-(\d+)-[A-Za-z0-9]{6}$/;

/** This host's tag in the directory names (8 hex digits of the host name's SHA-1). */
export function hostTag(): string {
  return crypto.createHash('sha1').update(os.hostname()).digest('hex').slice(0, 8);
}

let current: string | undefined;
let stores = 0;

/** This process's (this thread's) directory, created on first use; see the file header. */
export function processTempDirectory(): string {
  if (current !== undefined) return current;
  const given = isMainThread ? undefined : process.env[WORKER_TEMP_ENV];
  if (given !== undefined && given !== '') {
    current = given;
    return given;
  }
  const dir = workerTempDirectory();
  current = dir;
  onProcessExit(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A new directory of this process's name pattern (stale ones swept first), which the caller removes:
 * a host makes one for each worker thread it starts (passed as WORKER_TEMP_ENV in the worker's env).
 */
export function workerTempDirectory(): string {
  const base = os.tmpdir();
  sweepStale(base);
  try {
    return mkdtempSync(path.join(base, `phasewise-${hostTag()}-${process.pid}-`));
  } catch (err) {
    // Named as the user can fix it: the folder (TMPDIR), not the template of a name that was never made.
    const code = (err as NodeJS.ErrnoException).code ?? 'an error';
    throw new InputError(base, undefined, 'a folder for temporary files in which this user can create folders (set TMPDIR to one)', `${code === 'EACCES' || code === 'EPERM' ? 'a folder this user cannot write' : code === 'ENOENT' ? 'no such folder' : code}; nothing was read`);
  }
}

/**
 * A new directory for one DuckDB instance's spill files, inside processTempDirectory() (not created:
 * DuckDB creates it when it first spills). Remove it with removeStoreTempDirectory once the instance
 * is closed.
 */
export function storeTempDirectory(): string {
  return path.join(processTempDirectory(), `duckdb-${++stores}`);
}

export function removeStoreTempDirectory(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Removes the directories of this host's processes that are gone (see the file header). */
export function sweepStale(base = os.tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  const host = hostTag();
  for (const name of names) {
    const m = PROCESS_DIRECTORY.exec(name);
    if (!m || m[1] !== host || processAlive(Number(m[2]))) continue;
    // Another user's leftover cannot be removed by this one (a sticky /tmp): it stays, and this process
    // goes on (a throw here failed an unrelated read-only query as "a file DuckDB cannot open").
    try {
      rmSync(path.join(base, name), { recursive: true, force: true });
    } catch {
      continue;
    }
  }
}
