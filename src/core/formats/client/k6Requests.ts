/**
 * The part of the k6 readers shared by the JSON and CSV layouts: from the grouped Points, fill
 * client_requests and run_counters (schema.ts).
 *
 * Each layout builds, in ONE streaming pass over the file, TEMP TABLE `k6_groups`: one row per group
 * of Points with the same time, tags and metadata, i.e. one row per HTTP request (its http_req_*
 * Points and its http_reqs Point) and one per other sample (iterations, vus, streaming Trends).
 * Columns: line (first line of the group), end_ms, trace_id, status, error_code, route, model_class
 * (the `model_class` tag, else `model`), scenario, method, url, session_id, region, priority,
 * prompt_shape (NULL for groups that only add to counters), then the aggregates
 * of groupAggregatesSql(). Grouping before extracting the tags means the tags are parsed once per
 * request, not once per Point (13×).
 *
 * k6 stamps HTTP Points when the response ends, so start_ms = end_ms − http_req_duration.
 */
import * as path from 'path';
import type { QueryRunner } from '../../store/duckStore';
import type { ReaderContext, ReaderResult } from '../types';
import { outcomeFromStatusSql } from './outcome';
import { EARLIEST_START_MS, LATEST_START_MS } from '../requestTimes';
import { recordSkips, skippedTotal } from '../skips';

/** Custom Trends a streaming k6 script records per request (matched to it by trace ID). */
export const STREAMING_METRICS = { ttft: 'llm_ttft_ms', itl: 'llm_itl_ms', outputTokens: 'llm_output_tokens' } as const;

/** Metrics the readers keep besides http_req*: counters, the vus gauge, streaming Trends. */
export const OTHER_METRICS = ['iterations', 'dropped_iterations', 'vus', ...Object.values(STREAMING_METRICS)];

/** SQL predicate: the metric is one the readers use (constants only, no user text). */
export function keptMetricSql(metric: string): string {
  return `(starts_with(${metric}, 'http_req') OR ${metric} IN (${OTHER_METRICS.map((m) => `'${m}'`).join(', ')}))`;
}

/**
 * One info row: the Points (JSON lines, CSV rows) of metrics the readers do not use, which were not
 * loaded, with the metrics' names (and counts, when the reader has them).
 */
