/**
 * The window series (docs/metrics.md §1 owners, per window): started/completed/scheduled rates, mean in-flight
 * from each request's [send, end) on the client's clock, errors by class, tokens per second, and
 * p50/p95/p99/mean of every owner over the window's matched successes. Two statements whatever the
 * number of windows or groups: one by send time (counts and owner quantiles), one for what is
 * assigned by another instant or by overlap (completions, tokens, scheduled sends, in-flight).
 * Grouped series add the group key columns to both GROUP BYs.
 */
import { InputError } from '../../errors';
import type { ErrorsByClass, SeriesStat, SeriesWindow } from '../../report/model';
import type { QueryRunner, Row } from '../../store/duckStore';
import { seriesOwnerColumns } from '../catalog/series';
import { MATCHED_SUCCESS } from '../figures/population';
import { finiteOrNull } from '../figures/quantileSql';
import { keyId, readKey } from '../groups/groupedTables';
import { SqlParams, sqlIdentifier } from '../sql/params';
import { query } from '../sql/statement';
import { overlapSql, windowBounds, windowsAtSql, windowsOverlappingSql, type WindowSpec } from './windowGrid';

/** Beyond this many windows only the windows with requests are listed. */
const MAX_FILLED_WINDOWS = 5000;

/**
 * Rows the series may expand the requests into (each request into every window that holds its send,
 * end and schedule, and every window its flight overlaps). A 1M-request run with 15 min windows sliding
 * by 1 min needs ≈ 61M; `--window 1h --window-slide 1ms` would need billions, so it is refused up front.
 */
const MAX_SERIES_ROWS = 100_000_000;

/** Rows the series reads: request_groups (or a projection of it with group key columns). */
export interface SeriesSource {
  /** A FROM item over request_groups; binds its own parameters into the statement's. */
  from: (params: SqlParams) => string;
  /** Group key columns of `from` (none: the whole run). */
  keys: readonly string[];
}

/** The whole run: request_breakdown itself (no dimension is read). */
export const WHOLE_RUN: SeriesSource = { from: () => 'request_breakdown', keys: [] };

const ERROR_CLASSES: ReadonlyArray<keyof ErrorsByClass> = ['rejected', 'timed_out', 'transport_failed', 'canceled', 'failed'];

/** Per group (keyId; the whole run is keyId([])), its windows in index order. */
export async function computeWindowSeries(
  store: QueryRunner,
  spec: WindowSpec,
  phaseColumns: readonly string[],
  source: SeriesSource = WHOLE_RUN,
): Promise<Map<string, SeriesWindow[]>> {
  await checkSeriesSize(store, spec);
  const owners = seriesOwnerColumns(phaseColumns.map((c) => sqlIdentifier(c)));
  const keys = source.keys.map((k) => sqlIdentifier(k));
  const keyList = keys.map((k) => `${k}, `).join('');
  const bySend = await sendFigures(store, spec, owners, source, keyList);
  const others = await otherFigures(store, spec, source, keyList);
  const [extent] = await query<{ first: number | null; last: number | null }>(
    store,
    'series extent',
    'SELECT min(offset_ms) AS first, max(offset_ms) AS last FROM request_breakdown WHERE isfinite(offset_ms)',
  );
  const indices = windowIndices(spec, [...bySend.rows, ...others.rows]);
  const scheduledKnown = others.rows.some((r) => (finiteOrNull(r.scheduled) ?? 0) > 0);
  const groups = new Map<string, { send: Map<number, Row>; other: Map<number, Row> }>();
  const slot = (row: Row): { send: Map<number, Row>; other: Map<number, Row> } => {
    const id = keyId(readKey(row, keys));
    let g = groups.get(id);
    if (g === undefined) groups.set(id, (g = { send: new Map(), other: new Map() }));
    return g;
  };
  for (const r of bySend.rows) slot(r).send.set(Number(r.idx), r);
  for (const r of others.rows) slot(r).other.set(Number(r.idx), r);
  if (keys.length === 0 && !groups.has(keyId([]))) groups.set(keyId([]), { send: new Map(), other: new Map() });
  const out = new Map<string, SeriesWindow[]>();
  for (const [id, g] of groups) {
    out.set(
      id,
      indices.filter((i) => indices.length <= MAX_FILLED_WINDOWS || g.send.has(i) || g.other.has(i)).map((i) => seriesWindow(spec, i, g.send.get(i), g.other.get(i), owners, scheduledKnown, extent)),
    );
  }
  return out;
}

