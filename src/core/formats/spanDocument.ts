import { createReadStream } from 'fs';
import { stat } from 'fs/promises';
import { createGunzip } from 'zlib';
import { InputError, StoreError } from '../errors';
import type { ReaderContext } from './types';

/**
 * `maximum_object_size` for reading a whole span document (Jaeger, Zipkin, pretty-printed OTLP).
 * DuckDB allocates buffers from this value, so a fixed "huge" limit fails with out-of-memory even on
 * a 3 KB file; a document can never be larger than its (uncompressed) file. A gzip file is measured
 * by decompressing it once (document files are exports of a few traces; a 1 GiB guess ran out of
 * memory on a 1 KB file), which also finds a truncated or corrupt stream before DuckDB reads garbage.
 */
export async function maxDocumentBytes(ctx: Pick<ReaderContext, 'path' | 'sniff'>): Promise<number> {
  const size = ctx.sniff.gzip ? await gunzippedSize(ctx.path) : (await stat(ctx.path)).size;
  return Math.max(size + 1024, 1024 * 1024);
}

async function gunzippedSize(file: string): Promise<number> {
  let size = 0;
  try {
    for await (const chunk of createReadStream(file).pipe(createGunzip()) as AsyncIterable<Buffer>) size += chunk.length;
  } catch (err) {
    const truncated = /unexpected end/i.test(err instanceof Error ? err.message : '');
    throw new InputError(file, undefined, 'an intact gzip file', truncated ? `a gzip stream that ends early (truncated after ${size} bytes of data)` : `a corrupt gzip stream (after ${size} bytes of data)`);
  }
  return size;
}

/** yyjson's reasons (DuckDB's JSON reader), in the user's words; anything else is "invalid JSON". */
const REASONS: ReadonlyArray<[RegExp, string]> = [
  [/unexpected end of data/i, 'the document ends early (truncated?)'],
  [/unexpected character/i, 'an unexpected character'],
  [/invalid (string|escape|unicode)/i, 'an invalid string'],
  [/invalid number|number .*overflow/i, 'an invalid number'],
  [/invalid literal/i, 'an invalid literal (true, false or null misspelt?)'],
  [/unclosed|end of/i, 'a string, array or object that is not closed'],
];

/**
 * A DuckDB JSON parse failure on a whole-document read becomes an InputError naming the line and
 * column (from the byte DuckDB names): a truncated or invalid document is unusable as a whole.
 * DuckDB's message itself is not passed on. Any other failure (a bug in our SQL, out of memory) is
 * rethrown unchanged rather than blamed on the file.
 */
export async function asInputError(err: unknown, file: string, gzip: boolean, expected: string): Promise<unknown> {
  if (!(err instanceof StoreError)) return err;
  const message = err.message;
  if (!/malformed json|invalid input error/i.test(message) || /binder error|out of memory/i.test(message)) return err;
  const reason = REASONS.find(([re]) => re.test(message))?.[1] ?? 'invalid JSON';
  const byte = /at byte (\d+)/i.exec(message);
  if (!byte) return new InputError(file, undefined, expected, `invalid JSON (${reason})`);
  const offset = Number(byte[1]);
  const at = gzip ? undefined : await lineAndColumn(file, offset);
  return at
    ? new InputError(file, at.line, expected, `invalid JSON at line ${at.line}, column ${at.column} (${reason})`)
    : new InputError(file, undefined, expected, `invalid JSON at byte ${offset} of the decompressed data (${reason})`);
}

/** The 1-based line and column of a byte offset (DuckDB's offsets count from 1 at the file start). */
async function lineAndColumn(file: string, offset: number): Promise<{ line: number; column: number } | undefined> {
  let line = 1;
  let lineStart = 0;
  let pos = 0;
  const end = Math.max(0, offset - 1);
  for await (const chunk of createReadStream(file, { end: Math.max(0, end - 1) }) as AsyncIterable<Buffer>) {
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, nl + 1)) {
      line++;
      lineStart = pos + nl + 1;
    }
    pos += chunk.length;
  }
  return { line, column: end - lineStart + 1 };
}
