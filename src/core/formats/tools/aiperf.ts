/**
 * NVIDIA AIPerf's per-request export `profile_export.jsonl`: one `MetricRecordInfo` per line,
 * `{metadata, metrics, error}` (AIPerf docs/tutorials/working-with-profile-exports.md, models in
 * aiperf/common/models/record_models.py).
 *
 * Mapping into client_requests:
 * - request_id = metadata.x_request_id (AIPerf sends it as the X-Request-ID header: the key of the
 *   request-ID join); start_ms = metadata.request_start_ns (epoch ns) / 1e6;
 * - client_total_ms = metrics.request_latency, client_ttft_ms = metrics.time_to_first_token,
 *   client_itl_ms = metrics.inter_token_latency: each `{value, unit}`, converted from its unit
 *   (AIPerf writes "ms"; ns, us and s are converted too, any other unit is not guessed); without
 *   request_latency (failed requests: "metrics … will always be null for failed requests"), the
 *   total is request_end_ns − request_start_ns, both on AIPerf's one clock;
 * - output_tokens = metrics.output_sequence_length, input_tokens = metrics.input_sequence_length
 *   (error_isl for a failed request); is_streaming = a TTFT was measured (AIPerf computes it only
 *   for streaming endpoints);
 * - outcome: error null → succeeded; metadata.was_cancelled or an error type naming a cancellation
 *   (code 499, RequestCancellationError) → canceled; a type naming a timeout → timed_out; else
 *   error.code as the HTTP status (429/503 rejected, other 4xx/5xx failed; a code outside
 *   100–599, AIPerf's "custom error code", is no HTTP status → transport_failed);
 * - scenario = metadata.benchmark_phase ("profiling").
 * Lines that are JSON but not AIPerf records, and records without metadata.request_start_ns, are
 * skipped and cited by line.
 */
import { InputError } from '../../errors';
import { stageNdjson } from '../input/ndjsonLines';
import { outcomeFromStatusSql } from '../client/outcome';
import { recordSkips } from '../skips';
import { finishToolRequests, nanosToMsSql, TOOL_ROWS } from './toolRequests';
import type { ReaderContext, ReaderResult } from '../types';

/** SQL: metric `name` of a staged line in ms, from its `{value, unit}` (NULL when absent; 'NaN' for a unit we do not know). */
function metricMsSql(name: string): string {
  const v = `TRY_CAST(doc->>'$.metrics.${name}.value' AS DOUBLE)`;
  return `CASE lower(coalesce(doc->>'$.metrics.${name}.unit', 'ms'))
    WHEN 'ms' THEN ${v} WHEN 'ns' THEN ${v} / 1e6 WHEN 'us' THEN ${v} / 1e3 WHEN 'µs' THEN ${v} / 1e3
    WHEN 's' THEN ${v} * 1e3 WHEN 'sec' THEN ${v} * 1e3
    ELSE CASE WHEN ${v} IS NOT NULL THEN 'NaN'::DOUBLE END END`;
}

/** The time metrics read, in the order a unit problem is reported. */
const TIME_METRICS = ['request_latency', 'time_to_first_token', 'inter_token_latency'];
const UNITS = "'ms', 'ns', 'us', 'µs', 's', 'sec'";

/** SQL: 'metrics.<name>.unit …' for the first time metric whose unit is not one metricMsSql converts, else NULL. */
function badUnitSql(): string {
  const cases = TIME_METRICS.map(
    (m) => `WHEN doc->>'$.metrics.${m}.unit' IS NOT NULL AND lower(doc->>'$.metrics.${m}.unit') NOT IN (${UNITS})
              THEN 'metrics.${m}.unit as ms, ns, us or s, found ' || to_json(left(doc->>'$.metrics.${m}.unit', 40))::VARCHAR`,
  );
  return `CASE ${cases.join(' ')} END`;
}

/** SQL: metric `name`'s value as the JSON the line holds (NULL when absent or null; toolRequests.ts checks it). */
function metricJsonSql(name: string): string {
  return `CASE WHEN json_type(doc, '$.metrics.${name}.value') <> 'NULL' THEN doc->'$.metrics.${name}.value' END`;
}

export const AIPERF_EXPECTED = 'an AIPerf profile_export.jsonl record {"metadata": {"x_request_id", "request_start_ns", …}, "metrics": {…}, "error": …}';

