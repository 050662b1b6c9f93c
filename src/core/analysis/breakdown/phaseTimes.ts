import type { QueryRunner } from '../../store/duckStore';
import type { AnalysisOptions } from '../options';
import type { SqlParams } from '../sql/params';
import { exec } from '../sql/statement';
import type { PhaseColumn } from './phaseSelect';

/**
 * `root_tree`: every span under each unique root (the root included), with its depth and phase_mask
 * (phases whose selector picks it). A VIEW over span_index: the subtree of a root is simply the spans
 * whose top_node is that root (the index walked the forest once), so nothing per-span is materialised
 * for it on re-analysis; it is only read for counts (warnings, reconcile) and a per-trace lookup.
 *
 * Decision: phases count only spans in the matched root's subtree. Spans of the same trace that hang
 * off another top-most span (a lost intermediate parent, a second fragment, async work exported
 * without its parent) are not inside the root's interval by construction; they are counted as
 * detached spans in the warnings instead of being silently added to a phase.
 */
export async function buildRootTree(store: QueryRunner): Promise<void> {
  await exec(
    store,
    'root_tree',
    `CREATE OR REPLACE VIEW root_tree AS
     SELECT r.root_node_id AS root_node, i.node_id, r.trace_id, s.span_id, s.name, i.depth,
            coalesce(p.phase_mask, 0::BIGINT) AS phase_mask, i.start_ns, i.end_ns, i.duration_ms, i.output_tokens
     FROM trace_roots r JOIN span_index i ON i.top_node = r.root_node_id
     JOIN spans s ON s.rowid = i.node_id
     LEFT JOIN span_phase p ON p.node_id = i.node_id
     WHERE r.root_candidates = 1`,
  );
}

/**
 * `phase_sel` (temp) holds the top-most selected spans per (root, phase); `trace_phase_ms` (a CTE of
 * root_phase_figures, see tracePhasesSql): per unique-root trace, one `<phase>_ms` column per phase (docs/metrics.md §1).
 *
 * Per (trace, phase) the top-most selected spans are ordered by start. A span opens a new group unless
 * the spans before it still run more than the timestamp granularity past its start: OpenTelemetry JS
 * stamps starts at millisecond granularity with exact durations, so back-to-back spans can appear to
 * overlap by up to 1 ms, and those are summed by their exact durations. A group of genuinely
 * overlapping spans (concurrent siblings, or one inside another) counts its interval union,
 * max(end) − min(start). "How far the earlier spans run past this start" is measured against the
 * running maximum end, so a short span nested in time inside a long sibling joins its group rather
 * than being added on top. Windows and groups are keyed by the root's integer node ID, not the
 * 32-character trace ID.
 */
export async function buildPhaseSelection(store: QueryRunner, phases: readonly PhaseColumn[]): Promise<void> {
  // One row per (top-most selected span, phase), keyed by root_node * 64 + bit (an integer partition
  // key). One pass over tsel joined with the list of phase bits: a UNION ALL of one SELECT per phase
  // evaluated the joins behind tsel once per phase (≈ 2.5× the cost at 100k).
  const bits = phases.map((p) => {
    if (!Number.isInteger(p.bit) || p.bit < 0 || p.bit > 62) throw new Error(`phase bit out of range: ${p.bit}`);
    return `(${p.bit})`;
  });
  const selected =
    bits.length > 0
      ? `SELECT root_node * 64 + b.bit AS k, node_id, start_ns, end_ns
     FROM tsel, (VALUES ${bits.join(', ')}) b(bit)
     WHERE ((phase_mask >> b.bit) & 1) = 1 AND ((anc_mask >> b.bit) & 1) = 0`
      : 'SELECT 0::BIGINT AS k, 0::BIGINT AS node_id, 0::BIGINT AS start_ns, 0::BIGINT AS end_ns WHERE false';
  // Selected spans of unique-root trees, with the phases picked by any ancestor (anc_mask). A child of
  // the root (most selected spans) has the root as its only ancestor: its anc_mask is the root's own
  // mask, one join with the few selected roots. Only deeper spans join their ancestors lists (unnested)
  // with the selected spans; no recursion either way.
  await exec(
    store,
    'phase_sel',
    `CREATE OR REPLACE TEMP TABLE phase_sel AS
     WITH tsel0 AS (
       SELECT p.node_id, i.top_node AS root_node, p.phase_mask, i.start_ns, i.end_ns, i.ancestors
       FROM span_phase p JOIN span_index i USING (node_id) JOIN trace_roots r ON r.root_node_id = i.top_node
     ),
     root_mask AS (
       SELECT p.node_id, p.phase_mask FROM span_phase p JOIN trace_roots r ON r.root_node_id = p.node_id
     ),
     deep_anc AS (
       SELECT u.node_id, bit_or(a.phase_mask) AS anc_mask
       FROM (SELECT node_id, unnest(ancestors) AS anc FROM tsel0 WHERE len(ancestors) > 1) u
       JOIN span_phase a ON a.node_id = u.anc
       GROUP BY u.node_id
     ),
     tsel AS (
       SELECT tsel0.* EXCLUDE (ancestors),
              CASE WHEN len(tsel0.ancestors) = 0 THEN 0::BIGINT
                   WHEN len(tsel0.ancestors) = 1 THEN coalesce(root_mask.phase_mask, 0::BIGINT)
                   ELSE coalesce(deep_anc.anc_mask, 0::BIGINT) END AS anc_mask
       FROM tsel0 LEFT JOIN root_mask ON root_mask.node_id = tsel0.root_node
       LEFT JOIN deep_anc ON deep_anc.node_id = tsel0.node_id
     )
     ${selected}`,
  );
}

