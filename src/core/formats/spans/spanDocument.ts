import { createReadStream } from 'fs';
import { stat } from 'fs/promises';
import { createGunzip } from 'zlib';
import { InputError, OutOfMemoryError, StoreError } from '../../errors';
import { storeLimits } from '../../store/limits';
import type { ReaderContext } from '../types';

/**
 * Memory a whole-document read holds at once, as a multiple of the document's size, plus a floor:
 * DuckDB reads one JSON document into one buffer (sized from maximum_object_size) and parses it whole,
 * which cannot spill. Measured on a 64 MB pretty-printed OTLP document (40k spans): it failed under a
 * 320MB limit and loaded under 384MB, i.e. ≈ 5–5.7× its size.
 */
const DOCUMENT_MEMORY_FACTOR = 6;
const DOCUMENT_MEMORY_FLOOR = 32 * 2 ** 20;

/**
 * Size of the document's text: the file's size, or for gzip the decompressed size, counted by
 * decompressing it (stopping past `cap`), which also finds a truncated or corrupt stream before
 * DuckDB reads garbage (an InputError naming how far the data went).
 */
async function documentBytes(ctx: Pick<ReaderContext, 'path' | 'sniff'>, cap: number): Promise<number> {
  const { size } = await stat(ctx.path);
  if (!ctx.sniff.gzip) return size;
  let bytes = 0;
  const input = createReadStream(ctx.path);
  try {
    for await (const chunk of input.pipe(createGunzip()) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > cap) break;
    }
  } catch (err) {
    const truncated = /unexpected end/i.test(err instanceof Error ? err.message : '');
    throw new InputError(ctx.path, undefined, 'an intact gzip file', truncated ? `a gzip stream that ends early (truncated after ${bytes} bytes of data)` : `a corrupt gzip stream (after ${bytes} bytes of data)`);
  } finally {
    input.destroy();
  }
  return bytes;
}

/**
 * `maximum_object_size` for reading a whole span document (Jaeger, Zipkin, pretty-printed OTLP):
 * DuckDB allocates buffers from this value (a fixed "huge" limit ran out of memory even on a 3 KB
 * file, and a 1 GiB guess for every gzip document did on a 1 KB file and under any limit), so it is
 * the document's own size. A document whose read would not fit the memory limit is refused up front
 * with what to change (OutOfMemoryError): the size-aware plan for the one path that cannot spill or
 * be cut into pieces.
 */
export async function maxDocumentBytes(ctx: ReaderContext): Promise<number> {
  const limits = await storeLimits(ctx.store);
  const cap = limits.memoryBytes === undefined ? Number.MAX_SAFE_INTEGER : limits.memoryBytes;
  const bytes = await documentBytes(ctx, cap);
  const needs = bytes * DOCUMENT_MEMORY_FACTOR + DOCUMENT_MEMORY_FLOOR;
  if (limits.memoryBytes !== undefined && needs > limits.memoryBytes) {
    throw new OutOfMemoryError(`${Math.round(limits.memoryBytes / 1e6)}MB`, limits.threads, ctx.path, { bytes, needs });
  }
  return Math.max(bytes + 1024, 1024 * 1024);
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
