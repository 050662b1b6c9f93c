import type { QueryRunner } from '../store/duckStore';
import type { AnalysisOptions } from './options';
import { phaseMaskSql } from './phaseSelect';
import { SqlParams } from './sqlParams';

/** SQL boolean: a trace ID the join accepts (W3C: 32 lower-case hex digits, not all zero). */
export function validTraceIdSql(expr: string): string {
  return `coalesce(regexp_full_match(${expr}, '[0-9a-f]{32}') AND ${expr} <> '00000000000000000000000000000000', false)`;
}

/**
 * `span_nodes`: one row per (trace_id, span_id) with the phase bits of each span.
 *
 * The same span exported twice (retries of the exporter, two overlapping export files; the public
 * otlp2jaeger sample has one) would otherwise count as two root candidates or twice in a phase, so
 * spans are de-duplicated on (trace_id, span_id), keeping the first loaded copy (lowest rowid: files
 * are appended in load order, lines in file order); node_id is that rowid. Spans without a
 * trace or span ID cannot take part in a tree and are left out (counted by the warnings).
 *
 * The parent link is resolved once here, by string IDs, into an integer `parent_node` (NULL when the
 * parent is not in the trace): the recursive walk then joins integers, which is several times faster
 * than joining (trace_id, span_id) strings at every level.
 */
export async function buildSpanNodes(store: QueryRunner, options: AnalysisOptions): Promise<void> {
  const params = new SqlParams();
  const mask = phaseMaskSql(options.phases, params);
  await store.run(
    `CREATE OR REPLACE TABLE span_nodes AS
     WITH keep AS (
       -- First loaded copy of each (trace_id, span_id): a hash aggregate on the two IDs only. A
       -- de-duplication window instead sorted every span column in 650k one-row partitions (5× slower).
       SELECT min(rowid) AS node_id FROM spans
       WHERE trace_id IS NOT NULL AND trace_id <> '' AND span_id IS NOT NULL AND span_id <> ''
       GROUP BY trace_id, span_id
     ),
     d AS MATERIALIZED (
       SELECT keep.node_id, s.trace_id, s.span_id, nullif(s.parent_span_id, '') AS parent_span_id, s.name, s.kind,
              s.service, s.start_ns, s.end_ns, s.duration_ms, s.status,
              ${mask} AS phase_mask,
              TRY_CAST(coalesce(map_extract_value(s.attributes, 'gen_ai.usage.output_tokens'),
                                map_extract_value(s.attributes, 'llm.output_tokens')) AS DOUBLE) AS output_tokens
       FROM spans s JOIN keep ON keep.node_id = s.rowid
     )
     SELECT d.*, p.node_id AS parent_node, p.node_id IS NULL AS parent_missing
     FROM d LEFT JOIN (SELECT trace_id, span_id, node_id FROM d) p
       ON p.trace_id = d.trace_id AND p.span_id = d.parent_span_id`,
    params.values,
  );
}

/**
 * `trace_roots`: one row per trace with spans (DESIGN §3.3).
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
 */
export async function buildTraceRoots(store: QueryRunner, options: AnalysisOptions): Promise<void> {
  const params = new SqlParams();
  const filters: string[] = [];
  if (options.root.service !== undefined) filters.push(`service = ${params.bind(options.root.service)}`);
  if (options.root.spanName !== undefined) filters.push(`name = ${params.bind(options.root.spanName)}`);
  const eligible = filters.length === 0 ? 'true' : `coalesce(${filters.join(' AND ')}, false)`;
  await store.run(
    `CREATE OR REPLACE TABLE trace_roots AS
     WITH n AS (
       SELECT trace_id,
              ${eligible} AND kind = 'SERVER' AND parent_missing AS server_candidate,
              ${eligible} AND parent_span_id IS NULL AS top_candidate,
              {node_id: node_id, span_id: span_id, start_ns: start_ns, end_ns: end_ns, duration_ms: duration_ms,
               status: status, service: service, name: name} AS r
       FROM span_nodes
     ),
     per_trace AS (
       -- One hash aggregate over all spans: counts and (when unique) the candidate itself.
       SELECT trace_id, count(*) AS span_count,
              count(*) FILTER (WHERE server_candidate) AS server_candidates,
              count(*) FILTER (WHERE top_candidate) AS top_candidates,
              any_value(r) FILTER (WHERE server_candidate) AS server_root,
              any_value(r) FILTER (WHERE top_candidate) AS top_root
       FROM n GROUP BY trace_id
     ),
     chosen AS (
       SELECT trace_id, span_count,
              CASE WHEN server_candidates > 0 THEN server_candidates ELSE top_candidates END AS candidates,
              server_candidates = 0 AND top_candidates > 0 AS fallback,
              CASE WHEN server_candidates > 0 THEN server_root ELSE top_root END AS r
       FROM per_trace
     )
     SELECT trace_id,
            ${validTraceIdSql('trace_id')} AS valid,
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
            fallback AS root_fallback
     FROM chosen`,
    params.values,
  );
}
