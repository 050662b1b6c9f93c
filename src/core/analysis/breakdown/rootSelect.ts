import type { QueryRunner } from '../../store/duckStore';
import type { AnalysisOptions } from '../options';
import { SqlParams } from '../sql/params';
import { exec } from '../sql/statement';

/**
 * `trace_roots`: one row per trace with spans (docs/metrics.md §3.3).
 *
 * Candidates are the SERVER spans (of options.root.service / spanName when given) whose parent is not
 * in the trace. More than one candidate is a collision (root_span_id stays NULL, nothing is matched).
 *
 * Fallback, counted in `root_fallback`: when a trace has no SERVER candidate at all, the spans with no
 * parent ID whatsoever (subject to the same service/name filters) become the candidates. Exporters that
 * leave the kind out (Jaeger without span.kind, Zipkin local spans, OTLP kind 0) or traces whose top is a
 * CLIENT span (public Jaeger/Zipkin samples, a server-only population with the caller instrumented)
 * still have a real top-most span, and a span without any parent ID cannot be a child whose root was
 * lost. A trace whose top-most spans all name a parent that is not exported keeps zero candidates: that
 * is a lost root (children exported, root not), never promoted to a root by the fallback.
 *
 * Kept while the root options and the span index stay (its stamp reads top_index, trace_index and
 * options.root only), so a re-analysis with another phase mapping or granularity keeps it.
 */
export async function buildTraceRoots(store: QueryRunner, options: AnalysisOptions): Promise<void> {
  const params = new SqlParams();
  const filters: string[] = [];
  if (options.root.service !== undefined) filters.push(`service = ${params.bind(options.root.service)}`);
  if (options.root.spanName !== undefined) filters.push(`name = ${params.bind(options.root.spanName)}`);
  const eligible = filters.length === 0 ? 'true' : `coalesce(${filters.join(' AND ')}, false)`;
  await exec(
    store,
    'trace_roots',
    `CREATE OR REPLACE TABLE trace_roots AS
     WITH n AS (
       -- Both kinds of candidate have no parent in the trace, so only the top-most spans are looked at.
       SELECT trace_no,
              ${eligible} AND kind = 'SERVER' AS server_candidate,
              ${eligible} AND parent_span_id IS NULL AS top_candidate,
              {node_id: top_node, span_id: span_id, start_ns: start_ns, end_ns: end_ns, duration_ms: duration_ms,
               status: status, service: service, name: name} AS r
       FROM top_index
     ),
     per_trace AS (
       SELECT trace_no,
              count(*) FILTER (WHERE server_candidate) AS server_candidates,
              count(*) FILTER (WHERE top_candidate) AS top_candidates,
              any_value(r) FILTER (WHERE server_candidate) AS server_root,
              any_value(r) FILTER (WHERE top_candidate) AS top_root
       FROM n GROUP BY trace_no
     ),
     chosen AS (
       SELECT t.trace_no, t.trace_id, t.valid, t.span_count,
              CASE WHEN coalesce(server_candidates, 0) > 0 THEN server_candidates ELSE coalesce(top_candidates, 0) END AS candidates,
              coalesce(server_candidates = 0 AND top_candidates > 0, false) AS fallback,
              CASE WHEN coalesce(server_candidates, 0) > 0 THEN server_root ELSE top_root END AS r
       FROM trace_index t LEFT JOIN per_trace USING (trace_no)
     )
     SELECT trace_id,
            valid,
            span_count,
            candidates::BIGINT AS root_candidates,
            CASE WHEN candidates = 1 THEN r.span_id END AS root_span_id,
            CASE WHEN candidates = 1 THEN r.node_id END AS root_node_id,
            CASE WHEN candidates = 1 THEN r.start_ns END AS root_start_ns,
            CASE WHEN candidates = 1 THEN r.end_ns END AS root_end_ns,
            CASE WHEN candidates = 1 THEN r.duration_ms END AS server_root_ms,
            CASE WHEN candidates = 1 THEN r.status END AS root_status,
            CASE WHEN candidates = 1 THEN r.service END AS root_service,
            CASE WHEN candidates = 1 THEN r.name END AS root_name,
            candidates = 0 AS has_spans_without_root,
            fallback AS root_fallback,
            trace_no
     FROM chosen`,
    params.values,
  );
}
