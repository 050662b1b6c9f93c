/**
 * vLLM `vllm bench serve --save-result --save-detailed` results: one JSON document (or one per line
 * with --append-result) whose per-request figures are parallel lists, one entry per request
 * (vllm/benchmarks/serve.py builds them from RequestFuncOutput, lib/endpoint_request_func.py).
 *
 * Units: every per-request time is in SECONDS (time.perf_counter() differences): `ttfts[i]`,
 * `itls[i]` (the list of gaps between content chunks after the first), `latencies[i]` where the
 * version writes it; `start_times[i]` is time.perf_counter() at send, a monotonic clock with no
 * epoch, so it gives offsets from the first request (send_offset_ms), never start_ms. The summary's
 * `*_ms` fields are aggregates and are not read.
 *
 * Mapping: client_total_ms = latencies[i] × 1000, or, where the version writes no latencies,
 * (ttfts[i] + Σ itls[i]) × 1000 — send to the last content chunk, which is the records format's
 * final_content − send (said in an info row); client_ttft_ms = ttfts[i] × 1000 and client_itl_ms =
 * mean(itls[i]) × 1000 for successes (a failed request's ttft is 0.0, not a measurement);
 * output_tokens = output_lens[i], input_tokens = input_lens[i]; outcome from errors[i] ("" is a
 * success; errorText.ts); generated_texts are never stored. `line` is the request's element number
 * (1-based, across the documents of the file); each document of an --append-result file is a run of
 * its own (offsets from its own first request, scenario `run N`). `num_prompts`, where written, is the
 * scheduled count.
 * vLLM records no request ID: the file is client-only.
 */
import { InputError } from '../../errors';
import { compressionOf } from '../input/ndjsonLines';
import { asInputError, maxDocumentBytes } from '../spans/spanDocument';
import { errorTextOutcomeSql, errorTextStatusSql } from './errorText';
import { finishToolRequests, noteDroppedText, TOOL_ROWS } from './toolRequests';
import type { ReaderContext, ReaderResult } from '../types';

/** The per-request lists read, in the order a length mismatch is reported. */
const LISTS = ['ttfts', 'itls', 'errors', 'latencies', 'start_times', 'input_lens', 'output_lens'] as const;

/** The largest perf_counter() reading taken, in seconds (31 years: the records reader's bound on offsets). */
const MAX_CLOCK_S = 1e9;

export const VLLM_EXPECTED = 'vLLM bench serve results saved with --save-detailed (per-request lists ttfts, itls and errors)';

interface DocShape {
  doc_no: number;
  num_prompts: number | null;
  has_texts: boolean;
  [list: string]: number | null | boolean;
}

