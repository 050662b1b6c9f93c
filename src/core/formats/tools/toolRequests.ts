/**
 * The part of the other load generators' readers (AIPerf, vLLM bench serve, guidellm) that is the
 * same for all three: from TEMP TABLE `tool_rows`, one row per request the file holds, check the
 * figures, cite and count what cannot be used, and fill client_requests (schema.ts).
 *
 * `tool_rows` columns (TOOL_ROW_COLUMNS): line (the line, or the element number of a single JSON
 * document), problem / problem_kind (why the request cannot be used, NULL when it can; the kind is a
 * SKIP_KINDS code), request_id, start_ms (epoch ms, NULL when the tool's clock is not an epoch),
 * send_offset_ms (ms since the first request, when start_ms is NULL), total_ms, ttft_ms, itl_ms,
 * is_streaming, http_status, outcome, input_tokens, output_tokens (each the JSON value the file holds,
 * checked here: a count that is not a whole number from 0 to 2^31 − 1 skips the request), scenario.
 *
 * None of these tools records a trace ID: trace_id stays NULL, and a run joins spans only by request
 * ID (analysis/index/requestIdJoin.ts) or is client-only.
 */
import { jsonNumberSql } from '../input/numberText';
import { recordSkips, type SkipCode } from '../skips';
import type { ReaderContext, ReaderResult } from '../types';

export const TOOL_ROWS = 'tool_rows';

/** ±1e12 ms (31 years), as records.ts: a larger duration is not a measurement. */
const MAX_MS = 1e12;

/** The duration columns checked, with the name the message gives them. */
const DURATIONS: ReadonlyArray<[column: string, label: string]> = [
  ['total_ms', 'the request latency'],
  ['ttft_ms', 'the time to first token'],
  ['itl_ms', 'the inter-token latency'],
];

/** The token columns checked, with the name the message gives them. */
const TOKEN_COUNTS: ReadonlyArray<[column: string, label: string]> = [
  ['input_tokens', 'the input token count'],
  ['output_tokens', 'the output token count'],
];

/** The largest token count taken (client_requests.input_tokens and output_tokens are INTEGER). */
const MAX_TOKENS = 2_147_483_647;

/** SQL: a token column (JSON) as an INTEGER, NULL when absent or JSON null. */
function tokenCountSql(col: string): string {
  return `CAST(${jsonNumberSql(col)} AS INTEGER)`;
}

/**
 * Cites and counts the unusable rows of tool_rows, writes the others to client_requests, drops
 * tool_rows. `fieldNames` maps each duration column to the tool's own field, for the messages.
 */
export async function finishToolRequests(ctx: ReaderContext, fieldNames: Readonly<Record<string, string>>): Promise<ReaderResult> {
  const { store, sourceId } = ctx;
  // A duration that is not a finite number of ms in [0, 1e12] is not a measurement: the request is
  // skipped and cited (never loaded with a NULL or 1e308 latency), as the records reader does.
  const checks = DURATIONS.map(([col, label]) => {
    const field = fieldNames[col] ?? col;
    return `WHEN ${col} IS NOT NULL AND NOT (isfinite(${col}) AND ${col} BETWEEN 0 AND ${MAX_MS})
              THEN 'expected ${label} (${field}) as a duration of 0 to 1e12 ms, found ' || ${col}::VARCHAR || ' ms; request skipped'`;
  }).join('\n            ');
  // A token count that is text, a fraction, negative or past INTEGER ("x", -1, 1e20 in vLLM's
  // output_lens) is not a count: the request is skipped and cited, never loaded with a NULL or -1.
  const tokenChecks = TOKEN_COUNTS.map(([col, label]) => {
    const field = fieldNames[col] ?? col;
    const v = jsonNumberSql(col);
    return `WHEN coalesce(json_type(${col}), 'NULL') <> 'NULL' AND NOT coalesce(${v} = floor(${v}) AND ${v} BETWEEN 0 AND ${MAX_TOKENS}, false)
              THEN 'expected ${label} (${field}) as a whole number from 0 to ${MAX_TOKENS}, found ' || left(${col}::VARCHAR, 40) || '; request skipped'`;
  });
  const allChecks = [checks, ...tokenChecks].join('\n            ');
  await store.run(
    `UPDATE ${TOOL_ROWS} SET problem_kind = 'invalid-value', problem = CASE ${allChecks} END
     WHERE problem IS NULL AND (CASE ${allChecks} END) IS NOT NULL`,
  );
  await store.run(
    `UPDATE ${TOOL_ROWS} SET problem_kind = 'incomplete-record',
            problem = 'expected the request latency (${fieldNames.total_ms ?? 'total_ms'}) of a successful request, found none; request skipped'
     WHERE problem IS NULL AND outcome = 'succeeded' AND total_ms IS NULL`,
  );
  await store.run(
    `INSERT INTO load_issues SELECT $1, line, 'warning', problem_kind, problem FROM ${TOOL_ROWS} WHERE problem IS NOT NULL ORDER BY line`,
    [sourceId],
  );
  const kinds = await store.all<{ kind: SkipCode; n: number }>(
    `SELECT problem_kind AS kind, count(*) AS n FROM ${TOOL_ROWS} WHERE problem IS NOT NULL GROUP BY 1 ORDER BY 1`,
  );
  for (const k of kinds) await recordSkips(store, sourceId, k.kind, k.n);
  await store.run(
    `INSERT INTO client_requests (source_id, line, request_id, start_ms, send_offset_ms, client_total_ms, client_ttft_ms,
       client_itl_ms, is_streaming, http_status, outcome, input_tokens, output_tokens, scenario)
     SELECT $1, line, request_id, start_ms, send_offset_ms, total_ms, ttft_ms, itl_ms, is_streaming, http_status, outcome,
            ${tokenCountSql('input_tokens')}, ${tokenCountSql('output_tokens')}, scenario
     FROM ${TOOL_ROWS} WHERE problem IS NULL ORDER BY line`,
    [sourceId],
  );
  const [{ n }] = await store.all<{ n: number }>('SELECT count(*) AS n FROM client_requests WHERE source_id = $1', [sourceId]);
  await store.run(`DROP TABLE ${TOOL_ROWS}`);
  return { records: n, skipped: kinds.reduce((s, k) => s + k.n, 0) };
}

/** Records that text fields were present and never stored (docs/architecture.md: no prompt or response text). */
export async function noteDroppedText(ctx: ReaderContext, fields: readonly string[]): Promise<void> {
  if (fields.length === 0) return;
  await ctx.store.run(`INSERT INTO load_issues VALUES ($1, NULL, 'info', 'prompt-text-dropped', $2)`, [
    ctx.sourceId,
    `field(s) ${fields.join(', ')} hold prompt/response text and were not stored`,
  ]);
}

/** SQL: epoch nanoseconds (an expression) as epoch ms, exact for the ns integers AIPerf writes. */
export function nanosToMsSql(ns: string): string {
  return `(${ns} // 1000000)::DOUBLE + (${ns} % 1000000)::DOUBLE / 1e6`;
}