/** Refuses a window step so small for this run that the series would not fit in bounded memory and time. */
async function checkSeriesSize(store: QueryRunner, spec: WindowSpec): Promise<void> {
  if (spec.kind === 'stages') return;
  const step = spec.kind === 'sliding' ? spec.slideMs : spec.sizeMs;
  const perInstant = Math.ceil(spec.sizeMs / step);
  const params = new SqlParams();
  const [per, size, by] = [params.bind(perInstant), params.bind(spec.sizeMs), params.bind(step)];
  const [row] = await query<{ rows: number | null }>(
    store,
    'window series size',
    `SELECT 3.0 * ${per}::DOUBLE * count(*) FILTER (WHERE isfinite(offset_ms))
            + coalesce(sum(ceil((client_total_ms + ${size}::DOUBLE) / ${by}::DOUBLE)) FILTER (WHERE isfinite(offset_ms + client_total_ms) AND client_total_ms > 0), 0) AS rows
     FROM request_breakdown`,
    params.values,
  );
  const rows = Number(row?.rows ?? 0);
  if (rows > MAX_SERIES_ROWS) {
    throw new InputError(
      'the window series (--window and --window-slide, or the contract\'s windows.size and windows.slide)',
      undefined,
      `a window and step that expand this run's requests into at most ${MAX_SERIES_ROWS.toLocaleString('en-US')} window rows`,
      `${Math.round(rows).toLocaleString('en-US')} rows for ${spec.sizeMs} ms windows every ${step} ms; use a longer window or slide`,
    );
  }
}

function statSelect(i: number): string {
  return `count(o${i}) AS o${i}_n, quantile_cont(o${i}, [0.5, 0.95, 0.99]) AS o${i}_q, avg(o${i}) AS o${i}_mean`;
}

async function sendFigures(store: QueryRunner, spec: WindowSpec, owners: readonly string[], source: SeriesSource, keyList: string): Promise<{ rows: Row[] }> {
  const params = new SqlParams();
  const from = source.from(params);
  const at = windowsAtSql(spec, 'offset_ms', params);
  // The population filter and the finite guard once, in the projection (NULL is left out of every aggregate).
  const values = owners.map((c, i) => `CASE WHEN ${MATCHED_SUCCESS} AND isfinite(CAST(${c} AS DOUBLE)) THEN CAST(${c} AS DOUBLE) END AS o${i}`);
  const errors = ERROR_CLASSES.map((c) => `count(*) FILTER (WHERE outcome = '${c}') AS e_${c}`);
  const rows = await query(
    store,
    'window series by send time',
    `SELECT ${keyList}idx, count(*) AS started, count(*) FILTER (WHERE succeeded) AS succeeded, ${errors.join(', ')},
            ${owners.map((_, i) => statSelect(i)).join(',\n            ')}
     FROM (SELECT ${keyList}unnest(${at}) AS idx, succeeded, outcome, ${values.join(', ')}
           FROM ${from} WHERE isfinite(offset_ms))
     GROUP BY ${keyList}idx`,
    params.values,
  );
  return { rows };
}

/**
 * A request's overlap with a window (ms) as DECIMAL(38, 12): its sum is integer arithmetic, exact in
 * any order, so a window's in_flight does not depend on DuckDB's thread order, without sorting each
 * window's rows first as an ordered sum of doubles (`sum(… ORDER BY s, e)`) must.
 * Rounding each overlap to 1e-12 ms moves it by at most 5e-13 ms (a double near 10^4 ms resolves 2e-12).
 */
const BUSY = 'DECIMAL(38, 12)';

