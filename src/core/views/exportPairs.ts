/**
 * The raw pairs of a run, kept: the `pairs` view (one row per client request: trace ID, outcome,
 * status class, group dimensions, window and every owner's duration; no attributes, URLs or text)
 * written by DuckDB's COPY as Parquet or CSV. The file is written beside its target and renamed into
 * place once complete, so an interrupted export never leaves a half-written file under the name.
 */
import { rename, rm } from 'fs/promises';
import * as path from 'path';
import type { RunViews } from './session';

export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The format a file name asks for (`.parquet`, `.csv`), if any. */
export function exportFormatOf(file: string): ExportFormat | undefined {
  const ext = path.extname(file).toLowerCase();
  return ext === '.parquet' ? 'parquet' : ext === '.csv' ? 'csv' : undefined;
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** Writes `pairs` (in request order) to `out`; returns the number of rows written. */
export async function exportPairs(run: RunViews, out: string, format: ExportFormat): Promise<number> {
  const target = path.resolve(out);
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.partial-${process.pid}`);
  const options = format === 'parquet' ? "FORMAT parquet, COMPRESSION zstd" : 'FORMAT csv, HEADER true';
  try {
    await run.store.run(`COPY (SELECT * FROM pairs ORDER BY request_no) TO ${literal(partial)} (${options})`);
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  const [row] = await run.store.all<{ n: number }>('SELECT count(*) AS n FROM pairs');
  return Number(row?.n ?? 0);
}
