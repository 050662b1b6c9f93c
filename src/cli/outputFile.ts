/**
 * `--out FILE`: checked before any work (a typo in the directory should not cost a 10-minute load)
 * and written so that a failed write never leaves a truncated report where a good one was: a regular
 * file is written beside the target and renamed over it. Devices (`/dev/stdout`) are written directly.
 */
import { constants } from 'fs';
import { access, realpath, rename, rm, stat, writeFile } from 'fs/promises';
import * as path from 'path';
import { InputError, StoreError } from '../core/errors';
import { escapeText } from '../core/escape';
import { osReason } from './errorContract';
import type { RawOption } from './output';

const EXPECTED = 'a file path for --out (in an existing directory this user can write to)';

/** Throws an InputError when `out` cannot be written: a directory, a missing directory, no permission. */
export async function checkOutputPath(out: string): Promise<void> {
  const existing = await stat(out).catch(() => undefined);
  if (existing?.isDirectory()) throw new InputError(out, undefined, EXPECTED, 'a directory');
  if (existing && !existing.isFile()) return; // a device or a pipe: its write will tell
  const dir = path.dirname(path.resolve(out));
  const parent = await stat(dir).catch(() => undefined);
  if (!parent) throw new InputError(out, undefined, EXPECTED, `a directory that does not exist (${dir})`);
  if (!parent.isDirectory()) throw new InputError(out, undefined, EXPECTED, `${dir}, which is not a directory`);
  try {
    await access(existing ? out : dir, constants.W_OK);
  } catch {
    throw new InputError(out, undefined, EXPECTED, existing ? 'a file this user cannot write' : `a directory this user cannot write (${dir})`);
  }
}

/**
 * Writes `text` to `out` (see the file header), control characters escaped like stdout (a report file
 * is read with `cat` too); a failure is an InputError naming `out` and why.
 */
export async function writeOutputFile(out: string, content: string, options: RawOption = {}): Promise<void> {
  const text = options.raw ? content : escapeText(content);
  await replaceOutput(out, (file, mode) => writeFile(file, text, { encoding: 'utf8', mode }));
}

/**
 * Has `write` create the complete file for `out` (see the file header: beside it, then renamed over
 * it; a device directly) and returns what it returned. `mode` is the existing file's, to keep. A
 * failed write is an InputError naming `out` and why (an OS error, or DuckDB's COPY failing to write).
 */
export async function replaceOutput<T>(out: string, write: (file: string, mode: number) => Promise<T>): Promise<T> {
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
    if (os) throw new InputError(out, undefined, EXPECTED, `a write that failed: ${os.reason}`);
    if (err instanceof StoreError && /^IO Error/.test(err.duckdbMessage)) throw new InputError(out, undefined, EXPECTED, 'a write that failed');
    throw err;
  }
}
