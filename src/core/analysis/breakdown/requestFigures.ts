import type { QueryRunner } from '../../store/duckStore';
import { exec } from '../sql/statement';
import type { PhaseColumn } from './phaseSelect';

/**
 * `request_breakdown`: one row per client_requests row, every client column kept, plus the join flags
 * and the per-request decomposition (DESIGN §1; every column is declared in catalog/relations.ts). A
 * view over client_requests and the narrow persisted `request_figures` (flags and figures, one row
 * per client row in loaded order), so the client columns are never copied.
 *
 * Join conditions are pure equalities (the flag goes inside a CASE): DuckDB turns an ON clause with a
 * one-sided predicate into a nested-loop join, which took minutes at 100k requests.
 *
 * client_dup is only set for valid IDs: an all-zero or malformed ID repeated on many rows is already
 * unmatched as invalid, and counting it as a collision too would double-report one problem.
 */
export async function buildRequestBreakdown(store: QueryRunner, phases: readonly PhaseColumn[]): Promise<void> {
  const phaseCols = phases.map((p) => `CASE WHEN j.matched THEN b.${p.column} END AS ${p.column}`);
  // Step 1, narrow: the join flags and the server figures per client row, in loaded order. Joining
  // here without the ~35 client columns keeps the hash tables small (with them as join payload the
  // statement cost ≈ 3× more at 100k requests).
  await exec(
    store,
    'request_join',
    `CREATE OR REPLACE TEMP TABLE request_join AS
     WITH j AS (
       SELECT ci.row_id, ci.trace_valid, ci.client_dup,
              coalesce(r.root_candidates, 0)::BIGINT AS root_candidates,
              r.trace_no IS NOT NULL AS trace_has_spans,
              ci.trace_valid AND NOT ci.client_dup AND coalesce(r.root_candidates = 1, false) AS matched,
              ci.trace_valid AND coalesce(r.root_candidates = 0, false) AS lost_root,
              r.root_node_id AS join_root_node
       FROM client_index ci LEFT JOIN trace_roots r ON r.trace_no = ci.trace_no
     )
     SELECT j.* EXCLUDE (join_root_node),
            CASE WHEN j.matched THEN b.server_root_ms END AS b_server_root,
            ${phaseCols.length > 0 ? phaseCols.join(',\n ') + ',' : ''}
            CASE WHEN j.matched THEN b.unattributed_server_ms END AS unattributed_server_ms,
            CASE WHEN j.matched THEN b.server_ttft_ms END AS b_server_ttft,
            CASE WHEN j.matched THEN b.server_itl_ms END AS b_server_itl,
            CASE WHEN j.matched THEN b.server_output_tokens END AS server_output_tokens
     FROM j LEFT JOIN root_breakdown b ON b.root_node_id = CASE WHEN j.matched THEN j.join_root_node END
     ORDER BY j.row_id`,
  );
  const generation = phases.find((p) => p.name === 'generation');
  const perToken = generation
    ? `CASE WHEN n.matched AND c.outcome = 'succeeded' AND coalesce(c.output_tokens, n.server_output_tokens) >= 1
            THEN n.${generation.column} / coalesce(c.output_tokens, n.server_output_tokens) END`
    : 'NULL::DOUBLE';
  // Step 2: the per-request figures, narrow (numbers and flags only), persisted. They read the few
  // client columns they need row by row beside request_join (POSITIONAL JOIN: both are in loaded
  // order, client_index was written ORDER BY row_id).
  await exec(
    store,
    'request_figures',
    `CREATE OR REPLACE TABLE request_figures AS
     SELECT n.row_id, n.trace_valid, n.client_dup, n.root_candidates, n.trace_has_spans, n.matched, n.lost_root,
            coalesce(c.send_offset_ms, c.start_ms - (SELECT min(start_ms) FROM client_requests)) AS offset_ms,
            c.outcome = 'succeeded' AS succeeded,
            n.b_server_root AS server_root_ms,
            CASE WHEN n.matched THEN c.client_total_ms - n.b_server_root END AS network_envelope_ms,
            CASE WHEN c.blocked_ms IS NULL AND c.connecting_ms IS NULL AND c.tls_handshaking_ms IS NULL THEN NULL
                 ELSE coalesce(c.blocked_ms, 0) + coalesce(c.connecting_ms, 0) + coalesce(c.tls_handshaking_ms, 0) END
              AS transport_setup_ms,
            ${phases.map((p) => `n.${p.column},`).join(' ')}
            n.unattributed_server_ms,
            n.b_server_ttft AS server_ttft_ms,
            CASE WHEN n.matched AND coalesce(c.is_streaming, c.client_ttft_ms IS NOT NULL)
                 THEN c.client_ttft_ms - n.b_server_ttft END AS ttft_envelope_ms,
            CASE WHEN n.matched AND n.b_server_itl IS NOT NULL THEN n.b_server_itl ELSE c.client_itl_ms END AS itl_ms,
            CASE WHEN n.matched AND n.b_server_itl IS NOT NULL THEN 'server' WHEN c.client_itl_ms IS NOT NULL THEN 'client' END AS itl_source,
            n.server_output_tokens,
            ${perToken} AS generation_ms_per_output_token
     FROM (SELECT send_offset_ms, start_ms, outcome, client_total_ms, blocked_ms, connecting_ms, tls_handshaking_ms,
                  is_streaming, client_ttft_ms, client_itl_ms, output_tokens FROM client_requests) c
     POSITIONAL JOIN request_join n`,
  );
  await exec(store, 'drop request_join', 'DROP TABLE IF EXISTS request_join');
  // Step 3: request_breakdown is a view, every client column followed by the figures: copying the
  // ~35 client columns (IDs, URLs, names) into a second persisted table cost more than every figure.
  await exec(store, 'request_breakdown', 'CREATE OR REPLACE VIEW request_breakdown AS SELECT c.*, f.* FROM client_requests c POSITIONAL JOIN request_figures f');
}

