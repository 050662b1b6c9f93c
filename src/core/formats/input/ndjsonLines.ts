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
 * Bad-line policy (docs/metrics.md §7: nothing silently skipped):
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
import { InputError, StoreError } from '../../errors';
import type { QueryRunner } from '../../store/duckStore';
import { CR_STAND_IN, describeGzipProblem, normalizeLines, SKIPPED_LINE, type NormalizedLines } from './normalizeLines';
import { recordSkips } from '../skips';
import type { ReaderContext } from '../types';

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
 * Parameters: $1 = path, $2 = compression. `maxLineBytes` is read_csv's max_line_size: its reader
 * holds 16 buffers of that size (measured with duckdb_memory(): 64 MiB → 1 GiB, 16 MiB → 256 MiB,
 * 2 MiB → 64 MiB), which cannot spill, so it starts small and grows only for a file that needs it
 * (stageNdjson, LINE_SIZES).
 */
export function linesSql(maxLineBytes: number): string {
  if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) throw new Error(`invalid line size ${maxLineBytes}`);
  return `read_csv($1, columns = {'l': 'VARCHAR'}, header = false, delim = chr(1), quote = '',
  escape = '', auto_detect = false, compression = $2, max_line_size = ${maxLineBytes},
  new_line = '\\n')`;
}

/** read_csv's max_line_size tried in turn (OTLP batches can be tens of MB, k6 lines are ≈ 400 bytes). */
const LINE_SIZES = [2, 16, 64].map((mib) => mib * 2 ** 20);

/**
 * The smallest max_line_size that holds a line of `longest` bytes and its newline (the normalized copy
 * knows its longest line, so the staging read never has to be retried). Past the largest size (a line
 * that grew when its CRs were replaced) the line's own size.
 */
function lineSizeFor(longest: number): number {
  return LINE_SIZES.find((size) => size >= longest + 2) ?? longest + 2;
}

/**
 * The line length read_csv reported as too long for its max_line_size (Infinity when it did not say
 * how long), or undefined for any other failure. Its parallel reader, meeting a line far past the
 * size, stops with "does not support a full read on this file" instead (a 100 MiB line of spaces).
 */
function lineTooLong(err: unknown): number | undefined {
  const text = err instanceof Error ? err.message : String(err);
  const m = /Maximum line size of \d+ bytes exceeded\. Actual Size:\s*(\d+)/.exec(text);
  if (m) return Number(m[1]);
  return /Parallel CSV Reader currently does not support a full read on this file/.test(text) ? Infinity : undefined;
}

/**
 * Runs `read(sql)` over the lines of a file that was not normalized (its longest line unknown) with
 * each max_line_size in turn, from the smallest (LINE_SIZES); undefined when a line is longer than the
 * largest (the caller stages the file, where such a line is skipped and cited).
 */
async function withLineSizes<T>(read: (lines: string) => Promise<T>): Promise<T | undefined> {
  for (let i = 0; i < LINE_SIZES.length; i++) {
    try {
      return await read(linesSql(LINE_SIZES[i]));
    } catch (err) {
      const needed = lineTooLong(err);
      if (needed === undefined) throw err;
      while (i + 1 < LINE_SIZES.length && LINE_SIZES[i + 1] < needed + 2) i++;
    }
  }
  return undefined;
}

/** How many characters of a bad line are quoted in its load_issues message. */
const QUOTE_CHARS = 60;

/** Longest line staged (the largest max_line_size, less the newline): longer ones are skipped and cited. */
export const MAX_LINE_BYTES = LINE_SIZES[LINE_SIZES.length - 1] - 1;

/**
 * Stages the valid JSON-object lines of ctx.path into TEMP TABLE `table`(line BIGINT, doc JSON),
 * recording every bad line in load_issues and load_skips. See the file header for the policy; the
 * file is first copied by normalizeLines.ts (CRLF, stray CRs, invalid UTF-8, overlong lines, gzip
 * errors), so DuckDB's line reader never fails on its content.
 */
