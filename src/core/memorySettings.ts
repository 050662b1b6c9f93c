/**
 * The user's DuckDB settings (CLI --memory-limit/--threads, the editor's phasewise.duckdb.*), checked
 * the same way on both sides. Pure: the extension host imports it without loading the store.
 */

const BYTE_UNITS: Readonly<Record<string, number>> = {
  B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 2 ** 10, MIB: 2 ** 20, GIB: 2 ** 30, TIB: 2 ** 40,
};

/** DuckDB's rendering of a size setting ('1.1 GiB', '953.6 MiB', '2.0 GB') in bytes; undefined otherwise. */
export function parseByteSize(text: string): number | undefined {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?i?B)\s*$/i.exec(text);
  const unit = m ? BYTE_UNITS[m[2].toUpperCase()] : undefined;
  return m && unit !== undefined ? Number(m[1]) * unit : undefined;
}

/** The smallest memory_limit accepted: below it DuckDB's JSON reader alone (one thread, 1 MiB pieces) would not fit. */
export const MIN_MEMORY_LIMIT_BYTES = 128e6;

/** The largest memory_limit accepted: DuckDB refuses sizes past its own (1PB fails to set; 1000TB is taken). */
export const MAX_MEMORY_LIMIT_BYTES = 1000e12;

/**
 * A user's memory limit ('2GB', '512MB', '1.5GiB') checked and written as DuckDB takes it; throws an
 * Error saying what was expected (the CLI turns it into a usage error, the editor into a message).
 */
export function normalizeMemoryLimit(text: string): string {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]i?B)\s*$/i.exec(text);
  const bytes = m ? parseByteSize(`${m[1]} ${m[2]}`) : undefined;
  if (!m || bytes === undefined) throw new Error(`expects a size such as 2GB, 1500MB or 1.5GiB, got '${text}'`);
  if (bytes < MIN_MEMORY_LIMIT_BYTES) throw new Error(`must be at least 128MB, got '${text}'`);
  if (bytes > MAX_MEMORY_LIMIT_BYTES) throw new Error(`must be at most 1000TB, got '${text}'`);
  const unit = m[2].toUpperCase();
  return `${m[1]}${unit.endsWith('IB') ? `${unit.slice(0, -2)}iB` : unit}`;
}

/** A user's thread count: a positive integer (at most 1024); throws an Error otherwise. */
export function normalizeThreads(value: string | number): number {
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new Error(`expects a whole number of threads from 1 to 1024, got '${value}'`);
  return n;
}
