import type { QueryRunner } from '../store/duckStore';
import type { AnalysisOptions } from './options';
import { hasBitSql, type PhaseColumn } from './phaseSelect';
import { SqlParams } from './sqlParams';

/**
 * `root_tree`: every span under each unique root (the root included), with its depth and two phase
 * masks: `phase_mask` (phases whose selector picks this span) and `anc_mask` (phases picked by one of
 * its ancestors). A span is a top-most span of phase i when bit i is in phase_mask but not in anc_mask.
 *
 * One set-based recursive walk down from the roots: each iteration is one hash join of the frontier
 * with span_nodes, so the cost is (tree depth) joins, not one query per span. Span IDs are unique per
 * trace after de-duplication, so the walk is a tree and cannot loop; the depth cap only guards against
 * pathological inputs.
 *
 * Decision: phases count only spans in the matched root's subtree. Spans of the same trace that hang
 * off another top-most span (a lost intermediate parent, a second fragment, async work exported
 * without its parent) are not inside the root's interval by construction; they are counted as
 * detached spans in the warnings instead of being silently added to a phase.
 */
export async function buildRootTree(store: QueryRunner): Promise<void> {
  await store.run(
    `CREATE OR REPLACE TABLE root_tree AS
     WITH RECURSIVE walk(root_node, node_id, trace_id, span_id, name, depth, phase_mask, anc_mask, path_mask,
                         start_ns, end_ns, duration_ms, output_tokens) AS (
       SELECT n.node_id, n.node_id, n.trace_id, n.span_id, n.name, 0, n.phase_mask, 0::BIGINT, n.phase_mask,
              n.start_ns, n.end_ns, n.duration_ms, n.output_tokens
       FROM trace_roots r JOIN span_nodes n ON n.node_id = r.root_node_id
       WHERE r.root_candidates = 1
       UNION ALL
       SELECT w.root_node, c.node_id, c.trace_id, c.span_id, c.name, w.depth + 1, c.phase_mask, w.path_mask,
              w.path_mask | c.phase_mask, c.start_ns, c.end_ns, c.duration_ms, c.output_tokens
       FROM walk w JOIN span_nodes c ON c.parent_node = w.node_id
       WHERE w.depth < 100000
     )
     SELECT root_node, node_id, trace_id, span_id, name, depth, phase_mask, anc_mask, start_ns, end_ns, duration_ms, output_tokens
     FROM walk`,
  );
}

/**
 * (Windows and groups are keyed by the root's integer node ID, not the 32-character trace ID.)
 *
 * `trace_phase_ms`: per unique-root trace, one `<phase>_ms` column per phase (DESIGN §1).
 *
 * Per (trace, phase) the top-most selected spans are ordered by start. A span opens a new group unless
 * the spans before it still run more than the timestamp granularity past its start: OpenTelemetry JS
 * stamps starts at millisecond granularity with exact durations, so back-to-back spans can appear to
 * overlap by up to 1 ms, and those are summed by their exact durations. A group of genuinely
 * overlapping spans (concurrent siblings, or one inside another) counts its interval union,
 * max(end) − min(start). "How far the earlier spans run past this start" is measured against the
 * running maximum end, so a short span nested in time inside a long sibling joins its group rather
 * than being added on top.
 */
