import type { QueryRunner } from '../../store/duckStore';
import { metricDecl, metricsHeldBy } from '../catalog/metrics';
import { exec } from '../sql/statement';
import { metricSelect, type MetricSqlMap } from './metricSql';
import type { PhaseColumn } from './phaseSelect';
import type { JoinKey } from '../options';

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
/**
 * The SQL of each metric computed in request_figures (source `request_figures` in catalog/metrics.ts),
 * over `c` (the client row's columns listed in CLIENT_COLUMNS) and `n` (request_join: the join flags
 * and, for matched requests, the root's metrics as `root_<metric>` and root_server_itl_ms and
 * server_output_tokens). A metric the catalog declares without an entry here is an error.
 */
const REQUEST_METRIC_SQL: MetricSqlMap = {
  transport_setup_ms: () => `CASE WHEN c.blocked_ms IS NULL AND c.connecting_ms IS NULL AND c.tls_handshaking_ms IS NULL THEN NULL
                 ELSE coalesce(c.blocked_ms, 0) + coalesce(c.connecting_ms, 0) + coalesce(c.tls_handshaking_ms, 0) END`,
  network_envelope_ms: () => 'CASE WHEN n.matched THEN c.client_total_ms - n.root_server_root_ms END',
  ttft_envelope_ms: () => `CASE WHEN n.matched AND coalesce(c.is_streaming, c.client_ttft_ms IS NOT NULL)
                 THEN c.client_ttft_ms - n.root_server_ttft_ms END`,
  itl_ms: () => 'CASE WHEN n.matched AND n.root_server_itl_ms IS NOT NULL THEN n.root_server_itl_ms ELSE c.client_itl_ms END',
  generation_ms_per_output_token: (phases) => {
    const generation = phases.find((p) => p.name === 'generation');
    return generation
      ? `CASE WHEN n.matched AND c.outcome = 'succeeded' AND coalesce(c.output_tokens, n.server_output_tokens) >= 1
            THEN n.root_${generation.column} / coalesce(c.output_tokens, n.server_output_tokens) END`
      : 'NULL::DOUBLE';
  },
};

/** The client columns REQUEST_METRIC_SQL and the fixed columns read (a new metric's SQL may need another). */
const CLIENT_COLUMNS = [
  'send_offset_ms',
  'start_ms',
  'outcome',
  'client_total_ms',
  'blocked_ms',
  'connecting_ms',
  'tls_handshaking_ms',
  'is_streaming',
  'client_ttft_ms',
  'client_itl_ms',
  'output_tokens',
];

export async function buildRequestBreakdown(store: QueryRunner, phases: readonly PhaseColumn[], joinKey?: JoinKey): Promise<void> {
  const phaseColumns = phases.map((p) => p.column);
  const held = metricsHeldBy('request_figures', phaseColumns);
  // The root's metrics for matched requests: copied from root_breakdown through request_join.
  const fromRoot = held.filter((c) => phaseColumns.includes(c) || metricDecl(c)?.source !== 'request_figures');
  const rootCols = fromRoot.map((c) => `CASE WHEN j.matched THEN b.${c} END AS root_${c}`);
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
            ${rootCols.join(',\n            ')},
            CASE WHEN j.matched THEN b.server_itl_ms END AS root_server_itl_ms,
            CASE WHEN j.matched THEN b.server_output_tokens END AS server_output_tokens
     FROM j LEFT JOIN root_breakdown b ON b.root_node_id = CASE WHEN j.matched THEN j.join_root_node END
     ORDER BY j.row_id`,
  );
  const metricSql = held.map((c) => (fromRoot.includes(c) ? `n.root_${c} AS ${c}` : metricSelect(REQUEST_METRIC_SQL, 'request_figures', c, phases)));
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
            ${metricSql.join(',\n            ')},
            CASE WHEN n.matched AND n.root_server_itl_ms IS NOT NULL THEN 'server' WHEN c.client_itl_ms IS NOT NULL THEN 'client' END AS itl_source,
            n.server_output_tokens
     FROM (SELECT ${CLIENT_COLUMNS.join(', ')} FROM client_requests) c
     POSITIONAL JOIN request_join n`,
  );
  await exec(store, 'drop request_join', 'DROP TABLE IF EXISTS request_join');
  // Step 3: request_breakdown is a view, every client column followed by the figures: copying the
  // ~35 client columns (IDs, URLs, names) into a second persisted table cost more than every figure.
  // Joined by request ID, a matched row's trace_id is its trace's (the client file has none), so slow
  // traces, the waterfall, reconcile and the pairs find it; by trace ID the view reads no third table.
  const sql = joinKey?.by === 'request_id'
    ? `CREATE OR REPLACE VIEW request_breakdown AS
       SELECT c.* REPLACE (coalesce(c.trace_id, k.joined_trace_id) AS trace_id), f.*
       FROM client_requests c POSITIONAL JOIN request_figures f POSITIONAL JOIN (SELECT joined_trace_id FROM client_index) k`
    : 'CREATE OR REPLACE VIEW request_breakdown AS SELECT c.*, f.* FROM client_requests c POSITIONAL JOIN request_figures f';
  await exec(store, 'request_breakdown', sql);
}

