import type { QueryRunner } from '../../store/duckStore';
import { type AttributeReader, ProjectedAttributeLookups } from './attributeLookups';
import { SqlParams } from '../sql/params';

/**
 * Per-key span attribute cache, kept in the database beside the span index and valid for exactly one
 * build of it (span_index_meta.build_id): re-analysis with another phase mapping reads the attribute
 * lookups of its selectors from here instead of testing and typing the OTLP attribute text of every
 * span again (bench 100k: that scan was ≈ 0.8 s of a ≈ 2.8 s phase re-analysis).
 *
 * - `span_attr_cache` (key_no, node_id, present, value): per key, the indexed spans (node_id = rowid of
 *   the kept copy) for which has(key) is true (present), with value(key), exactly as SpanAttributeLookups
 *   gives them (map first, then the OTLP list). A span without a row has has() false, and then value()
 *   is NULL too (cacheColumnsSql), so a lookup through the cache gives the same value on every span.
 * - `span_attr_keys` (key, key_no, build_id): the keys whose rows are complete for that index build.
 *   The first analysis writes the keys of its phase selectors (looked up in the index's scan anyway);
 *   a key first used later is scanned once (ensureCachedKeys) and added.
 *
 * buildSpanIndex drops both tables before it writes anything, so a cache never outlives its index.
 */
export const ATTR_CACHE_TABLE = 'span_attr_cache';
export const ATTR_KEYS_TABLE = 'span_attr_keys';

/** Drops the cache (buildSpanIndex, before the index it describes is replaced). */
export async function dropAttributeCache(store: QueryRunner): Promise<void> {
  await store.run(`DROP TABLE IF EXISTS ${ATTR_KEYS_TABLE}`);
  await store.run(`DROP TABLE IF EXISTS ${ATTR_CACHE_TABLE}`);
}

async function createCacheTables(store: QueryRunner): Promise<void> {
  await store.run(`CREATE TABLE IF NOT EXISTS ${ATTR_CACHE_TABLE} (key_no INTEGER, node_id BIGINT, present BOOLEAN, value VARCHAR)`);
  await store.run(`CREATE TABLE IF NOT EXISTS ${ATTR_KEYS_TABLE} (key VARCHAR, key_no INTEGER, build_id VARCHAR)`);
}

/** Column name of key number i in a table written with cacheColumnsSql() columns (span_links, attr_scan). */
export function cacheColumn(i: number): string {
  return `attr_${i}`;
}

/**
 * The one column of key `key` (number i) that the cache is written from: NULL when has() is false,
 * else '0' for a NULL value() and '1' || value(). A non-NULL value() implies has() (it comes from the
 * MAP key or from a non-empty match in the OTLP list, which is what has() tests), so a row without
 * has() has nothing to keep. One mostly-NULL VARCHAR per key: two columns (value, has) per key carried
 * through span_links cost ≈ 0.2 s of the first analysis at 100k.
 */
export function cacheColumnsSql(attrs: AttributeReader, key: string, i: number): string {
  return `CASE WHEN ${attrs.has(key)} THEN CASE WHEN ${attrs.value(key)} IS NULL THEN '0' ELSE '1' || ${attrs.value(key)} END END AS ${cacheColumn(i)}`;
}

/**
 * For the span index's scan: `keys`, the cache columns to select (`, <expr> AS attr_<i>` …) and to
 * carry from the CTE `from` (`, from.attr_<i>` …).
 */
export function scanCacheColumns(attrs: ProjectedAttributeLookups, from: string, keys: string[]): { keys: string[]; select: string; carry: string } {
  return {
    keys,
    select: keys.map((k, i) => `, ${cacheColumnsSql(attrs, k, i)}`).join(''),
    carry: keys.map((_, i) => `, ${from}.${cacheColumn(i)}`).join(''),
  };
}

/** SQL: the row has a cache entry for key number i. */
function hasEntry(i: number): string {
  return `${cacheColumn(i)} IS NOT NULL`;
}

/**
 * Writes the rows of `keys` from `table` (cacheColumnsSql() columns per key, and node_id), then records the keys as complete for index build `buildId`. Rows carry a small key
 * number, not the key text: the first load writes ≈ 400k rows at 100k requests, and a CREATE … AS
 * with an integer key cost ≈ 0.13 s there against ≈ 0.36 s for an INSERT with the key text.
 */
export async function writeCachedKeys(store: QueryRunner, table: 'span_links' | 'attr_scan', keys: readonly string[], buildId: string): Promise<void> {
  await createCacheTables(store);
  if (keys.length === 0) return;
  const [{ next, rows }] = await store.all<{ next: number; rows: number }>(
    `SELECT (SELECT coalesce(max(key_no) + 1, 0) FROM ${ATTR_KEYS_TABLE}) AS next, (SELECT count(*) FROM ${ATTR_CACHE_TABLE}) AS rows`,
  );
  const selects = keys.map(
    (_, i) =>
      `SELECT ${next + i}::INTEGER AS key_no, node_id, true AS present,
              CASE WHEN starts_with(${cacheColumn(i)}, '1') THEN substr(${cacheColumn(i)}, 2) END AS value
       FROM ${table} WHERE ${hasEntry(i)}`,
  );
  // The key numbers are new, so no row of them exists yet; an empty cache (the first analysis) is
  // replaced in one CREATE … AS, which writes faster than an INSERT.
  if (rows === 0) await store.run(`CREATE OR REPLACE TABLE ${ATTR_CACHE_TABLE} AS ${selects.join(' UNION ALL ')}`);
  else await store.run(`INSERT INTO ${ATTR_CACHE_TABLE} ${selects.join(' UNION ALL ')}`);
  const keyParams = new SqlParams();
  const b = keyParams.bind(buildId);
  const values = keys.map((k, i) => `(${keyParams.bind(k)}, ${next + i}::INTEGER, ${b})`);
  await store.run(`INSERT INTO ${ATTR_KEYS_TABLE} VALUES ${values.join(', ')}`, keyParams.values);
}

