/**
 * Per-key span attribute cache, kept beside the span index and stamped with it (catalog/stamps.ts:
 * span_attr_keys and span_attr_cache read span_index, so a new index resets them): a re-analysis with
 * another phase mapping reads the attribute lookups of its selectors from here instead of testing and
 * typing the OTLP attribute text of every span again.
 *
 * - `span_attr_cache` (key_no, node_id, present, value): per key, the indexed spans for which has(key)
 *   is true, with value(key), exactly as SpanAttributeLookups gives them (map first, then the OTLP
 *   list). A span without a row has has() false, and then value() is NULL too (cacheEntrySql), so a
 *   lookup through the cache gives the same value on every span.
 * - `span_attr_keys` (key, key_no): the keys whose rows are complete. The first analysis writes the
 *   keys of its phase selectors (looked up in the index's scan anyway); a key first used later is
 *   scanned once (ensureCachedKeys) and added.
 */
import type { QueryRunner } from '../../store/duckStore';
import { SqlParams } from '../sql/params';
import { exec, query } from '../sql/statement';
import { type AttributeReader, ProjectedAttributeLookups } from './attributeLookups';

export const ATTR_CACHE_TABLE = 'span_attr_cache';
export const ATTR_KEYS_TABLE = 'span_attr_keys';

/** Empties the cache (its stamp changed: a new span index). */
export async function resetAttributeCache(store: QueryRunner): Promise<void> {
  await exec(store, ATTR_CACHE_TABLE, `CREATE OR REPLACE TABLE ${ATTR_CACHE_TABLE} (key_no INTEGER, node_id BIGINT, present BOOLEAN, value VARCHAR)`);
  await exec(store, ATTR_KEYS_TABLE, `CREATE OR REPLACE TABLE ${ATTR_KEYS_TABLE} (key VARCHAR, key_no INTEGER)`);
}

/** The cache-entry column of the i-th key written in a scan (span_links, attr_scan). */
export function cacheEntryColumn(i: number): string {
  return `cache_entry_${i}`;
}

/**
 * The cache-entry column of key `key` (number i in its scan): NULL when has() is false, else '0' for a
 * NULL value() and '1' || value(). A non-NULL value() implies has() (it comes from the MAP key or from a
 * non-empty match in the OTLP list, which is what has() tests), so a row without has() has nothing to
 * keep. One mostly-NULL VARCHAR per key is cheaper to carry through the index's scan than a value and a
 * flag.
 */
export function cacheEntrySql(attrs: AttributeReader, key: string, i: number): string {
  return `CASE WHEN ${attrs.has(key)} THEN CASE WHEN ${attrs.value(key)} IS NULL THEN '0' ELSE '1' || ${attrs.value(key)} END END AS ${cacheEntryColumn(i)}`;
}

/**
 * For the span index's scan: `keys`, the cache-entry columns to select (`, <expr> AS cache_entry_<i>`
 * …) and to carry from the CTE `from` (`, from.cache_entry_<i>` …).
 */
export function scanCacheColumns(attrs: ProjectedAttributeLookups, from: string, keys: string[]): { keys: string[]; select: string; carry: string } {
  return {
    keys,
    select: keys.map((k, i) => `, ${cacheEntrySql(attrs, k, i)}`).join(''),
    carry: keys.map((_, i) => `, ${from}.${cacheEntryColumn(i)}`).join(''),
  };
}

/**
 * Writes the rows of `keys` from `table` (a cache-entry column per key, and node_id), then records the
 * keys as complete. Rows carry a small key number, not the key text (a CREATE … AS with an integer key
 * writes the ≈ 4 rows per span of a first load faster than an INSERT with the text).
 */
export async function writeCachedKeys(store: QueryRunner, table: 'span_links' | 'attr_scan', keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  // Numbered past every row, listed or not: an interrupted write may have left rows of an unlisted number.
  const [{ next, rows }] = await query<{ next: number; rows: number }>(
    store,
    'next attribute key number',
    `SELECT greatest((SELECT coalesce(max(key_no) + 1, 0) FROM ${ATTR_KEYS_TABLE}), (SELECT coalesce(max(key_no) + 1, 0) FROM ${ATTR_CACHE_TABLE})) AS next,
            (SELECT count(*) FROM ${ATTR_CACHE_TABLE}) AS rows`,
  );
  const selects = keys.map(
    (_, i) =>
      `SELECT ${next + i}::INTEGER AS key_no, node_id, true AS present,
              CASE WHEN starts_with(${cacheEntryColumn(i)}, '1') THEN substr(${cacheEntryColumn(i)}, 2) END AS value
       FROM ${table} WHERE ${cacheEntryColumn(i)} IS NOT NULL`,
  );
  // An empty cache (the first analysis) is replaced in one CREATE … AS, which writes faster than an INSERT.
  if (rows === 0) await exec(store, ATTR_CACHE_TABLE, `CREATE OR REPLACE TABLE ${ATTR_CACHE_TABLE} AS ${selects.join(' UNION ALL ')}`);
  else await exec(store, ATTR_CACHE_TABLE, `INSERT INTO ${ATTR_CACHE_TABLE} ${selects.join(' UNION ALL ')}`);
  const keyParams = new SqlParams();
  const values = keys.map((k, i) => `(${keyParams.bind(k)}, ${next + i}::INTEGER)`);
  await exec(store, ATTR_KEYS_TABLE, `INSERT INTO ${ATTR_KEYS_TABLE} VALUES ${values.join(', ')}`, keyParams.values);
}

