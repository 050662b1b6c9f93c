/**
 * Several attribute lookups on the same spans row, with an OTLP span's KeyValue list typed at most
 * once per row: spanAttributeSql / spanHasAttributeSql (store/spanAttributes.ts) test and type the JSON
 * text again for every lookup, and the first analysis looks up 4–5 keys per span (the phase
 * selectors, twice `llm.phase`, and the two output-token keys).
 *
 * Same values as spanAttributeSql / spanHasAttributeSql, by construction (test/core/analysis/index/
 * attributeLookups.test.ts compares them on real OTLP and Zipkin spans):
 * - the MAP column (Jaeger/Zipkin tags) first, as there;
 * - the OTLP list only when the text passes the same necessary test (`"key":` + to_json(key)) for
 *   this key, and then the same list_filter over the same typing; the typed list (`typed_kv`) is
 *   non-NULL whenever any registered key passes its test, so it is there whenever it is read.
 *
 * Use: build the outer expressions with value()/has() first (they register the keys), then select
 * them FROM from(<a SELECT exposing the row's attributes and otlp_attributes>), which wraps the
 * source in projections (the text tests, then the typing) under the row alias.
 */
import { OTLP_KEY_VALUES, otlpAnyValueSql, otlpMayHaveAnySql, otlpMayHaveSql } from '../../store/spanAttributes';
import type { SqlParams } from '../sql/params';

/** Attribute lookups on a row under its alias: what the phase selectors need (breakdown/phaseSelect.ts). */
export interface AttributeReader {
  /** SQL for the value of attribute `key` as a string, NULL when absent. */
  value(key: string): string;
  /** SQL predicate (never NULL): the row has attribute `key`. */
  has(key: string): string;
}

export class SpanAttributeLookups implements AttributeReader {
  /** key → [bound placeholder, number of its text-test column `names_key_<i>`]. */
  private readonly keys = new Map<string, [string, number]>();

  constructor(
    private readonly params: SqlParams,
    /** Alias of the wrapped row (its `attributes`, text-test columns and `typed_kv` are read through it). */
    private readonly row = 's',
  ) {}

  /** SQL for the value of attribute `key` as a string, NULL when absent (spanAttributeSql's value). */
  value(key: string): string {
    const [k, i] = this.key(key);
    return `coalesce(map_extract_value(${this.row}.attributes, ${k}),
      CASE WHEN ${this.row}.names_key_${i} THEN ${otlpAnyValueSql(`${this.matches(k)}[1].value`)} END)`;
  }

  /** SQL predicate: the row has attribute `key` (spanHasAttributeSql's value). */
  has(key: string): string {
    const [k, i] = this.key(key);
    return `(coalesce(map_contains(${this.row}.attributes, ${k}), false)
      OR coalesce(${this.row}.names_key_${i} AND len(${this.matches(k)}) > 0, false))`;
  }

  /** The keys registered so far, in registration order. */
  registeredKeys(): string[] {
    return [...this.keys.keys()];
  }

  /**
   * A FROM item: the rows of `source` (a SELECT with `attributes` and `otlp_attributes` columns) with
   * one text-test column per registered key (`names_key_<i>`: the text may hold the key) and the typed
   * list `typed_kv`, aliased as the row alias.
   */
  from(source: string): string {
    const entries = [...this.keys.values()];
    if (entries.length < 2) {
      const tests = entries.map(([k, i]) => `${this.mayHave('b.otlp_attributes', k)} AS names_key_${i}`);
      const typed = entries.length === 0 ? 'NULL' : `CASE WHEN f.names_key_0 THEN json_transform(f.otlp_attributes, '${OTLP_KEY_VALUES}') END`;
      return `(SELECT f.*, ${typed} AS typed_kv FROM (SELECT b.*${tests.map((t) => `, ${t}`).join('')} FROM (${source}) b) f) ${this.row}`;
    }
    // Several keys: one regular expression tests the text for any of them (one pass over it: a third
    // of the CPU of one substring test per key, 4 keys over 551k lists), and the per-key tests run
    // only on the texts that passed.
    const any = `coalesce(${otlpMayHaveAnySql('b.otlp_attributes', entries.map(([k]) => k))}, false)`;
    const tests = entries.map(([k, i]) => `CASE WHEN a.names_any THEN ${this.mayHave('a.otlp_attributes', k)} ELSE false END AS names_key_${i}`);
    const typed = `CASE WHEN f.names_any THEN json_transform(f.otlp_attributes, '${OTLP_KEY_VALUES}') END`;
    return `(SELECT f.*, ${typed} AS typed_kv FROM (SELECT a.*, ${tests.join(', ')} FROM (SELECT b.*, ${any} AS names_any FROM (${source}) b) a) f) ${this.row}`;
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
    return `list_filter(${this.row}.typed_kv, lambda a: a.key = ${k})`;
  }
}

/**
 * Attribute lookups computed once per (row, key) in a projection, then read as columns
 * (`attr_value_<i>`, `attr_has_<i>`, numbered in registration order): the phase selectors read
 * `llm.phase` twice, the output tokens and the attribute cache read every key again, and each would
 * otherwise repeat the list_filter over the typed list. Same values as SpanAttributeLookups: the
 * columns are its value()/has() expressions.
 */
export class ProjectedAttributeLookups implements AttributeReader {
  private readonly keys = new Map<string, number>();

  constructor(
    private readonly params: SqlParams,
    private readonly row = 's',
  ) {}

  value(key: string): string {
    return `${this.row}.${valueColumn(this.index(key))}`;
  }

  has(key: string): string {
    return `${this.row}.${hasColumn(this.index(key))}`;
  }

  registeredKeys(): string[] {
    return [...this.keys.keys()];
  }

  /** Column names of a registered key's value and has(). */
  columnsOf(key: string): [string, string] {
    const i = this.index(key);
    return [valueColumn(i), hasColumn(i)];
  }

  /** A FROM item: the rows of `source` (with `attributes` and `otlp_attributes`) and one value/has column pair per registered key. */
  from(source: string): string {
    const inner = new SpanAttributeLookups(this.params, 'q');
    const cols = [...this.keys.entries()].map(([k, i]) => `, ${inner.value(k)} AS ${valueColumn(i)}, ${inner.has(k)} AS ${hasColumn(i)}`);
    return `(SELECT q.*${cols.join('')} FROM ${inner.from(source)}) ${this.row}`;
  }

  private index(key: string): number {
    let i = this.keys.get(key);
    if (i === undefined) {
      i = this.keys.size;
      this.keys.set(key, i);
    }
    return i;
  }
}

function valueColumn(i: number): string {
  return `attr_value_${i}`;
}

function hasColumn(i: number): string {
  return `attr_has_${i}`;
}
