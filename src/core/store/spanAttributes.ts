/**
 * Span attributes are stored two ways (schema.ts), and read only through these SQL builders (or
 * analysis/attributeLookups.ts, which builds on them to type a list once for several keys):
 * - `attributes` MAP(VARCHAR, VARCHAR): Jaeger/Zipkin tags (small files), typed at load;
 * - `otlp_attributes` VARCHAR: an OTLP span's KeyValue list as JSON text, typed on demand here.
 *
 * Why OTLP attributes are not typed at load: typing ≈ 3M KeyValues into a MAP was a third of the
 * OTLP load (bench 100k run: 9.6 → 6.5 CPU s for the load statement, written to a database file,
 * min of 2 interleaved runs), while the analysis reads a handful of keys, on a few spans each.
 * The lookups give the first analysis some of that back. Together with the analysis reading each list
 * once (attributeLookups.ts), bench 100k first load + analysis went 17.5–18 → 16.2 CPU s (10.1–10.5 →
 * 9.6–9.7 s wall, two runs each), 1M 125 → 83 s with peak RSS 1.9 → 1.8 GB; a re-analysis with another
 * phase mapping reads the text again (100k: 2.8 → 3.2 s in the same runs).
 *
 * Lookup on the JSON text: a cheap substring test first, then the exact typing of that span's list.
 * The text is DuckDB's re-serialisation of the parsed list (json_transform to JSON): compact, with
 * keys written with minimal escapes (a source's `"llm\u002ephase"` is stored as `"llm.phase"`), so a
 * span with the key contains `"key":` + to_json(key). The test only skips work: a hit is confirmed by
 * typing the list (a nested kvlistValue or a string value that mentions the key is not a match).
 */

/**
 * An OTLP AnyValue: scalars as VARCHAR (json_transform stringifies numbers and booleans, so `intValue`
 * as a JSON number or as the spec's string gives the same text); arrays/kvlists kept as JSON text.
 */
export const OTLP_ANY_VALUE = `{"stringValue":"VARCHAR","intValue":"VARCHAR","doubleValue":"VARCHAR","boolValue":"VARCHAR","bytesValue":"VARCHAR","arrayValue":"JSON","kvlistValue":"JSON"}`;

/** An OTLP KeyValue list, as json_transform types it. */
export const OTLP_KEY_VALUES = `[{"key":"VARCHAR","value":${OTLP_ANY_VALUE}}]`;

/** AnyValue struct → its string form (NULL for an empty value). */
export function otlpAnyValueSql(v: string): string {
  return `coalesce(${v}.stringValue, ${v}.intValue, ${v}.doubleValue, ${v}.boolValue, ${v}.bytesValue, ${v}.arrayValue::VARCHAR, ${v}.kvlistValue::VARCHAR)`;
}

/** The KeyValues of `json` (OTLP list text) whose key is `key`, typed. */
function otlpMatchesSql(json: string, key: string): string {
  return `list_filter(json_transform(${json}, '${OTLP_KEY_VALUES}'), lambda a: a.key = ${key})`;
}

/** The cheap necessary condition: the text names the key as a KeyValue key (NULL for NULL text). */
export function otlpMayHaveSql(json: string, key: string): string {
  return `contains(${json}, '"key":' || to_json(${key}::VARCHAR)::VARCHAR)`;
}

/**
 * The same test for several keys at once (NULL for NULL text): true exactly when otlpMayHaveSql is
 * true for one of them, as one regular expression of the literal `"key":` + to_json(key) texts
 * (regexp_escape'd) that scans the text once. Over bound parameters it is folded to a constant pattern.
 */
export function otlpMayHaveAnySql(json: string, keys: readonly string[]): string {
  const literals = keys.map((k) => `regexp_escape(to_json(${k}::VARCHAR)::VARCHAR)`).join(` || '|' || `);
  return `regexp_matches(${json}, '"key":(?:' || ${literals} || ')')`;
}

/**
 * SQL for the value of attribute `key` (a bound parameter or a quoted constant) of the span row
 * `alias` of `spans`, as a string; NULL when absent. OTLP lists with a key twice (the spec forbids
 * it) give the first value.
 */
export function spanAttributeSql(alias: string, key: string): string {
  const json = `${alias}.otlp_attributes`;
  return `coalesce(map_extract_value(${alias}.attributes, ${key}),
    CASE WHEN ${otlpMayHaveSql(json, key)} THEN ${otlpAnyValueSql(`${otlpMatchesSql(json, key)}[1].value`)} END)`;
}

/** SQL predicate: the span row `alias` has attribute `key` (with any value, even empty). */
export function spanHasAttributeSql(alias: string, key: string): string {
  const json = `${alias}.otlp_attributes`;
  return `(coalesce(map_contains(${alias}.attributes, ${key}), false)
    OR coalesce(${otlpMayHaveSql(json, key)} AND len(${otlpMatchesSql(json, key)}) > 0, false))`;
}

/**
 * SQL for every attribute of the span row `alias` as a list of `{key, value}` structs (values as
 * strings, as the lookups above give them), in the source's order: for one trace's spans (the
 * waterfall's span detail), never for a whole run.
 */
export function spanAttributeListSql(alias: string): string {
  return `CASE WHEN ${alias}.otlp_attributes IS NOT NULL
    THEN list_transform(json_transform(${alias}.otlp_attributes, '${OTLP_KEY_VALUES}'), lambda a: {key: a.key, value: ${otlpAnyValueSql('a.value')}})
    ELSE list_transform(map_entries(${alias}.attributes), lambda e: {key: e.key, value: e.value}) END`;
}