async function otherFigures(store: QueryRunner, spec: WindowSpec, source: SeriesSource, keyList: string): Promise<{ rows: Row[] }> {
  const params = new SqlParams();
  const end = 'offset_ms + client_total_ms';
  const zero = `0::${BUSY}`;
  // Each part binds its own FROM (the group key's parameters, if any) and window parameters.
  const completed = `SELECT ${keyList}unnest(${windowsAtSql(spec, end, params)}) AS idx, 1 AS completed,
        CASE WHEN succeeded THEN coalesce(output_tokens::DOUBLE, server_output_tokens) END AS tokens, 0 AS scheduled, ${zero} AS busy_ms
      FROM ${source.from(params)} WHERE isfinite(${end})`;
  const scheduled = `SELECT ${keyList}unnest(${windowsAtSql(spec, 'scheduled_offset_ms', params)}) AS idx, 0, NULL::DOUBLE, 1, ${zero}
      FROM ${source.from(params)} WHERE isfinite(scheduled_offset_ms)`;
  const overlapping = windowsOverlappingSql(spec, 's', 'e', params);
  const overlap = overlapSql(spec, 'idx', 's', 'e', params);
  const inFlight = `SELECT ${keyList}idx, 0, NULL::DOUBLE, 0, CAST(${overlap} AS ${BUSY})
      FROM (SELECT ${keyList}s, e, unnest(${overlapping}) AS idx
            FROM (SELECT ${keyList}offset_ms AS s, offset_ms + client_total_ms AS e FROM ${source.from(params)}
                  WHERE isfinite(offset_ms + client_total_ms) AND client_total_ms > 0))`;
  // Tokens and counts are whole numbers: their double sums are exact in any order.
  const rows = await query(
    store,
    'window series by end, schedule and overlap',
    `SELECT ${keyList}idx, sum(completed) AS completed, sum(tokens) AS tokens, count(tokens) AS token_rows, sum(scheduled) AS scheduled,
            CAST(sum(busy_ms) AS DOUBLE) AS busy_ms
     FROM (${completed} UNION ALL ${scheduled} UNION ALL ${inFlight})
     GROUP BY ${keyList}idx`,
    params.values,
  );
  return { rows };
}

/** Every window index to list: all stages, else the windows from the first to the last with data (never before 0). */
function windowIndices(spec: WindowSpec, rows: readonly Row[]): number[] {
  if (spec.kind === 'stages') return spec.stages.map((_, i) => i);
  const seen = rows.map((r) => Number(r.idx)).filter((i) => Number.isFinite(i) && i >= 0);
  if (seen.length === 0) return [];
  const lo = seen.reduce((a, b) => Math.min(a, b));
  const hi = seen.reduce((a, b) => Math.max(a, b));
  if (hi - lo + 1 <= MAX_FILLED_WINDOWS) return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  return [...new Set(seen)].sort((a, b) => a - b);
}

function readStat(row: Row | undefined, i: number): SeriesStat {
  const n = finiteOrNull(row?.[`o${i}_n`]) ?? 0;
  const q = row?.[`o${i}_q`];
  const qs = Array.isArray(q) ? q : [];
  return {
    n,
    p50: n > 0 ? finiteOrNull(qs[0]) : null,
    p95: n > 0 ? finiteOrNull(qs[1]) : null,
    p99: n > 0 ? finiteOrNull(qs[2]) : null,
    mean: n > 0 ? finiteOrNull(row?.[`o${i}_mean`]) : null,
  };
}

function seriesWindow(
  spec: WindowSpec,
  index: number,
  send: Row | undefined,
  other: Row | undefined,
  owners: readonly string[],
  scheduledKnown: boolean,
  extent: { first: number | null; last: number | null } | undefined,
): SeriesWindow {
  const { start, end, label } = windowBounds(spec, index);
  const seconds = (end - start) / 1000;
  const count = (v: unknown): number => finiteOrNull(v) ?? 0;
  const started = count(send?.started);
  const first = finiteOrNull(extent?.first);
  const last = finiteOrNull(extent?.last);
  const errors = Object.fromEntries(ERROR_CLASSES.map((c) => [c, count(send?.[`e_${c}`])])) as unknown as ErrorsByClass;
  const ownerStats: Record<string, SeriesStat> = {};
  owners.forEach((c, i) => (ownerStats[c] = readStat(send, i)));
  return {
    index,
    label,
    start_offset_ms: start,
    end_offset_ms: end,
    // Partial: the sends cover less than 99 % of the window (its rates would read low).
    partial: first === null || last === null || Math.min(end, last) - Math.max(start, first) < 0.99 * (end - start),
    scheduled_per_s: scheduledKnown ? count(other?.scheduled) / seconds : null,
    started_per_s: started / seconds,
    completed_per_s: count(other?.completed) / seconds,
    in_flight: count(other?.busy_ms) / (end - start),
    started,
    succeeded: count(send?.succeeded),
    errors,
    tokens_per_s: count(other?.token_rows) > 0 ? count(other?.tokens) / seconds : null,
    owners: ownerStats,
  };
}
