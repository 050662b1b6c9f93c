/**
 * Outcome of a request that another load generator recorded as an error string (vLLM `bench serve`'s
 * `errors`, guidellm's `error`): the tools keep no HTTP status of their own, so the ledger class of
 * docs/metrics.md §2 is read from the text.
 *
 * - vLLM writes aiohttp's `response.reason` for a non-200 answer ("Too Many Requests",
 *   "Service Unavailable", …) and a Python traceback for an exception
 *   (vllm/benchmarks/lib/endpoint_request_func.py); guidellm writes httpx's message, which quotes
 *   the status ("Client error '429 Too Many Requests' for url …");
 * - the status comes from a known reason phrase, else from a quoted "NNN Reason", then goes through
 *   outcomeFromStatusSql (429/503 rejected, other 4xx/5xx failed);
 * - without a status: a timeout → timed_out, a cancellation → canceled, a connection failure
 *   (refused, reset, DNS, disconnected) → transport_failed, anything else → failed (the request got
 *   an answer Phasewise cannot classify, e.g. vLLM's "Never received a valid chunk").
 */
import { outcomeFromStatusSql } from '../client/outcome';

/** Reason phrases (RFC 9110) the tools write for the statuses the ledger tells apart. */
const REASON_STATUS: ReadonlyArray<[phrase: string, status: number]> = [
  ['too many requests', 429],
  ['service unavailable', 503],
  ['internal server error', 500],
  ['bad gateway', 502],
  ['gateway timeout', 504],
  ['bad request', 400],
  ['unauthorized', 401],
  ['forbidden', 403],
  ['not found', 404],
  ['request timeout', 408],
  ['payload too large', 413],
  ['unprocessable entity', 422],
];

/** SQL: the HTTP status an error text names (INTEGER, NULL when it names none). `text` is an SQL expression. */
export function errorTextStatusSql(text: string): string {
  const phrases = REASON_STATUS.map(([p, s]) => `WHEN lower(trim(${text})) = '${p}' THEN ${s}`).join(' ');
  return `CASE ${phrases}
    ELSE TRY_CAST(nullif(regexp_extract(${text}, '''([1-5][0-9][0-9]) [A-Za-z]', 1), '') AS INTEGER) END`;
}

/**
 * SQL: the ledger outcome of an error text (NULL or '' is a success). `status` is the SQL of the
 * status the text names (errorTextStatusSql), passed in so a reader computes it once.
 */
export function errorTextOutcomeSql(text: string, status: string): string {
  const lower = `lower(${text})`;
  return `CASE
    WHEN coalesce(${text}, '') = '' THEN 'succeeded'
    WHEN ${status} IS NOT NULL THEN ${outcomeFromStatusSql(status, 'NULL')}
    WHEN regexp_matches(${lower}, 'timeout|timed out|deadline exceeded') THEN 'timed_out'
    WHEN regexp_matches(${lower}, 'cancelled|canceled|cancellederror') THEN 'canceled'
    WHEN regexp_matches(${lower}, 'connect|connection (refused|reset|aborted)|disconnected|name or service not known|nodename nor servname|getaddrinfo|ssl|broken pipe') THEN 'transport_failed'
    ELSE 'failed' END`;
}
