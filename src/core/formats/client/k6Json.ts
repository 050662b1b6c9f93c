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
 * readK6Json and schema.ts). Every line reaches the grouping, so that the same pass also counts what
 * the reader does not use (Metric lines, Points of other metrics) and finds the lines it must report
 * (another format's line, a value that is not a plausible number): letting them in cost no measurable
 * CPU (bench 100k file, 467 MB, three interleaved runs each: 2.55–2.76 s before, 2.12–2.75 s after;
 * the JSON parse dominates). A file with something to report is read again with line numbers
 * (NUMBERED_POINTS), or line by line when the typed read fails (ndjsonLines.ts: a malformed or
 * truncated line, a value of the wrong type); every line is then classified (ROW_KIND_SQL), the
 * ones skipped are recorded with their numbers and the rest grouped as in the fast path.
 */
import {
  checkGroups, checkTraceIdTag, finishK6, groupAggregatesSql, groupChecksCiteLines, keptMetricSql, recordUnusedMetrics, STREAMING_GROUP_SQL, STREAMING_METRICS,
} from './k6Requests';
import { runScan, runUnordered } from '../../store/insertOrder';
import { compressionOf, isDataError, numberedReadIsExact, stageNdjson } from '../input/ndjsonLines';
import { jsonKindSuffixSql, jsonNumberSql } from '../input/numberText';
import { scanProgress } from '../input/scanProgress';
import { recordSkips, type SkipCode } from '../skips';
import type { ReaderContext, ReaderResult } from '../types';

/**
 * Points as (line, type, metric, pt_time, pt_value, pt_value_text, pt_value_type, tags, metadata)
 * straight from the file. $1 path, $2 compression. `lineSql` numbers the lines or not (see readK6Json).
 * The value is read as JSON and only a JSON number becomes pt_value: typed DOUBLE, the reader took
 * `true` for 1 and `"143"` for 143 (numberText.ts). Measured on a 150 MB file (2 shared cores, load
 * 4.9, medians of 6): the read took 177 ms against 165 ms typed DOUBLE.
 */
function filePointsSql(lineSql: string): string {
  return `
  SELECT ${lineSql} AS line, type, metric, data.time AS pt_time, ${jsonNumberSql('data.value')} AS pt_value,
         data.value->>'$' AS pt_value_text, json_type(data.value) AS pt_value_type,
         data.tags AS tags, data.metadata AS metadata
  FROM read_json($1, format = 'newline_delimited', compression = $2,
    columns = {type: 'VARCHAR', metric: 'VARCHAR',
               data: 'STRUCT("time" VARCHAR, "value" JSON, tags JSON, metadata JSON)'})`;
}

/** Line numbers in file order (k6 never writes blank lines, which the JSON reader would not count). */
const NUMBERED_POINTS = filePointsSql('row_number() OVER ()');
/** No line numbers: DuckDB parses and groups on every thread. */
const UNNUMBERED_POINTS = filePointsSql('NULL::BIGINT');

/** Same columns from the line-staged table (slow path, only after the typed read failed). */
const STAGED_POINTS = `
  SELECT line, doc->>'$.type' AS type, doc->>'$.metric' AS metric, doc->>'$.data.time' AS pt_time,
         ${jsonNumberSql("doc->'$.data.value'")} AS pt_value, doc->>'$.data.value' AS pt_value_text,
         json_type(doc, '$.data.value') AS pt_value_type, doc->'$.data.tags' AS tags, doc->'$.data.metadata' AS metadata
  FROM k6_lines`;

/** Metrics whose value is a duration in ms. */
const DURATION_METRICS = [
  'http_req_duration', 'http_req_blocked', 'http_req_connecting', 'http_req_tls_handshaking', 'http_req_sending',
  'http_req_waiting', 'http_req_receiving', STREAMING_METRICS.ttft, STREAMING_METRICS.itl,
];

/**
 * A day: no k6 request lasts longer (its timeout ends it), and a larger value (1e308, a value in ns)
 * would only break every figure computed from it.
 */
const MAX_DURATION_MS = 86_400_000;

/** SQL predicate: the Point's value is a measurement (finite; a duration from 0 to a day). */
const VALUE_OK_SQL = `coalesce(isfinite(pt_value) AND (metric NOT IN (${DURATION_METRICS.map((m) => `'${m}'`).join(', ')}) OR pt_value BETWEEN 0 AND ${MAX_DURATION_MS}), false)`;

/**
 * What a line is to this reader (slow path): a Metric line or a Point of a metric it does not use
 * (ignored, counted), a line of another format, a Point whose time or value is unusable (skipped,
 * cited), or a Point it groups.
 */
const ROW_KIND_SQL = `CASE
    WHEN type = 'Metric' THEN 'metric'
    WHEN type IS DISTINCT FROM 'Point' OR metric IS NULL THEN 'foreign-line'
    WHEN NOT ${keptMetricSql('metric')} THEN 'unused'
    WHEN TRY_CAST(pt_time AS TIMESTAMP_NS) IS NULL THEN 'invalid-time'
    WHEN NOT ${VALUE_OK_SQL} THEN 'invalid-value'
    ELSE 'point' END`;

/** The kinds of ROW_KIND_SQL that skip the line, with the message saying what was expected. */
const SKIPPED_KINDS: ReadonlyArray<[SkipCode, string]> = [
  ['foreign-line', `'expected a k6 JSON line ({"type": "Point" or "Metric", …}), found ' || CASE
      WHEN type IS NULL THEN 'a JSON object without a k6 "type" (a line of another format?)'
      WHEN type NOT IN ('Point', 'Metric') THEN 'type ' || to_json(left(type, 40))::VARCHAR
      ELSE 'a Point without "metric"' END || '; line skipped'`],
  ['invalid-time', `'expected the time of a k6 Point (RFC 3339, e.g. 2025-01-31T12:00:00.123Z), found '
      || coalesce(to_json(left(pt_time, 60))::VARCHAR, 'none') || ' (metric ' || metric || '); line skipped'`],
  ['invalid-value', `'expected a finite number as the value of ' || metric
      || CASE WHEN metric IN (${DURATION_METRICS.map((m) => `'${m}'`).join(', ')}) THEN ' (ms, from 0 to ${MAX_DURATION_MS})' ELSE '' END
      || ', found ' || coalesce(left(pt_value_text, 60), 'none') || ${jsonKindSuffixSql('pt_value_type')} || '; line skipped'`],
];

/**
 * The tags finishK6 uses, after the trace-ID tag, in the order groupsSql indexes them (t[2]…t[9]).
 * One multi-path json_extract_string parses each group's tags once; nine `->>` parsed them nine
 * times (100k-request file, 2 shared cores: ≈2.5 s vs ≈3.5 s CPU for the grouping statement, best of 5).
 */
const TAG_PATHS = ['status', 'error_code', 'route', 'model_class', 'scenario', 'method', 'url', 'session_id', 'model', 'region', 'priority', 'prompt_shape']
  .map((t) => `'$.${t}'`)
  .join(', ');

/**
 * The groups whose tags and trace ID finishK6 reads: HTTP requests and streaming Trends. The others
 * (iterations, dropped_iterations, vus: ≈ 60 % of the groups at 100k requests) only add to counters,
 * so their tags are never parsed.
 */
const TAGGED_GROUP_SQL = `(n_http > 0 OR ${STREAMING_GROUP_SQL})`;

/**
 * Groups the rows of `points` into k6_groups (see k6Requests.ts); `tagParam` binds the trace-ID tag's
 * JSON path. `fast`: every line of the file, with the checks of the fast path as extra columns
 * (n_unused, unused_metrics, n_invalid); otherwise `points` holds only the rows of kind 'point'.
 */
function groupsSql(points: string, tagParam: string, fast: boolean): string {
  const rows = fast
    ? `(SELECT *, CASE WHEN type = 'Point' AND kept THEN metric END AS m FROM (SELECT *, ${keptMetricSql('metric')} AS kept FROM (${points})))`
    : `(SELECT *, metric AS m FROM (${points}))`;
  const checks = fast
    ? `,
  count(*) FILTER (WHERE type = 'Point' AND NOT kept) AS n_unused,
  list(metric) FILTER (WHERE type = 'Metric' AND NOT kept) AS unused_metrics,
  count(*) FILTER (WHERE NOT coalesce(type = 'Metric' OR (type = 'Point' AND metric IS NOT NULL AND (NOT kept OR ${VALUE_OK_SQL})), false)) AS n_invalid`
    : '';
  return `
CREATE OR REPLACE TEMP TABLE k6_groups AS
WITH g AS (
  SELECT min(line) AS line, pt_time, tags, metadata,
  ${groupAggregatesSql('m', 'pt_value')}${checks}
  FROM ${rows} p
  GROUP BY pt_time, tags, metadata)
SELECT g.* EXCLUDE (pt_time, tags, metadata, t, tagged),
       epoch_ns(CAST(pt_time AS TIMESTAMP_NS)) / 1e6 AS end_ms,
       CASE WHEN tagged THEN nullif(lower(trim(coalesce(metadata->>'$.trace_id', t[1]))), '') END AS trace_id,
       TRY_CAST(t[2] AS INTEGER) AS status, TRY_CAST(t[3] AS INTEGER) AS error_code,
       t[4] AS route, coalesce(t[5], t[10]) AS model_class, t[6] AS scenario, t[7] AS method, t[8] AS url, t[9] AS session_id,
       t[11] AS region, t[12] AS priority, t[13] AS prompt_shape
FROM (SELECT *, CASE WHEN tagged THEN json_extract_string(tags, [${tagParam}, ${TAG_PATHS}]) END AS t
      FROM (SELECT *, ${TAGGED_GROUP_SQL} AS tagged FROM g)) g`;
}

export async function readK6Json(ctx: ReaderContext): Promise<ReaderResult> {
  const { store } = ctx;
  const tagPath = `$."${checkTraceIdTag(ctx.traceIdTag)}"`;
  const params = [ctx.path, compressionOf(ctx), tagPath];
  try {
    // Fast path: no line numbers, so the parse and the grouping run on every thread and the insert
    // need not keep the file's order (bench 100k file, 467 MB: grouping 1.6 s wall on one thread vs
    // 0.6 s on two). A clean file is done here; a finding that cites a line sends it to the numbered read.
    await runUnordered(store, groupsSql(UNNUMBERED_POINTS, '$3', true), params, scanProgress(ctx));
    const [lines] = await store.all<{ invalid: number; unused: number; metrics: string[] | null }>(
      `SELECT coalesce(sum(n_invalid), 0)::BIGINT AS invalid, coalesce(sum(n_unused), 0)::BIGINT AS unused,
              flatten(list(unused_metrics) FILTER (WHERE unused_metrics IS NOT NULL)) AS metrics FROM k6_groups`,
    );
    const check = await checkGroups(ctx);
    if (lines.invalid === 0 && !groupChecksCiteLines(check)) {
      await recordUnusedMetrics(store, ctx.sourceId, lines.unused, (lines.metrics ?? []).map((m) => `${m}`));
      return finishK6(ctx, check);
    }
    ctx.progress?.('k6 JSON has findings to report by line; reading it again with line numbers');
    // A numbered read skips blank lines without counting them: a file with one is staged line by line.
    if (await numberedReadIsExact(ctx)) {
      await readClassified(ctx, NUMBERED_POINTS, params);
      return finishK6(ctx);
    }
  } catch (err) {
    if (!isDataError(err)) throw err;
  }
  // Not clean: find and record the bad lines, then read what is valid.
  ctx.progress?.('k6 JSON has bad lines; reading it line by line');
  await stageNdjson(ctx, 'k6_lines');
  await readClassified(ctx, STAGED_POINTS, []);
  await store.run('DROP TABLE k6_lines');
  return finishK6(ctx);
}

/**
 * The slow path over numbered rows (`points`, with `params` for its file): every skipped line is
 * recorded with its number, the unused Points are counted by metric, and the Points are grouped.
 * Two passes over `points` (the findings are few, the Points many, and materialising the Points cost
 * more than the second parse).
 */
async function readClassified(ctx: ReaderContext, points: string, params: string[]): Promise<void> {
  const { store, sourceId } = ctx;
  const classified = `(SELECT *, ${ROW_KIND_SQL} AS kind FROM (${points}))`;
  await store.run(
    `CREATE OR REPLACE TEMP TABLE k6_findings AS
     SELECT line, kind, metric, CASE kind ${SKIPPED_KINDS.map(([code, message]) => `WHEN '${code}' THEN ${message}`).join(' ')} END AS message
     FROM ${classified} WHERE kind NOT IN ('point', 'metric')`,
    params,
  );
  const byKind = await store.all<{ kind: string; n: number }>('SELECT kind, count(*) AS n FROM k6_findings GROUP BY kind');
  await store.run(`INSERT INTO load_issues SELECT $1, line, 'warning', kind, message FROM k6_findings WHERE kind <> 'unused' ORDER BY line`, [sourceId]);
  for (const [code] of SKIPPED_KINDS) await recordSkips(store, sourceId, code, byKind.find((k) => k.kind === code)?.n ?? 0);
  const unused = await store.all<{ metric: string; n: number }>(
    "SELECT metric, count(*) AS n FROM k6_findings WHERE kind = 'unused' GROUP BY metric ORDER BY n DESC, metric",
  );
  await recordUnusedMetrics(store, sourceId, unused.reduce((a, u) => a + u.n, 0), unused.map((u) => `${u.metric} (${u.n})`));
  await store.run('DROP TABLE k6_findings');
  // The points' own parameters ($1, $2: the file) come first, then the tag path.
  const tagParam = `$${params.length + 1}`;
  // Progress only while the grouping reads the file itself (the numbered read), not the staged lines.
  await runScan(
    store,
    groupsSql(`SELECT * FROM ${classified} WHERE kind = 'point'`, tagParam, false),
    [...params, `$."${checkTraceIdTag(ctx.traceIdTag)}"`],
    params.length > 0 ? scanProgress(ctx) : undefined,
  );
}
