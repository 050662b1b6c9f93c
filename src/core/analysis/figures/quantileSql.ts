/**
 * Quantile tables computed inside DuckDB: one scan per population, whatever the number of metrics.
 * Every summary carries its n; quantiles are quantile_cont (linear interpolation at (n−1)·p, numpy's
 * default and k6's Trend percentiles).
 */
import type { Params, QueryRunner, Row } from '../../store/duckStore';
import { query } from '../sql/statement';
import type { EnvelopeSummary, QuantileSummary } from '../../report/model';
import { sqlIdentifier } from '../sql/params';

/** A JSON-safe number: NaN, ±Infinity and non-numbers become null (the report never carries them). */
export function finiteOrNull(value: unknown): number | null {
  if (typeof value === 'bigint') return Number(value);
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function emptySummary(): QuantileSummary {
  return { n: 0, p50: null, p95: null, p99: null, mean: null, min: null, max: null };
}

/** The column as a finite DOUBLE or NULL, so a stray NaN/Infinity never reaches a quantile. */
export function finiteExpr(column: string): string {
  const c = `CAST("${sqlIdentifier(column)}" AS DOUBLE)`;
  return `CASE WHEN isfinite(${c}) THEN ${c} END`;
}

/**
 * Select-list items computing n, p50/p95/p99 (one quantile_cont call), mean, min and max of a column.
 * `prefiltered` says the column is already a finite DOUBLE (computeQuantileTable projects it once,
 * instead of re-evaluating the guard in each of the five aggregates).
 */
export function summarySelect(column: string, alias: string = column, filter?: string, prefiltered = false): string {
  const e = prefiltered ? `"${sqlIdentifier(column)}"` : finiteExpr(column);
  const a = sqlIdentifier(alias);
  // A FILTER clause lets several populations share one scan (e.g. per-window figures).
  const f = filter ? ` FILTER (WHERE ${filter})` : '';
  return [
    `count(${e})${f} AS "${a}__n"`,
    `quantile_cont(${e}, [0.5, 0.95, 0.99])${f} AS "${a}__q"`,
    `avg(${e})${f} AS "${a}__mean"`,
    `min(${e})${f} AS "${a}__min"`,
    `max(${e})${f} AS "${a}__max"`,
  ].join(', ');
}

/** Reads back what summarySelect produced. */
export function readSummary(row: Row, alias: string): QuantileSummary {
  const n = finiteOrNull(row[`${alias}__n`]) ?? 0;
  const q = row[`${alias}__q`];
  const qs = Array.isArray(q) ? q : [];
  return {
    n,
    p50: n > 0 ? finiteOrNull(qs[0]) : null,
    p95: n > 0 ? finiteOrNull(qs[1]) : null,
    p99: n > 0 ? finiteOrNull(qs[2]) : null,
    mean: n > 0 ? finiteOrNull(row[`${alias}__mean`]) : null,
    min: n > 0 ? finiteOrNull(row[`${alias}__min`]) : null,
    max: n > 0 ? finiteOrNull(row[`${alias}__max`]) : null,
  };
}

/** Extra select items for the never-clamped envelope: count and most negative value below zero. */
export function negativeSelect(column: string): string {
  const e = `"${sqlIdentifier(column)}"`;
  return `count(*) FILTER (WHERE ${e} < 0) AS "neg__count", min(${e}) FILTER (WHERE ${e} < 0) AS "neg__min"`;
}

export interface QuantileTableRequest {
  /** Source table (request_breakdown, root_breakdown). */
  table: string;
  /** Optional trusted projection over the table, e.g. `* REPLACE (… AS client_ttfb_ms)`. */
  projection?: string;
  columns: readonly string[];
  /** A WHERE clause over trusted column names; values go through `params`. */
  where?: string;
  params?: Params;
  /** Column to summarise as an EnvelopeSummary (negatives counted), when present in `columns`. */
  envelopeColumn?: string;
}

/**
 * Summarises every column of a population in one SQL pass. Returns all requested columns (n = 0 when
 * the population has no value), so callers decide whether to drop empty metrics.
 */
export async function computeQuantileTable(
  store: QueryRunner,
  request: QuantileTableRequest,
): Promise<Record<string, QuantileSummary | EnvelopeSummary>> {
  const columns = request.columns.map((c) => sqlIdentifier(c));
  if (columns.length === 0) return {};
  const items = columns.map((c) => summarySelect(c, c, undefined, true));
  const envelope = request.envelopeColumn !== undefined && columns.includes(request.envelopeColumn) ? request.envelopeColumn : undefined;
  if (envelope !== undefined) items.push(negativeSelect(envelope));
  const source = `"${sqlIdentifier(request.table)}"`;
  const from = request.projection ? `(SELECT ${request.projection} FROM ${source}) AS t` : source;
  // Filter the population and make every column a finite DOUBLE once, then aggregate in one pass.
  const inner = `SELECT ${columns.map((c) => `${finiteExpr(c)} AS "${c}"`).join(', ')} FROM ${from}${request.where ? ` WHERE ${request.where}` : ''}`;
  const sql = `SELECT ${items.join(', ')} FROM (${inner}) AS f`;
  const [row] = await query(store, `quantiles of ${request.table}`, sql, request.params);
  const table: Record<string, QuantileSummary | EnvelopeSummary> = {};
  for (const c of columns) table[c] = readSummary(row ?? {}, c);
  if (envelope !== undefined) table[envelope] = withNegatives(table[envelope], row ?? {});
  return table;
}

export function withNegatives(summary: QuantileSummary, row: Row): EnvelopeSummary {
  const count = finiteOrNull(row['neg__count']) ?? 0;
  return {
    ...summary,
    negative: {
      count,
      share: summary.n > 0 ? count / summary.n : 0,
      most_negative_ms: count > 0 ? finiteOrNull(row['neg__min']) : null,
    },
  };
}
