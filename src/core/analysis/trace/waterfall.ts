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
  /** With a limit: how many rows the whole walk has. */
  walked?: number;
  follows_from: boolean | null;
}

/**
 * All spans of one trace (de-duplicated span_index, phases from span_phase), for the waterfall: times in ms relative to the
 * root start (or the trace's earliest span when it has no unique root), depth from the top, ordered
 * depth-first by start. The root comes first; fragments not under the root (lost parents) follow, each
 * from its own top-most span, so nothing the export holds is hidden.
 *
 * `phase` is the first phase (in options order) whose selector picks the span, also for nested spans
 * that the phase sum does not count twice: the waterfall shows what each span is.
 *
 * Spans whose parent links form a cycle (A's parent is B, B's parent is A) are under no top-most
 * span: the walk is started again from the earliest span not yet reached, until every span is shown
 * (such a span is at depth 0 with a parent in the trace; reconcile names the cycle).
 *
 * With `limit`, the first `limit` rows in that order (a page of a 500,000-span trace draws 100,000):
 * the walk's own LIMIT when it reached every span, else (a cycle) the whole waterfall, then cut.
 */
export async function traceWaterfall(
  store: QueryRunner,
  traceId: string,
  rootSpanId: string | null,
  phases: readonly PhaseColumn[],
  limit?: number,
): Promise<WaterfallSpan[]> {
  if (limit !== undefined) {
    const rows = await walkTrace(store, traceId, rootSpanId, [], limit);
    if (rows.length === 0 || Number(rows[0].walked) === (await traceSpanCount(store, traceId))) return rows.map(toWaterfallSpan(phases));
    return (await traceWaterfall(store, traceId, rootSpanId, phases)).slice(0, limit);
  }
  const seeds: string[] = [];
  for (;;) {
    const rows = await walkTrace(store, traceId, rootSpanId, seeds);
    const [left] = await query<{ span_id: string | null }>(
      store,
      'waterfall: spans not reached',
      `SELECT s.span_id FROM span_index i JOIN spans s ON s.rowid = i.node_id
       WHERE i.trace_no = (SELECT trace_no FROM trace_index WHERE trace_id = $1)
         AND s.span_id NOT IN (SELECT unnest(from_json($2, '["VARCHAR"]')))
       ORDER BY i.start_ns, s.span_id LIMIT 1`,
      [traceId, JSON.stringify(rows.map((r) => r.span_id))],
    );
    if (left?.span_id === null || left === undefined || seeds.length >= MAX_CYCLE_SEEDS) return rows.map(toWaterfallSpan(phases));
    seeds.push(left.span_id);
  }
}

/** Walks restarted for cycles at most (a trace with more cycles than this shows what was reached). */
const MAX_CYCLE_SEEDS = 100;

/** The spans of one trace the waterfall draws (span_index: one per span ID). */
export async function traceSpanCount(store: QueryRunner, traceId: string): Promise<number> {
  const [row] = await query<{ n: number }>(
    store,
    'waterfall: spans of the trace',
    'SELECT count(*) AS n FROM span_index WHERE trace_no = (SELECT trace_no FROM trace_index WHERE trace_id = $1)',
    [traceId],
  );
  return Number(row?.n ?? 0);
}

/** The walk from the tops (and `seeds`); with `limit`, its first rows and in `walked` the count of all. */
async function walkTrace(store: QueryRunner, traceId: string, rootSpanId: string | null, seeds: readonly string[], limit?: number): Promise<WaterfallRow[]> {
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0)) throw new Error(`invalid waterfall limit ${limit}`);
  return query<WaterfallRow>(
    store,
    'waterfall',
    `WITH RECURSIVE t AS (
       SELECT i.node_id, i.start_ns, i.duration_ms, i.parent_missing, ${SPAN_COLUMNS}, s.follows_from, coalesce(p.phase_mask, 0::BIGINT) AS phase_mask
       FROM span_index i JOIN spans s ON s.rowid = i.node_id LEFT JOIN span_phase p ON p.node_id = i.node_id
       WHERE i.trace_no = (SELECT trace_no FROM trace_index WHERE trace_id = $1)
     ),
     base AS (
       SELECT coalesce((SELECT start_ns FROM t WHERE span_id = $2), (SELECT min(start_ns) FROM t)) AS base_ns
     ),
     walk(span_id, depth, path) AS (
       SELECT span_id, 0, [{top: CASE WHEN span_id = $2 THEN 0 ELSE 1 END, s: start_ns, id: span_id}]
       FROM t WHERE parent_missing OR span_id IN (SELECT unnest(from_json($3, '["VARCHAR"]')))
       UNION ALL
       SELECT c.span_id, w.depth + 1, list_append(w.path, {top: 0, s: c.start_ns, id: c.span_id})
       FROM walk w JOIN t c ON c.parent_span_id = w.span_id
       -- A cycle walked from its seed comes back to the seed first (each span has one parent): never into a seed.
       WHERE w.depth < 100000 AND c.span_id NOT IN (SELECT unnest(from_json($3, '["VARCHAR"]')))
     )
     SELECT t.span_id, t.parent_span_id, t.name, t.service, t.kind,
            (t.start_ns - base.base_ns) / 1e6 AS start_ms, t.duration_ms, w.depth, t.phase_mask, t.status, t.follows_from
            ${limit !== undefined ? ', count(*) OVER () AS walked' : ''}
     FROM walk w JOIN t USING (span_id), base
     ORDER BY w.path ${limit !== undefined ? `LIMIT ${limit}` : ''}`,
    [traceId, rootSpanId, JSON.stringify(seeds)],
  );
}

function toWaterfallSpan(phases: readonly PhaseColumn[]): (r: WaterfallRow) => WaterfallSpan {
  return (r) => ({
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
    ...(r.follows_from === true ? { follows_from: true } : {}),
  });
}

function firstPhase(mask: bigint, phases: readonly PhaseColumn[]): string | null {
  for (const p of phases) if ((mask >> BigInt(p.bit)) & BigInt(1)) return p.name;
  return null;
}
