import { stat } from 'fs/promises';
import { InputError } from '../errors';
import type { ReaderContext } from './types';

/** Largest gzip-compressed single document we accept (decompressed size is unknown up front). */
const GZIP_DOCUMENT_LIMIT = 1024 * 1024 * 1024;

/**
 * `maximum_object_size` for reading a whole span document (Jaeger, Zipkin, pretty-printed OTLP).
 * DuckDB allocates buffers from this value, so a fixed "huge" limit fails with out-of-memory even on
 * a 3 KB file; a document can never be larger than its (uncompressed) file.
 */
export async function maxDocumentBytes(ctx: Pick<ReaderContext, 'path' | 'sniff'>): Promise<number> {
  if (ctx.sniff.gzip) return GZIP_DOCUMENT_LIMIT;
  const { size } = await stat(ctx.path);
  return Math.max(size + 1024, 1024 * 1024);
}

/**
 * A DuckDB JSON parse failure on a whole-document read becomes an InputError: a truncated or invalid
 * document is unusable as a whole, and DuckDB's message names the position. Any other failure (a
 * bug in our SQL, out of memory) is rethrown unchanged rather than blamed on the file.
 */
export function asInputError(err: unknown, file: string, expected: string): unknown {
  const message = err instanceof Error ? err.message : String(err);
  if (!/malformed json|invalid input error|json/i.test(message) || /binder error|out of memory/i.test(message)) return err;
  const firstLine = message.split('\n')[0].replace(/^.*?Error: /, '');
  const line = /line (\d+)/i.exec(message);
  return new InputError(file, line ? Number(line[1]) : undefined, expected, `invalid JSON (${firstLine})`);
}
