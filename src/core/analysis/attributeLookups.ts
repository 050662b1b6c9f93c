import { OTLP_KEY_VALUES, otlpAnyValueSql, otlpMayHaveSql } from '../store/spanAttributes';
import type { SqlParams } from './sqlParams';

/**
 * Several attribute lookups on the same spans row, with an OTLP span's KeyValue list typed at most
 * once per row. spanAttributeSql / spanHasAttributeSql (store/spanAttributes.ts) test and type the
 * JSON text again for every lookup; the first analysis looks up 4–5 keys per span (the phase
 * selectors, twice `llm.phase`, and the two output-token keys), so testing each key once and typing
 * once saves most of that work (bench 100k run, phase mask + output tokens: 2.5 → 2.0 CPU s with
 * one typing, less again with one substring test per key).
 *
 * Same values as spanAttributeSql / spanHasAttributeSql, by construction (test/core/analysis/
 * attributeLookups.test.ts compares them on real OTLP and Zipkin spans):
 * - the MAP column (Jaeger/Zipkin tags) first, as there;
 * - the OTLP list only when the text passes the same necessary test (`"key":` + to_json(key)) for
 *   this key, and then the same list_filter over the same typing; the shared typed list (`kv`) is
 *   non-NULL whenever any registered key passes its test, so it is there whenever it is read.
 *
 * Use: build the outer expressions with value()/has() first (they register the keys), then select
 * them FROM from(<a SELECT exposing the row's attributes and otlp_attributes>), which wraps the
 * source in two projections (one test per key, then the typing) under the row alias.
 */
export class SpanAttributeLookups {
  /** key → [bound placeholder, index of its test column `kv_m<i>`]. */
  private readonly keys = new Map<string, [string, number]>();

  constructor(
    private readonly params: SqlParams,
    /** Alias of the wrapped row (its `attributes`, test columns and `kv` are read through it). */
    private readonly row = 's',
  ) {}

  /** SQL for the value of attribute `key` as a string, NULL when absent (spanAttributeSql's value). */
  value(key: string): string {
    const [k, i] = this.key(key);
    return `coalesce(map_extract_value(${this.row}.attributes, ${k}),
      CASE WHEN ${this.row}.kv_m${i} THEN ${otlpAnyValueSql(`${this.matches(k)}[1].value`)} END)`;
  }

  /** SQL predicate: the row has attribute `key` (spanHasAttributeSql's value). */
  has(key: string): string {
    const [k, i] = this.key(key);
    return `(coalesce(map_contains(${this.row}.attributes, ${k}), false)
      OR coalesce(${this.row}.kv_m${i} AND len(${this.matches(k)}) > 0, false))`;
  }

  /**
   * A FROM item: the rows of `source` (a SELECT with `attributes` and `otlp_attributes` columns) with
   * one test column per registered key and the typed list `kv`, aliased as the row alias.
   */
  from(source: string): string {
    const tests = [...this.keys.values()].map(([k, i]) => `${this.mayHave('b.otlp_attributes', k)} AS kv_m${i}`);
    const any = [...this.keys.values()].map(([, i]) => `f.kv_m${i}`).join(' OR ');
    const kv = any === '' ? 'NULL' : `CASE WHEN ${any} THEN json_transform(f.otlp_attributes, '${OTLP_KEY_VALUES}') END`;
    return `(SELECT f.*, ${kv} AS kv FROM (SELECT b.*${tests.map((t) => `, ${t}`).join('')} FROM (${source}) b) f) ${this.row}`;
  }

  private key(key: string): [string, number] {
    let entry = this.keys.get(key);
    if (entry === undefined) {
      entry = [this.params.bind(key), this.keys.size];
      this.keys.set(key, entry);
    }
    return entry;
  }

  /** The cheap necessary condition of spanAttributes.ts: the text names the key as a KeyValue key. */
  private mayHave(json: string, k: string): string {
    return `coalesce(${otlpMayHaveSql(json, k)}, false)`;
  }

  private matches(k: string): string {
    return `list_filter(${this.row}.kv, lambda a: a.key = ${k})`;
  }
}
