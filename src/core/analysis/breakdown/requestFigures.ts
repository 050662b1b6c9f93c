import type { QueryRunner } from '../../store/duckStore';
import { metricDecl, metricsHeldBy } from '../catalog/metrics';
import { exec } from '../sql/statement';
import { metricSelect, type MetricSqlMap } from './metricSql';
import type { PhaseColumn } from './phaseSelect';
import type { JoinKey } from '../options';

/**
 * `request_breakdown`: one row per client_requests row, every client column kept, plus the join flags
 * and the per-request decomposition (docs/metrics.md §1; every column is declared in catalog/relations.ts). A
 * view over client_requests and two narrow persisted tables, one row per client row in loaded order,
 * so the client columns are never copied: `request_figures` (flags and the figures no phase mapping
 * changes) and `request_phase_figures` (the root's phase times and what is computed from them).
 * Another phase mapping rebuilds only the second, one join of request_figures with root_phase_figures.
 *
 * Join conditions are pure equalities (the flag goes inside a CASE): DuckDB turns an ON clause with a
 * one-sided predicate into a nested-loop join, which took minutes at 100k requests.
 *
 * client_dup is only set for valid IDs: an all-zero or malformed ID repeated on many rows is already
 * unmatched as invalid, and counting it as a collision too would double-report one problem.
 */
/**
 * The SQL of each metric computed per request (source `request_figures` in catalog/metrics.ts). In
 * request_figures, over `c` (the client row's columns listed in CLIENT_COLUMNS) and `n` (request_join:
 * the join flags and, for matched requests, the root's phase-independent metrics as `root_<metric>`,
 * root_server_itl_ms and server_output_tokens); in request_phase_figures, over `n` (request_figures
 * beside the client's output_tokens) and `p` (root_phase_figures of the matched root). A metric the
 * catalog declares without an entry here is an error.
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
      ? `CASE WHEN n.matched AND n.succeeded AND coalesce(n.output_tokens, n.server_output_tokens) >= 1
            THEN p.${generation.column} / coalesce(n.output_tokens, n.server_output_tokens) END`
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

/** Whether the request relations copy a metric from the matched root (rather than compute it per request). */
function fromRoot(column: string, phaseColumns: readonly string[]): boolean {
  return phaseColumns.includes(column) || metricDecl(column)?.source !== 'request_figures';
}

/** `request_figures`: the join flags and the phase-independent per-request figures, in loaded order. */
export async function buildRequestFigures(store: QueryRunner): Promise<void> {
  const held = metricsHeldBy('request_figures', []);
  // The root's metrics for matched requests: trace_roots' own from the join's trace_roots row, the
  // others from root_figures.
  const rootHeld = held.filter((c) => fromRoot(c, []));
  const ownRoot = rootHeld.filter((c) => metricDecl(c)?.source === 'trace_roots');
  const rootCols = rootHeld.map((c) => `CASE WHEN j.matched THEN ${ownRoot.includes(c) ? `j.tr_${c}` : `e.${c}`} END AS root_${c}`);
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
              r.root_node_id AS join_root_node${ownRoot.map((c) => `, r.${c} AS tr_${c}`).join('')}
       FROM client_index ci LEFT JOIN trace_roots r ON r.trace_no = ci.trace_no
     )
     SELECT j.* EXCLUDE (join_root_node${ownRoot.map((c) => `, tr_${c}`).join('')}),
            ${[...rootCols, ''].join(',\n            ')}CASE WHEN j.matched THEN e.server_itl_ms END AS root_server_itl_ms,
            CASE WHEN j.matched THEN e.server_output_tokens END AS server_output_tokens,
            CASE WHEN j.matched THEN j.join_root_node END AS matched_root_node
     FROM j LEFT JOIN root_figures e ON e.root_node_id = CASE WHEN j.matched THEN j.join_root_node END
     ORDER BY j.row_id`,
  );
  const metricSql = held.map((c) => (rootHeld.includes(c) ? `n.root_${c} AS ${c}` : metricSelect(REQUEST_METRIC_SQL, 'request_figures', c, [])));
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
            n.server_output_tokens, n.matched_root_node
     FROM (SELECT ${CLIENT_COLUMNS.join(', ')} FROM client_requests) c
     POSITIONAL JOIN request_join n`,
  );
  await exec(store, 'drop request_join', 'DROP TABLE IF EXISTS request_join');
}

/**
 * `request_phase_figures`: per client row in loaded order, the matched root's phase columns and
 * unattributed rest, and the per-request figures computed from the phases. The only per-request
 * statement another phase mapping runs.
 */
export async function buildRequestPhaseFigures(store: QueryRunner, phases: readonly PhaseColumn[]): Promise<void> {
  const phaseColumns = phases.map((p) => p.column);
  const metricSql = metricsHeldBy('request_phase_figures', phaseColumns).map((c) =>
    fromRoot(c, phaseColumns) ? `CASE WHEN n.matched THEN p.${c} END AS ${c}` : metricSelect(REQUEST_METRIC_SQL, 'request_phase_figures', c, phases),
  );
  await exec(
    store,
    'request_phase_figures',
    `CREATE OR REPLACE TABLE request_phase_figures AS
     SELECT ${metricSql.join(',\n            ')}
     FROM (SELECT f.row_id, f.matched, f.succeeded, f.server_output_tokens, f.matched_root_node, c.output_tokens
           FROM request_figures f POSITIONAL JOIN (SELECT output_tokens FROM client_requests) c) n
     LEFT JOIN root_phase_figures p ON p.root_node_id = n.matched_root_node
     ORDER BY n.row_id`,
  );
}

/**
 * The view `request_breakdown`, every client column followed by the figures: copying the ~35 client
 * columns (IDs, URLs, names) into a second persisted table cost more than every figure. Joined by
 * request ID, a matched row's trace_id is its trace's (the client file has none), so slow traces, the
 * waterfall, reconcile and the pairs find it; by trace ID the view reads no fourth table.
 */
export async function buildRequestBreakdownView(store: QueryRunner, joinKey?: JoinKey): Promise<void> {
  const sql = joinKey?.by === 'request_id'
    ? `CREATE OR REPLACE VIEW request_breakdown AS
       SELECT c.* REPLACE (coalesce(c.trace_id, k.joined_trace_id) AS trace_id), f.*, q.*
       FROM client_requests c POSITIONAL JOIN request_figures f POSITIONAL JOIN request_phase_figures q POSITIONAL JOIN (SELECT joined_trace_id FROM client_index) k`
    : 'CREATE OR REPLACE VIEW request_breakdown AS SELECT c.*, f.*, q.* FROM client_requests c POSITIONAL JOIN request_figures f POSITIONAL JOIN request_phase_figures q';
  await exec(store, 'request_breakdown', sql);
}
