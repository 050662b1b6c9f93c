/**
 * Line-exact staging of an NDJSON file (plain or gzip) for the readers.
 *
 * Usage (span readers, records reader, k6 fallback):
 *
 *     const { lines, skipped } = await stageNdjson(ctx, 'otlp_lines');
 *     // TEMP TABLE otlp_lines(line BIGINT, doc JSON): one row per valid JSON object line,
 *     // `line` = exact 1-based line in the file (blank lines counted), in file order.
 *     await ctx.store.run(`INSERT INTO spans SELECT ... FROM otlp_lines, ...`);
 *     await ctx.store.run('DROP TABLE otlp_lines');
 *
 * Bad-line policy (DESIGN: nothing silently skipped):
 * - a line that is not a JSON object is skipped, counted in `skipped` and written to load_issues
 *   (severity 'warning', code 'malformed-json', or 'truncated-line' when it is the last line of the
 *   file: the typical trace of a writer that was killed mid-line);
 * - blank lines are not data: they are ignored, not counted as skipped, and summarised in one
 *   'info' load_issues row (count and first line) so the line numbers stay explainable;
 * - a file with no valid line at all throws InputError(file, firstBadLine, expected, found).
 *
 * Why read_csv and not read_ndjson_objects: DuckDB's JSON readers skip blank lines and give no
 * line numbers, so their row order cannot be mapped back to file lines once a blank or bad line
 * occurs. read_csv with one VARCHAR column and no delimiter/quote/escape returns every physical line
 * (blank ones as NULL) in file order; `row_number() OVER ()` is a streaming window that keeps that
 * order, and `json_valid` checks each line in parallel. One pass, exact numbers, no JS loops.
 * The hot k6 path avoids staging altogether (see k6Json.ts) and only falls back to this on error.
 */
import { InputError, StoreError } from '../errors';
import type { QueryRunner } from '../store/duckStore';
import type { ReaderContext } from './types';

export interface NdjsonStage {
  /** Valid JSON-object lines staged. */
  lines: number;
  /** Bad lines skipped (each one has a load_issues row). */
  skipped: number;
  /** Blank lines ignored (summarised in one info row). */
  blank: number;
}

/** Identifier check for table names built into SQL (they never come from user input, but still). */
const IDENT = /^[a-z][a-z0-9_]*$/;

export function assertIdentifier(name: string): string {
  if (!IDENT.test(name)) throw new Error(`invalid SQL identifier '${name}'`);
  return name;
}

/** DuckDB `compression` option for a sniffed file ('uncompressed' is accepted by read_csv and read_json alike; 'none' only by read_csv). */
export function compressionOf(ctx: Pick<ReaderContext, 'sniff'>): string {
  return ctx.sniff.gzip ? 'gzip' : 'uncompressed';
}

/**
 * `read_csv` call returning every physical line of file $1 as column `l` (NULL for blank lines).
 * Parameters: $1 = path, $2 = compression. Lines up to 64 MiB (OTLP batches can be tens of MB); larger limits made read_csv allocate multi-GiB buffers.
 */
export const LINES_SQL = `read_csv($1, columns = {'l': 'VARCHAR'}, header = false, delim = chr(1), quote = '',
  escape = '', auto_detect = false, compression = $2, max_line_size = 67108864,
  new_line = '\\n')`;

/** How many characters of a bad line are quoted in its load_issues message. */
const QUOTE_CHARS = 60;

/**
 * Stages the valid JSON-object lines of ctx.path into TEMP TABLE `table`(line BIGINT, doc JSON),
 * recording every bad line in load_issues. See the file header for the policy.
 */
