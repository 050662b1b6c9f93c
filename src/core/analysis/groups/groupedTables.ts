/**
 * computeQuantileTable (figures/quantileSql.ts) for every group at once: the same select list (n,
 * p50/p95/p99 in one quantile_cont, mean, min, max, the envelope's negatives) with a GROUP BY over the
 * group key columns, so a report with ten groups costs one scan per population, not ten.
 */
import type { MetricTable } from '../../report/model';
import type { Params, QueryRunner, Row } from '../../store/duckStore';
import { finiteExpr, negativeSelect, readSummary, summarySelect, withNegatives } from '../figures/quantileSql';
import { sqlIdentifier } from '../sql/params';
import { query } from '../sql/statement';

/** A group's key: the value of each group column, in order (null: the dimension has no value). */
export type GroupKey = ReadonlyArray<string | null>;

/** The string a group is found by in maps (JSON of its key). */
export function keyId(key: GroupKey): string {
  return JSON.stringify(key);
}

export interface GroupedTableRequest {
  /** A FROM item (a relation name or a parenthesised SELECT with an alias) exposing the key columns. */
  from: string;
  /** The key columns (plain identifiers of `from`). */
  keys: readonly string[];
  columns: readonly string[];
  where?: string;
  params?: Params;
  envelopeColumn?: string;
}

/** Reads the key columns of a grouped row. */
export function readKey(row: Row, keys: readonly string[]): GroupKey {
  return keys.map((k) => {
    const v = row[k];
    return v === null || v === undefined ? null : String(v);
  });
}

/** One metric table per group (every requested column, n = 0 included), by keyId. */
export async function computeGroupedTables(store: QueryRunner, request: GroupedTableRequest): Promise<Map<string, MetricTable>> {
  const columns = request.columns.map((c) => sqlIdentifier(c));
  const keys = request.keys.map((k) => sqlIdentifier(k));
  const out = new Map<string, MetricTable>();
  if (columns.length === 0) return out;
  const items = columns.map((c) => summarySelect(c, c, undefined, true));
  const envelope = request.envelopeColumn !== undefined && columns.includes(request.envelopeColumn) ? request.envelopeColumn : undefined;
  if (envelope !== undefined) items.push(negativeSelect(envelope));
  const inner = `SELECT ${[...keys, ...columns.map((c) => `${finiteExpr(c)} AS "${c}"`)].join(', ')} FROM ${request.from}${request.where ? ` WHERE ${request.where}` : ''}`;
  const sql = `SELECT ${[...keys, ...items].join(', ')} FROM (${inner}) AS f GROUP BY ${keys.join(', ')}`;
  const rows = await query(store, 'grouped quantiles', sql, request.params);
  for (const row of rows) {
    const table: MetricTable = {};
    for (const c of columns) table[c] = readSummary(row, c);
    if (envelope !== undefined) table[envelope] = withNegatives(table[envelope], row);
    out.set(keyId(readKey(row, keys)), table);
  }
  return out;
}
