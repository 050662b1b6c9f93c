/**
 * k6 CSV output (`k6 run --out csv=FILE[.gz]`). Header (k6 ≥ 0.48 with default system tags):
 * metric_name,timestamp,metric_value,check,error,error_code,group,method,name,proto,scenario,status,
 * subproto,tls_version,url,extra_tags,metadata. The tag columns follow the configured system tags, so
 * the header is read first and only the columns present are used.
 *
 * Quirks of k6's CSV writer (output/csv/output.go) handled here:
 * - `extra_tags` and `metadata` are `k=v&k=v` strings written by iterating a Go map, so their order
 *   is random per row: they are canonicalised (pairs sorted) before grouping;
 * - timestamps are whole seconds (unix or RFC3339), so the end time of a request is known only to
 *   ±1 s and two requests with identical tags can end in the same second. The Points of one request
 *   are written contiguously and in the same metric order, so the k-th http_req_duration of a
 *   (timestamp, tags, metadata) key belongs with the k-th http_reqs of that key: that ordinal is part
 *   of the group key and no two requests merge.
 * The grouped rows go through the same finishK6 as the JSON layout.
 */
import { checkTraceIdTag, finishK6, groupAggregatesSql, keptMetricSql, recordUnusedMetrics } from './k6Requests';
import { stageCsv } from '../input/csvRows';
import { assertIdentifier } from '../input/ndjsonLines';
import { InputError } from '../../errors';
import { strictDoubleSql } from '../input/numberText';
import { quoteFileText } from '../../escape';
import { recordSkips, type SkipCode } from '../skips';
import type { ReaderContext, ReaderResult } from '../types';

/** A day in ms: the longest plausible k6 timing (as in the JSON reader). */
const MAX_DURATION_MS = 86_400_000;

/** k6 CSV timestamps: whole unix seconds (or ms/µs/ns) or RFC 3339. */
const TIME_OK_SQL = `(regexp_full_match("timestamp", '[0-9]+(\\.[0-9]*)?') OR TRY_CAST("timestamp" AS TIMESTAMP_NS) IS NOT NULL)`;

/** A row's value: only as k6 writes numbers (`1_000`, ` 12` or `+5` would pass DuckDB's cast; numberText.ts). */
const CSV_VALUE_SQL = strictDoubleSql('metric_value');

/**
 * Records and deletes the rows of used metrics whose timestamp or value is unusable (the JSON
 * reader's invalid-time / invalid-value): a NaN, an infinity, 1e308 or a negative duration would
 * otherwise reach every figure computed from the request.
 */
async function skipInvalidRows(ctx: ReaderContext): Promise<void> {
  const value = CSV_VALUE_SQL;
  const valueOk = `coalesce(isfinite(${value}) AND (NOT starts_with(metric_name, 'http_req_') OR metric_name = 'http_req_failed' OR ${value} BETWEEN 0 AND ${MAX_DURATION_MS}), false)`;
  await ctx.store.run(
    `CREATE OR REPLACE TEMP TABLE k6_csv_invalid AS
     SELECT line, CASE WHEN NOT ${TIME_OK_SQL} THEN 'invalid-time' ELSE 'invalid-value' END AS kind,
            CASE WHEN NOT ${TIME_OK_SQL}
                 THEN 'expected a k6 CSV timestamp (unix seconds or RFC 3339), found ' || coalesce(to_json(left("timestamp", 60))::VARCHAR, 'none')
                 ELSE 'expected a finite number as the value of ' || metric_name
                      || CASE WHEN starts_with(metric_name, 'http_req_') AND metric_name <> 'http_req_failed' THEN ' (ms, from 0 to ${MAX_DURATION_MS})' ELSE '' END
                      || ', found ' || coalesce(to_json(left(metric_value, 60))::VARCHAR, 'none') END || '; row skipped' AS message
     FROM k6_csv_rows WHERE ${keptMetricSql('metric_name')} AND NOT (${TIME_OK_SQL} AND ${valueOk})`,
  );
  const kinds = await ctx.store.all<{ kind: SkipCode; n: number }>('SELECT kind, count(*) AS n FROM k6_csv_invalid GROUP BY kind');
  if (kinds.length > 0) {
    await ctx.store.run(`INSERT INTO load_issues SELECT $1, line, 'warning', kind, message FROM k6_csv_invalid ORDER BY line`, [ctx.sourceId]);
    for (const k of kinds) await recordSkips(ctx.store, ctx.sourceId, k.kind, k.n);
    await ctx.store.run('DELETE FROM k6_csv_rows WHERE line IN (SELECT line FROM k6_csv_invalid)');
  }
  await ctx.store.run('DROP TABLE k6_csv_invalid');
}

