/**
 * One writer per `--db` file: a lock file beside it (`FILE.phasewise-lock`, one JSON line naming the
 * holder's pid, host and a random token), created atomically (written under a private name, then
 * hard-linked to the lock's name: link fails when the lock exists, and never shows a half-written
 * one). It is taken before anything is read or written and held through a load's rename and the
 * analysis after it, so of two processes given the same file exactly one writes it; the other is
 * refused (InputError, exit 4) having changed nothing. DuckDB's own file lock does not do this: a
 * load builds a new file beside the target (databaseFile.ts) and renames it over, and two loads each
 * renamed theirs, the second replacing the run the first had reported.
 *
 * Within a process the lock is counted (the CLI holds it for the session, the stores it opens take it
 * again). It is removed on release and when the process ends (processExit.ts). One left by a process
 * that is gone (SIGKILL, a crash) is swept by the next taker: its pid is no longer running on this host.
 * A lock of another host (a shared file system) is never swept: its process cannot be checked.
 * Sweeping renames the stale lock aside before removing it, and puts back one that turns out to be
 * live (a taker that swept first); three takers racing over one stale lock in the same microseconds
 * could still both proceed, which this does not guard against.
 */
import * as crypto from 'crypto';
import { linkSync, openSync, readFileSync, renameSync, rmSync, writeSync, closeSync } from 'fs';
import * as os from 'os';
import { InputError } from '../errors';
import { onProcessExit, processAlive } from '../processExit';
import { databaseTarget } from './databaseFile';

/** What a writable `--db` must be (the refusal names it). */
export const EXPECTED_UNLOCKED = 'a database no other Phasewise process is writing';

interface Holder {
  pid: number;
  host: string;
  token: string;
  since: string;
}

interface Held {
  count: number;
  token: string;
  unregister: () => void;
}

const held = new Map<string, Held>();

/** The lock file of the database `file` (an absolute path). */
export function lockPath(file: string): string {
  return `${file}.phasewise-lock`;
}

/** A taken lock: release it once (further calls do nothing). */
export interface DatabaseLock {
  release(): void;
}

/**
 * Takes the lock of the database `target` or throws InputError naming who holds it. `display` is the
 * path the user gave, for the message.
 */
export function acquireDatabaseLock(target: string, display = target): DatabaseLock {
  const file = databaseTarget(target);
  const mine = held.get(file);
  if (mine) {
    mine.count++;
    return once(() => release(file));
  }
  const lock = lockPath(file);
  for (let attempt = 0; attempt < 3; attempt++) {
    const token = crypto.randomBytes(12).toString('hex');
    const holder: Holder = { pid: process.pid, host: os.hostname(), token, since: new Date().toISOString() };
    if (create(lock, holder, display)) {
      const unregister = onProcessExit(() => removeIfMine(lock, token));
      held.set(file, { count: 1, token, unregister });
      return once(() => release(file));
    }
    const other = readHolder(lock);
    if (other === undefined) continue; // removed in between: try again
    if (other !== 'unreadable' && other.host === os.hostname() && !processAlive(other.pid)) {
      sweep(lock, other);
      continue;
    }
    const who = other === 'unreadable' ? 'a process whose lock file cannot be read' : `PID ${other.pid}${other.host === os.hostname() ? '' : ` on ${other.host}`}, since ${other.since}`;
    throw new InputError(display, undefined, EXPECTED_UNLOCKED, `a database in use by another process (${who}); it was not modified (when no Phasewise is running there, remove ${lock})`);
  }
  throw new InputError(display, undefined, EXPECTED_UNLOCKED, `a database whose lock (${lock}) other processes keep taking; it was not modified`);
}

function once(fn: () => void): DatabaseLock {
  let done = false;
  return {
    release: () => {
      if (done) return;
      done = true;
      fn();
    },
  };
}

function release(file: string): void {
  const mine = held.get(file);
  if (!mine || --mine.count > 0) return;
  held.delete(file);
  mine.unregister();
  removeIfMine(lockPath(file), mine.token);
}

/** Creates the lock with the holder's line; false when it exists. Other failures (a read-only directory) are InputErrors. */
function create(lock: string, holder: Holder, display: string): boolean {
  const temp = `${lock}.${holder.token}`;
  try {
    const fd = openSync(temp, 'wx', 0o644);
    try {
      writeSync(fd, JSON.stringify(holder) + '\n');
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, lock);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      // No hard links on this file system: exclusive creation (a reader may then see it empty for an instant).
      const fd2 = openSync(lock, 'wx', 0o644);
      try {
        writeSync(fd2, JSON.stringify(holder) + '\n');
      } finally {
        closeSync(fd2);
      }
      return true;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new InputError(display, undefined, 'a --db path in a directory this user can write (a lock file is created beside it)', `a lock file that cannot be created (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    rmSync(temp, { force: true });
  }
}

function readHolder(lock: string): Holder | 'unreadable' | undefined {
  let text: string;
  try {
    text = readFileSync(lock, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'unreadable';
  }
  try {
    const v = JSON.parse(text) as Partial<Holder>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.token === 'string') return { pid: v.pid, host: v.host, token: v.token, since: String(v.since ?? '') };
  } catch {
    // Not ours to interpret: treated as held.
  }
  return 'unreadable';
}

/** Removes a stale lock: renamed aside, checked to be the one judged stale, else put back. */
function sweep(lock: string, stale: Holder): void {
  const aside = `${lock}.stale-${process.pid}-${crypto.randomBytes(6).toString('hex')}`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // someone else swept it
  }
  const moved = readHolder(aside);
  if (moved !== 'unreadable' && moved !== undefined && moved.token === stale.token) {
    rmSync(aside, { force: true });
    return;
  }
  // A live lock taken after the stale one was swept by another process: put it back.
  try {
    linkSync(aside, lock);
  } catch {
    // A third process holds the name now.
  }
  rmSync(aside, { force: true });
}

function removeIfMine(lock: string, token: string): void {
  const h = readHolder(lock);
  if (h !== undefined && h !== 'unreadable' && h.token === token) rmSync(lock, { force: true });
}
