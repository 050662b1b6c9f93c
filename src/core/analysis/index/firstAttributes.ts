/**
 * Per group of spans (a trace under its root), the value of each of several attribute keys on the
 * first span, by a rank, that has the key with a value: what the group dimensions read from the
 * server side (groups/requestDimensions.ts).
 *
 * Why not ProjectedAttributeLookups (one value column per key, then one arg_min per key): with 13
 * keys that statement typed the list once but ran 13 text tests and 13 list_filters per span, and
 * DuckDB pushed the "any value" filter below the projection, computing every value twice; it was the
 * largest statement of a first load (bench 100k sdk run: 8.6 of 31 CPU s). Here each span's list is
 * typed once, narrowed to the wanted keys in one lambda and unnested (a handful of rows per span):
 * same values, and the statement on the 100k sdk run 10.0 and 9.9 → 4.5 and 5.5 CPU s (interleaved
 * runs on one database file, load average ≈ 19).
 *
 * Same values as ProjectedAttributeLookups.value by construction: the MAP column (Jaeger/Zipkin
 * tags) first when it holds a non-NULL value for the key (map_extract_value's coalesce), else the
 * first KeyValue of the OTLP list with the key (list_filter(…)[1], even when its value is empty), its
 * AnyValue as a string (otlpAnyValueSql). The text test there only skips work (spanAttributes.ts).
 */
import { OTLP_KEY_VALUES, otlpAnyValueSql } from '../../store/spanAttributes';
import type { SqlParams } from '../sql/params';

/** Offset of the OTLP entries' order after the MAP entries' (positions are list indexes, far below it). */
const OTLP_ORDER = 4294967296;

/**
 * A SELECT of (top_node, k, val): for each `top_node` of `source` and each key (k = its 1-based index
 * in `keys`), the non-NULL value of the key on the span with the smallest `rank` among those with one.
 * `source` is a SELECT with columns top_node, rank (unique per span), attributes, otlp_attributes.
 */
export function firstAttributeValuesSql(params: SqlParams, source: string, keys: readonly string[]): string {
  const list = `[${keys.map((k) => params.bind(k)).join(', ')}]`;
  const entry = (key: string, value: string, order: string): string => `{k: list_position(${list}, ${key}), val: ${value}, o: ${order}}`;
  const mapEntries = `list_transform(list_filter(map_entries(b.attributes), lambda e: e.value IS NOT NULL), lambda e, i: ${entry('e.key', 'e.value', 'i')})`;
  const otlpEntries = `list_transform(json_transform(b.otlp_attributes, '${OTLP_KEY_VALUES}'), lambda a, i: ${entry('a.key', otlpAnyValueSql('a.value'), `${OTLP_ORDER} + i`)})`;
  return `
  WITH kv AS (
    SELECT b.top_node, b.rank,
           unnest(list_filter(list_concat(coalesce(${mapEntries}, []), coalesce(${otlpEntries}, [])), lambda x: coalesce(x.k, 0) > 0)) AS x
    FROM (${source}) b),
  per_span AS (SELECT top_node, rank, x.k AS k, arg_min_null(x.val, x.o) AS val FROM kv GROUP BY top_node, rank, x.k)
  SELECT top_node, k, arg_min(val, rank) AS val FROM per_span WHERE val IS NOT NULL GROUP BY top_node, k`;
}