export async function buildTracePhases(store: QueryRunner, phases: readonly PhaseColumn[], options: AnalysisOptions): Promise<void> {
  const params = new SqlParams();
  const granularityNs = params.bind(options.timestampGranularityMs * 1e6);
  const selects = phases.map(
    (p) =>
      `SELECT root_node, ${p.bit} AS bit, node_id, start_ns, end_ns, duration_ms FROM root_tree
       WHERE ${hasBitSql('phase_mask', p.bit)} AND NOT ${hasBitSql('anc_mask', p.bit)}`,
  );
  const columns = phases.map((p) => `coalesce(sum(ms) FILTER (WHERE bit = ${p.bit}), 0)::DOUBLE AS ${p.column}`);
  const selected = selects.length > 0 ? selects.join('\n UNION ALL \n') : 'SELECT 0::BIGINT AS root_node, 0 AS bit, 0::BIGINT AS node_id, 0::BIGINT AS start_ns, 0::BIGINT AS end_ns, 0::DOUBLE AS duration_ms WHERE false';
  await store.run(
    `CREATE OR REPLACE TABLE trace_phase_ms AS
     WITH sel AS (${selected}),
     ordered AS (
       SELECT *, max(end_ns) OVER (PARTITION BY root_node, bit ORDER BY start_ns, end_ns, node_id
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
       FROM sel
     ),
     grouped AS (
       SELECT *, sum(CASE WHEN prev_end IS NULL OR (prev_end - start_ns) <= ${granularityNs}::DOUBLE THEN 1 ELSE 0 END)
                   OVER (PARTITION BY root_node, bit ORDER BY start_ns, end_ns, node_id ROWS UNBOUNDED PRECEDING) AS grp
       FROM ordered
     ),
     groups AS (
       SELECT root_node, bit, grp,
              CASE WHEN count(*) = 1 THEN any_value(duration_ms) ELSE (max(end_ns) - min(start_ns)) / 1e6 END AS ms,
              count(*) AS spans
       FROM grouped GROUP BY root_node, bit, grp
     )
     SELECT r.trace_id${columns.length > 0 ? ',\n ' + columns.join(',\n ') : ''},
            coalesce(sum(g.spans) FILTER (WHERE g.spans > 1), 0)::BIGINT AS concurrent_phase_spans
     FROM trace_roots r LEFT JOIN groups g ON g.root_node = r.root_node_id
     WHERE r.root_candidates = 1
     GROUP BY r.trace_id`,
    params.values,
  );
}

/**
 * `trace_extras`: per unique-root trace, server TTFT, server-side ITL and output tokens, all from the
 * root's subtree.
 * - server TTFT: root start → the first `firstTokenEvent` span event; when no such event exists, the
 *   earliest end of a span named `firstTokenSpan`.
 * - ITL: mean interval between consecutive `contentEvent` events after the first one, i.e.
 *   (last − first) / (n − 1) over distinct event times (n ≥ 2); TTFT is excluded by construction.
 * - output tokens: Σ over the subtree of gen_ai.usage.output_tokens (or llm.output_tokens) per span.
 */
export async function buildTraceExtras(store: QueryRunner, options: AnalysisOptions): Promise<void> {
  const params = new SqlParams();
  const firstEvent = params.bind(options.firstTokenEvent);
  const firstSpan = params.bind(options.firstTokenSpan);
  const contentEvent = params.bind(options.contentEvent ?? null);
  await store.run(
    `CREATE OR REPLACE TABLE trace_extras AS
     WITH ev AS (
       SELECT DISTINCT e.trace_id, e.span_id, e.name, e.time_ns
       FROM span_events e JOIN root_tree t ON t.trace_id = e.trace_id AND t.span_id = e.span_id
       WHERE e.name = ${firstEvent} OR e.name = ${contentEvent}
     ),
     ev_agg AS (
       SELECT trace_id,
              min(time_ns) FILTER (WHERE name = ${firstEvent}) AS first_token_ns,
              count(*) FILTER (WHERE name = ${contentEvent}) AS content_events,
              min(time_ns) FILTER (WHERE name = ${contentEvent}) AS first_content_ns,
              max(time_ns) FILTER (WHERE name = ${contentEvent}) AS last_content_ns
       FROM ev GROUP BY trace_id
     ),
     sp_agg AS (
       SELECT root_node,
              min(end_ns) FILTER (WHERE name = ${firstSpan}) AS first_token_span_end_ns,
              sum(output_tokens) AS server_output_tokens
       FROM root_tree GROUP BY root_node
     )
     SELECT r.trace_id,
            (coalesce(ev_agg.first_token_ns, sp_agg.first_token_span_end_ns) - r.root_start_ns) / 1e6 AS server_ttft_ms,
            coalesce(ev_agg.content_events, 0)::BIGINT AS content_events,
            CASE WHEN ev_agg.content_events >= 2
                 THEN (ev_agg.last_content_ns - ev_agg.first_content_ns) / 1e6 / (ev_agg.content_events - 1) END AS server_itl_ms,
            sp_agg.server_output_tokens
     FROM trace_roots r
     LEFT JOIN ev_agg USING (trace_id)
     LEFT JOIN sp_agg ON sp_agg.root_node = r.root_node_id
     WHERE r.root_candidates = 1`,
    params.values,
  );
}
