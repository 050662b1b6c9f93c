/**
 * `derived_meta(relation, stamp)`: the stamp each derived relation was built with (stamps.ts), plus one
 * row for the loaded tables (LOADED_TABLES_ROW) that every reload changes. Reads and writes of it, and
 * of what a stored relation looks like, in a few statements per analysis.
 */
import type { QueryRunner } from '../../store/duckStore';
import { SqlParams } from '../sql/params';
import { exec, query } from '../sql/statement';
import { RELATIONS } from './relations';

export const META_TABLE = 'derived_meta';

/** derived_meta's row for the loaded tables: a new value each time their rows are deleted (clearLoadedRun). */
export const LOADED_TABLES_ROW = '(loaded tables)';

/**
 * Relations earlier versions kept and this one does not: dropped the first time this version
 * analyses a database, so they never pass for current.
 */
export const RETIRED_RELATIONS = ['span_index_meta', 'trace_roots_meta', 'breakdown_meta'] as const;

/**
 * What the analysis derives from the loaded run: the sources listing, the row counts and the highest
 * rowids (readers only append), and the value of the loaded-tables row, which changes on a reload
 * (deleting rows and loading the same files again gives the same counts and rowids, not the same rows).
 */
const LOADED_RUN_SQL = `(SELECT coalesce(string_agg(source_id || '|' || path || '|' || coalesce(bytes, -1) || '|' || coalesce(records, -1), ';' ORDER BY source_id), '') FROM sources) AS sources_key,
  (SELECT count(*) FROM spans) AS span_rows, (SELECT coalesce(max(rowid), -1) FROM spans) AS span_max_rowid,
  (SELECT count(*) FROM span_events) AS event_rows,
  (SELECT count(*) FROM client_requests) AS client_rows, (SELECT coalesce(max(rowid), -1) FROM client_requests) AS client_max_rowid`;

/** A stored relation: its kind and how many columns it has. */
export interface StoredRelation {
  kind: 'table' | 'view';
  columnCount: number;
}

export interface StoredState {
  /** relation → stamp, as derived_meta holds them. */
  stamps: Map<string, string>;
  /** The loaded tables' stamp inputs, as one string. */
  loaded: string;
  /** Every catalog, retired and loaded relation that exists, by name. */
  relations: Map<string, StoredRelation>;
}

/**
 * Reads derived_meta, the loaded run's stamp inputs and the stored relations. Creates derived_meta
 * when absent, and then first drops the relations of earlier versions (RETIRED_RELATIONS).
 */
export async function readStoredState(store: QueryRunner, loadedTables: readonly string[]): Promise<StoredState> {
  const names = new SqlParams();
  const wanted = [META_TABLE, ...RELATIONS.map((r) => r.name), ...RETIRED_RELATIONS, ...loadedTables];
  const tables = names.inList('table_name', wanted);
  const views = names.inList('view_name', wanted);
  // duckdb_tables()/duckdb_views() answer in about a millisecond; listing the columns themselves
  // (duckdb_columns()) cost 10–30 ms on every re-analysis, and the stamp already names the columns.
  const rows = await query<{ name: string; kind: 'table' | 'view'; columns: number }>(
    store,
    'stored relations',
    `SELECT table_name AS name, 'table' AS kind, column_count AS columns FROM duckdb_tables()
     WHERE schema_name = 'main' AND database_name = current_database() AND NOT temporary AND ${tables}
     UNION ALL
     SELECT view_name, 'view', column_count FROM duckdb_views()
     WHERE schema_name = 'main' AND database_name = current_database() AND NOT temporary AND NOT internal AND ${views}`,
    names.values,
  );
  const relations = new Map(rows.map((r) => [r.name, { kind: r.kind, columnCount: Number(r.columns) }]));
  if (!relations.has(META_TABLE)) {
    for (const name of RETIRED_RELATIONS) {
      const stored = relations.get(name);
      if (stored !== undefined) await exec(store, `drop ${name}`, `DROP ${stored.kind === 'view' ? 'VIEW' : 'TABLE'} ${name}`);
      relations.delete(name);
    }
    await exec(store, 'create derived_meta', `CREATE TABLE ${META_TABLE} (relation VARCHAR, stamp VARCHAR)`);
  }
  const [state] = await query<Record<string, unknown> & { meta: Array<{ relation: string; stamp: string }> | null }>(
    store,
    'derived_meta and the loaded run',
    `SELECT (SELECT list({relation: relation, stamp: stamp}) FROM ${META_TABLE}) AS meta, ${LOADED_RUN_SQL}`,
  );
  const stamps = new Map((state.meta ?? []).map((m) => [m.relation, m.stamp]));
  const { meta: _meta, ...loaded } = state;
  const loadedKey = JSON.stringify({ ...loaded, generation: stamps.get(LOADED_TABLES_ROW) ?? null });
  stamps.delete(LOADED_TABLES_ROW);
  return { stamps, loaded: loadedKey, relations };
}

/** Forgets the stamps of `relations` (before they are rebuilt: a half-built relation is never taken as current). */
export async function forgetStamps(store: QueryRunner, relations: readonly string[]): Promise<void> {
  if (relations.length === 0) return;
  const params = new SqlParams();
  await exec(store, 'forget stamps', `DELETE FROM ${META_TABLE} WHERE ${params.inList('relation', relations)}`, params.values);
}

/** Records the stamps of relations just built. */
export async function recordStamps(store: QueryRunner, stamps: ReadonlyArray<[string, string]>): Promise<void> {
  if (stamps.length === 0) return;
  const params = stamps.flat();
  const rows = stamps.map((_, i) => `($${2 * i + 1}, $${2 * i + 2})`);
  await exec(store, 'record stamps', `INSERT INTO ${META_TABLE} VALUES ${rows.join(', ')}`, params);
}

/**
 * Marks the loaded tables as changed: called where loaded rows are deleted (a reload), since the same
 * files loaded again give the same counts and rowids but not the same rows at each rowid. Every stamp
 * changes with it, so everything derived is rebuilt.
 */
export async function markLoadedTablesChanged(store: QueryRunner): Promise<void> {
  await exec(store, 'create derived_meta', `CREATE TABLE IF NOT EXISTS ${META_TABLE} (relation VARCHAR, stamp VARCHAR)`);
  await exec(store, 'forget the loaded tables', `DELETE FROM ${META_TABLE} WHERE relation = $1`, [LOADED_TABLES_ROW]);
  await exec(store, 'mark the loaded tables', `INSERT INTO ${META_TABLE} VALUES ($1, uuid()::VARCHAR)`, [LOADED_TABLES_ROW]);
}
