/**
 * Staging of a CSV file with a header into a TEMP table of text columns plus `line` (1-based line
 * in the file; the header is line 1). Used by the per-request records reader and the k6 CSV reader.
 *
 * Normal path: one strict read_csv (all columns VARCHAR, RFC 4180 quoting). If DuckDB rejects the
 * file (a row with too many/few fields, a truncated last row, CRLF line endings, bytes that are not
 * UTF-8), the file is copied by normalizeLines.ts (LF endings; lines that are not UTF-8 or too long
 * replaced by a placeholder and reported as such) and that copy is read with `store_rejects`: every
 * rejected row is written to load_issues with its line number and counted as skipped; kept rows get
 * their exact line back from the rejected lines. Quoted fields with embedded newlines would shift
 * `line` (k6 and records files do not have them).
 */
import { InputError } from '../../errors';
import { quoteFileText } from '../../escape';
import { compressionOf, isDataError, numberedReadIsExact, recordNormalizerFindings } from './ndjsonLines';
import { BLANK_LINE, describeGzipProblem, normalizeLines } from './normalizeLines';
import { MAX_LINE_BYTES } from './ndjsonLines';
import { readHead } from '../sniff';
import { recordSkips } from '../skips';
import type { ReaderContext } from '../types';

export interface CsvStage {
  rows: number;
  skipped: number;
  /** Header column names, as written. */
  columns: string[];
}

const IDENT = /^[a-z][a-z0-9_]*$/;

/**
 * The header: the file's first line, read here rather than by DuckDB (whose dialect sniffer gives
 * up on files with a bad row, and whose line reader stops at a CR), so the dialect is fixed: k6 and
 * the records format are RFC 4180 with ',' delimiters. Names that are not plain identifiers are
 * replaced by `col_<n>` so they can be used in SQL; a name given twice is an InputError (which of
 * the two columns holds the field is anyone's guess).
 */
export async function readCsvHeader(ctx: ReaderContext): Promise<{ names: string[]; original: string[]; carriageReturns: boolean }> {
  const { text } = await readHead(ctx.path);
  const nl = text.indexOf('\n');
  const line = (nl < 0 ? text : text.slice(0, nl)).replace(/^\uFEFF/, '').replace(/\r$/, '');
  // DuckDB's CSV reader with LF line endings reads a CRLF file as no rows at all, without an error.
  const carriageReturns = text.includes('\r');
  if (line.trim() === '') throw new InputError(ctx.path, 1, 'a CSV header line', 'an empty line');
  const original = line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
  const seen = new Map<string, number>();
  original.forEach((name, i) => {
    const first = seen.get(name);
    if (first !== undefined) {
      throw new InputError(ctx.path, 1, 'a CSV header whose column names are all different', `${quoteFileText(name, 60)} as column ${first + 1} and column ${i + 1}`);
    }
    seen.set(name, i);
  });
  const names = original.map((c, i) => (IDENT.test(c) ? c : `col_${i + 1}`));
  return { names, original, carriageReturns };
}

function source(names: string[], extra: string): string {
  const columns = names.map((n) => `'${n}': 'VARCHAR'`).join(', ');
  return `read_csv($1, header = true, auto_detect = false, columns = {${columns}}, delim = ',', quote = '"', escape = '"',
    compression = $2, new_line = '\\n'${extra})`;
}

export async function stageCsv(ctx: ReaderContext, table: string): Promise<CsvStage> {
  if (!IDENT.test(table)) throw new Error(`invalid SQL identifier '${table}'`);
  const header = await readCsvHeader(ctx);
  const names = header.names;
  let skipped = 0;
  // The strict read numbers rows as they come, and DuckDB skips empty lines without a count: only a
  // file without blank lines is read that way (numberedReadIsExact), the others line by line.
  if (header.carriageReturns || !(await numberedReadIsExact(ctx)) || !(await readStrict(ctx, table, names))) {
    const norm = await normalizeLines(ctx.path, ctx.sniff.gzip, MAX_LINE_BYTES, { markBlank: true });
    try {
      if (norm.gzip && norm.gzip.kind !== 'truncated') {
        throw new InputError(ctx.path, norm.gzip.line, 'an intact gzip file', `${describeGzipProblem(norm.gzip)}; nothing was loaded from it`);
      }
      skipped = await readRejecting(ctx, table, names, norm.file, norm.special.map((s) => s.line));
    } finally {
      await norm.remove();
    }
    await recordNormalizerFindings(ctx, norm);
    skipped += norm.special.length;
  }
  const [{ rows }] = await ctx.store.all<{ rows: number }>(`SELECT count(*) AS rows FROM ${table}`);
  return { rows, skipped, columns: names };
}

