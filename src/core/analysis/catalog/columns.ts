/**
 * The columns of a catalog relation under a phase mapping: the declarations of relations.ts with the
 * phase columns, and a view's loaded or derived columns, expanded. Also the names a phase column must
 * not take (any other column of the breakdown views).
 */
import { SCHEMA_SQL } from '../../store/schema';
import { metricsHeldBy } from './metrics';
import { LOADED_TABLES, metric, PHASE_COLUMNS, RELATIONS, type ColumnDecl, type ColumnEntry, type LoadedTable, type RelationDecl } from './relations';

const BY_NAME = new Map(RELATIONS.map((r) => [r.name, r]));

export function relationDecl(name: string): RelationDecl {
  const decl = BY_NAME.get(name);
  if (decl === undefined) throw new Error(`no derived relation named ${name} in the catalog`);
  return decl;
}

export function isLoadedTable(name: string): name is LoadedTable {
  return (LOADED_TABLES as readonly string[]).includes(name);
}

/**
 * The loaded tables' columns as store/schema.ts declares them (names and declared types, constraints
 * dropped): the one declaration of the loaded tables, read rather than restated. A test checks the
 * result against the tables DuckDB creates from it.
 */
export function schemaColumns(table: LoadedTable): ColumnDecl[] {
  const block = new RegExp(`CREATE TABLE IF NOT EXISTS ${table} \\(([\\s\\S]*?)\\n\\);`).exec(SCHEMA_SQL);
  if (block === null) throw new Error(`store/schema.ts declares no table ${table}`);
  return block[1]
    .split('\n')
    .map((line) => line.replace(/--.*$/, '').trim().replace(/,$/, ''))
    .filter((line) => line !== '')
    .map((line) => {
      const m = /^([a-z_][a-z0-9_]*)\s+(.+)$/.exec(line);
      if (m === null) throw new Error(`store/schema.ts: cannot read the column line '${line}' of ${table}`);
      return { name: m[1], type: m[2].replace(/\s+(PRIMARY KEY|NOT NULL)\b/g, ''), meaning: `${table}.${m[1]} (store/schema.ts)` };
    });
}

/** Where a view's loaded columns come from: the schema declaration, or the tables of a live database. */
export type LoadedColumnSource = (table: LoadedTable) => readonly ColumnDecl[];

function isPhaseSlot(entry: ColumnEntry): entry is typeof PHASE_COLUMNS {
  return entry === PHASE_COLUMNS;
}

/** A relation's columns in order, with `<phase>_ms` for each phase column and a view's inherited columns expanded. */
export function columnsOf(name: string, phaseColumns: readonly string[], loaded: LoadedColumnSource = schemaColumns): ColumnDecl[] {
  const phaseColumn = (c: string): ColumnDecl => ({ name: c, type: 'DOUBLE', meaning: `phase ${c.replace(/_ms$/, '')}`, phase: true });
  return relationDecl(name).columns.flatMap((entry): readonly ColumnDecl[] => {
    if (isPhaseSlot(entry)) return phaseColumns.map(phaseColumn);
    if ('metrics' in entry) return metricsHeldBy(entry.metrics, phaseColumns).map((c) => (phaseColumns.includes(c) ? phaseColumn(c) : metric(c)));
    if ('loaded' in entry) return loaded(entry.loaded);
    if ('relation' in entry) return columnsOf(entry.relation, phaseColumns, loaded);
    return [entry];
  });
}

/** The views whose columns the metric tables read, and so the names no phase column may take. */
const BREAKDOWN_VIEWS = ['request_breakdown', 'root_breakdown'];

/** Every column of the breakdown views except the phase columns: a phase named `x` must not make `x_ms` one of them. */
export const RESERVED_COLUMNS: ReadonlySet<string> = new Set(BREAKDOWN_VIEWS.flatMap((v) => columnsOf(v, []).map((c) => c.name)));