/**
 * Makes every key of `keys` complete in the cache for the current index build: the missing ones are
 * looked up in one scan of spans (each OTLP list typed at most once for all of them), kept for the
 * indexed spans only. Requires a current span index (ensureSpanIndex).
 */
export async function ensureCachedKeys(store: QueryRunner, keys: readonly string[]): Promise<Map<string, number>> {
  await createCacheTables(store);
  const [meta] = await store.all<{ build_id: string }>('SELECT build_id FROM span_index_meta');
  if (meta === undefined) throw new Error('ensureCachedKeys: no span index');
  // Keys (and their rows) of another index build are stale: gone before anything is looked up.
  await store.run(`DELETE FROM ${ATTR_CACHE_TABLE} WHERE key_no IN (SELECT key_no FROM ${ATTR_KEYS_TABLE} WHERE build_id <> $1)`, [meta.build_id]);
  await store.run(`DELETE FROM ${ATTR_KEYS_TABLE} WHERE build_id <> $1`, [meta.build_id]);
  const known = await cachedKeyNumbers(store);
  const missing = [...new Set(keys)].filter((k) => !known.has(k));
  if (missing.length === 0) return known;
  const params = new SqlParams();
  const attrs = new ProjectedAttributeLookups(params, 's');
  const columns = missing.map((k, i) => cacheColumnsSql(attrs, k, i));
  const any = missing.map((_, i) => hasEntry(i)).join(' OR ');
  // Every span is tested (the text test is cheap), only the few hits are joined to the index.
  await store.run(
    `CREATE OR REPLACE TEMP TABLE attr_scan AS
     SELECT h.* FROM (
       SELECT * FROM (
         SELECT s.node_id, ${columns.join(', ')}
         FROM ${attrs.from('SELECT s.rowid AS node_id, s.attributes, s.otlp_attributes FROM spans s')}
       ) WHERE ${any}
     ) h JOIN span_index i USING (node_id)`,
    params.values,
  );
  await writeCachedKeys(store, 'attr_scan', missing, meta.build_id);
  await store.run('DROP TABLE IF EXISTS attr_scan');
  return cachedKeyNumbers(store);
}

/** key → key number of every key in the cache (rows of one key are complete once it is listed). */
async function cachedKeyNumbers(store: QueryRunner): Promise<Map<string, number>> {
  const rows = await store.all<{ key: string; key_no: number }>(`SELECT key, min(key_no) AS key_no FROM ${ATTR_KEYS_TABLE} GROUP BY key`);
  return new Map(rows.map((r) => [r.key, Number(r.key_no)]));
}

/**
 * Attribute lookups answered from the cache: the row must come from from(), which joins each
 * registered key's cached value and presence to the rows of a source keyed by node_id.
 */
export class CachedAttributeReader implements AttributeReader {
  /** key → [key text, index of its columns]. The key itself never enters the SQL: its number does. */
  private readonly keys = new Map<string, [string, number]>();

  constructor(private readonly row = 's') {}

  value(key: string): string {
    return `${this.row}.cv_${this.key(key)[1]}`;
  }

  has(key: string): string {
    return `coalesce(${this.row}.cp_${this.key(key)[1]}, false)`;
  }

  registeredKeys(): string[] {
    return [...this.keys.keys()];
  }

  /**
   * A FROM item: the rows of `source` (a SELECT with a node_id column) with the cached columns, aliased
   * as the row. `keyNumbers` (ensureCachedKeys) must list every registered key.
   */
  from(source: string, keyNumbers: ReadonlyMap<string, number>): string {
    if (this.keys.size === 0) return `(${source}) ${this.row}`;
    const entries = [...this.keys.entries()].map(([key, [, i]]) => {
      const no = keyNumbers.get(key);
      if (no === undefined || !Number.isInteger(no)) throw new Error(`attribute key "${key}" is not cached`);
      return [no, i];
    });
    // One join per key (a key's rows are unique per node_id: one row per span and key from one scan):
    // cheaper than pivoting the rows of all keys with a GROUP BY (bench 100k: 0.16 s for the pivot).
    const joins = entries.map(
      ([no, i]) => `LEFT JOIN (SELECT node_id AS c_node_${i}, value AS cv_${i}, present AS cp_${i} FROM ${ATTR_CACHE_TABLE} WHERE key_no = ${no}) c${i}
       ON c${i}.c_node_${i} = b.node_id`,
    );
    const cols = entries.map(([, i]) => `c${i}.cv_${i}, c${i}.cp_${i}`);
    return `(SELECT b.*, ${cols.join(', ')} FROM (${source}) b ${joins.join(' ')}) ${this.row}`;
  }

  private key(key: string): [string, number] {
    let entry = this.keys.get(key);
    if (entry === undefined) {
      entry = [key, this.keys.size];
      this.keys.set(key, entry);
    }
    return entry;
  }
}