export async function stageNdjson(ctx: ReaderContext, table: string): Promise<NdjsonStage> {
  const t = assertIdentifier(table);
  const raw = `${t}__raw`;
  const params = [ctx.path, compressionOf(ctx)];
  // `ok`: a JSON object. NULL for blank lines (json_valid(NULL) is NULL), false for bad ones.
  await ctx.store.run(`DROP TABLE IF EXISTS ${raw}`);
  await ctx.store.run(
    `CREATE TEMP TABLE ${raw} AS
       SELECT line, CASE WHEN ok THEN l END AS doc,
              CASE WHEN NOT ok THEN left(l, ${QUOTE_CHARS + 1}) END AS bad
       FROM (SELECT line, l,
                    CASE WHEN trim(l) = '' THEN NULL
                         ELSE json_valid(l) AND starts_with(ltrim(l), '{') END AS ok
             FROM (SELECT row_number() OVER () AS line, l FROM ${LINES_SQL}))`,
    params,
  );
  const [stats] = await ctx.store.all<{ total: number; valid: number; bad: number; blank: number; first_blank: number | null }>(
    `SELECT count(*) AS total, count(doc) AS valid, count(bad) AS bad,
            count(*) - count(doc) - count(bad) AS blank,
            min(line) FILTER (WHERE doc IS NULL AND bad IS NULL) AS first_blank
     FROM ${raw}`,
  );
  if (stats.bad > 0) await recordBadLines(ctx.store, ctx.sourceId, raw, stats.total);
  if (stats.blank > 0) {
    await ctx.store.run(`INSERT INTO load_issues VALUES ($1, $2, 'info', 'blank-lines', $3)`, [
      ctx.sourceId,
      stats.first_blank,
      `${stats.blank} blank line(s) ignored (first at line ${stats.first_blank})`,
    ]);
  }
  if (stats.valid === 0) {
    await ctx.store.run(`DROP TABLE ${raw}`);
    throw await noValidLineError(ctx, stats.total);
  }
  await ctx.store.run(`DROP TABLE IF EXISTS ${t}`);
  if (stats.bad === 0 && stats.blank === 0) {
    // Normal path: every line is valid, so no filtering pass is needed.
    await ctx.store.run(`CREATE TEMP TABLE ${t} AS SELECT line, doc::JSON AS doc FROM ${raw}`);
  } else {
    await ctx.store.run(`CREATE TEMP TABLE ${t} AS SELECT line, doc::JSON AS doc FROM ${raw} WHERE doc IS NOT NULL ORDER BY line`);
  }
  await ctx.store.run(`DROP TABLE ${raw}`);
  return { lines: stats.valid, skipped: stats.bad, blank: stats.blank };
}

/** Writes one load_issues row per bad line of the staged raw table. */
async function recordBadLines(store: QueryRunner, sourceId: number, raw: string, lastLine: number): Promise<void> {
  await store.run(
    `INSERT INTO load_issues
     SELECT $1, line, 'warning',
            CASE WHEN line = $2 THEN 'truncated-line' ELSE 'malformed-json' END,
            CASE WHEN line = $2
                 THEN 'expected a complete JSON object on the last line (the writer may have been killed mid-line), found '
                 ELSE 'expected one JSON object per line, found ' END
              || '''' || left(bad, ${QUOTE_CHARS}) || CASE WHEN length(bad) > ${QUOTE_CHARS} THEN '…' ELSE '' END || ''''
              || '; line skipped'
     FROM ${assertIdentifier(raw)} WHERE bad IS NOT NULL ORDER BY line`,
    [sourceId, lastLine],
  );
}

/** The InputError for a file without a single usable line, naming its first bad line. */
async function noValidLineError(ctx: ReaderContext, totalLines: number): Promise<InputError> {
  const [first] = await ctx.store.all<{ line: number; message: string }>(
    `SELECT line, message FROM load_issues WHERE source_id = $1 AND severity = 'warning' ORDER BY line LIMIT 1`,
    [ctx.sourceId],
  );
  const expected = `NDJSON (one JSON object per line) for ${ctx.sniff.format}`;
  if (!first) return new InputError(ctx.path, 1, expected, totalLines === 0 ? 'an empty file' : 'only blank lines');
  return new InputError(ctx.path, first.line, expected, `no valid line (first bad line: ${first.message})`);
}

/**
 * True when a DuckDB failure is about the file's content (malformed JSON/CSV, a value of the wrong
 * type), i.e. worth a line-by-line retry; false for bugs in our SQL (parser/binder/catalog errors)
 * and for running out of memory.
 */
export function isDataError(err: unknown): err is StoreError {
  // Out of memory is the machine's limit, not the file's fault, and reading line by line needs more.
  return err instanceof StoreError && !/^(Parser|Binder|Catalog|Not implemented|Out of Memory) Error/.test(err.message);
}