/**
 * Makes every key of `keys` complete in the cache: the missing ones are looked up in one scan of spans
 * (each OTLP list typed at most once for all of them), kept for the indexed spans only. Requires a
 * current span index and cache (breakdown/pipeline.ts builds them first).
 */
export async function ensureCachedKeys(store: QueryRunner, keys: readonly string[]): Promise<Map<string, number>> {
  const known = await cachedKeyNumbers(store);
  const missing = [...new Set(keys)].filter((k) => !known.has(k));
  if (missing.length === 0) return known;
  const params = new SqlParams();
  const attrs = new ProjectedAttributeLookups(params, 's');
  const columns = missing.map((k, i) => cacheEntrySql(attrs, k, i));
  const any = missing.map((_, i) => `${cacheEntryColumn(i)} IS NOT NULL`).join(' OR ');
  // Every span is tested (the text test is cheap), only the few hits are joined to the index.
  await exec(
    store,
    'attr_scan',
    `CREATE OR REPLACE TEMP TABLE attr_scan AS
     SELECT h.* FROM (
       SELECT * FROM (
         SELECT s.node_id, ${columns.join(', ')}
         FROM ${attrs.from('SELECT s.rowid AS node_id, s.attributes, s.otlp_attributes FROM spans s')}
       ) WHERE ${any}
     ) h JOIN span_index i USING (node_id)`,
    params.values,
  );
  await writeCachedKeys(store, 'attr_scan', missing);
  await exec(store, 'drop attr_scan', 'DROP TABLE IF EXISTS attr_scan');
  return cachedKeyNumbers(store);
}

/** key → key number of every key in the cache (rows of one key are complete once it is listed). */
async function cachedKeyNumbers(store: QueryRunner): Promise<Map<string, number>> {
  const rows = await query<{ key: string; key_no: number }>(store, 'cached attribute keys', `SELECT key, min(key_no) AS key_no FROM ${ATTR_KEYS_TABLE} GROUP BY key`);
  return new Map(rows.map((r) => [r.key, Number(r.key_no)]));
}

/**
 * Attribute lookups answered from the cache: the row must come from from(), which joins each
 * registered key's cached value and presence to the rows of a source keyed by node_id. The columns
 * are numbered in registration order (`cached_value_<i>`, `cached_present_<i>`): the key text never
 * enters the SQL, its number in the cache does.
 */
export class CachedAttributeReader implements AttributeReader {
  /** key → its column number. */
  private readonly keys = new Map<string, number>();

  constructor(private readonly row = 's') {}

  value(key: string): string {
    return `${this.row}.cached_value_${this.column(key)}`;
  }

  has(key: string): string {
    return `coalesce(${this.row}.cached_present_${this.column(key)}, false)`;
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
    const entries = [...this.keys.entries()].map(([key, i]) => {
      const no = keyNumbers.get(key);
      if (no === undefined || !Number.isInteger(no)) throw new Error(`attribute key "${key}" is not cached`);
      return [no, i];
    });
    // One join per key (a key's rows are unique per node_id: one row per span and key from one scan):
    // cheaper than pivoting the rows of all keys with a GROUP BY.
    const joins = entries.map(
      ([no, i]) => `LEFT JOIN (SELECT node_id AS cached_node_${i}, value AS cached_value_${i}, present AS cached_present_${i} FROM ${ATTR_CACHE_TABLE} WHERE key_no = ${no}) c${i}
       ON c${i}.cached_node_${i} = b.node_id`,
    );
    const cols = entries.map(([, i]) => `c${i}.cached_value_${i}, c${i}.cached_present_${i}`);
    return `(SELECT b.*, ${cols.join(', ')} FROM (${source}) b ${joins.join(' ')}) ${this.row}`;
  }

  private column(key: string): number {
    let i = this.keys.get(key);
    if (i === undefined) {
      i = this.keys.size;
      this.keys.set(key, i);
    }
    return i;
  }
}
