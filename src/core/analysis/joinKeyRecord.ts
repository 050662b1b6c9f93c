/**
 * The join key a database's derived tables were built with, kept as one row of derived_meta beside
 * the stamps. The stamps are hashes (they tell a stale key from a current one, not which key it was),
 * so without this row a later `sql`, `export`, `compare` or `analyze --db` given no --join-by would
 * rebuild a request-ID run by trace ID. Written whenever the client index is rebuilt.
 */
import { quotePath } from '../store/databaseFile';
import { DuckStore, type QueryRunner, type StoreOptions } from '../store/duckStore';
import { META_TABLE } from './catalog/derivedMeta';
import { DEFAULT_REQUEST_ID_ATTRIBUTE, type JoinKey } from './options';
import { exec, query } from './sql/statement';

/** derived_meta's row holding the join key as JSON (`{"by":"trace_id"}` or `{"by":"request_id","attribute":…}`). */
export const JOIN_KEY_ROW = '(join key)';

/** Records `key` (undefined: by trace ID) as the key the derived tables were built with. */
export async function recordJoinKey(store: QueryRunner, key: JoinKey | undefined): Promise<void> {
  const value: JoinKey = key ?? { by: 'trace_id' };
  await exec(store, 'forget the join key', `DELETE FROM ${META_TABLE} WHERE relation = $1`, [JOIN_KEY_ROW]);
  await exec(store, 'record the join key', `INSERT INTO ${META_TABLE} VALUES ($1, $2)`, [JOIN_KEY_ROW, JSON.stringify(value)]);
}

/**
 * The join key recorded in the database whose main schema is `database` (the current one when
 * unset), or undefined when none is (a database not analysed yet, or analysed by a release before
 * this row). A row that does not parse as a key is taken as no record: the stamps still decide.
 */
export async function readJoinKey(store: QueryRunner, database?: string): Promise<JoinKey | undefined> {
  const db = database === undefined ? 'current_database()' : '$1';
  const params = database === undefined ? [] : [database];
  const [meta] = await query<{ n: number }>(
    store,
    'derived_meta exists',
    `SELECT count(*) AS n FROM duckdb_tables() WHERE database_name = ${db} AND schema_name = 'main' AND table_name = '${META_TABLE}'`,
    params,
  );
  if (Number(meta?.n ?? 0) === 0) return undefined;
  const table = database === undefined ? META_TABLE : `${database}.main.${META_TABLE}`;
  const [row] = await query<{ stamp: string }>(store, 'the recorded join key', `SELECT stamp FROM ${table} WHERE relation = $1 LIMIT 1`, [JOIN_KEY_ROW]);
  return row === undefined ? undefined : parseJoinKey(row.stamp);
}

/**
 * The join key recorded in a run database file, read through a read-only attach that is closed
 * before returning (so the caller may open the file for writing next); undefined when there is none
 * or the file cannot be read (the caller's own open then says why).
 */
export async function readJoinKeyOfFile(file: string, memory: Pick<StoreOptions, 'memoryLimit' | 'threads'> = {}): Promise<JoinKey | undefined> {
  const store = new DuckStore(memory);
  try {
    await store.run(`ATTACH ${quotePath(file)} AS recorded (READ_ONLY)`);
    return await readJoinKey(store, 'recorded');
  } catch {
    return undefined;
  } finally {
    await store.close().catch(() => undefined);
  }
}

function parseJoinKey(text: string): JoinKey | undefined {
  try {
    const v = JSON.parse(text) as { by?: unknown; attribute?: unknown };
    if (v.by === 'trace_id') return { by: 'trace_id' };
    if (v.by === 'request_id') return { by: 'request_id', attribute: typeof v.attribute === 'string' && v.attribute !== '' ? v.attribute : DEFAULT_REQUEST_ID_ATTRIBUTE };
  } catch {
    // Not JSON: no record.
  }
  return undefined;
}

/** What a command says on stderr when it joins by the key the database recorded rather than by trace ID. */
export function storedJoinKeyNote(file: string, key: JoinKey): string {
  const how = key.by === 'request_id' ? `request ID (span attribute ${key.attribute})` : 'trace ID';
  return `phasewise: ${file}: joining by ${how}, the key it was analysed with (--join-by overrides)`;
}
