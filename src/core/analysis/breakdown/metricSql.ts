import type { PhaseColumn } from './phaseSelect';

/** A builder's SQL per metric it computes (catalog/metrics.ts `source`), keyed by the metric's column. */
export type MetricSqlMap = Readonly<Record<string, (phases: readonly PhaseColumn[]) => string>>;

/** `<expr> AS <column>` for a metric the catalog computes in `relation`; a metric declared there without SQL is an error. */
export function metricSelect(map: MetricSqlMap, relation: string, column: string, phases: readonly PhaseColumn[]): string {
  const sql = map[column];
  if (sql === undefined) throw new Error(`the catalog computes ${column} in ${relation}, but its builder has no SQL for it (breakdown/*Figures.ts)`);
  return `${sql(phases)} AS ${column}`;
}
