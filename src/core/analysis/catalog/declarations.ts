/**
 * The vocabulary of the derived-relation catalog (relations.ts): what a relation and a column
 * declaration say, and the helpers the declarations are written with.
 */
import { metricDecl, type MetricRelation } from './metrics';
import type { LOADED_TABLES } from '../../store/schema';

/** The tables the readers fill, declared with their schema (store/schema.ts). The analysis reads them and never writes them. */
export { LOADED_TABLES } from '../../store/schema';
export type LoadedTable = (typeof LOADED_TABLES)[number];

/** The options a derived relation can depend on (the rest only shape figures that are never stored). */
export type DerivedOption = 'phases' | 'root' | 'timestampGranularityMs' | 'firstTokenEvent' | 'firstTokenSpan' | 'contentEvent' | 'joinKey';

/** The option that is the phase mapping: left out of phase-independent stamps (stamps.ts). */
export const PHASE_OPTION: DerivedOption = 'phases';

export type ColumnType = 'BIGINT' | 'INTEGER' | 'DOUBLE' | 'BOOLEAN' | 'VARCHAR' | 'BIGINT[]';

export interface ColumnDecl {
  name: string;
  /** DuckDB's name of the type (duckdb_columns().data_type); a ColumnType for derived columns. */
  type: string;
  meaning: string;
  /** The value depends on the phase mapping (a phase column, a sum over phases). */
  phase?: boolean;
}

/** Stands for the `<phase>_ms DOUBLE` columns, one per phase in options order. */
export const PHASE_COLUMNS = { phases: true } as const;

/** Stands for every column of a loaded table, in its order (a view that exposes them unchanged). */
export interface LoadedColumns {
  loaded: LoadedTable;
}

/** Stands for every column of another derived relation, in its order. */
export interface RelationColumns {
  relation: string;
}

/** Stands for the metric columns the relation holds (catalog/metrics.ts metricsHeldBy), phases included. */
export interface MetricColumns {
  metrics: MetricRelation;
}

export type ColumnEntry = ColumnDecl | typeof PHASE_COLUMNS | LoadedColumns | RelationColumns | MetricColumns;

export interface RelationDecl {
  name: string;
  kind: 'table' | 'view';
  stage: 'index' | 'breakdown' | 'figures' | 'groups';
  meaning: string;
  /** Loaded tables and derived relations its SQL reads. */
  reads: ReadonlyArray<LoadedTable | string>;
  /** The options its SQL reads; what its reads depend on is inherited through their stamps. */
  options: readonly DerivedOption[];
  columns: readonly ColumnEntry[];
}

export function col(name: string, type: ColumnType, meaning: string, phase = false): ColumnDecl {
  return phase ? { name, type, meaning, phase } : { name, type, meaning };
}

/** A metric column: DOUBLE, with the metric's meaning and phase dependence from metrics.ts. */
export function metric(name: string): ColumnDecl {
  const decl = metricDecl(name);
  if (decl === undefined) throw new Error(`relations.ts names the metric ${name}, which metrics.ts does not declare`);
  const meaning = typeof decl.definition === 'string' ? decl.definition : `${name} (see metrics.ts)`;
  return col(name, 'DOUBLE', meaning, decl.phaseDependent);
}

/** The meaning of a node_id column. */
export const NODE = 'rowid in spans of the kept copy of a span (the lowest rowid of its (trace_id, span_id))';