export async function stageNdjson(ctx: ReaderContext, table: string): Promise<NdjsonStage> {
  const t = assertIdentifier(table);
  const raw = `${t}__raw`;
  const norm = await normalizeLines(ctx.path, ctx.sniff.gzip, MAX_LINE_BYTES);
  try {
    if (norm.gzip && norm.gzip.kind !== 'truncated') {
      throw new InputError(ctx.path, norm.gzip.line, 'an intact gzip file', `${describeGzipProblem(norm.gzip)}; nothing was loaded from it`);
    }
    const restored = await crRestoreSql(ctx.store, raw, norm.crLines);
    // `ok`: a JSON object. NULL for blank lines (json_valid(NULL) is NULL) and for the lines the
    // normalizer skipped (recorded below from its list), false for bad ones.
    await ctx.store.run(`DROP TABLE IF EXISTS ${raw}`);
    await ctx.store.run(
      `CREATE TEMP TABLE ${raw} AS
         SELECT line, CASE WHEN ok THEN l END AS doc,
                CASE WHEN NOT ok THEN left(l, ${QUOTE_CHARS + 1}) END AS bad, coalesce(l = $3, false) AS special
         FROM (SELECT line, l,
                      CASE WHEN trim(l, ' ' || chr(9)) = '' OR l = $3 THEN NULL
                           ELSE json_valid(l) AND starts_with(ltrim(l), '{') END AS ok
               FROM (SELECT line, ${restored} AS l FROM (SELECT row_number() OVER () AS line, l FROM ${linesSql(lineSizeFor(norm.longest))})))`,
      [norm.file, 'uncompressed', SKIPPED_LINE],
    );
    await ctx.store.run(`DROP TABLE IF EXISTS ${raw}_cr`);
  } finally {
    await norm.remove();
  }
  const [stats] = await ctx.store.all<{ total: number; valid: number; bad: number; blank: number; first_blank: number | null }>(
    `SELECT count(*) AS total, count(doc) AS valid, count(bad) AS bad,
            count(*) FILTER (WHERE doc IS NULL AND bad IS NULL AND NOT special) AS blank,
            min(line) FILTER (WHERE doc IS NULL AND bad IS NULL AND NOT special) AS first_blank
     FROM ${raw}`,
  );
  if (stats.bad > 0) await recordBadLines(ctx.store, ctx.sourceId, raw, norm.lines);
  await recordNormalizerFindings(ctx, norm);
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
  if (stats.bad === 0 && stats.blank === 0 && norm.special.length === 0) {
    // Normal path: every line is valid, so no filtering pass is needed.
    await ctx.store.run(`CREATE TEMP TABLE ${t} AS SELECT line, doc::JSON AS doc FROM ${raw}`);
  } else {
    // No ORDER BY: the raw table is in line order (read in file order with preserve_insertion_order on) and a
    // filter keeps it; sorting 100 KB request bodies ran a 256MB limit out of memory.
    await ctx.store.run(`CREATE TEMP TABLE ${t} AS SELECT line, doc::JSON AS doc FROM ${raw} WHERE doc IS NOT NULL`);
  }
  await ctx.store.run(`DROP TABLE ${raw}`);
  return { lines: stats.valid, skipped: stats.bad + norm.special.length, blank: stats.blank };
}

/**
 * SQL for a staged line `l` with the CRs normalizeLines replaced put back, on the lines it lists
 * (a temp table `<raw>_cr`, so a file full of stray CRs does not make a huge statement).
 */
async function crRestoreSql(store: QueryRunner, raw: string, crLines: readonly number[]): Promise<string> {
  if (crLines.length === 0) return 'l';
  const table = `${assertIdentifier(raw)}_cr`;
  await store.run(`CREATE OR REPLACE TEMP TABLE ${table} (line BIGINT)`);
  for (let i = 0; i < crLines.length; i += 1000) {
    // Integers counted by normalizeLines, not text from the file.
    await store.run(`INSERT INTO ${table} VALUES ${crLines.slice(i, i + 1000).map((n) => `(${Math.trunc(n)})`).join(', ')}`);
  }
  return `CASE WHEN line IN (SELECT line FROM ${table}) THEN replace(l, '${CR_STAND_IN}', chr(13)) ELSE l END`;
}

/** The lines normalizeLines skipped, a truncated gzip stream and CRLF endings, as load issues. */
export async function recordNormalizerFindings(ctx: ReaderContext, norm: NormalizedLines): Promise<void> {
  for (const code of ['line-too-long', 'invalid-utf8'] as const) {
    const lines = norm.special.filter((s) => s.code === code);
    for (const s of lines) {
      const message = code === 'line-too-long'
        ? `expected a line of at most 64 MiB, found ${(s.bytes / 1_048_576).toFixed(1)} MiB; line skipped`
        : 'expected UTF-8 text, found bytes that are not UTF-8 (a Latin-1 or UTF-16 file? convert it with iconv); line skipped';
      await ctx.store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', $3, $4)`, [ctx.sourceId, s.line, code, message]);
    }
    await recordSkips(ctx.store, ctx.sourceId, code, lines.length);
  }
  if (norm.gzip?.kind === 'truncated') {
    await ctx.store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', 'gzip-truncated', $3)`, [
      ctx.sourceId,
      norm.gzip.line,
      `expected a complete gzip stream, found ${describeGzipProblem(norm.gzip)}; the lines before it were read`,
    ]);
  }
  if (norm.crlfLines > 0) {
    await ctx.store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'crlf-line-endings', $2)`, [
      ctx.sourceId,
      `${norm.crlfLines} line(s) end in CRLF (Windows line endings); read as lines all the same`,
    ]);
  }
}

/** Writes one load_issues row per bad line of the staged raw table, and their count to load_skips. */
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
  await store.run(
    `INSERT INTO load_skips
     SELECT $1, CASE WHEN line = $2 THEN 'truncated-line' ELSE 'malformed-json' END AS code, 'line', count(*)
     FROM ${assertIdentifier(raw)} WHERE bad IS NOT NULL GROUP BY code ORDER BY code`,
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
 * Whether a numbered read of ctx.path (row_number() over DuckDB's JSON reader) numbers its lines
 * exactly: the JSON readers skip blank and whitespace-only lines without counting them, so after one
 * every cited line would be off. One count over the file's physical lines (DuckDB's line reader, on
 * every thread) says whether there is any; a file the line reader cannot take (a CR) says no too, and
 * is staged line by line instead.
 */
export async function numberedReadIsExact(ctx: ReaderContext): Promise<boolean> {
  try {
    // read_csv holds 16 buffers of its max_line_size, which cannot spill: the smallest that fits.
    const blank = await withLineSizes(async (lines) => {
      const [row] = await ctx.store.all<{ blank: number }>(
        `SELECT count(*) FILTER (WHERE l IS NULL OR trim(l, ' ' || chr(9)) = '') AS blank FROM ${lines}`,
        [ctx.path, compressionOf(ctx)],
      );
      return row.blank;
    });
    return blank === 0;
  } catch (err) {
    if (isDataError(err)) return false;
    throw err;
  }
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