export async function recordUnusedMetrics(store: QueryRunner, sourceId: number, count: number, metrics: readonly string[]): Promise<void> {
  if (count === 0) return;
  const names = metrics.length > 0 ? `: ${metrics.slice(0, 12).join(', ')}${metrics.length > 12 ? ', …' : ''}` : '';
  await store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'unused-metrics', $2)`, [
    sourceId,
    `${count} Point(s) of k6 metrics Phasewise does not read were not loaded${names}`,
  ]);
}

/** The k6 HTTP timing metrics, by k6_groups column. */
const HTTP_TIMINGS: ReadonlyArray<[column: string, metric: string]> = [
  ['duration', 'http_req_duration'],
  ['blocked', 'http_req_blocked'],
  ['connecting', 'http_req_connecting'],
  ['tls', 'http_req_tls_handshaking'],
  ['sending', 'http_req_sending'],
  ['waiting', 'http_req_waiting'],
  ['receiving', 'http_req_receiving'],
];

/**
 * Per-group aggregates (one Point per metric per request, so max() just picks it). `n_duration`
 * counts the group's http_req_duration Points: more than one means Points of several requests that
 * cannot be told apart (same time, tags and metadata), which finishK6 reports.
 */
export function groupAggregatesSql(metric: string, value: string): string {
  const s = STREAMING_METRICS;
  return [
    `count(*) FILTER (WHERE ${metric} = 'http_reqs') AS n_reqs`,
    `count(*) FILTER (WHERE ${metric} = 'http_req_duration') AS n_duration`,
    `count(*) FILTER (WHERE starts_with(${metric}, 'http_req')) AS n_http`,
    ...HTTP_TIMINGS.map(([col, m]) => `max(${value}) FILTER (WHERE ${metric} = '${m}') AS ${col}`),
    `sum(${value}) FILTER (WHERE ${metric} = 'iterations') AS iterations`,
    `sum(${value}) FILTER (WHERE ${metric} = 'dropped_iterations') AS dropped`,
    `max(${value}) FILTER (WHERE ${metric} = 'vus') AS vus`,
    `avg(${value}) FILTER (WHERE ${metric} = '${s.ttft}') AS ttft`,
    `avg(${value}) FILTER (WHERE ${metric} = '${s.itl}') AS itl`,
    `sum(${value}) FILTER (WHERE ${metric} = '${s.outputTokens}') AS output_tokens`,
  ].join(',\n  ');
}

/** SQL predicate over k6_groups: the group carries streaming Trend values (read by trace ID in finishK6). */
export const STREAMING_GROUP_SQL = '(ttft IS NOT NULL OR itl IS NOT NULL OR output_tokens IS NOT NULL)';

/** A k6 trace-ID tag name goes into a JSON path / key lookup; keep it to tag-like characters. */
export function checkTraceIdTag(tag: string): string {
  if (!/^[A-Za-z0-9_.:-]+$/.test(tag)) throw new Error(`invalid trace ID tag name '${tag}'`);
  return tag;
}

/** What finishK6 reports about k6_groups (each finding cites its first line). */
export type GroupChecks = {
  /** Groups holding more than one request's Points, and the requests they hold beyond the first. */
  merged: number;
  merged_requests: number;
  first_merged: number | null;
  /** Groups of HTTP Points without an http_req_duration Point: not loaded. */
  incomplete: number;
  first_incomplete: number | null;
  /** Requests sent outside the years a run can be in: cited by line after the load (requestTimes.ts). */
  implausible_start: number;
};

/** SQL predicate over k6_groups: the group holds the Points of more than one request. */
const MERGED_SQL = '(n_reqs > 1 OR n_duration > 1)';

/** The checks of k6_groups, without writing anything. */
export async function checkGroups(ctx: ReaderContext): Promise<GroupChecks> {
  const [check] = await ctx.store.all<GroupChecks>(
    `SELECT count(*) FILTER (WHERE ${MERGED_SQL}) AS merged,
            coalesce(sum(greatest(n_reqs, n_duration) - 1) FILTER (WHERE ${MERGED_SQL}), 0)::BIGINT AS merged_requests,
            min(line) FILTER (WHERE ${MERGED_SQL}) AS first_merged,
            count(*) FILTER (WHERE n_http > 0 AND duration IS NULL) AS incomplete,
            min(line) FILTER (WHERE n_http > 0 AND duration IS NULL) AS first_incomplete,
            count(*) FILTER (WHERE n_http > 0 AND NOT coalesce(end_ms - duration >= ${EARLIEST_START_MS} AND end_ms - duration < ${LATEST_START_MS}, true))
              AS implausible_start
     FROM k6_groups`,
  );
  return check;
}

/** True when finishK6, or the load's check of send times after it (requestTimes.ts), would write a load_issues row, which must name its line. */
export function groupChecksCiteLines(check: GroupChecks): boolean {
  return check.merged + check.incomplete + check.implausible_start > 0;
}

/** Fills client_requests and run_counters from k6_groups, records issues, drops the temp table. */
export async function finishK6(ctx: ReaderContext, checked?: GroupChecks): Promise<ReaderResult> {
  const { store, sourceId } = ctx;
  ctx.progress?.(`writing the requests of ${path.basename(ctx.path)}`);
  const check = checked ?? (await checkGroups(ctx));
  if (check.merged > 0) {
    // Two requests with identical end time, tags and metadata cannot be told apart: they are kept
    // as one row and reported, never silently merged.
    await store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', 'merged-requests', $3)`, [
      sourceId,
      check.first_merged,
      `${check.merged} group(s) of HTTP Points hold the Points of more than one request (repeated http_reqs or http_req_duration Points with the same time, tags and metadata); each group was loaded as one request, so ${check.merged_requests} request(s) are missing (first at line ${check.first_merged})`,
    ]);
    await recordSkips(store, sourceId, 'merged-requests', check.merged_requests);
  }
  if (check.incomplete > 0) {
    await store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', 'incomplete-request', $3)`, [
      sourceId,
      check.first_incomplete,
      `${check.incomplete} group(s) of HTTP Points have no http_req_duration Point (truncated output, or a skipped line?); not loaded as requests (first at line ${check.first_incomplete})`,
    ]);
    await recordSkips(store, sourceId, 'incomplete-request', check.incomplete);
  }
  await store.run(
    `INSERT INTO client_requests (source_id, line, trace_id, start_ms, client_total_ms, blocked_ms, connecting_ms,
       tls_handshaking_ms, sending_ms, waiting_ms, receiving_ms, client_ttft_ms, client_ttfb_ms, client_itl_ms,
       is_streaming, http_status, error_code, outcome, output_tokens, route, model_class, scenario, method, url, session_id,
       region, priority, prompt_shape_id)
     WITH streaming AS (
       SELECT trace_id, avg(ttft) AS ttft, avg(itl) AS itl, sum(output_tokens) AS output_tokens
       FROM k6_groups
       WHERE n_http = 0 AND trace_id IS NOT NULL AND ${STREAMING_GROUP_SQL}
       GROUP BY trace_id)
     SELECT $1, r.line, r.trace_id, r.end_ms - r.duration, r.duration, r.blocked, r.connecting, r.tls, r.sending,
            r.waiting, r.receiving, coalesce(r.ttft, s.ttft), r.waiting, coalesce(r.itl, s.itl),
            coalesce(r.ttft, s.ttft) IS NOT NULL, r.status, r.error_code,
            ${outcomeFromStatusSql('r.status', 'r.error_code')}, CAST(round(coalesce(r.output_tokens, s.output_tokens)) AS INTEGER),
            r.route, r.model_class, r.scenario, r.method, r.url, r.session_id, r.region, r.priority, r.prompt_shape
     FROM k6_groups r
       LEFT JOIN streaming s ON s.trace_id = r.trace_id
     WHERE r.n_http > 0 AND r.duration IS NOT NULL
     ORDER BY r.line, r.end_ms - r.duration, r.trace_id`,
    [sourceId],
  );
  // vus is a gauge: its peak is the figure to keep; iterations and dropped_iterations are counters.
  await store.run(
    `INSERT INTO run_counters
     SELECT $1, 'iterations', coalesce(sum(iterations), 0) FROM k6_groups
     UNION ALL SELECT $1, 'dropped_iterations', coalesce(sum(dropped), 0) FROM k6_groups
     UNION ALL SELECT $1, 'http_reqs', coalesce(sum(n_reqs), 0) FROM k6_groups
     UNION ALL SELECT $1, 'vus_peak', max(vus) FROM k6_groups HAVING count(vus) > 0`,
    [sourceId],
  );
  const [{ n }] = await store.all<{ n: number }>('SELECT count(*) AS n FROM client_requests WHERE source_id = $1', [sourceId]);
  await store.run('DROP TABLE IF EXISTS k6_groups');
  return { records: n, skipped: await skippedTotal(store, sourceId) };
}
