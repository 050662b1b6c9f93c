import type { DuckStore } from '../../src/core/store/duckStore';

/** Span-table figures for one source, computed in SQL the way the analysis will read them. */
export interface SpanFigures {
  spans: number;
  traces: number;
  /** Spans whose parent is absent or not in the same trace of the same file. */
  roots: number;
  services: number;
  events: number;
}

export async function spanFigures(store: DuckStore, sourceId: number): Promise<SpanFigures> {
  const [row] = await store.all<{ spans: number; traces: number; roots: number; services: number; events: number }>(
    `SELECT count(*) AS spans, count(DISTINCT trace_id) AS traces,
            count(*) FILTER (WHERE parent_span_id IS NULL OR NOT EXISTS (
              SELECT 1 FROM spans p WHERE p.source_id = s.source_id AND p.trace_id = s.trace_id AND p.span_id = s.parent_span_id)) AS roots,
            count(DISTINCT service) AS services,
            (SELECT count(*) FROM span_events e WHERE e.source_id = $1) AS events
     FROM spans s WHERE source_id = $1`,
    [sourceId],
  );
  return row;
}