/**
 * The SELECT of trace_phase_ms (a CTE of root_phase_figures, over phase_sel): per unique-root trace,
 * root_node and one `<phase>_ms` column per phase, plus concurrent_phase_spans.
 *
 * Every duration is summed in integer nanoseconds (end_ns − start_ns, which is what span_index's
 * duration_ms is made of) and divided by 1e6 once per phase: an integer sum is exact, so the figure
 * does not depend on the order DuckDB's threads add the rows in (a double sum did, in its last bit,
 * and a CSV of the same run then differed between two analyses).
 */
export function tracePhasesSql(phases: readonly PhaseColumn[], options: AnalysisOptions, params: SqlParams): string {
  const granularityNs = params.bind(options.timestampGranularityMs * 1e6);
  const columns = phases.map((p) => `coalesce(g.${p.column}, 0)::DOUBLE / 1e6 AS ${p.column}`);
  const pivot = phases.map((p) => `sum(ns) FILTER (WHERE k % 64 = ${p.bit}) AS ${p.column}`);
  // One window pass finds, per span, whether it opens a group. Most (root, phase) pairs are
  // sequential (every span opens its own group, or a pair has a single span): their value is the sum
  // of the exact durations, with no second window and no per-group aggregation. Only pairs with
  // overlapping spans are grouped (second window), which at 100k requests are few.
  return `WITH ordered AS (
       SELECT k, node_id, start_ns, end_ns,
              max(end_ns) OVER (PARTITION BY k ORDER BY start_ns, end_ns, node_id
                                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
       FROM phase_sel
     ),
     flagged AS (
       SELECT *, prev_end IS NULL OR (prev_end - start_ns) <= ${granularityNs}::DOUBLE AS opens_group FROM ordered
     ),
     per_k AS (SELECT k, bool_and(opens_group) AS sequential, sum(end_ns - start_ns) AS ns FROM flagged GROUP BY k),
     grouped AS (
       SELECT f.*, sum(CASE WHEN f.opens_group THEN 1 ELSE 0 END)
                     OVER (PARTITION BY f.k ORDER BY f.start_ns, f.end_ns, f.node_id ROWS UNBOUNDED PRECEDING) AS grp
       FROM flagged f JOIN per_k USING (k) WHERE NOT per_k.sequential
     ),
     groups AS (
       SELECT k, CASE WHEN count(*) = 1 THEN any_value(end_ns - start_ns) ELSE max(end_ns) - min(start_ns) END AS ns,
              count(*) AS spans
       FROM grouped GROUP BY k, grp
       -- A sequential pair: every span is a group of one (spans = 1 keeps it out of concurrent_phase_spans).
       UNION ALL SELECT k, ns, 1 AS spans FROM per_k WHERE sequential
     ),
     per_root AS (
       SELECT k // 64 AS root_node${pivot.length > 0 ? ', ' + pivot.join(', ') : ''},
              sum(spans) FILTER (WHERE spans > 1) AS concurrent_phase_spans
       FROM groups GROUP BY k // 64
     )
     SELECT r.trace_id, r.root_node_id AS root_node${columns.length > 0 ? ',\n ' + columns.join(',\n ') : ''},
            coalesce(g.concurrent_phase_spans, 0)::BIGINT AS concurrent_phase_spans
     FROM trace_roots r LEFT JOIN per_root g ON g.root_node = r.root_node_id
     WHERE r.root_candidates = 1`;
}

/**
 * `trace_extras` (a CTE of root_figures): per unique-root trace, server TTFT, server-side ITL and output tokens, all from the
 * root's subtree.
 * - server TTFT: root start → the first `firstTokenEvent` span event; when no such event exists, the
 *   earliest end of a span named `firstTokenSpan`.
 * - ITL: mean interval between consecutive `contentEvent` events after the first one, i.e.
 *   (last − first) / (n − 1) over distinct event times (n ≥ 2); TTFT is excluded by construction.
 * - output tokens: Σ over the subtree of gen_ai.usage.output_tokens (or llm.output_tokens) per span.
 */
export function traceExtrasSql(options: AnalysisOptions, params: SqlParams): string {
  const firstEvent = params.bind(options.firstTokenEvent);
  const firstSpan = params.bind(options.firstTokenSpan);
  const contentEvent = params.bind(options.contentEvent ?? null);
  return `WITH roots AS (SELECT trace_id, root_node_id, root_start_ns FROM trace_roots WHERE root_candidates = 1),
     ev AS (
       SELECT r.trace_id, e.name, e.time_ns
       FROM event_index e JOIN roots r ON r.root_node_id = e.top_node
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
       SELECT i.top_node AS root_node, min(i.end_ns) AS first_token_span_end_ns
       FROM spans s JOIN span_index i ON i.node_id = s.rowid WHERE s.name = ${firstSpan} GROUP BY i.top_node
     )
     SELECT r.trace_id, r.root_node_id AS root_node,
            (coalesce(ev_agg.first_token_ns, sp_agg.first_token_span_end_ns) - r.root_start_ns) / 1e6 AS server_ttft_ms,
            coalesce(ev_agg.content_events, 0)::BIGINT AS content_events,
            CASE WHEN ev_agg.content_events >= 2
                 THEN (ev_agg.last_content_ns - ev_agg.first_content_ns) / 1e6 / (ev_agg.content_events - 1) END AS server_itl_ms,
            ti.output_tokens AS server_output_tokens
     FROM roots r
     LEFT JOIN ev_agg USING (trace_id)
     LEFT JOIN sp_agg ON sp_agg.root_node = r.root_node_id
     LEFT JOIN top_index ti ON ti.top_node = r.root_node_id`;
}