/** The normal path: one strict read of the file; false when DuckDB rejects its content. */
async function readStrict(ctx: ReaderContext, table: string, names: string[]): Promise<boolean> {
  try {
    await ctx.store.run(`CREATE OR REPLACE TEMP TABLE ${table} AS SELECT row_number() OVER () + 1 AS line, * FROM ${source(names, '')}`, [ctx.path, compressionOf(ctx)]);
    return true;
  } catch (err) {
    if (!isDataError(err)) throw err;
    return false;
  }
}

/**
 * Reads the normalized copy `file` with DuckDB's rejects table; records the rejected rows (except
 * the `special` lines, which the normalizer reports) and returns how many. Kept rows get their line.
 */
async function readRejecting(ctx: ReaderContext, table: string, names: string[], file: string, special: readonly number[]): Promise<number> {
  const rejects = `${table}_rejects`;
  await ctx.store.run(
    `CREATE OR REPLACE TEMP TABLE ${table}_kept AS SELECT row_number() OVER () AS k, * FROM ${source(
      names,
      `, store_rejects = true, rejects_table = '${rejects}', rejects_scan = '${rejects}_scan'`,
    )}`,
    [file, 'uncompressed'],
  );
  // Integers from the normalizer, not text from the file.
  const specialList = `[${special.map((n) => Math.trunc(n)).join(', ')}]::BIGINT[]`;
  // DuckDB writes one reject per missing column; one issue per line is what the user needs. A line
  // of spaces and tabs is blank, not a malformed row (DuckDB skips empty lines itself).
  const blank = `(trim(coalesce(csv_line, ''), ' ' || chr(9)) = '' OR csv_line = '${BLANK_LINE}')`;
  const [{ n }] = await ctx.store.all<{ n: number }>(`SELECT count(DISTINCT line) AS n FROM ${rejects} WHERE NOT list_contains(${specialList}, line) AND NOT ${blank}`);
  const [{ blanks, first }] = await ctx.store.all<{ blanks: number; first: number | null }>(
    `SELECT count(DISTINCT line) AS blanks, min(line) AS first FROM ${rejects} WHERE NOT list_contains(${specialList}, line) AND ${blank}`,
  );
  if (blanks > 0) {
    await ctx.store.run(`INSERT INTO load_issues VALUES ($1, $2, 'info', 'blank-lines', $3)`, [ctx.sourceId, first, `${blanks} blank line(s) ignored (first at line ${first})`]);
  }
  await ctx.store.run(
    `INSERT INTO load_issues
     SELECT $1, line, 'warning', 'malformed-csv',
            'expected a CSV row with the header''s ${names.length} fields, found '
              || CASE arg_min(error_type::VARCHAR, column_idx)
                   WHEN 'MISSING COLUMNS' THEN 'too few fields'
                   WHEN 'TOO MANY COLUMNS' THEN 'too many fields'
                   WHEN 'UNQUOTED VALUE' THEN 'a quote inside an unquoted field'
                   WHEN 'INVALID UNICODE' THEN 'bytes that are not UTF-8'
                   WHEN 'INVALID ENCODING' THEN 'bytes that are not UTF-8'
                   WHEN 'LINE SIZE OVER MAXIMUM' THEN 'a line longer than the CSV reader takes'
                   ELSE 'a row the CSV reader cannot split' END
              || '; row skipped'
     FROM ${rejects} WHERE NOT list_contains(${specialList}, line) AND NOT ${blank} GROUP BY line ORDER BY line`,
    [ctx.sourceId],
  );
  await recordSkips(ctx.store, ctx.sourceId, 'malformed-csv', n);
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
  return n;
}