export async function readVllmBench(ctx: ReaderContext): Promise<ReaderResult> {
  const { store, sourceId } = ctx;
  try {
    await store.run(
      `CREATE OR REPLACE TEMP TABLE vllm_docs AS
       SELECT row_number() OVER () AS doc_no, json AS doc
       FROM read_json_objects($1, format = 'auto', compression = $2, maximum_object_size = $3)`,
      [ctx.path, compressionOf(ctx), await maxDocumentBytes(ctx)],
    );
  } catch (err) {
    throw await asInputError(err, ctx.path, ctx.sniff.gzip, `a complete JSON document: ${VLLM_EXPECTED}`);
  }
  try {
    const lengths = LISTS.map((l) => `CASE WHEN json_type(doc, '$.${l}') = 'ARRAY' THEN json_array_length(doc, '$.${l}') END AS ${l}`);
    const docs = await store.all<DocShape>(
      `SELECT doc_no, ${lengths.join(', ')}, TRY_CAST(doc->>'$.num_prompts' AS BIGINT) AS num_prompts,
              json_type(doc, '$.generated_texts') = 'ARRAY' AS has_texts
       FROM vllm_docs ORDER BY doc_no`,
    );
    // A document without the per-request lists is a summary (--save-result alone): nothing to read
    // per request, which is an error rather than an empty run. Lists of different lengths cannot be
    // paired request by request.
    for (const d of docs) {
      const where = docs.length > 1 ? `document ${d.doc_no}` : 'the document';
      if (d.ttfts === null || d.errors === null) {
        throw new InputError(ctx.path, docs.length > 1 ? d.doc_no : 1, VLLM_EXPECTED, `${where} without ${d.ttfts === null ? 'ttfts' : 'errors'} (saved without --save-detailed?)`);
      }
      const present = LISTS.filter((l) => d[l] !== null);
      const uneven = present.filter((l) => d[l] !== d.ttfts);
      if (uneven.length > 0) {
        throw new InputError(ctx.path, docs.length > 1 ? d.doc_no : 1, 'per-request lists of one length (one entry per request)',
          `${where} with ${present.map((l) => `${l}: ${String(d[l])}`).join(', ')}`);
      }
    }
    const col = (l: string, i = 'i'): string => `json_extract(doc, '$.${l}[' || ${i} || ']')`;
    const num = (l: string): string => `TRY_CAST(${col(l)} AS DOUBLE)`;
    const errorText = `${col('errors')}->>'$'`;
    await store.run(
      `CREATE OR REPLACE TEMP TABLE vllm_rows AS
       WITH r AS (
         SELECT doc_no, i, ${num('ttfts')} AS ttft_s, json_transform(${col('itls')}, '["DOUBLE"]') AS itls_s,
                ${num('latencies')} AS latency_s, ${num('start_times')} AS start_s, ${col('start_times')} AS start_json,
                ${col('input_lens')} AS input_tokens, ${col('output_lens')} AS output_tokens,
                ${errorText} AS error, json_type(${col('ttfts')}) AS ttft_type
         FROM vllm_docs, range(json_array_length(doc, '$.ttfts')::BIGINT) t(i))
       SELECT row_number() OVER (ORDER BY doc_no, i) AS line, doc_no, r.* EXCLUDE (doc_no), ${errorTextStatusSql('error')} AS status
       FROM r`,
    );
    const starts = docs.some((d) => d.start_times !== null);
    const latencies = docs.every((d) => d.latencies !== null);
    // start_times are perf_counter() seconds: any clock counts, but not one further than MAX_CLOCK_S
    // from zero (1e30 made an offset of 1e33 ms, which overflowed the window index).
    const startBad = `start_json IS NOT NULL AND json_type(start_json) <> 'NULL' AND NOT coalesce(abs(start_s) <= ${MAX_CLOCK_S}, false)`;
    await store.run(
      `CREATE OR REPLACE TEMP TABLE ${TOOL_ROWS} AS
       SELECT line,
              CASE WHEN ttft_type NOT IN ('DOUBLE', 'UBIGINT', 'BIGINT') THEN 'expected ttfts[' || (line - 1) || '] as a number of seconds, found ' || coalesce(ttft_type, 'none') || '; request skipped'
                   WHEN ${startBad} THEN 'expected start_times[' || (line - 1) || '] as seconds of time.perf_counter() (at most 1e9 in size), found '
                     || coalesce(start_s::VARCHAR, left(start_json::VARCHAR, 40)) || '; request skipped' END AS problem,
              CASE WHEN ttft_type NOT IN ('DOUBLE', 'UBIGINT', 'BIGINT') OR ${startBad} THEN 'invalid-value' END AS problem_kind,
              NULL::VARCHAR AS request_id, NULL::DOUBLE AS start_ms,
              CASE WHEN NOT (${startBad}) THEN (start_s - min(start_s) FILTER (WHERE abs(start_s) <= ${MAX_CLOCK_S}) OVER (PARTITION BY doc_no)) * 1e3 END AS send_offset_ms,
              -- Without latencies, a failed request has no measured duration (its ttft is 0.0): NULL, not 0 ms.
              CASE WHEN latency_s IS NOT NULL THEN latency_s * 1e3
                   WHEN coalesce(error, '') = '' THEN (ttft_s + coalesce(list_sum(itls_s), 0)) * 1e3 END AS total_ms,
              CASE WHEN coalesce(error, '') = '' THEN ttft_s * 1e3 END AS ttft_ms,
              CASE WHEN coalesce(error, '') = '' THEN list_avg(itls_s) * 1e3 END AS itl_ms,
              coalesce(error, '') = '' AS is_streaming, status AS http_status,
              ${errorTextOutcomeSql('error', 'status')} AS outcome, input_tokens,
              CASE WHEN coalesce(error, '') = '' THEN output_tokens END AS output_tokens,
              ${docs.length > 1 ? `'run ' || doc_no` : 'NULL::VARCHAR'} AS scenario
       FROM vllm_rows ORDER BY line`,
    );
    await store.run('DROP TABLE vllm_rows');
    const scheduled = docs.every((d) => d.num_prompts !== null) ? docs.reduce((s, d) => s + Number(d.num_prompts), 0) : null;
    if (scheduled !== null) await store.run(`INSERT INTO run_counters VALUES ($1, 'scheduled', $2)`, [sourceId, scheduled]);
    if (!latencies) {
      await store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'derived-total', $2)`, [
        sourceId,
        'the results carry no latencies list: client_total_ms is ttfts[i] + Σ itls[i] (send → last content chunk, in seconds × 1000)',
      ]);
    }
    if (!starts) {
      await store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'no-start-times', $2)`, [
        sourceId,
        'the results carry no start_times list: the requests have no send time, so no window series or arrival rate',
      ]);
    }
    await noteDroppedText(ctx, docs.some((d) => d.has_texts) ? ['generated_texts'] : []);
    return await finishToolRequests(ctx, {
      total_ms: latencies ? 'latencies' : 'ttfts + Σ itls', ttft_ms: 'ttfts', itl_ms: 'itls', input_tokens: 'input_lens', output_tokens: 'output_lens',
    });
  } finally {
    await store.run('DROP TABLE IF EXISTS vllm_docs');
  }
}
