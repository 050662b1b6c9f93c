import type { QueryRunner } from '../../store/duckStore';
import type { AnalysisOptions } from '../options';
import { CachedAttributeReader, ensureCachedKeys } from '../index/attributeCache';
import { phaseMaskSql } from './phaseSelect';
import { SqlParams } from '../sql/params';
import { validTraceIdSql } from '../index/spanIndex';

export { validTraceIdSql };

/**
 * `span_phase`: the phase bits of every indexed span that some phase selector picks (spans no
 * selector picks are left out: most are, and every later step only looks at selected spans). Narrow
 * (node_id, phase_mask): the tree position and times are read from span_index where needed (writing
 * them a second time into this persisted table cost more than the join that reads them).
 *
 * The selectors are the one per-span evaluation that depends on the options; it runs in one pass over
 * spans (names and services live there, not in the narrow span_index), and only the few selected rows
 * are joined to span_index by rowid, which also drops duplicate copies and spans without IDs. Attribute
 * clauses read the per-key attribute cache (attributeCache.ts: the same has()/value() results, kept
 * for the indexed spans); a key not cached yet is looked up in spans once and added to it, so a phase
 * mapping over known keys never re-reads the OTLP attribute text (bench 100k: ≈ 0.8 s).
 */
export async function buildSpanPhases(store: QueryRunner, options: AnalysisOptions): Promise<void> {
  const params = new SqlParams();
  const attrs = new CachedAttributeReader('s');
  const mask = phaseMaskSql(options.phases, params, attrs);
  const keyNumbers = await ensureCachedKeys(store, attrs.registeredKeys());
  // When every loaded span is indexed (no duplicate copies, none without IDs: the usual case), the
  // join with span_index keeps every row, and is left out (bench 100k: ≈ 0.2 s for ≈ 600k selected spans).
  const [{ all_indexed }] = await store.all<{ all_indexed: boolean }>(
    'SELECT coalesce(bool_and(indexed_spans = span_rows), false) AS all_indexed FROM span_index_meta',
  );
  const selected = `SELECT * FROM (
         SELECT s.node_id, ${mask} AS phase_mask
         FROM ${attrs.from('SELECT s.rowid AS node_id, s.name, s.service FROM spans s', keyNumbers)}
       ) WHERE phase_mask <> 0`;
  await store.run(
    `CREATE OR REPLACE TABLE span_phase AS
     SELECT m.node_id, m.phase_mask FROM (${selected}) m ${all_indexed ? '' : 'JOIN span_index i USING (node_id)'}`,
    params.values,
  );
}

/**
 * span_phase from the span_links that ensureSpanIndex left with the phase mask as its `extra` column
 * (the same expression over the same rows: span_links holds exactly the indexed spans), then drops it.
 */
export async function buildSpanPhasesFromLinks(store: QueryRunner): Promise<void> {
  await store.run('CREATE OR REPLACE TABLE span_phase AS SELECT node_id, extra AS phase_mask FROM span_links WHERE extra <> 0');
  await store.run('DROP TABLE IF EXISTS span_links');
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
/**
 * Builds trace_roots unless it exists for these root options and this very build of the span index
 * (it reads nothing else: top_index and trace_index). A re-analysis with another phase mapping,
 * granularity or first-token setting then keeps it (bench 100k: ≈ 0.3 s). Stamped in
 * trace_roots_meta, which is dropped before a rebuild so a half-written table is never taken as current.
 */
export async function ensureTraceRoots(store: QueryRunner, options: AnalysisOptions): Promise<void> {
  const key = JSON.stringify(options.root);
  const [{ n }] = await store.all<{ n: number }>(
    "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name IN ('trace_roots', 'trace_roots_meta') AND schema_name = 'main' AND NOT temporary",
  );
  if (n === 2) {
    const [{ fresh }] = await store.all<{ fresh: number }>(
      `SELECT count(*) AS fresh FROM trace_roots_meta m, span_index_meta i WHERE m.root_key = $1 AND m.index_build_id = i.build_id`,
      [key],
    );
    if (fresh === 1) return;
  }
  await store.run('DROP TABLE IF EXISTS trace_roots_meta');
  await buildTraceRoots(store, options);
  await store.run(
    'CREATE OR REPLACE TABLE trace_roots_meta AS SELECT $1::VARCHAR AS root_key, build_id AS index_build_id FROM span_index_meta',
    [key],
  );
}

export async function buildTraceRoots(store: QueryRunner, options: AnalysisOptions): Promise<void> {
  const params = new SqlParams();
  const filters: string[] = [];
  if (options.root.service !== undefined) filters.push(`service = ${params.bind(options.root.service)}`);
  if (options.root.spanName !== undefined) filters.push(`name = ${params.bind(options.root.spanName)}`);
  const eligible = filters.length === 0 ? 'true' : `coalesce(${filters.join(' AND ')}, false)`;
  await store.run(
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
