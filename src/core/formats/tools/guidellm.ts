/**
 * guidellm's benchmark report (`guidellm benchmark --output-path report.json`): one JSON document
 * `{"benchmarks": [GenerativeBenchmark, …]}` whose `requests` hold the per-request statistics in
 * three lists, `successful`, `errored` and `incomplete` (guidellm src/guidellm/benchmark/benchmark.py
 * for the 0.2/0.3 layout, benchmark/schemas/generative/ for the later one; both serialise the
 * computed fields read here).
 *
 * Units, as guidellm defines them: `request_latency` in SECONDS (end − start), `time_to_first_token_ms`
 * and `inter_token_latency_ms` in ms, the times (`start_time`, `request_start_time`,
 * `info.timings.request_start`) in epoch seconds (time.time()).
 *
 * Mapping: request_id; client_total_ms = request_latency × 1000 (else (end − start) × 1000);
 * client_ttft_ms = time_to_first_token_ms; client_itl_ms = inter_token_latency_ms (guidellm's is
 * per output token: (last − first token time) / (output tokens − 1), NULL under 2 tokens, where
 * guidellm writes 0); start_ms = the start time × 1000; outcome: successful → succeeded, errored →
 * from its `error` text (errorText.ts), incomplete (still running when the benchmark ended) →
 * canceled; scenario = the benchmark's strategy and its index ("constant #2") so the benchmarks of a
 * sweep stay apart. `line` is the request's element number, counting benchmarks in order and in each
 * its successful, errored, then incomplete list. prompt/output text is never stored. A report saved
 * with --output-sampling lists only a sample: said so, with the totals.
 */
import { InputError } from '../../errors';
import { compressionOf } from '../input/ndjsonLines';
import { jsonNumberSql } from '../input/numberText';
import { asInputError, maxDocumentBytes } from '../spans/spanDocument';
import { errorTextOutcomeSql, errorTextStatusSql } from './errorText';
import { finishToolRequests, noteDroppedText, TOOL_ROWS } from './toolRequests';
import type { ReaderContext, ReaderResult } from '../types';

export const GUIDELLM_EXPECTED = 'a guidellm benchmark report {"benchmarks": [{"requests": {"successful": […], "errored": […], "incomplete": […]}}]}';

/** The status lists in the order their requests are numbered. */
const STATUSES = ['successful', 'errored', 'incomplete'] as const;

