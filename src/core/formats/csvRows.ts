/**
 * Staging of a CSV file with a header into a TEMP table of text columns plus `line` (1-based line
 * in the file; the header is line 1). Used by the per-request records reader.
 *
 * Normal path: one strict read_csv (all columns VARCHAR, RFC 4180 quoting). If DuckDB rejects the
 * file (a row with too many/few fields, a truncated last row), it is read again with
 * `store_rejects`: every rejected row is written to load_issues with DuckDB's line number and
 * counted as skipped; the `line` of kept rows is then NULL (row order no longer maps to file lines)
 * and an info row says so. Quoted fields with embedded newlines would also shift `line`.
 */
import { compressionOf, isDataError } from './ndjsonLines';
import type { ReaderContext } from './types';

export interface CsvStage {
  rows: number;
  skipped: number;
  /** Header column names, as written. */
  columns: string[];
}

const IDENT = /^[a-z][a-z0-9_]*$/;

function source(extra: string): string {
  return `read_csv($1, header = true, all_varchar = true, delim = ',', quote = '"', escape = '"', compression = $2${extra})`;
}

export async function stageCsv(ctx: ReaderContext, table: string): Promise<CsvStage> {
  if (!IDENT.test(table)) throw new Error(`invalid SQL identifier '${table}'`);
  const params = [ctx.path, compressionOf(ctx)];
  const header = await ctx.store.all<{ column_name: string }>(`DESCRIBE SELECT * FROM ${source('')}`, params);
  let skipped = 0;
  try {
    await ctx.store.run(`CREATE OR REPLACE TEMP TABLE ${table} AS SELECT row_number() OVER () + 1 AS line, * FROM ${source('')}`, params);
  } catch (err) {
    if (!isDataError(err)) throw err;
    const rejects = `${table}_rejects`;
    await ctx.store.run(
      `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT CAST(NULL AS BIGINT) AS line, * FROM ${source(
        `, store_rejects = true, rejects_table = '${rejects}', rejects_scan = '${rejects}_scan'`,
      )}`,
      params,
    );
    const [{ n }] = await ctx.store.all<{ n: number }>(`SELECT count(*) AS n FROM ${rejects}`);
    skipped = n;
    await ctx.store.run(
      `INSERT INTO load_issues
       SELECT $1, line, 'warning', 'malformed-csv',
              'expected a CSV row matching the header (' || error_type || ': ' || left(error_message, 120) || '); row skipped'
       FROM ${rejects} ORDER BY line`,
      [ctx.sourceId],
    );
    await ctx.store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'line-unknown', $2)`, [
      ctx.sourceId,
      `${n} malformed row(s) skipped; the line numbers of the other rows are not recorded`,
    ]);
    await ctx.store.run(`DROP TABLE IF EXISTS ${rejects}; DROP TABLE IF EXISTS ${rejects}_scan`);
  }
  const [{ rows }] = await ctx.store.all<{ rows: number }>(`SELECT count(*) AS rows FROM ${table}`);
  return { rows, skipped, columns: header.map((h) => h.column_name) };
}
