import type { QueryRunner } from '../../store/duckStore';
import type { AnalysisOptions } from '../options';
import { query } from '../sql/statement';

interface WarningFigures extends Record<string, unknown> {
  matched_ratio_n: number;
  median_ratio: number | null;
  matched_with_envelope: number;
  negative_envelopes: number;
  most_negative_ms: number | null;
  ttft_pairs: number;
  negative_ttft: number;
  most_negative_ttft_ms: number | null;
  overlapping_phases: number;
  raw_spans: number;
  spans_without_ids: number;
  span_nodes: number;
  fallback_roots: number;
  unique_root_spans: number;
  tree_spans: number;
  outside_other_service: number;
  outside_same_service: number;
  content_issues: number;
}

/** Magnitude of a unit mistake worth naming: a median ratio this far from 1 is not latency, it is units. */
const UNIT_RATIO_LOW = 0.01;
const UNIT_RATIO_HIGH = 100;

function fmt(ms: number | null): string {
  return ms === null ? 'n/a' : `${Number(ms.toFixed(3))} ms`;
}

/**
 * Data-quality warnings on the breakdown tables (the cached figure `warnings`): unit mistakes,
 * negative envelopes, clock issues, de-duplicated spans, fallback roots, detached spans, content-event
 * issues. Everything is counted in SQL; the text only formats the counts.
 */
