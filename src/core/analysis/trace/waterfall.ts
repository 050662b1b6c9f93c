import type { QueryRunner } from '../../store/duckStore';
import { query } from '../sql/statement';
import type { PhaseColumn } from '../breakdown/phaseSelect';
import type { WaterfallSpan } from '../../report/model';
import { SPAN_COLUMNS } from '../index/spanIndex';

interface WaterfallRow extends Record<string, unknown> {
  span_id: string;
  parent_span_id: string | null;
  name: string | null;
  service: string | null;
  kind: string | null;
  start_ms: number | null;
  duration_ms: number | null;
  depth: number;
  phase_mask: number | string;
  status: string | null;
}

/**
 * All spans of one trace (de-duplicated span_index, phases from span_phase), for the waterfall: times in ms relative to the
 * root start (or the trace's earliest span when it has no unique root), depth from the top, ordered
 * depth-first by start. The root comes first; fragments not under the root (lost parents) follow, each
 * from its own top-most span, so nothing the export holds is hidden.
 *
 * `phase` is the first phase (in options order) whose selector picks the span, also for nested spans
 * that the phase sum does not count twice: the waterfall shows what each span is.
 */
export async function traceWaterfall(
  store: QueryRunner,
  traceId: string,
  rootSpanId: string | null,
  phases: readonly PhaseColumn[],
): Promise<WaterfallSpan[]> {
  const rows = await query<WaterfallRow>(
    store,
    'waterfall',
    `WITH RECURSIVE t AS (
       SELECT i.node_id, i.start_ns, i.duration_ms, i.parent_missing, ${SPAN_COLUMNS}, coalesce(p.phase_mask, 0::BIGINT) AS phase_mask
       FROM span_index i JOIN spans s ON s.rowid = i.node_id LEFT JOIN span_phase p ON p.node_id = i.node_id
       WHERE i.trace_no = (SELECT trace_no FROM trace_index WHERE trace_id = $1)
     ),
     base AS (
       SELECT coalesce((SELECT start_ns FROM t WHERE span_id = $2), (SELECT min(start_ns) FROM t)) AS base_ns
     ),
     walk(span_id, depth, path) AS (
       SELECT span_id, 0, [{top: CASE WHEN span_id = $2 THEN 0 ELSE 1 END, s: start_ns, id: span_id}]
       FROM t WHERE parent_missing
       UNION ALL
       SELECT c.span_id, w.depth + 1, list_append(w.path, {top: 0, s: c.start_ns, id: c.span_id})
       FROM walk w JOIN t c ON c.parent_span_id = w.span_id
       WHERE w.depth < 100000
     )
     SELECT t.span_id, t.parent_span_id, t.name, t.service, t.kind,
            (t.start_ns - base.base_ns) / 1e6 AS start_ms, t.duration_ms, w.depth, t.phase_mask, t.status
     FROM walk w JOIN t USING (span_id), base
     ORDER BY w.path`,
    [traceId, rootSpanId],
  );
  return rows.map((r) => ({
    span_id: r.span_id,
    parent_span_id: r.parent_span_id,
    name: r.name ?? '',
    service: r.service,
    kind: r.kind ?? 'UNSPECIFIED',
    start_ms: r.start_ms ?? 0,
    duration_ms: r.duration_ms ?? 0,
    depth: r.depth,
    phase: firstPhase(BigInt(r.phase_mask), phases),
    status: r.status ?? 'UNSET',
  }));
}

function firstPhase(mask: bigint, phases: readonly PhaseColumn[]): string | null {
  for (const p of phases) if ((mask >> BigInt(p.bit)) & BigInt(1)) return p.name;
  return null;
}
