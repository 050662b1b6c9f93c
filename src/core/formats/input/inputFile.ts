/**
 * The checks every input file passes before a reader sees it, so that a wrong path is one clear
 * InputError (exit 4) naming the file and what it is, never an ENOENT/EACCES stack or a DuckDB error.
 */
import { isUtf8 } from 'buffer';
import { constants, createReadStream, type Stats } from 'fs';
import { access, open, stat } from 'fs/promises';
import { InputError } from '../../errors';

/** What a path is when it is not a regular file, in the user's words. */
export function describeKind(info: Stats): string {
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
 * The text of a file that must be small (a contract, a query, a request body), read with a bound: a
 * device such as /dev/zero or /dev/urandom, a directory or a socket is refused by what it is (reading
 * /dev/zero whole ran to 512 MB and "Invalid string length"), a regular file by its size before it is
 * read, a named pipe (a shell's `<(…)`) once it passes `maxBytes`. Throws an InputError with
 * `expected` (what the file is for) for anything else than UTF-8 text of at most `maxBytes`.
 */
export async function readSmallText(file: string, expected: string, maxBytes: number): Promise<string> {
  let info: Stats;
  try {
    info = await stat(file);
  } catch (err) {
    throw new InputError(file, undefined, expected, reasonOf(err, 'no such file'));
  }
  if (!info.isFile() && !info.isFIFO()) throw new InputError(file, undefined, expected, describeKind(info));
  const bound = `${(maxBytes / 1_048_576).toFixed(0)} MiB`;
  if (info.isFile() && info.size > maxBytes) {
    throw new InputError(file, undefined, expected, `a file of ${(info.size / 1_048_576).toFixed(1)} MiB (such a file holds at most ${bound})`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of createReadStream(file, { end: maxBytes }) as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (err) {
    throw new InputError(file, undefined, expected, reasonOf(err, 'a file this process cannot read'));
  }
  // `end` is inclusive: one byte past the bound says the pipe (or a file that grew) holds more.
  if (size > maxBytes) throw new InputError(file, undefined, expected, `more than ${bound} (such a file holds at most ${bound})`);
  const bytes = Buffer.concat(chunks, size);
  if (!isUtf8(bytes)) throw new InputError(file, undefined, expected, 'bytes that are not UTF-8 text (a Latin-1 or UTF-16 file? convert it with iconv)');
  return bytes.toString('utf8');
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