export async function readGuidellm(ctx: ReaderContext): Promise<ReaderResult> {
  const { store, sourceId } = ctx;
  try {
    await store.run(
      `CREATE OR REPLACE TEMP TABLE guidellm_benchmarks AS
       WITH docs AS (SELECT row_number() OVER () AS doc_no, json AS doc
                     FROM read_json_objects($1, format = 'auto', compression = $2, maximum_object_size = $3)),
       b AS (SELECT doc_no, unnest(json_extract(doc, '$.benchmarks[*]')) AS bm, generate_subscripts(json_extract(doc, '$.benchmarks[*]'), 1) AS b_idx
             FROM docs WHERE json_type(doc, '$.benchmarks') = 'ARRAY')
       SELECT row_number() OVER (ORDER BY doc_no, b_idx) AS b_no, bm FROM b`,
      [ctx.path, compressionOf(ctx), await maxDocumentBytes(ctx)],
    );
  } catch (err) {
    throw await asInputError(err, ctx.path, ctx.sniff.gzip, `a complete JSON document: ${GUIDELLM_EXPECTED}`);
  }
  try {
    const [{ n }] = await store.all<{ n: number }>(`SELECT count(*) AS n FROM guidellm_benchmarks WHERE json_type(bm, '$.requests') = 'OBJECT'`);
    if (n === 0) throw new InputError(ctx.path, 1, GUIDELLM_EXPECTED, 'no benchmark with a requests object');
    const lists = STATUSES.map(
      (s, k) => `SELECT b_no, ${k} AS status_no, '${s}' AS status, bm, unnest(json_extract(bm, '$.requests.${s}[*]')) AS r,
                        generate_subscripts(json_extract(bm, '$.requests.${s}[*]'), 1) AS r_idx
                 FROM guidellm_benchmarks WHERE json_type(bm, '$.requests.${s}') = 'ARRAY'`,
    );
    // The token counts as the JSON the request holds (NULL when absent or null): toolRequests.ts checks them.
    const jsonValue = (key: string): string => `CASE WHEN json_type(r, '$.${key}') <> 'NULL' THEN r->'$.${key}' END`;
    const strategy = `coalesce(bm->>'$.args.strategy.type_', bm->>'$.config.strategy.type_', 'benchmark')`;
    await store.run(
      `CREATE OR REPLACE TEMP TABLE guidellm_rows AS
       WITH r AS (${lists.join('\nUNION ALL\n')})
       SELECT row_number() OVER (ORDER BY b_no, status_no, r_idx) AS line, status, json_type(r) = 'OBJECT' AS is_request,
              nullif(r->>'$.request_id', '') AS request_id,
              TRY_CAST(r->>'$.request_latency' AS DOUBLE) AS latency_s,
              TRY_CAST(coalesce(r->>'$.request_start_time', r->>'$.start_time', r->>'$.info.timings.request_start') AS DOUBLE) AS start_s,
              TRY_CAST(coalesce(r->>'$.request_end_time', r->>'$.end_time', r->>'$.info.timings.request_end') AS DOUBLE) AS end_s,
              TRY_CAST(r->>'$.time_to_first_token_ms' AS DOUBLE) AS ttft_ms,
              TRY_CAST(r->>'$.inter_token_latency_ms' AS DOUBLE) AS itl_ms,
              ${jsonValue('output_tokens')} AS output_tokens,
              coalesce(${jsonValue('prompt_tokens')}, ${jsonValue('input_tokens')}) AS input_tokens,
              r->>'$.error' AS error, ${strategy} || ' #' || b_no AS scenario,
              json_type(r, '$.prompt') IS NOT NULL OR json_type(r, '$.output') IS NOT NULL AS has_text
       FROM r`,
    );
    const statusSql = errorTextStatusSql('error');
    await store.run(
      `CREATE OR REPLACE TEMP TABLE ${TOOL_ROWS} AS
       SELECT line,
              CASE WHEN NOT is_request THEN 'expected a guidellm request statistics object in requests.' || status || ', found ' || 'a JSON value that is not an object; request skipped' END AS problem,
              CASE WHEN NOT is_request THEN 'malformed-element' END AS problem_kind,
              request_id, start_s * 1e3 AS start_ms, NULL::DOUBLE AS send_offset_ms,
              coalesce(latency_s, end_s - start_s) * 1e3 AS total_ms,
              ttft_ms, CASE WHEN coalesce(${jsonNumberSql('output_tokens')}, 0) >= 2 THEN itl_ms END AS itl_ms, ttft_ms IS NOT NULL AS is_streaming,
              CASE WHEN status = 'errored' THEN ${statusSql} END AS http_status,
              CASE status WHEN 'successful' THEN 'succeeded' WHEN 'incomplete' THEN 'canceled'
                          ELSE ${errorTextOutcomeSql("coalesce(nullif(error, ''), 'error')", statusSql)} END AS outcome,
              input_tokens, output_tokens, scenario
       FROM guidellm_rows ORDER BY line`,
    );
    const [texts] = await store.all<{ t: boolean }>('SELECT coalesce(bool_or(has_text), false) AS t FROM guidellm_rows');
    await store.run('DROP TABLE guidellm_rows');
    // --output-sampling keeps a random sample of each list; request_totals still counts them all.
    const [sample] = await store.all<{ listed: number; total: number | null }>(
      `SELECT sum(coalesce(json_array_length(bm, '$.requests.successful'), 0) + coalesce(json_array_length(bm, '$.requests.errored'), 0)
                 + coalesce(json_array_length(bm, '$.requests.incomplete'), 0))::BIGINT AS listed,
              sum(TRY_CAST(bm->>'$.request_totals.total' AS BIGINT))::BIGINT AS total
       FROM guidellm_benchmarks`,
    );
    if (sample.total !== null && sample.total > sample.listed) {
      await store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'warning', 'sampled-requests', $2)`, [
        sourceId,
        `the report lists ${sample.listed} of the ${sample.total} requests its benchmarks made (saved with --output-sampling): every figure describes that sample`,
      ]);
    }
    await noteDroppedText(ctx, texts.t ? ['prompt', 'output'] : []);
    return await finishToolRequests(ctx, {
      total_ms: 'request_latency', ttft_ms: 'time_to_first_token_ms', itl_ms: 'inter_token_latency_ms', input_tokens: 'prompt_tokens', output_tokens: 'output_tokens',
    });
  } finally {
    await store.run('DROP TABLE IF EXISTS guidellm_benchmarks');
  }
}
