/**
 * Why a sink could not store an export, in words for the receiver's summary and its 503 body (the
 * exporter logs that body): the operating system's reason for a file, the memory limit for DuckDB,
 * never a storage engine's own text (docs/metrics.md §7).
 */
import { InputError, OutOfMemoryError, StoreError } from '../../errors';
import { osReason } from '../../outputFile';

export function storageFailure(err: unknown): string {
  const os = osReason(err);
  if (os) return os.reason;
  if (err instanceof OutOfMemoryError) return `out of memory (DuckDB's memory limit of ${err.memoryLimit})`;
  if (err instanceof InputError) return err.found ?? `expected ${err.expected}`;
  if (err instanceof StoreError) return /^IO Error/.test(err.duckdbMessage) ? 'the database file could not be written' : 'the database refused the write';
  return 'the write failed';
}