/**
 * Rows the reader does not group, reported as the JSON reader reports its lines: a row whose first
 * field starts with a byte-order mark (files joined with `cat`: the JSON reader cites such a line as
 * malformed) is cited and skipped; rows of metrics no reader uses are counted by metric in one info row.
 */
async function reportUngroupedRows(ctx: ReaderContext): Promise<void> {
  const { store, sourceId } = ctx;
  const bom = "starts_with(metric_name, chr(65279))";
  await store.run(
    `INSERT INTO load_issues
     SELECT $1, line, 'warning', 'malformed-csv',
            'expected a k6 CSV row, found one that starts with a byte-order mark (U+FEFF: two files joined with cat?); row skipped'
     FROM k6_csv_rows WHERE ${bom} ORDER BY line`,
    [sourceId],
  );
  const [{ n }] = await store.all<{ n: number }>(`SELECT count(*) AS n FROM k6_csv_rows WHERE ${bom}`);
  if (n > 0) {
    await recordSkips(store, sourceId, 'malformed-csv', n);
    await store.run(`DELETE FROM k6_csv_rows WHERE ${bom}`);
  }
  const unused = await store.all<{ metric: string; n: number }>(
    `SELECT left(coalesce(metric_name, ''), 60) AS metric, count(*) AS n FROM k6_csv_rows
     WHERE NOT coalesce(${keptMetricSql('metric_name')}, false) GROUP BY 1 ORDER BY n DESC, metric`,
  );
  await recordUnusedMetrics(store, sourceId, unused.reduce((a, u) => a + u.n, 0), unused.map((u) => `${u.metric} (${u.n})`));
}

const TAG_COLUMNS = ['check', 'error', 'error_code', 'group', 'method', 'name', 'proto', 'scenario', 'status', 'subproto', 'tls_version', 'url'];

/** `k=v&k=v` → the same pairs sorted, so Go's random map order does not split a request. */
function canonicalPairs(col: string): string {
  return `array_to_string(list_sort(string_split(coalesce(${col}, ''), '&')), '&')`;
}

/** Value of key `name` in a `k=v&k=v` column (regex bound as a parameter or a constant). */
function pairValue(col: string, regex: string): string {
  return `nullif(regexp_extract(coalesce(${col}, ''), ${regex}, 1), '')`;
}

function keyRegex(key: string): string {
  return `'(?:^|&)${key}=([^&]*)'`;
}

