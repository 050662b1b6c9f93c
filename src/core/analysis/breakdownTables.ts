import type { QueryRunner } from '../store/duckStore';
import type { AnalysisOptions } from './options';
import type { PhaseColumn } from './phaseSelect';
import { tracePhasesSql, traceExtrasSql } from './phaseTimes';
import { SqlParams } from './sqlParams';

/**
 * `root_breakdown`: one row per trace with exactly one root (the server-only population).
 * unattributed_server_ms = server_root_ms − Σ phases, not clamped: phases overlapping each other
 * (a gateway span running during generation) show up as a negative value instead of being hidden.
 */
export async function buildRootBreakdown(store: QueryRunner, phases: readonly PhaseColumn[], options: AnalysisOptions): Promise<void> {
  // The per-trace phase sums and extras are CTEs: one materialisation instead of three.
  const params = new SqlParams();
  const tracePhases = tracePhasesSql(phases, options, params);
  const traceExtras = traceExtrasSql(options, params);
  const phaseCols = phases.map((p) => `p.${p.column}`);
  const sum = phaseCols.length > 0 ? phaseCols.join(' + ') : '0';
  await store.run(
    `CREATE OR REPLACE TABLE root_breakdown AS
     WITH trace_phase_ms AS (${tracePhases}),
     trace_extras AS (${traceExtras})
     SELECT r.trace_id, r.server_root_ms${phaseCols.length > 0 ? ', ' + phaseCols.join(', ') : ''},
            r.server_root_ms - (${sum}) AS unattributed_server_ms,
            x.server_ttft_ms, x.server_itl_ms, x.content_events, x.server_output_tokens,
            r.root_start_ns, r.root_end_ns, r.root_status AS status, r.root_service, r.root_name, r.root_span_id,
            r.span_count, r.root_fallback, p.concurrent_phase_spans, r.root_node_id
     FROM trace_roots r
     JOIN trace_phase_ms p ON p.root_node = r.root_node_id
     LEFT JOIN trace_extras x ON x.root_node = r.root_node_id
     WHERE r.root_candidates = 1`,
    params.values,
  );
  await store.run('DROP TABLE IF EXISTS phase_sel');
}

/**
 * `request_breakdown`: one row per client_requests row, every client column kept, plus the join flags
 * and the per-request decomposition (contract in notes/analysis-contract.md).
 *
 * Join conditions are pure equalities (the flag goes inside a CASE): DuckDB turns an ON clause with a
 * one-sided predicate into a nested-loop join, which took minutes at 100k requests.
 *
 * client_dup is only set for valid IDs: an all-zero or malformed ID repeated on many rows is already
 * unmatched as invalid, and counting it as a collision too would double-report one problem.
 */
export async function buildRequestBreakdown(store: QueryRunner, phases: readonly PhaseColumn[]): Promise<void> {
  const phaseCols = phases.map((p) => `CASE WHEN j.matched THEN b.${p.column} END AS ${p.column}`);
  const generation = phases.find((p) => p.name === 'generation');
  const perToken = generation
    ? `CASE WHEN j.matched AND j.outcome = 'succeeded' AND coalesce(j.output_tokens, b.server_output_tokens) >= 1
            THEN b.${generation.column} / coalesce(j.output_tokens, b.server_output_tokens) END`
    : 'NULL::DOUBLE';
  await store.run(
    `CREATE OR REPLACE TABLE request_breakdown AS
     WITH j AS (
       -- The client columns are read live from client_requests; the options-independent flags come
       -- from client_index row by row (POSITIONAL JOIN, same loaded order), the trace by integer key.
       SELECT c.*, ci.row_id, ci.trace_valid, ci.client_dup,
              coalesce(r.root_candidates, 0)::BIGINT AS root_candidates,
              r.trace_no IS NOT NULL AS trace_has_spans,
              ci.trace_valid AND NOT ci.client_dup AND coalesce(r.root_candidates = 1, false) AS matched,
              ci.trace_valid AND coalesce(r.root_candidates = 0, false) AS lost_root,
              r.root_node_id AS join_root_node,
              (SELECT min(start_ms) FROM client_requests) AS run_min_start_ms
       FROM (client_requests c POSITIONAL JOIN client_index ci)
       LEFT JOIN trace_roots r ON r.trace_no = ci.trace_no
     )
     SELECT j.* EXCLUDE (run_min_start_ms, join_root_node),
            coalesce(j.send_offset_ms, j.start_ms - j.run_min_start_ms) AS offset_ms,
            j.outcome = 'succeeded' AS succeeded,
            CASE WHEN j.matched THEN b.server_root_ms END AS server_root_ms,
            CASE WHEN j.matched THEN j.client_total_ms - b.server_root_ms END AS network_envelope_ms,
            CASE WHEN j.blocked_ms IS NULL AND j.connecting_ms IS NULL AND j.tls_handshaking_ms IS NULL THEN NULL
                 ELSE coalesce(j.blocked_ms, 0) + coalesce(j.connecting_ms, 0) + coalesce(j.tls_handshaking_ms, 0) END
              AS transport_setup_ms,
            ${phaseCols.length > 0 ? phaseCols.join(',\n ') + ',' : ''}
            CASE WHEN j.matched THEN b.unattributed_server_ms END AS unattributed_server_ms,
            CASE WHEN j.matched THEN b.server_ttft_ms END AS server_ttft_ms,
            CASE WHEN j.matched AND coalesce(j.is_streaming, j.client_ttft_ms IS NOT NULL)
                 THEN j.client_ttft_ms - b.server_ttft_ms END AS ttft_envelope_ms,
            CASE WHEN j.matched AND b.server_itl_ms IS NOT NULL THEN b.server_itl_ms ELSE j.client_itl_ms END AS itl_ms,
            CASE WHEN j.matched AND b.server_itl_ms IS NOT NULL THEN 'server' WHEN j.client_itl_ms IS NOT NULL THEN 'client' END AS itl_source,
            CASE WHEN j.matched THEN b.server_output_tokens END AS server_output_tokens,
            ${perToken} AS generation_ms_per_output_token
     FROM j LEFT JOIN root_breakdown b ON b.root_node_id = CASE WHEN j.matched THEN j.join_root_node END`,
  );
}
