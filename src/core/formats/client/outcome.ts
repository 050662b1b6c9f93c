/**
 * The outcome ledger classification of docs/metrics.md §2 as SQL, shared by the k6 and records readers so
 * that one status maps to one outcome whatever the source.
 *
 * - k6 error_code 1050 (request timeout) → timed_out, whatever the status;
 * - 2xx → succeeded; 1xx/3xx also succeeded: k6's default `expected_response` is 200–399 and a 3xx
 *   is a response the client accepted (k6 follows redirects, each hop is its own request);
 * - 429 and 503 → rejected (load shedding, admission control);
 * - no HTTP status (NULL or 0: connection refused/reset, DNS, TLS, k6 1xxx network codes) → transport_failed;
 * - any other 4xx/5xx → failed.
 */
import type { Outcome } from '../../outcomes';
export { OUTCOMES, type Outcome } from '../../outcomes';

/** SQL CASE for the outcome of a request; the arguments are SQL expressions (never user text). */
export function outcomeFromStatusSql(status: string, errorCode: string): string {
  return `CASE
    WHEN coalesce(${errorCode}, 0) = 1050 THEN 'timed_out'
    WHEN ${status} BETWEEN 100 AND 399 THEN 'succeeded'
    WHEN ${status} IN (429, 503) THEN 'rejected'
    WHEN coalesce(${status}, 0) = 0 THEN 'transport_failed'
    ELSE 'failed' END`;
}

/**
 * The same classification for a request that got an HTTP status (the probe): outcomeFromStatusSql
 * in JavaScript. A request without a status is transport_failed, timed_out or canceled, which only the
 * caller can tell.
 */
export function outcomeForHttpStatus(status: number): Outcome {
  if (status >= 100 && status <= 399) return 'succeeded';
  if (status === 429 || status === 503) return 'rejected';
  return status === 0 ? 'transport_failed' : 'failed';
}

/**
 * Synonyms seen in generators' per-request records, mapped onto the ledger's outcomes. Keys are
 * lower-cased, trimmed; anything else is classified from the HTTP status and reported.
 */
export const OUTCOME_SYNONYMS: Readonly<Record<string, Outcome>> = {
  succeeded: 'succeeded', success: 'succeeded', successful: 'succeeded', ok: 'succeeded', completed: 'succeeded', complete: 'succeeded', done: 'succeeded', pass: 'succeeded', passed: 'succeeded',
  rejected: 'rejected', reject: 'rejected', throttled: 'rejected', rate_limited: 'rejected', ratelimited: 'rejected', shed: 'rejected', overloaded: 'rejected',
  timed_out: 'timed_out', timeout: 'timed_out', timedout: 'timed_out', 'timed-out': 'timed_out', deadline_exceeded: 'timed_out',
  transport_failed: 'transport_failed', transport_error: 'transport_failed', network_error: 'transport_failed', connection_error: 'transport_failed', connect_error: 'transport_failed', transport: 'transport_failed',
  canceled: 'canceled', cancelled: 'canceled', cancel: 'canceled', aborted: 'canceled', abort: 'canceled',
  failed: 'failed', failure: 'failed', fail: 'failed', error: 'failed', errored: 'failed', http_error: 'failed',
};

/** The synonyms as a DuckDB MAP literal body: the keys and values are constants defined above. */
export function outcomeSynonymsSql(): string {
  const entries = Object.entries(OUTCOME_SYNONYMS).map(([k, v]) => `'${k}': '${v}'`);
  return `MAP {${entries.join(', ')}}`;
}
