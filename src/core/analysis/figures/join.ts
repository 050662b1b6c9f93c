import type { QueryRunner } from '../../store/duckStore';
import { query } from '../sql/statement';
import type { JoinSummary } from '../../report/model';
import type { JoinKey } from '../options';

type JoinCounts = Omit<JoinSummary, 'coverage' | 'coverage_of_valid' | 'key' | 'key_attribute' | 'applicable'>;

/**
 * The join figures (docs/metrics.md §1 join_coverage, §3.3 collisions) from the tables buildBreakdown made.
 *
 * Counting rules: client figures count client rows (requests), except the *_trace_ids and lost_roots
 * figures, which count distinct trace IDs. duplicate_trace_ids is the number of distinct trace IDs in
 * a collision of either kind (seen twice on the client, or several root candidates on the server), so
 * an ID with both problems is one collision, not two.
 *
 * Joined by request ID (index/clientIndex.ts), the same figures count request IDs in place of trace
 * IDs (with_trace_id: rows with a request ID; invalid_trace_ids: 0, any non-empty ID is usable), and a
 * request ID that the spans of several traces carry is a server-side collision
 * (server_ambiguous_ids, counted in duplicate_trace_ids). A run whose client rows carry no key at all
 * cannot be joined: `applicable` is false and the coverage is null (not applicable, not 0 %).
 */
export async function computeJoinSummary(store: QueryRunner, joinKey?: JoinKey): Promise<JoinSummary> {
  const byRequest = joinKey?.by === 'request_id';
  // The client column holding the key (a fixed name, never user text).
  const key = byRequest ? 'request_id' : 'trace_id';
  // One scan of request_breakdown (a POSITIONAL JOIN view, read on one thread) for every client
  // figure; the figures about server traces join the integer keys of client_index and trace_roots.
  // A client row with a valid trace ID has the trace_no of the trace with that ID (client_index),
  // so "some valid client row has this root's trace ID" is an integer semi-join, and a client-side
  // duplicate ID with several root candidates is one whose client_index trace_no has them.
  const [c] = await query<JoinCounts & Record<string, unknown>>(
    store,
    'join summary',
    `WITH rb AS (
       SELECT count(*) AS client_requests,
              count(*) FILTER (WHERE coalesce(trim(${key}), '') <> '') AS with_trace_id,
              count(*) FILTER (WHERE trace_valid) AS valid_trace_ids,
              count(*) FILTER (WHERE coalesce(trim(${key}), '') <> '' AND NOT trace_valid) AS invalid_trace_ids,
              count(*) FILTER (WHERE matched) AS matched,
              count(*) FILTER (WHERE NOT matched) AS unmatched_client,
              count(DISTINCT ${key}) FILTER (WHERE lost_root) AS lost_roots,
              count(DISTINCT ${key}) FILTER (WHERE client_dup) AS client_duplicate_trace_ids
       FROM request_breakdown
     ),
     amb AS (
       ${byRequest
         ? `SELECT count(DISTINCT c.request_id) FILTER (WHERE k.key_traces > 1 AND NOT k.client_dup) AS server_ambiguous_ids
            FROM (SELECT request_id FROM client_requests) c POSITIONAL JOIN (SELECT key_traces, client_dup FROM client_index) k`
         : 'SELECT 0::BIGINT AS server_ambiguous_ids'}
     ),
     tr AS (
       SELECT count(*) AS server_traces,
              count(*) FILTER (WHERE root_candidates > 1) AS server_multi_root_traces,
              count(*) FILTER (WHERE root_candidates = 1
                AND trace_no NOT IN (SELECT trace_no FROM client_index WHERE trace_valid AND trace_no IS NOT NULL)) AS orphan_server_roots,
              count(*) FILTER (WHERE root_candidates > 1
                AND trace_no IN (SELECT trace_no FROM client_index WHERE client_dup AND trace_no IS NOT NULL)) AS both_kinds
       FROM trace_roots
     )
     SELECT rb.*, tr.server_traces, tr.server_multi_root_traces, tr.orphan_server_roots, amb.server_ambiguous_ids,
            -- distinct IDs in a collision of either kind: client-side ∪ server-side, counted once
            rb.client_duplicate_trace_ids + tr.server_multi_root_traces - tr.both_kinds + amb.server_ambiguous_ids AS duplicate_trace_ids,
            (SELECT count(*) FROM spans) AS server_spans
     FROM rb, tr, amb`,
  );
  const applicable = c.with_trace_id > 0;
  return {
    key: byRequest ? 'request_id' : 'trace_id',
    key_attribute: byRequest ? joinKey.attribute : null,
    applicable,
    client_requests: c.client_requests,
    with_trace_id: c.with_trace_id,
    valid_trace_ids: c.valid_trace_ids,
    invalid_trace_ids: c.invalid_trace_ids,
    matched: c.matched,
    coverage: applicable && c.client_requests > 0 ? c.matched / c.client_requests : null,
    coverage_of_valid: c.valid_trace_ids > 0 ? c.matched / c.valid_trace_ids : null,
    unmatched_client: c.unmatched_client,
    orphan_server_roots: c.orphan_server_roots,
    lost_roots: c.lost_roots,
    duplicate_trace_ids: c.duplicate_trace_ids,
    client_duplicate_trace_ids: c.client_duplicate_trace_ids,
    server_multi_root_traces: c.server_multi_root_traces,
    server_ambiguous_ids: c.server_ambiguous_ids,
    server_traces: c.server_traces,
    server_spans: c.server_spans,
  };
}
