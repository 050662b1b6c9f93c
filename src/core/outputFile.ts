/**
 * Writing a result file so that a failed write never leaves a truncated file where a good one was: a
 * regular file is written beside the target and renamed over it; devices (`/dev/stdout`) are written
 * directly. Shared by the CLI's `--out` and the editor's exports (the run worker), which must not
 * import the CLI layer.
 */
import { realpath, rename, rm, stat } from 'fs/promises';
import * as path from 'path';
import { InputError, StoreError } from './errors';

/** Operating-system errors about a path the user gave: bad input or a full disk, not our bug. */
const OS_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'a directory',
  ENOTDIR: 'a path through something that is not a directory',
  ENOSPC: 'no space left on the device',
  EROFS: 'a read-only file system',
  EFBIG: 'a file too large for the file system',
  EDQUOT: 'the disk quota is exceeded',
  EBUSY: 'busy (in use by another process)',
  ELOOP: 'a loop of symbolic links',
  ENAMETOOLONG: 'a path that is too long',
  EIO: 'an input/output error of the device',
  ENXIO: 'a device that is not there',
  EPIPE: 'a closed pipe (the reading end went away)',
};

interface SystemErrorLike {
  code?: unknown;
  path?: unknown;
  syscall?: unknown;
}

/** The reason an OS error gives for a path, or undefined when it is not one. */
export function osReason(err: unknown): { path: string | undefined; reason: string; syscall: string | undefined } | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as Error & SystemErrorLike;
  if (typeof e.code !== 'string' || !(e.code in OS_REASONS)) return undefined;
  return {
    path: typeof e.path === 'string' ? e.path : undefined,
    reason: OS_REASONS[e.code],
    syscall: typeof e.syscall === 'string' ? e.syscall : undefined,
  };
}

const EXPECTED = 'a file path to write (in an existing directory this user can write to)';

/**
 * Has `write` create the complete file for `out` (see the file header: beside it, then renamed over
 * it; a device directly) and returns what it returned. `mode` is the existing file's, to keep. A
 * failed write is an InputError naming `out` and why (an OS error, or DuckDB's COPY failing to write),
 * with `expected` as what was expected (the CLI names its `--out`).
 */
export async function replaceOutput<T>(out: string, write: (file: string, mode: number) => Promise<T>, expected: string = EXPECTED): Promise<T> {
  const existing = await stat(out).catch(() => undefined);
  try {
    if (existing && !existing.isFile()) return await write(out, 0o666);
    // Through a symbolic link to the file it names: the link stays a link.
    const target = existing ? await realpath(out) : path.resolve(out);
    const temp = path.join(path.dirname(target), `.${path.basename(target)}.phasewise-${process.pid}.tmp`);
    try {
      const result = await write(temp, existing ? existing.mode & 0o777 : 0o666);
      await rename(temp, target);
      return result;
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  } catch (err) {
    const os = osReason(err);
    if (os) throw new InputError(out, undefined, expected, `a write that failed: ${os.reason}`);
    if (err instanceof StoreError && /^IO Error/.test(err.duckdbMessage)) throw new InputError(out, undefined, expected, 'a write that failed');
    throw err;
  }
}