export async function readK6Csv(ctx: ReaderContext): Promise<ReaderResult> {
  const { store } = ctx;
  const tag = checkTraceIdTag(ctx.traceIdTag);
  const tagRegex = `(?:^|&)${tag.replace(/[.]/g, '\\.')}=([^&]*)`;
  // Header-checked, line-numbered text columns; malformed rows recorded and skipped (csvRows.ts).
  const stage = await stageCsv(ctx, 'k6_csv_rows');
  const present = new Set(stage.columns);
  for (const required of ['metric_name', 'timestamp', 'metric_value']) {
    if (!present.has(required)) throw new InputError(ctx.path, 1, `a k6 CSV header with a '${required}' column`, `the columns ${quoteFileText(stage.columns.join(', '), 200)}`);
  }
  await reportUngroupedRows(ctx);
  await skipInvalidRows(ctx);
  // A column, or failing that the same key among extra_tags (custom tags land there).
  const col = (name: string): string =>
    present.has(name) ? `nullif("${assertIdentifier(name)}", '')` : present.has('extra_tags') ? pairValue('extra_tags', keyRegex(name)) : 'NULL';
  const tagCols = TAG_COLUMNS.filter((c) => present.has(c)).map((c) => `"${assertIdentifier(c)}"`);
  const extra = present.has('extra_tags') ? canonicalPairs('extra_tags') : "''";
  const meta = present.has('metadata') ? canonicalPairs('metadata') : "''";
  const traceFromTag = present.has(tag) && /^[a-z][a-z0-9_]*$/.test(tag) ? `nullif("${tag}", '')` : present.has('extra_tags') ? pairValue('extra_tags', '$1') : 'NULL';
  const traceId = `nullif(lower(trim(coalesce(${present.has('metadata') ? pairValue('metadata', keyRegex('trace_id')) : 'NULL'}, ${traceFromTag}))), '')`;
  const key = ['"timestamp"', ...tagCols, 'extra_key', 'meta_key'].join(', ');

  const groupsSql = `
CREATE OR REPLACE TEMP TABLE k6_groups AS
WITH rows AS (
  SELECT *, ${extra} AS extra_key, ${meta} AS meta_key FROM k6_csv_rows),
kept AS (
  SELECT *, ${CSV_VALUE_SQL} AS pt_value,
         row_number() OVER (PARTITION BY ${key}, metric_name ORDER BY line) AS ordinal
  FROM rows WHERE ${keptMetricSql('metric_name')}),
g AS (
  SELECT min(line) AS line, any_value("timestamp") AS ts, any_value(${traceId}) AS trace_id,
         ${['status', 'error_code', 'route', 'model_class', 'scenario', 'method', 'url', 'session_id', 'model', 'region', 'priority', 'prompt_shape']
           .map((c) => `any_value(${col(c)}) AS ${c}_txt`)
           .join(', ')},
  ${groupAggregatesSql('metric_name', 'pt_value')}
  FROM kept GROUP BY ${key}, ordinal)
SELECT g.* EXCLUDE (ts, status_txt, error_code_txt, route_txt, model_class_txt, scenario_txt, method_txt, url_txt, session_id_txt,
                    model_txt, region_txt, priority_txt, prompt_shape_txt),
       CASE WHEN regexp_full_match(ts, '[0-9]+(\\.[0-9]*)?')
            THEN CASE WHEN ts::DOUBLE < 1e11 THEN ts::DOUBLE * 1000 WHEN ts::DOUBLE < 1e14 THEN ts::DOUBLE
                      WHEN ts::DOUBLE < 1e17 THEN ts::DOUBLE / 1e3 ELSE ts::DOUBLE / 1e6 END
            ELSE epoch_ns(TRY_CAST(ts AS TIMESTAMP_NS)) / 1e6 END AS end_ms,
       TRY_CAST(status_txt AS INTEGER) AS status, TRY_CAST(error_code_txt AS INTEGER) AS error_code,
       route_txt AS route, coalesce(model_class_txt, model_txt) AS model_class, scenario_txt AS scenario, method_txt AS method,
       url_txt AS url, session_id_txt AS session_id, region_txt AS region, priority_txt AS priority, prompt_shape_txt AS prompt_shape
FROM g`;

  // The tag regex is bound only when the SQL reads extra_tags for the trace ID (a header may lack it).
  await store.run(groupsSql, traceFromTag.includes('$1') ? [tagRegex] : []);
  await store.run('DROP TABLE k6_csv_rows');
  const [res] = await store.all<{ whole: boolean | null }>(
    'SELECT bool_and(end_ms = round(end_ms / 1000) * 1000) AS whole FROM k6_groups WHERE n_http > 0',
  );
  if (res.whole) {
    await store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'time-resolution', $2)`, [
      ctx.sourceId,
      'k6 CSV timestamps are whole seconds: start_ms (end − http_req_duration) is known only to ±1 s; durations are exact',
    ]);
  }
  return finishK6(ctx);
}
