/**
 * The raw pairs of a run, kept: the `pairs` view (one row per client request: trace ID, outcome,
 * status class, group dimensions, window and every owner's duration; no attributes, URLs or text)
 * written by DuckDB's COPY as Parquet or CSV. The CLI has it write a file beside its target, renamed
 * into place once complete (core/outputFile.ts), so an interrupted export never leaves a half-written
 * file under the name.
 */
import * as path from 'path';
import { quotePath as literal } from '../store/databaseFile';
import type { RunViews } from './session';

export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The format a file name asks for (`.parquet`, `.csv`), if any. */
export function exportFormatOf(file: string): ExportFormat | undefined {
  const ext = path.extname(file).toLowerCase();
  return ext === '.parquet' ? 'parquet' : ext === '.csv' ? 'csv' : undefined;
}

/** Writes `pairs` (in request order) to the file `out`; returns the number of rows written. */
export async function exportPairs(run: RunViews, out: string, format: ExportFormat): Promise<number> {
  const options = format === 'parquet' ? 'FORMAT parquet, COMPRESSION zstd' : 'FORMAT csv, HEADER true';
  await run.store.run(`COPY (SELECT * FROM pairs ORDER BY request_no) TO ${literal(out)} (${options})`);
  const [row] = await run.store.all<{ n: number }>('SELECT count(*) AS n FROM pairs');
  return Number(row?.n ?? 0);
}
