/**
 * client_index (catalog: indexRelations.ts): per client_requests row, in loaded order, the trace it
 * joins and the flags the join figures count, by the run's join key (options.ts JoinKey).
 *
 * By trace ID (docs/metrics.md §1): the row's W3C trace ID against the spans' trace IDs.
 *
 * By request ID, for load generators that propagate no trace context (AIPerf sends X-Request-ID;
 * vLLM, guidellm and per-request records can carry a request ID): the row's request_id against the
 * value of one span attribute (default `http.request.header.x-request-id`, which the OpenTelemetry
 * HTTP conventions define as a string array: its first element is the value; Jaeger/Zipkin tags
 * carry it as a string or a JSON array text). The same rules as the trace-ID join, carried over:
 * - a row's key is usable when it is a non-empty request ID (trace_valid);
 * - a request ID on two client rows is a client-side collision (client_dup), never matched;
 * - a request ID on the spans of two traces is a server-side collision (key_traces > 1): which trace
 *   is the request's cannot be told, so it is not matched either;
 * - otherwise the trace whose spans carry it is the request's trace (trace_no, joined_trace_id), and
 *   the root rules (one root candidate) decide the match as for a trace ID.
 */
import type { QueryRunner } from '../../store/duckStore';
import { spanAttributeSql } from '../../store/spanAttributes';
import type { JoinKey } from '../options';
import { exec } from '../sql/statement';
import { validTraceIdSql } from './spanIndex';

/** SQL: an attribute's string form (spanAttributeSql) unwrapped from an OTLP array or a JSON array text. */
function requestIdValueSql(value: string): string {
  return `nullif(trim(CASE
      WHEN starts_with(${value}, '{"values"') THEN coalesce(json_extract_string(${value}, '$.values[0].stringValue'), json_extract_string(${value}, '$.values[0].intValue'))
      WHEN starts_with(${value}, '[') AND json_valid(${value}) THEN json_extract_string(${value}, '$[0]')
      ELSE ${value} END), '')`;
}

/** client_index, in loaded order (read back with a POSITIONAL JOIN): never written unordered. */
export async function buildClientIndex(store: QueryRunner, joinKey: JoinKey | undefined): Promise<void> {
  if (joinKey?.by === 'request_id') {
    await buildByRequestId(store, joinKey.attribute);
    return;
  }
  // client_dup is only set for valid IDs: an all-zero or malformed ID repeated on many rows is already
  // unmatched as invalid, and counting it as a collision too would double-report one problem.
  await exec(
    store,
    'client_index',
    `CREATE OR REPLACE TABLE client_index AS
     WITH c AS (
       SELECT row_number() OVER ()::BIGINT AS row_id, trace_id, ${validTraceIdSql('trace_id')} AS trace_valid FROM client_requests
     ),
     dups AS (SELECT trace_id FROM c WHERE trace_valid GROUP BY trace_id HAVING count(*) > 1)
     SELECT c.row_id, c.trace_valid, dups.trace_id IS NOT NULL AS client_dup, t.trace_no,
            (t.trace_no IS NOT NULL)::BIGINT AS key_traces, NULL::VARCHAR AS joined_trace_id
     FROM c LEFT JOIN dups ON dups.trace_id = CASE WHEN c.trace_valid THEN c.trace_id END
     LEFT JOIN trace_index t ON t.trace_id = CASE WHEN c.trace_valid THEN c.trace_id END
     ORDER BY c.row_id`,
  );
}

async function buildByRequestId(store: QueryRunner, attribute: string): Promise<void> {
  // The attribute name is a bound parameter; only the spans that name it are typed (spanAttributeSql's
  // substring test), so this is one cheap pass over spans.
  await exec(
    store,
    'client_index (request ID)',
    `CREATE OR REPLACE TABLE client_index AS
     WITH c AS (
       SELECT row_number() OVER ()::BIGINT AS row_id, nullif(trim(request_id), '') AS request_id FROM client_requests
     ),
     carried AS (
       SELECT DISTINCT ${requestIdValueSql(spanAttributeSql('s', '$1'))} AS request_id, s.trace_id
       FROM spans s WHERE coalesce(s.trace_id, '') <> '' AND coalesce(s.span_id, '') <> ''
     ),
     keys AS (
       SELECT k.request_id, count(*) AS traces, min(t.trace_no) AS trace_no, min(t.trace_id) AS trace_id
       FROM carried k JOIN trace_index t USING (trace_id)
       WHERE k.request_id IS NOT NULL GROUP BY k.request_id
     ),
     dups AS (SELECT request_id FROM c WHERE request_id IS NOT NULL GROUP BY request_id HAVING count(*) > 1)
     SELECT c.row_id, c.request_id IS NOT NULL AS trace_valid, dups.request_id IS NOT NULL AS client_dup,
            CASE WHEN k.traces = 1 THEN k.trace_no END AS trace_no, coalesce(k.traces, 0)::BIGINT AS key_traces,
            CASE WHEN k.traces = 1 THEN k.trace_id END AS joined_trace_id
     FROM c LEFT JOIN dups ON dups.request_id = c.request_id
     LEFT JOIN keys k ON k.request_id = c.request_id
     ORDER BY c.row_id`,
    [attribute],
  );
}
