/**
 * Per-request records (docs/metrics.md §3.1), NDJSON or CSV: the generator-neutral client format.
 *
 * Mapping into client_requests (schema.ts):
 * - client_total_ms = final_content_offset_ms − send_offset_ms (when both are present);
 * - client_ttft_ms = first_content_offset_ms − send_offset_ms, unless the record says it is not
 *   streaming (`streaming`/`is_streaming` false). The records carry no TTFB, so client_ttfb_ms is NULL;
 *   is_streaming comes only from an explicit field (NULL when the record does not say);
 * - start_ms only from an absolute time field (start_ms, send_epoch_ms, start_time, send_time,
 *   timestamp: epoch s/ms/µs/ns by magnitude, or an ISO-8601 string), else NULL;
 * - outcome from `outcome` (synonyms in outcome.ts), else from http_status (docs/metrics.md §2); an outcome
 *   word we do not know is classified from the status and reported;
 * - rows with generator_dropped = true are not requests: counted in run_counters
 *   ('dropped_iterations'; 'scheduled' = all rows; 'iterations' = the others).
 * Prompt/response text fields are dropped on load (never stored) and an info row says which.
 * Other unknown fields have no column in client_requests: they are not stored, and an info row
 * names them.
 */
import { stageCsv } from '../input/csvRows';
import { stageNdjson } from '../input/ndjsonLines';
import { recordSkips } from '../skips';
import { outcomeFromStatusSql, outcomeSynonymsSql } from './outcome';
import type { ReaderContext, ReaderResult } from '../types';

/** Fields of docs/metrics.md §3.1 and the extras this reader maps. */
const KNOWN_FIELDS = new Set([
  'run_id', 'request_id', 'trace_id', 'window_id', 'route_id', 'model_class', 'prompt_shape_id', 'scheduled_offset_ms',
  'send_offset_ms', 'first_content_offset_ms', 'final_content_offset_ms', 'scheduler_lag_ms', 'input_token_count',
  'output_token_count', 'http_status', 'outcome', 'retry_count', 'generator_dropped',
  'route', 'session_id', 'error_code', 'method', 'url', 'scenario', 'streaming', 'is_streaming',
  'start_ms', 'send_epoch_ms', 'start_time', 'send_time', 'timestamp', 'region', 'priority',
]);

/** Text that must never be stored (docs/architecture.md): dropped on load. */
const TEXT_FIELDS = new Set([
  'prompt', 'prompts', 'response', 'responses', 'messages', 'message', 'completion', 'completions', 'choices',
  'input', 'output', 'input_text', 'output_text', 'prompt_text', 'response_text', 'content', 'text', 'system_prompt',
  'request_body', 'response_body', 'body', 'headers', 'request_headers', 'response_headers', 'api_key', 'authorization',
]);

const ABSOLUTE_TIME_FIELDS = ['start_ms', 'send_epoch_ms', 'start_time', 'send_time', 'timestamp'];

/** The durations and offsets (ms) of a record. */
const TIMING_FIELDS = ['send_offset_ms', 'first_content_offset_ms', 'final_content_offset_ms', 'scheduled_offset_ms', 'scheduler_lag_ms'];

/** ±1e12 ms (31 years): any larger offset is not a measurement, and would overflow the window index. */
const MAX_OFFSET_MS = 1e12;

