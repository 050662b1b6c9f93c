/**
 * The checks every input file passes before a reader sees it, so that a wrong path is one clear
 * InputError (exit 4) naming the file and what it is, never an ENOENT/EACCES stack or a DuckDB error.
 */
import { constants, type Stats } from 'fs';
import { access, open, stat } from 'fs/promises';
import { InputError } from '../../errors';

/** What a path is when it is not a regular file, in the user's words. */
function describeKind(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Throws an InputError unless `file` is an existing regular file this process can read; `expected`
 * says what the file should be ("a run artifact", "a load contract"). Returns its stats.
 */
export async function checkReadableFile(file: string, expected = 'an existing, readable file'): Promise<Stats> {
  let info: Stats;
  try {
    info = await stat(file);
  } catch (err) {
    throw new InputError(file, undefined, expected, reasonOf(err, 'no such file'));
  }
  if (!info.isFile()) throw new InputError(file, undefined, expected, describeKind(info));
  try {
    // access() alone answers from the mode bits; opening is what the reader will do (and what an
    // ACL or a root-squashed mount refuses).
    await access(file, constants.R_OK);
    const handle = await open(file, 'r');
    await handle.close();
  } catch (err) {
    throw new InputError(file, undefined, expected, reasonOf(err, 'a file this process cannot read'));
  }
  return info;
}

/**
 * Throws an InputError when one file is given twice (by another path, a link, `./`): its rows would
 * be counted twice and its trace IDs would collide with themselves.
 */
export async function checkDistinctFiles(files: readonly string[]): Promise<void> {
  const seen = new Map<string, string>();
  for (const file of files) {
    const info = await stat(file);
    const key = `${info.dev}:${info.ino}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new InputError(file, undefined, 'each input file once', first === file ? 'the same file given twice' : `the same file as ${first}`);
    }
    seen.set(key, file);
  }
}

function reasonOf(err: unknown, fallback: string): string {
  const code = err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied (the file is not readable by this user)';
    case 'ENOTDIR':
      return 'a path through something that is not a directory';
    case 'ELOOP':
      return 'a loop of symbolic links';
    case 'EISDIR':
      return 'a directory';
    default:
      return fallback;
  }
}
