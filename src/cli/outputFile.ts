/**
 * `--out FILE`: checked before any work (a typo in the directory should not cost a 10-minute load)
 * and written through the core's replaceOutput (core/outputFile.ts: beside the target, then renamed
 * over it, so a failed write never leaves a truncated report where a good one was).
 */
import { constants } from 'fs';
import { access, realpath, stat, writeFile } from 'fs/promises';
import * as path from 'path';
import { InputError } from '../core/errors';
import { escapeText } from '../core/escape';
import { replaceOutput } from '../core/outputFile';
import { writeTextFile } from '../core/textFile';
import type { RawOption } from './output';

/** What `--out` must be (also the expectation a failed write of it names). */
export const OUT_EXPECTED = 'a file path for --out (in an existing directory this user can write to)';

/**
 * Throws an InputError when `out` cannot be written (a directory, a missing directory, no permission)
 * or is one of the command's `inputs` (absent ones skipped): the same file by path, symbolic or hard
 * link, so that writing the result would replace what the command reads (a report over its k6 file,
 * a script over its contract, a CSV over the run database).
 */
export async function checkOutputPath(out: string, inputs: ReadonlyArray<string | undefined> = []): Promise<void> {
  const existing = await stat(out).catch(() => undefined);
  if (existing?.isDirectory()) throw new InputError(out, undefined, OUT_EXPECTED, 'a directory');
  if (existing && !existing.isFile()) return; // a device or a pipe: its write will tell
  for (const input of inputs) {
    if (input !== undefined && (await sameFile(out, input))) {
      throw new InputError(out, undefined, 'a file path for --out that is not one of the command\'s inputs', `${path.resolve(input)}, which this command reads (writing there would replace it); nothing was written`);
    }
  }
  const dir = path.dirname(path.resolve(out));
  const parent = await stat(dir).catch(() => undefined);
  if (!parent) throw new InputError(out, undefined, OUT_EXPECTED, `a directory that does not exist (${dir})`);
  if (!parent.isDirectory()) throw new InputError(out, undefined, OUT_EXPECTED, `${dir}, which is not a directory`);
  try {
    await access(existing ? out : dir, constants.W_OK);
  } catch {
    throw new InputError(out, undefined, OUT_EXPECTED, existing ? 'a file this user cannot write' : `a directory this user cannot write (${dir})`);
  }
}

/**
 * Writes `text` to `out` (see the file header), control characters escaped like stdout (a report file
 * is read with `cat` too); a failure is an InputError naming `out` and why.
 */
export async function writeOutputFile(out: string, content: string, options: RawOption = {}): Promise<void> {
  const text = options.raw ? content : escapeText(content);
  await replaceOutput(out, (file, mode) => writeFile(file, text, { encoding: 'utf8', mode }), OUT_EXPECTED);
}

/**
 * Writes the text `produce` hands its sink, piece by piece, to `out` as writeOutputFile writes a whole
 * text (escaped, beside it and renamed over it); returns what `produce` returned.
 */
export function writeOutputStream<T>(out: string, produce: (write: (text: string) => Promise<void>) => Promise<T>): Promise<T> {
  return replaceOutput(out, (file, mode) => writeTextFile(file, mode, (write) => produce((text) => write(escapeText(text)))), OUT_EXPECTED);
}

/** Whether two paths name one file: the same device and inode, or (one not there yet) the same path once links are followed. */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([stat(a).catch(() => undefined), stat(b).catch(() => undefined)]);
  if (sa && sb) return sa.dev === sb.dev && sa.ino === sb.ino;
  return (await canonicalPath(a)) === (await canonicalPath(b));
}

/** The path with symbolic links of its existing part followed (a file not there yet keeps its name). */
async function canonicalPath(file: string): Promise<string> {
  const abs = path.resolve(file);
  const real = await realpath(abs).catch(() => undefined);
  if (real !== undefined) return real;
  const parent = path.dirname(abs);
  return parent === abs ? abs : path.join(await canonicalPath(parent), path.basename(abs));
}
