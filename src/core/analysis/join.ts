import type { QueryRunner } from '../store/duckStore';
import type { JoinSummary } from './report';

type JoinCounts = Omit<JoinSummary, 'coverage' | 'coverage_of_valid'>;

/**
 * The join figures (DESIGN §1 join_coverage, §3.3 collisions) from the tables buildBreakdown made.
 *
 * Counting rules: client figures count client rows (requests), except the *_trace_ids and lost_roots
 * figures, which count distinct trace IDs. duplicate_trace_ids is the number of distinct trace IDs in
 * a collision of either kind (seen twice on the client, or several root candidates on the server), so
 * an ID with both problems is one collision, not two.
 */
export async function computeJoinSummary(store: QueryRunner): Promise<JoinSummary> {
  const [c] = await store.all<JoinCounts & Record<string, unknown>>(
    `WITH client_dups AS (
       SELECT DISTINCT trace_id FROM request_breakdown WHERE client_dup
     ),
     multi_roots AS (
       SELECT trace_id FROM trace_roots WHERE root_candidates > 1
     )
     SELECT
       (SELECT count(*) FROM request_breakdown) AS client_requests,
       (SELECT count(*) FROM request_breakdown WHERE coalesce(trace_id, '') <> '') AS with_trace_id,
       (SELECT count(*) FROM request_breakdown WHERE trace_valid) AS valid_trace_ids,
       (SELECT count(*) FROM request_breakdown WHERE coalesce(trace_id, '') <> '' AND NOT trace_valid) AS invalid_trace_ids,
       (SELECT count(*) FROM request_breakdown WHERE matched) AS matched,
       (SELECT count(*) FROM request_breakdown WHERE NOT matched) AS unmatched_client,
       (SELECT count(*) FROM trace_roots r WHERE r.root_candidates = 1
          AND NOT EXISTS (SELECT 1 FROM request_breakdown q WHERE q.trace_valid AND q.trace_id = r.trace_id)) AS orphan_server_roots,
       (SELECT count(DISTINCT trace_id) FROM request_breakdown WHERE lost_root) AS lost_roots,
       (SELECT count(*) FROM (SELECT trace_id FROM client_dups UNION SELECT trace_id FROM multi_roots)) AS duplicate_trace_ids,
       (SELECT count(*) FROM client_dups) AS client_duplicate_trace_ids,
       (SELECT count(*) FROM multi_roots) AS server_multi_root_traces,
       (SELECT count(*) FROM trace_roots) AS server_traces,
       (SELECT count(*) FROM spans) AS server_spans`,
  );
  return {
    client_requests: c.client_requests,
    with_trace_id: c.with_trace_id,
    valid_trace_ids: c.valid_trace_ids,
    invalid_trace_ids: c.invalid_trace_ids,
    matched: c.matched,
    coverage: c.client_requests > 0 ? c.matched / c.client_requests : null,
    coverage_of_valid: c.valid_trace_ids > 0 ? c.matched / c.valid_trace_ids : null,
    unmatched_client: c.unmatched_client,
    orphan_server_roots: c.orphan_server_roots,
    lost_roots: c.lost_roots,
    duplicate_trace_ids: c.duplicate_trace_ids,
    client_duplicate_trace_ids: c.client_duplicate_trace_ids,
    server_multi_root_traces: c.server_multi_root_traces,
    server_traces: c.server_traces,
    server_spans: c.server_spans,
  };
}
