/**
 * What a user of the API sees, beside the API figures:
 * - first-content time: the planned start → the first content (scheduler lag + TTFT on a streaming
 *   request, + the whole response otherwise), per successful request whose record has a scheduler lag
 *   (per-request records: k6 has no planned start per request);
 * - a censored total: successes and timeouts together, each capped at the timeout, so a route cannot
 *   look faster by timing out (a timed-out call counts at the timeout instead of leaving the population).
 * Rejections, failures and transport errors are counted apart (they never reach a latency figure).
 */
import type { CensoredSummary, QuantileSummary, UserObserved } from '../../report/model';
import type { Params, QueryRunner } from '../../store/duckStore';
import { finiteOrNull, readSummary, summarySelect } from '../figures/quantileSql';
import { query } from '../sql/statement';

export const USER_OBSERVED_DEFINITIONS: Readonly<Record<string, string>> = {
  first_content_ms:
    'Planned start → first content: scheduler_lag_ms + client_ttft_ms on a streaming request (+ client_total_ms on a non-streaming one), per successful request with a planned start (per-request records).',
  censored_total_ms:
    'client_total_ms over successes and timed-out calls together, each capped at the timeout: a timed-out call counts at the timeout instead of leaving the population. Rejected, failed, transport-failed and canceled calls are counted apart.',
  api_total_ms: 'The API figure beside them: client_total_ms over successful requests only (client_only).',
};

/** SQL of the first-content time of a request_breakdown row. */
export const FIRST_CONTENT_SQL = `CASE WHEN succeeded AND isfinite(scheduler_lag_ms)
  THEN scheduler_lag_ms + coalesce(client_ttft_ms, CASE WHEN NOT coalesce(is_streaming, false) THEN client_total_ms END) END`;

/**
 * SQL of the censored total (`t`: the placeholder of the timeout in ms, NULL when none is declared): a
 * success at its total (capped), a timeout at the timeout (else at its own duration).
 */
export function censoredTotalSql(t: string): string {
  return `CASE WHEN succeeded THEN CASE WHEN ${t}::DOUBLE IS NULL THEN client_total_ms ELSE least(client_total_ms, ${t}::DOUBLE) END
  WHEN outcome = 'timed_out' THEN coalesce(${t}::DOUBLE, client_total_ms) END`;
}

/** The select list of the user-observed figures (one pass; the group figures add their GROUP BY); `t` as above. */
export function userObservedSelect(t: string): string {
  return [
    summarySelect('first_content', 'first_content', undefined, true),
    summarySelect('censored', 'censored', undefined, true),
    summarySelect('api_total', 'api_total', undefined, true),
    `count(*) FILTER (WHERE succeeded AND censored IS NOT NULL AND censored = ${t}::DOUBLE) AS capped_successes`,
    `count(*) FILTER (WHERE outcome = 'timed_out' AND censored IS NOT NULL) AS timeouts_counted`,
    `count(*) FILTER (WHERE outcome = 'timed_out' AND censored IS NULL) AS timeouts_uncounted`,
    `count(*) FILTER (WHERE NOT succeeded AND outcome <> 'timed_out') AS excluded`,
  ].join(', ');
}

/** The per-row values userObservedSelect aggregates, over a FROM item of request_breakdown rows; `extra` selects more columns first. */
export function userObservedRows(from: string, t: string, extra = ''): string {
  const finite = (e: string): string => `CASE WHEN isfinite(CAST(${e} AS DOUBLE)) THEN CAST(${e} AS DOUBLE) END`;
  return `SELECT ${extra}succeeded, outcome, ${finite(FIRST_CONTENT_SQL)} AS first_content, ${finite(censoredTotalSql(t))} AS censored,
                 ${finite('CASE WHEN succeeded THEN client_total_ms END')} AS api_total
          FROM ${from}`;
}

/** Reads one row of userObservedSelect. */
export function readUserObserved(row: Record<string, unknown> | undefined, timeoutMs: number | null): UserObserved {
  const r = row ?? {};
  const count = (v: unknown): number => finiteOrNull(v) ?? 0;
  const censored = readSummary(r, 'censored');
  const uncounted = count(r.timeouts_uncounted);
  const capped = timeoutMs === null ? 0 : count(r.capped_successes);
  const summary: CensoredSummary = {
    ...censored,
    succeeded: censored.n - count(r.timeouts_counted) - capped,
    censored: count(r.timeouts_counted) + capped,
    excluded: count(r.excluded) + uncounted,
  };
  const definitions: Record<string, string> = { ...USER_OBSERVED_DEFINITIONS };
  if (timeoutMs === null) definitions.timeout = 'No timeout was declared (a contract\'s request.timeout): a timed-out call counts at its own duration, and one without a duration is left out (counted as excluded).';
  else definitions.timeout = `The declared client timeout, ${timeoutMs} ms (the contract's request.timeout).`;
  return {
    first_content_ms: readSummary(r, 'first_content') as QuantileSummary,
    censored_total_ms: summary,
    timeout_ms: timeoutMs,
    api_total_ms: readSummary(r, 'api_total'),
    definitions,
  };
}

export async function computeUserObserved(store: QueryRunner, timeoutMs: number | null): Promise<UserObserved> {
  const params: Params = [timeoutMs];
  const [row] = await query(store, 'user-observed figures', `SELECT ${userObservedSelect('$1')} FROM (${userObservedRows('request_breakdown', '$1')}) u`, params);
  return readUserObserved(row, timeoutMs);
}