export async function collectBreakdownWarnings(store: QueryRunner, options: AnalysisOptions): Promise<string[]> {
  const granularityMs = options.timestampGranularityMs;
  const [f] = await query<WarningFigures>(
    store,
    'breakdown warnings',
    `WITH rb AS (
       -- One pass over request_breakdown for all request figures (FILTERed aggregates).
       SELECT count(*) FILTER (WHERE matched AND client_total_ms > 0 AND server_root_ms > 0) AS matched_ratio_n,
              median(server_root_ms / client_total_ms) FILTER (WHERE matched AND client_total_ms > 0 AND server_root_ms > 0) AS median_ratio,
              count(network_envelope_ms) FILTER (WHERE matched AND succeeded) AS matched_with_envelope,
              count(*) FILTER (WHERE matched AND succeeded AND network_envelope_ms < 0) AS negative_envelopes,
              min(network_envelope_ms) FILTER (WHERE matched AND succeeded AND network_envelope_ms < 0) AS most_negative_ms,
              count(ttft_envelope_ms) FILTER (WHERE matched AND succeeded) AS ttft_pairs,
              count(*) FILTER (WHERE matched AND succeeded AND ttft_envelope_ms < 0) AS negative_ttft,
              min(ttft_envelope_ms) FILTER (WHERE matched AND succeeded AND ttft_envelope_ms < 0) AS most_negative_ttft_ms,
              count(*) FILTER (WHERE matched AND succeeded AND unattributed_server_ms < -$1) AS overlapping_phases
       FROM request_breakdown
     ),
     -- One pass each over trace_roots and over the rooted spans (FILTERed aggregates).
     roots AS (
       SELECT count(*) FILTER (WHERE root_fallback AND root_candidates = 1) AS fallback_roots,
              coalesce(sum(span_count) FILTER (WHERE root_candidates = 1), 0) AS unique_root_spans
       FROM trace_roots
     ),
     tree AS (
       SELECT count(*) AS tree_spans FROM span_index t JOIN trace_roots r ON r.root_node_id = t.top_node
     ),
     -- Spans under a root that start before it or end after it, less asynchronous work (a CONSUMER
     -- under a PRODUCER, a FOLLOWS_FROM parent, and everything below them: docs/metrics.md §3.4),
     -- which a producer never waits for: a consumer that runs after the call ended is not skew.
     outside AS (
       SELECT t.node_id, t.ancestors, r.root_node_id
       FROM span_index t JOIN trace_roots r ON r.root_node_id = t.top_node
       WHERE t.start_ns < r.root_start_ns - $1 * 1e6 OR t.end_ns > r.root_end_ns + $1 * 1e6
     ),
     async_edge AS (
       SELECT list(c.node_id) AS nodes
       FROM (SELECT rowid AS node_id, kind, follows_from FROM spans WHERE follows_from OR kind = 'CONSUMER') cs
       JOIN span_index c ON c.node_id = cs.node_id JOIN spans ps ON ps.rowid = c.parent_node
       WHERE cs.follows_from OR ps.kind = 'PRODUCER'
     ),
     outside_kind AS (
       SELECT count(*) FILTER (WHERE other_service) AS outside_other_service,
              count(*) FILTER (WHERE NOT other_service) AS outside_same_service
       FROM (SELECT s.service IS DISTINCT FROM rs.service AS other_service
             FROM outside o JOIN spans s ON s.rowid = o.node_id JOIN spans rs ON rs.rowid = o.root_node_id, async_edge a
             WHERE NOT list_has_any(list_append(o.ancestors, o.node_id), coalesce(a.nodes, [])))
     )
     SELECT rb.*,
       (SELECT count(*) FROM spans) AS raw_spans,
       (SELECT spans_without_ids FROM span_index_counts) AS spans_without_ids,
       (SELECT count(*) FROM span_index) AS span_nodes,
       roots.fallback_roots, roots.unique_root_spans, tree.tree_spans, outside_kind.outside_other_service, outside_kind.outside_same_service,
       (SELECT count(*) FROM load_issues WHERE code ILIKE '%content%') AS content_issues
     FROM rb, roots, tree, outside_kind`,
    [granularityMs],
  );
  const warnings: string[] = [];
  if (f.median_ratio !== null && (f.median_ratio < UNIT_RATIO_LOW || f.median_ratio > UNIT_RATIO_HIGH)) {
    const direction =
      f.median_ratio < UNIT_RATIO_LOW
        ? 'server spans are ~1000× shorter than the client durations: span durations look like µs written as ns'
        : 'server spans are ~1000× longer than the client durations: span durations look like ns written as µs';
    warnings.push(
      `median server_root_ms / client_total_ms over ${f.matched_ratio_n} matched requests is ${f.median_ratio.toPrecision(3)}: ${direction} (or the reverse on the client side); check the units of both files`,
    );
  }
  if (f.negative_envelopes > 0) {
    warnings.push(
      `${f.negative_envelopes} of ${f.matched_with_envelope} matched successful requests have a negative network envelope (most negative ${fmt(f.most_negative_ms)}); kept, not clamped: a few ms usually means the root span ends before the response is flushed, large values mean wrong units or a bad join`,
    );
  }
  if (f.negative_ttft > 0) {
    warnings.push(
      `${f.negative_ttft} of ${f.ttft_pairs} matched streaming requests have a negative TTFT envelope (most negative ${fmt(f.most_negative_ttft_ms)}): the server's first-token event is later than the client's first content`,
    );
  }
  if (f.overlapping_phases > 0) {
    warnings.push(
      `${f.overlapping_phases} matched successful requests have phases that add up to more than the root span (unattributed_server_ms < −${granularityMs} ms): phases overlap each other or a phase span outlives the root`,
    );
  }
  if (f.outside_other_service > 0) {
    warnings.push(
      `${f.outside_other_service} spans on another service than their root start before or end after it by more than ${granularityMs} ms: clock skew between services, or work that outlives the request (the critical path counts each span only inside its parent)`,
    );
  }
  if (f.outside_same_service > 0) {
    warnings.push(
      `${f.outside_same_service} spans on their root's own service start before or end after it by more than ${granularityMs} ms: the root span ends before the work under it (the response is written after it ends, or the work goes on after the call returns)`,
    );
  }
  const duplicates = f.raw_spans - f.spans_without_ids - f.span_nodes;
  if (duplicates > 0) warnings.push(`${duplicates} duplicate spans (same trace and span ID) were counted once`);
  if (f.spans_without_ids > 0) warnings.push(`${f.spans_without_ids} spans without a trace or span ID were left out of the join`);
  if (f.fallback_roots > 0) {
    warnings.push(
      `${f.fallback_roots} traces have no SERVER root candidate; their span without a parent was used as the root (kind not recorded, or the top span is a CLIENT span)`,
    );
  }
  const detached = f.unique_root_spans - f.tree_spans;
  if (detached > 0) {
    warnings.push(`${detached} spans of rooted traces are not under the root (missing intermediate parent) and are not counted in any phase`);
  }
  if (f.content_issues > 0) warnings.push(`${f.content_issues} content events could not be parsed (see load issues)`);
  return warnings;
}
