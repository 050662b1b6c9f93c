/**
 * Fixed windows over the run (by send offset): a p95 over a whole run hides a bad minute, and the
 * warm-up must be visible to be excluded. One grouped SQL pass computes every window.
 */
import type { QueryRunner, Row } from '../../store/duckStore';
import { query } from '../sql/statement';
import { ENVELOPE_COLUMN } from './metrics';
import { MATCHED_SUCCESS, type SteadyWindow } from './population';
import { emptySummary, finiteOrNull, readSummary, summarySelect } from './quantileSql';
import type { WindowFigures, WindowReport } from '../../report/model';

/** Beyond this many windows the empty ones are not listed (a bad offset would otherwise explode the report). */
const MAX_FILLED_WINDOWS = 100_000;

export interface WindowResult {
  report: WindowReport;
  /** Started requests without a (finite) offset: counted in the ledger, in no window. */
  withoutOffset: number;
}

export async function computeWindows(store: QueryRunner, sizeMs: number, steady: SteadyWindow): Promise<WindowResult> {
  if (!(Number.isFinite(sizeMs) && sizeMs > 0)) throw new Error(`window size must be a positive number of ms, got ${sizeMs}`);
  // The population filter and the finite guard are applied once in the projection (a NULL is left
  // out of every aggregate), instead of as a FILTER on each of the ten aggregates.
  const value = (c: string): string =>
    `CASE WHEN ${MATCHED_SUCCESS} AND isfinite(CAST(${c} AS DOUBLE)) THEN CAST(${c} AS DOUBLE) END AS ${c}`;
  const rows = await query(
    store,
    'windows',
    `SELECT idx,
            count(*) AS started,
            count(*) FILTER (WHERE succeeded) AS succeeded,
            ${summarySelect('client_total_ms', 'client_total_ms', undefined, true)},
            ${summarySelect(ENVELOPE_COLUMN, ENVELOPE_COLUMN, undefined, true)}
     FROM (
       SELECT CAST(floor(offset_ms / $1::DOUBLE) AS BIGINT) AS idx, succeeded, ${value('client_total_ms')}, ${value(ENVELOPE_COLUMN)}
       FROM request_breakdown WHERE isfinite(offset_ms)
     )
     GROUP BY idx ORDER BY idx`,
    [sizeMs],
  );
  const [missing] = await query<{ n: number }>(store, 'requests without offset', 'SELECT count(*) AS n FROM request_breakdown WHERE NOT coalesce(isfinite(offset_ms), false)');
  const windows = fillWindows(rows, sizeMs, steady);
  return { report: { size_ms: sizeMs, windows, worst: worstWindow(windows) }, withoutOffset: missing?.n ?? 0 };
}

function fillWindows(rows: Row[], sizeMs: number, steady: SteadyWindow): WindowFigures[] {
  if (rows.length === 0) return [];
  const byIndex = new Map<number, Row>(rows.map((r) => [Number(r.idx), r]));
  const lo = Number(rows[0].idx);
  const hi = Number(rows[rows.length - 1].idx);
  const indices = hi - lo + 1 <= MAX_FILLED_WINDOWS ? Array.from({ length: hi - lo + 1 }, (_, i) => lo + i) : [...byIndex.keys()];
  return indices.map((index) => {
    const row = byIndex.get(index);
    const start = index * sizeMs;
    const end = start + sizeMs;
    const started = finiteOrNull(row?.started) ?? 0;
    const succeeded = finiteOrNull(row?.succeeded) ?? 0;
    return {
      index,
      start_offset_ms: start,
      end_offset_ms: end,
      started,
      succeeded,
      errors: started - succeeded,
      client_total_ms: row ? readSummary(row, 'client_total_ms') : emptySummary(),
      network_envelope_ms: row ? readSummary(row, ENVELOPE_COLUMN) : emptySummary(),
      steady: (steady.startMs === null || start >= steady.startMs) && (steady.endMs === null || end <= steady.endMs),
    };
  });
}

/** The window with the highest client p95 (n ≥ 1); ties go to the earliest. */
export function worstWindow(windows: readonly WindowFigures[]): number | null {
  let worst: WindowFigures | undefined;
  for (const w of windows) {
    const p95 = w.client_total_ms.p95;
    if (w.client_total_ms.n < 1 || p95 === null) continue;
    if (worst === undefined || p95 > (worst.client_total_ms.p95 ?? -Infinity)) worst = w;
  }
  return worst ? worst.index : null;
}
