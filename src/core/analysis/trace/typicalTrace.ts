/**
 * "Compare with a typical trace": beside a slow trace, the matched success of the same route whose
 * client total is the median of that route's others, with per-phase and per-span-name deltas.
 */
import type { QueryRunner } from '../../store/duckStore';
import { ensureBreakdown } from '../breakdown/pipeline';
import type { AnalysisOptions } from '../options';
import { compareTraces } from './compare';
import { readTraceModel } from './traceModel';
import type { TraceComparison, TraceModel } from './types';

/** The typical trace's ID and the group it was picked from. */
export interface TypicalPick {
  trace_id: string;
  group: string;
  /** Matched successes in the group, the slow trace included. */
  group_size: number;
}

interface PickRow extends Record<string, unknown> {
  trace_id: string | null;
  group_kind: 'route' | 'root' | null;
  group_value: string | null;
  group_size: number;
}

/**
 * The route is the client's `route` tag when the request has one, else the server root's span name
 * (the same operation on the server). Among the group's other matched successes ordered by
 * client_total_ms (ties by row order), the one at position ⌊(n−1)/2⌋: the lower median, so the pick
 * is a real trace, never an interpolation. Undefined when the group has no other member.
 */
export async function pickTypicalTrace(store: QueryRunner, traceId: string, options: AnalysisOptions): Promise<TypicalPick | undefined> {
  await ensureBreakdown(store, options);
  const [row] = await store.all<PickRow>(
    `WITH me AS (
       SELECT b.route, rb.root_name FROM request_breakdown b LEFT JOIN root_breakdown rb ON rb.trace_id = b.trace_id
       WHERE b.trace_id = $1 ORDER BY b.matched DESC, b.row_id LIMIT 1
     ),
     key AS (SELECT CASE WHEN route IS NOT NULL THEN 'route' WHEN root_name IS NOT NULL THEN 'root' END AS kind,
                    coalesce(route, root_name) AS value FROM me),
     g AS (
       SELECT b.trace_id, b.client_total_ms, b.row_id
       FROM request_breakdown b LEFT JOIN root_breakdown rb ON rb.trace_id = b.trace_id, key
       WHERE b.matched AND b.succeeded AND b.client_total_ms IS NOT NULL
         AND ((key.kind = 'route' AND b.route = key.value) OR (key.kind = 'root' AND b.route IS NULL AND rb.root_name = key.value))
     ),
     others AS (SELECT *, row_number() OVER (ORDER BY client_total_ms, row_id) - 1 AS pos, count(*) OVER () AS n FROM g WHERE trace_id <> $1)
     SELECT (SELECT trace_id FROM others WHERE pos = (n - 1) // 2) AS trace_id,
            (SELECT kind FROM key) AS group_kind, (SELECT value FROM key) AS group_value, (SELECT count(*) FROM g) AS group_size`,
    [traceId],
  );
  if (row === undefined || row.trace_id === null || row.group_kind === null || row.group_value === null) return undefined;
  const group = row.group_kind === 'route' ? `route ${JSON.stringify(row.group_value)}` : `root span ${JSON.stringify(row.group_value)}`;
  return { trace_id: row.trace_id, group, group_size: row.group_size };
}

/** The comparison of `slow` with its typical trace, or undefined when the route has no other matched success. */
export async function compareWithTypical(store: QueryRunner, slow: TraceModel, options: AnalysisOptions): Promise<TraceComparison | undefined> {
  const pick = await pickTypicalTrace(store, slow.trace_id, options);
  if (pick === undefined) return undefined;
  const typical = await readTraceModel(store, pick.trace_id, options);
  if (typical === undefined) return undefined;
  return { group: pick.group, group_size: pick.group_size, typical, ...compareTraces(slow, typical) };
}