export async function readRecords(ctx: ReaderContext): Promise<ReaderResult> {
  const { store, sourceId } = ctx;
  const csv = ctx.sniff.format === 'records-csv';
  let skipped: number;
  let fields: string[];
  if (csv) {
    const stage = await stageCsv(ctx, 'rec_rows');
    skipped = stage.skipped;
    fields = stage.columns;
  } else {
    const stage = await stageNdjson(ctx, 'rec_lines');
    skipped = stage.skipped;
    // Small files (one line per request): listing the keys is one cheap pass.
    const keys = await store.all<{ k: string }>('SELECT DISTINCT unnest(json_keys(doc)) AS k FROM rec_lines ORDER BY 1');
    fields = keys.map((r) => r.k);
  }
  const present = new Set(fields);
  // SQL text of a field (NULL when absent). CSV columns are quoted identifiers checked against the
  // header; NDJSON keys are looked up as JSON paths built from the same fixed list.
  const f = (name: string): string => {
    if (!present.has(name)) return 'NULL';
    return csv ? `nullif("${name}", '')` : `(doc->>'$.${name}')`;
  };
  const num = (name: string): string => `TRY_CAST(${f(name)} AS DOUBLE)`;
  const int = (name: string): string => `TRY_CAST(TRY_CAST(${f(name)} AS DOUBLE) AS INTEGER)`;
  const bool = (name: string): string => `coalesce(lower(trim(${f(name)})) IN ('true', '1', 'yes', 't'), false)`;
  const boolOrNull = (name: string): string => (present.has(name) ? `CASE WHEN ${f(name)} IS NULL THEN NULL ELSE ${bool(name)} END` : 'NULL');
  const timeField = ABSOLUTE_TIME_FIELDS.find((t) => present.has(t));
  const startMs = timeField
    ? `CASE WHEN TRY_CAST(${f(timeField)} AS DOUBLE) IS NOT NULL THEN
         (SELECT CASE WHEN v < 1e11 THEN v * 1000 WHEN v < 1e14 THEN v WHEN v < 1e17 THEN v / 1e3 ELSE v / 1e6 END
          FROM (SELECT TRY_CAST(${f(timeField)} AS DOUBLE) AS v))
       ELSE epoch_ns(TRY_CAST(${f(timeField)} AS TIMESTAMP_NS)) / 1e6 END`
    : 'NULL';
  const streaming = present.has('is_streaming') ? boolOrNull('is_streaming') : boolOrNull('streaming');
  const source = csv ? 'rec_rows' : 'rec_lines';
  // The first timing field whose text is not a plausible number of ms (NULL when all are): such a
  // record is skipped and cited, never loaded with a NULL, infinite or 1e308 duration.
  const bad = TIMING_FIELDS.filter((t) => present.has(t)).map((t) => [t, `${f(t)} IS NOT NULL AND NOT coalesce(isfinite(${num(t)}) AND abs(${num(t)}) <= ${MAX_OFFSET_MS}, false)`]);
  const badField = bad.length === 0 ? 'NULL' : `CASE ${bad.map(([t, cond]) => `WHEN ${cond} THEN '${t}'`).join(' ')} END`;
  const badText = bad.length === 0 ? 'NULL' : `CASE ${bad.map(([t, cond]) => `WHEN ${cond} THEN ${f(t)}`).join(' ')} END`;

  await store.run(
    `CREATE OR REPLACE TEMP TABLE rec_typed AS
     SELECT line, ${bool('generator_dropped')} AS dropped, lower(trim(${f('outcome')})) AS outcome_text,
            ${int('http_status')} AS status, ${int('error_code')} AS error_code,
            ${num('send_offset_ms')} AS send_ms, ${num('first_content_offset_ms')} AS first_ms,
            ${num('final_content_offset_ms')} AS final_ms, ${streaming} AS is_streaming,
            ${startMs} AS start_ms,
            ${f('run_id')} AS run_id, ${f('request_id')} AS request_id,
            nullif(lower(trim(${f('trace_id')})), '') AS trace_id, ${f('window_id')} AS window_id,
            coalesce(${f('route_id')}, ${f('route')}) AS route, ${f('model_class')} AS model_class,
            ${f('prompt_shape_id')} AS prompt_shape_id, ${num('scheduled_offset_ms')} AS scheduled_ms,
            ${num('scheduler_lag_ms')} AS lag_ms, ${int('input_token_count')} AS input_tokens,
            ${int('output_token_count')} AS output_tokens, ${int('retry_count')} AS retry_count,
            ${f('session_id')} AS session_id, ${f('method')} AS method, ${f('url')} AS url, ${f('scenario')} AS scenario,
            ${f('region')} AS region, ${f('priority')} AS priority, ${badField} AS bad_field, ${badText} AS bad_text
     FROM ${source}`,
  );
  const [{ invalid }] = await store.all<{ invalid: number }>('SELECT count(*) AS invalid FROM rec_typed WHERE bad_field IS NOT NULL');
  if (invalid > 0) {
    await store.run(
      `INSERT INTO load_issues
       SELECT $1, line, 'warning', 'invalid-value',
              'expected a number of ms (at most 1e12 in size) in ' || bad_field || ', found ' || coalesce(to_json(left(bad_text, 60))::VARCHAR, 'none') || '; record skipped'
       FROM rec_typed WHERE bad_field IS NOT NULL ORDER BY line`,
      [sourceId],
    );
    await recordSkips(store, sourceId, 'invalid-value', invalid);
    await store.run('DELETE FROM rec_typed WHERE bad_field IS NOT NULL');
  }
  await store.run(`DROP TABLE ${source}`);

  const synonyms = outcomeSynonymsSql();
  await store.run(
    `INSERT INTO client_requests (source_id, line, request_id, trace_id, start_ms, send_offset_ms, scheduled_offset_ms,
       scheduler_lag_ms, client_total_ms, client_ttft_ms, is_streaming, http_status, error_code, outcome, input_tokens,
       output_tokens, retry_count, route, model_class, prompt_shape_id, window_id, scenario, method, url, session_id, run_id,
       region, priority)
     SELECT $1, line, request_id, trace_id, start_ms, send_ms, scheduled_ms, lag_ms,
            final_ms - send_ms, CASE WHEN is_streaming IS NOT FALSE THEN first_ms - send_ms END, is_streaming,
            status, error_code,
            coalesce(${synonyms}[outcome_text], ${outcomeFromStatusSql('status', 'error_code')}),
            input_tokens, output_tokens, retry_count, route, model_class, prompt_shape_id, window_id, scenario,
            method, url, session_id, run_id, region, priority
     FROM rec_typed WHERE NOT dropped ORDER BY line`,
    [sourceId],
  );
  const [counts] = await store.all<{ total: number; dropped: number; unknown: number; first_unknown: number | null; words: string | null }>(
    `SELECT count(*) AS total, count(*) FILTER (WHERE dropped) AS dropped,
            count(*) FILTER (WHERE NOT dropped AND outcome_text IS NOT NULL AND ${synonyms}[outcome_text] IS NULL) AS unknown,
            min(line) FILTER (WHERE NOT dropped AND outcome_text IS NOT NULL AND ${synonyms}[outcome_text] IS NULL) AS first_unknown,
            string_agg(DISTINCT outcome_text, ', ') FILTER (WHERE outcome_text IS NOT NULL AND ${synonyms}[outcome_text] IS NULL) AS words
     FROM rec_typed`,
  );
  await store.run('DROP TABLE rec_typed');
  await store.run(
    `INSERT INTO run_counters VALUES ($1, 'scheduled', $2), ($1, 'dropped_iterations', $3), ($1, 'iterations', $4)`,
    [sourceId, counts.total, counts.dropped, counts.total - counts.dropped],
  );
  if (counts.unknown > 0) {
    await store.run(`INSERT INTO load_issues VALUES ($1, $2, 'warning', 'unknown-outcome', $3)`, [
      sourceId,
      counts.first_unknown,
      `${counts.unknown} record(s) have an outcome Phasewise does not know (${counts.words ?? ''}); classified from http_status`,
    ]);
  }
  const text = fields.filter((k) => TEXT_FIELDS.has(k.toLowerCase()));
  if (text.length > 0) {
    await store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'prompt-text-dropped', $2)`, [
      sourceId,
      `field(s) ${text.join(', ')} hold prompt/response text or secrets and were dropped on load (never stored)`,
    ]);
  }
  const unknown = fields.filter((k) => !KNOWN_FIELDS.has(k) && !TEXT_FIELDS.has(k.toLowerCase()));
  if (unknown.length > 0) {
    await store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'unknown-fields', $2)`, [
      sourceId,
      `field(s) ${unknown.slice(0, 20).join(', ')}${unknown.length > 20 ? ', …' : ''} are not part of the records format and were not stored`,
    ]);
  }
  return { records: counts.total - counts.dropped, skipped: skipped + invalid };
}
