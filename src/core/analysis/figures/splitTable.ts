/**
 * Metric tables whose phase-independent columns (catalog/metrics.ts) are cached apart from the
 * phase-dependent ones: the first part is kept across phase mappings, the second per mapping. Each
 * column's summary is its own aggregate over the same rows, so computing the columns in two
 * statements gives the same values; a table is reassembled in the original column order (the
 * report's key order). Used for the whole run's tables (one table) and the groups' (one per group).
 */
import type { MetricTable } from '../../report/model';
import { isPhaseIndependent } from '../catalog/metrics';
import type { FigureName } from '../catalog/figures';
import type { FigureCache } from './figureCache';

export interface SplitFigures {
  independent: FigureName;
  dependent: FigureName;
}

/** Tables by an id (a group's keyId; the whole run has one). */
export type TableEntries = Array<[string, MetricTable]>;

function pick(table: MetricTable, columns: readonly string[]): MetricTable {
  const out: MetricTable = {};
  for (const c of columns) if (table[c] !== undefined) out[c] = table[c];
  return out;
}

/**
 * The tables of `columns`, each part from the cache or computed (`compute(only)`: the tables of those
 * columns; without `only`, of all). `detail` names what else varies within the figure (the group
 * dimensions); the column lists are part of each part's stamp.
 */
export async function splitEntries(
  cache: FigureCache,
  figures: SplitFigures,
  columns: readonly string[],
  compute: (only?: readonly string[]) => Promise<TableEntries>,
  detail: readonly string[] = [],
): Promise<TableEntries> {
  const independent = columns.filter(isPhaseIndependent);
  const dependent = columns.filter((c) => !isPhaseIndependent(c));
  // Neither part stored (a first analysis): one statement for all columns, stored as the two parts.
  let whole: TableEntries | undefined;
  if (!cache.has(figures.independent, [...detail, ...independent]) && !cache.has(figures.dependent, [...detail, ...dependent])) whole = await compute();
  const part = (name: FigureName, cols: readonly string[]): Promise<TableEntries> =>
    cols.length === 0
      ? Promise.resolve([])
      : cache.get<TableEntries>(name, async () => (whole ? whole.map(([id, t]): [string, MetricTable] => [id, pick(t, cols)]) : compute(cols)), [...detail, ...cols]);
  const kept = await part(figures.independent, independent);
  const perMapping = await part(figures.dependent, dependent);
  const ids: string[] = [];
  const parts = new Map<string, MetricTable[]>();
  for (const [id, t] of [...kept, ...perMapping]) {
    const list = parts.get(id);
    if (list === undefined) {
      ids.push(id);
      parts.set(id, [t]);
    } else list.push(t);
  }
  return ids.map((id): [string, MetricTable] => {
    const tables = parts.get(id) ?? [];
    const table: MetricTable = {};
    for (const c of columns) {
      const summary = tables.map((t) => t[c]).find((s) => s !== undefined);
      if (summary !== undefined) table[c] = summary;
    }
    return [id, table];
  });
}
