/**
 * k6 JSON output (`k6 run --out json=FILE[.gz]`): NDJSON of Metric and Point lines.
 *
 * One HTTP request emits one Point per http_req_* metric plus http_reqs, all with the same
 * data.time, tags and metadata; they are grouped into one client_requests row in SQL (k6Requests.ts).
 *
 * Speed: the normal path is ONE streaming query: a typed `read_json` of only type, metric,
 * data.time, data.value and data.tags/metadata as raw JSON text, grouped straight into k6_groups;
 * the tags are parsed once per group. Measured on a 100 MB file (2 shared cores, noisy): ≈0.8 s CPU
 * for this shape against ≈2.3 s when the Points were materialised first; the typed read_json itself
 * was on par with read_ndjson_objects + multi-path json_extract_string (≈0.40 s vs ≈0.44 s) and
 * 2–3× faster than single-path json_extract calls. A clean file loads without line numbers (see
 * readK6Json and schema.ts); otherwise they come from `row_number() OVER ()` in file order. If the strict read fails (malformed or
 * truncated line, wrong types), the file is staged line by line (ndjsonLines.ts): bad lines are
 * skipped, counted and recorded, and the same grouping runs on the valid lines.
 */
import { checkGroups, checkTraceIdTag, finishK6, groupAggregatesSql, groupChecksCiteLines, keptMetricSql, STREAMING_GROUP_SQL } from './k6Requests';
import { runUnordered } from '../store/insertOrder';
import { compressionOf, isDataError, stageNdjson } from './ndjsonLines';
import type { ReaderContext, ReaderResult } from './types';

/**
 * Points as (line, type, metric, pt_time, pt_value, tags, metadata) straight from the file.
 * $1 path, $2 compression. `lineSql` numbers the lines or not (see readK6Json).
 */
function filePointsSql(lineSql: string): string {
  return `
  SELECT ${lineSql} AS line, type, metric, data.time AS pt_time, data.value AS pt_value,
         data.tags AS tags, data.metadata AS metadata
  FROM read_json($1, format = 'newline_delimited', compression = $2,
    columns = {type: 'VARCHAR', metric: 'VARCHAR',
               data: 'STRUCT("time" VARCHAR, "value" DOUBLE, tags JSON, metadata JSON)'})`;
}

/** Line numbers in file order (k6 never writes blank lines, which the JSON reader would not count). */
const NUMBERED_POINTS = filePointsSql('row_number() OVER ()');
/** No line numbers: DuckDB parses and groups on every thread. */
const UNNUMBERED_POINTS = filePointsSql('NULL::BIGINT');

/** Same columns from the line-staged table (slow path, only after the strict read failed). */
const STAGED_POINTS = `
  SELECT line, doc->>'$.type' AS type, doc->>'$.metric' AS metric, doc->>'$.data.time' AS pt_time,
         TRY_CAST(doc->>'$.data.value' AS DOUBLE) AS pt_value, doc->'$.data.tags' AS tags,
         doc->'$.data.metadata' AS metadata
  FROM k6_lines`;

/**
 * The tags finishK6 uses, after the trace-ID tag, in the order groupsSql indexes them (t[2]…t[9]).
 * One multi-path json_extract_string parses each group's tags once; nine `->>` parsed them nine
 * times (100k-request file, 2 shared cores: ≈2.5 s vs ≈3.5 s CPU for the grouping statement, best of 5).
 */
const TAG_PATHS = ['status', 'error_code', 'route', 'model_class', 'scenario', 'method', 'url', 'session_id']
  .map((t) => `'$.${t}'`)
  .join(', ');

/**
 * The groups whose tags and trace ID finishK6 reads: HTTP requests and streaming Trends. The others
 * (iterations, dropped_iterations, vus: ≈ 60 % of the groups at 100k requests) only add to counters,
 * so their tags are never parsed.
 */
const TAGGED_GROUP_SQL = `(n_http > 0 OR ${STREAMING_GROUP_SQL})`;

/** Groups the Points of `points` into k6_groups (see k6Requests.ts); `tagParam` binds the trace-ID tag's JSON path. */
function groupsSql(points: string, tagParam: string): string {
  return `
CREATE OR REPLACE TEMP TABLE k6_groups AS
WITH g AS (
  SELECT min(line) AS line, pt_time, tags, metadata,
  ${groupAggregatesSql('metric', 'pt_value')}
  FROM (${points}) p
  WHERE type = 'Point' AND ${keptMetricSql('metric')}
  GROUP BY pt_time, tags, metadata)
SELECT g.* EXCLUDE (pt_time, tags, metadata, t, tagged),
       epoch_ns(CAST(pt_time AS TIMESTAMP_NS)) / 1e6 AS end_ms,
       CASE WHEN tagged THEN nullif(lower(trim(coalesce(metadata->>'$.trace_id', t[1]))), '') END AS trace_id,
       TRY_CAST(t[2] AS INTEGER) AS status, TRY_CAST(t[3] AS INTEGER) AS error_code,
       t[4] AS route, t[5] AS model_class, t[6] AS scenario, t[7] AS method, t[8] AS url, t[9] AS session_id
FROM (SELECT *, CASE WHEN tagged THEN json_extract_string(tags, [${tagParam}, ${TAG_PATHS}]) END AS t
      FROM (SELECT *, ${TAGGED_GROUP_SQL} AS tagged FROM g)) g`;
}

export async function readK6Json(ctx: ReaderContext): Promise<ReaderResult> {
  const { store } = ctx;
  const tagPath = `$."${checkTraceIdTag(ctx.traceIdTag)}"`;
  const params = [ctx.path, compressionOf(ctx), tagPath];
  let skipped = 0;
  try {
    // Fast path: no line numbers, so the parse and the grouping run on every thread and the insert
    // need not keep the file's order (bench 100k file, 467 MB: grouping 1.6 s wall on one thread vs
    // 0.6 s on two). A clean file is done here; a finding that cites a line sends it to the numbered read.
    await runUnordered(store, groupsSql(UNNUMBERED_POINTS, '$3'), params);
    const check = await checkGroups(ctx);
    if (!groupChecksCiteLines(check)) return finishK6(ctx, check);
    ctx.progress?.('k6 JSON has findings to report by line; reading it again with line numbers');
    await store.run(groupsSql(NUMBERED_POINTS, '$3'), params);
  } catch (err) {
    if (!isDataError(err)) throw err;
    // Not clean: find and record the bad lines, then read what is valid.
    ctx.progress?.('k6 JSON has bad lines; reading it line by line');
    const staged = await stageNdjson(ctx, 'k6_lines');
    skipped = staged.skipped;
    if (skipped === 0) {
      // The strict read failed for another reason (e.g. a value of the wrong type): say so.
      await store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'slow-path', $2)`, [
        ctx.sourceId,
        `strict read failed (${(err as Error).message.split('\n')[0].slice(0, 200)}); the file was read line by line`,
      ]);
    }
    await store.run(groupsSql(STAGED_POINTS, '$1'), [tagPath]);
    await store.run('DROP TABLE k6_lines');
  }
  const result = await finishK6(ctx);
  return { records: result.records, skipped };
}