export async function readAiperf(ctx: ReaderContext): Promise<ReaderResult> {
  const { store, sourceId } = ctx;
  const stage = await stageNdjson(ctx, 'aiperf_lines');
  const status = `CASE WHEN TRY_CAST(doc->>'$.error.code' AS INTEGER) BETWEEN 100 AND 599 THEN TRY_CAST(doc->>'$.error.code' AS INTEGER) END`;
  const errorType = `lower(coalesce(doc->>'$.error.type', ''))`;
  await store.run(
    `CREATE OR REPLACE TEMP TABLE aiperf_typed AS
     SELECT line, coalesce(json_type(doc, '$.metadata') = 'OBJECT', false) AS is_record,
            TRY_CAST(doc->>'$.metadata.request_start_ns' AS HUGEINT) AS start_ns,
            TRY_CAST(doc->>'$.metadata.request_end_ns' AS HUGEINT) AS end_ns,
            doc->>'$.metadata.request_start_ns' AS start_text,
            nullif(doc->>'$.metadata.x_request_id', '') AS request_id,
            coalesce(json_type(doc, '$.error'), 'NULL') <> 'NULL' AS has_error,
            coalesce(TRY_CAST(doc->>'$.metadata.was_cancelled' AS BOOLEAN), false) AS cancelled,
            ${errorType} AS error_type, ${status} AS status,
            ${metricMsSql('request_latency')} AS latency_ms, ${metricMsSql('time_to_first_token')} AS ttft_ms,
            ${metricMsSql('inter_token_latency')} AS itl_ms,
            ${metricJsonSql('output_sequence_length')} AS output_tokens,
            coalesce(${metricJsonSql('input_sequence_length')}, ${metricJsonSql('error_isl')}) AS input_tokens,
            doc->>'$.metadata.benchmark_phase' AS phase, ${badUnitSql()} AS bad_unit
     FROM aiperf_lines`,
  );
  await store.run('DROP TABLE aiperf_lines');
  const [{ records }] = await store.all<{ records: number }>('SELECT count(*) FILTER (WHERE is_record) AS records FROM aiperf_typed');
  if (records === 0) {
    const [first] = await store.all<{ line: number }>('SELECT min(line) AS line FROM aiperf_typed');
    await store.run('DROP TABLE aiperf_typed');
    throw new InputError(ctx.path, first?.line ?? 1, AIPERF_EXPECTED, 'no line with a metadata object');
  }
  // JSON lines of something else (a summary, another tool's line) are cited and counted, not guessed at.
  await store.run(
    `INSERT INTO load_issues SELECT $1, line, 'warning', 'foreign-line', 'expected ${AIPERF_EXPECTED}, found a JSON object without a metadata object; line skipped'
     FROM aiperf_typed WHERE NOT is_record ORDER BY line`,
    [sourceId],
  );
  const [{ foreign }] = await store.all<{ foreign: number }>('SELECT count(*) FILTER (WHERE NOT is_record) AS foreign FROM aiperf_typed');
  await recordSkips(store, sourceId, 'foreign-line', foreign);
  const outcome = `CASE WHEN NOT has_error AND NOT cancelled THEN 'succeeded'
         WHEN cancelled OR status = 499 OR error_type LIKE '%cancel%' THEN 'canceled'
         WHEN error_type LIKE '%timeout%' THEN 'timed_out'
         ELSE ${outcomeFromStatusSql('status', 'NULL')} END`;
  await store.run(
    `CREATE OR REPLACE TEMP TABLE ${TOOL_ROWS} AS
     SELECT line,
            CASE WHEN start_ns IS NULL
                 THEN 'expected metadata.request_start_ns (epoch nanoseconds), found ' || coalesce(to_json(left(start_text, 40))::VARCHAR, 'none') || '; request skipped'
                 WHEN bad_unit IS NOT NULL THEN 'expected ' || bad_unit || ' (a unit Phasewise does not guess); request skipped' END AS problem,
            CASE WHEN start_ns IS NULL THEN 'incomplete-record' WHEN bad_unit IS NOT NULL THEN 'invalid-value' END AS problem_kind,
            request_id, ${nanosToMsSql('start_ns')} AS start_ms, NULL::DOUBLE AS send_offset_ms,
            coalesce(latency_ms, CASE WHEN end_ns >= start_ns THEN (end_ns - start_ns)::DOUBLE / 1e6 END) AS total_ms,
            ttft_ms, itl_ms, ttft_ms IS NOT NULL AS is_streaming, status AS http_status, ${outcome} AS outcome,
            input_tokens, output_tokens, phase AS scenario
     FROM aiperf_typed WHERE is_record ORDER BY line`,
  );
  await store.run('DROP TABLE aiperf_typed');
  const result = await finishToolRequests(ctx, {
    total_ms: 'metrics.request_latency', ttft_ms: 'metrics.time_to_first_token', itl_ms: 'metrics.inter_token_latency',
    input_tokens: 'metrics.input_sequence_length', output_tokens: 'metrics.output_sequence_length',
  });
  return { records: result.records, skipped: stage.skipped + foreign + result.skipped };
}
