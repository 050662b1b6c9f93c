/**
 * Staging of a CSV file with a header into a TEMP table of text columns plus `line` (1-based line
 * in the file; the header is line 1). Used by the per-request records reader.
 *
 * Normal path: one strict read_csv (all columns VARCHAR, RFC 4180 quoting). If DuckDB rejects the
 * file (a row with too many/few fields, a truncated last row), it is read again with
 * `store_rejects`: every rejected row is written to load_issues with DuckDB's line number and
 * counted as skipped; kept rows get their exact line back from the rejected lines. Quoted fields
 * with embedded newlines would shift `line` (k6 and records files do not have them).
 */
import { InputError } from '../errors';
import { compressionOf, isDataError, LINES_SQL } from './ndjsonLines';
import type { ReaderContext } from './types';

export interface CsvStage {
  rows: number;
  skipped: number;
  /** Header column names, as written. */
  columns: string[];
}

const IDENT = /^[a-z][a-z0-9_]*$/;

/**
 * The header, read as the file's first line (DuckDB's dialect sniffer gives up on files with a bad
 * row, so the dialect is fixed: k6 and the records format are RFC 4180 with ',' delimiters).
 * Names that are not plain identifiers are replaced by `col_<n>` so they can be used in SQL.
 */
export async function readCsvHeader(ctx: ReaderContext): Promise<{ names: string[]; original: string[] }> {
  const [first] = await ctx.store.all<{ l: string | null }>(`SELECT l FROM ${LINES_SQL} LIMIT 1`, [ctx.path, compressionOf(ctx)]);
  const line = (first?.l ?? '').replace(/^\uFEFF/, '').replace(/\r$/, '');
  if (line.trim() === '') throw new InputError(ctx.path, 1, 'a CSV header line', 'an empty line');
  const original = line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
  const names = original.map((c, i) => (IDENT.test(c) ? c : `col_${i + 1}`));
  return { names, original };
}

function source(names: string[], extra: string): string {
  const columns = names.map((n) => `'${n}': 'VARCHAR'`).join(', ');
  return `read_csv($1, header = true, auto_detect = false, columns = {${columns}}, delim = ',', quote = '"', escape = '"',
    compression = $2, new_line = '\\n'${extra})`;
}

export async function stageCsv(ctx: ReaderContext, table: string): Promise<CsvStage> {
  if (!IDENT.test(table)) throw new Error(`invalid SQL identifier '${table}'`);
  const params = [ctx.path, compressionOf(ctx)];
  const header = await readCsvHeader(ctx);
  const names = header.names;
  let skipped = 0;
  try {
    await ctx.store.run(`CREATE OR REPLACE TEMP TABLE ${table} AS SELECT row_number() OVER () + 1 AS line, * FROM ${source(names, '')}`, params);
  } catch (err) {
    if (!isDataError(err)) throw err;
    const rejects = `${table}_rejects`;
    await ctx.store.run(
      `CREATE OR REPLACE TEMP TABLE ${table}_kept AS SELECT row_number() OVER () AS k, * FROM ${source(
        names,
        `, store_rejects = true, rejects_table = '${rejects}', rejects_scan = '${rejects}_scan'`,
      )}`,
      params,
    );
    // DuckDB writes one reject per missing column; one issue per line is what the user needs.
    const [{ n }] = await ctx.store.all<{ n: number }>(`SELECT count(DISTINCT line) AS n FROM ${rejects}`);
    skipped = n;
    await ctx.store.run(
      `INSERT INTO load_issues
       SELECT $1, line, 'warning', 'malformed-csv',
              'expected a CSV row matching the header (' || arg_min(error_type, column_idx) || ': '
                || left(arg_min(error_message, column_idx), 120) || '); row skipped'
       FROM ${rejects} GROUP BY line ORDER BY line`,
      [ctx.sourceId],
    );
    // Kept row k (in file order) sits on line k + 1 (header) shifted by every rejected line at or
    // before it: a fold over the sorted rejected lines gives its exact line.
    await ctx.store.run(
      `CREATE OR REPLACE TEMP TABLE ${table} AS
       WITH r AS (SELECT list(DISTINCT line ORDER BY line) AS lines FROM ${rejects})
       SELECT list_reduce(r.lines, (acc, x) -> CASE WHEN x <= acc THEN acc + 1 ELSE acc END, k + 1) AS line,
              t.* EXCLUDE (k)
       FROM ${table}_kept t, r ORDER BY k`,
    );
    await ctx.store.run(`DROP TABLE ${table}_kept`);
    await ctx.store.run(`DROP TABLE IF EXISTS ${rejects}; DROP TABLE IF EXISTS ${rejects}_scan`);
  }
  const [{ rows }] = await ctx.store.all<{ rows: number }>(`SELECT count(*) AS rows FROM ${table}`);
  return { rows, skipped, columns: names };
}
