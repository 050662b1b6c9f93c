import * as assert from 'assert';
import { SpanAttributeLookups } from '../../../../src/core/analysis/index/attributeLookups';
import { SqlParams } from '../../../../src/core/analysis/sql/params';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { otlpMayHaveAnySql, otlpMayHaveSql, spanAttributeSql, spanHasAttributeSql } from '../../../../src/core/store/spanAttributes';
import { fixture } from '../../../helpers/paths';

/**
 * The lookups that type an OTLP list once per span must give, row by row, what spanAttributeSql /
 * spanHasAttributeSql give (a second method, typing the list per lookup), on real OTLP (JSON text)
 * and Zipkin (MAP) spans; the counts of spans carrying a key were taken with python3 (json module).
 */
describe('span attribute lookups typed once per span (attributeLookups.ts)', () => {
  let store: DuckStore;
  beforeEach(() => {
    store = new DuckStore({ threads: 2 });
  });
  afterEach(async () => {
    await store.close();
  });

  async function compare(keys: string[]): Promise<Map<string, { has: number; values: number; differ: number }>> {
    const params = new SqlParams();
    const attrs = new SpanAttributeLookups(params, 's');
    // Keys registered in this order: every key's lookups share one typed list per span.
    const items = keys.map((key, i) => {
      const p = params.bind(key);
      return `${attrs.value(key)} AS v${i}, ${attrs.has(key)} AS h${i}, ${spanAttributeSql('s', p)} AS rv${i}, ${spanHasAttributeSql('s', p)} AS rh${i}`;
    });

    const counts = keys.map(
      (_, i) =>
        `count(*) FILTER (WHERE h${i}) AS h${i}, count(v${i}) AS v${i},
         count(*) FILTER (WHERE v${i} IS DISTINCT FROM rv${i} OR h${i} IS DISTINCT FROM rh${i}) AS d${i}`,
    );
    const [row] = await store.all<Record<string, number>>(
      `SELECT ${counts.join(', ')} FROM (
         SELECT ${items.join(', ')}
         FROM ${attrs.from('SELECT * FROM spans')}
       )`,
      params.values,
    );
    return new Map(keys.map((key, i) => [key, { has: row[`h${i}`], values: row[`v${i}`], differ: row[`d${i}`] }]));
  }

  it('gives the values and presence of spanAttributes.ts on every span of a real OTLP file', async () => {
    await loadFiles(store, [fixture('shared-samples/joined-otel-js/spans.otlp.jsonl')]);
    const expected: [string, number][] = [
      ['llm.phase', 234],
      ['gen_ai.usage.output_tokens', 113],
      ['llm.output_tokens', 117],
      ['error.type', 7],
      ['llm.stream', 461],
      ['no.such.key', 0],
    ];
    const got = await compare(expected.map(([k]) => k));
    for (const [key, n] of expected) assert.deepStrictEqual(got.get(key), { has: n, values: n, differ: 0 }, key);
  });

  it('reads the MAP column of Zipkin spans the same way (no OTLP text there)', async () => {
    await loadFiles(store, [fixture('shared-samples/zipkin-json/zipkin_zipkin-lens_testdata_yelp.json')]);
    // python3: of the 16 spans, 2 carry the tag http.uri and 6 http.uri.client.
    const got = await compare(['http.uri', 'http.uri.client', 'no.such.key']);
    assert.deepStrictEqual(got.get('http.uri'), { has: 2, values: 2, differ: 0 });
    assert.deepStrictEqual(got.get('http.uri.client'), { has: 6, values: 6, differ: 0 });
    assert.deepStrictEqual(got.get('no.such.key'), { has: 0, values: 0, differ: 0 });
  });

  it('types nothing when no key is registered', async () => {
    await loadFiles(store, [fixture('shared-samples/joined-otel-js/spans.otlp.jsonl')]);
    const attrs = new SpanAttributeLookups(new SqlParams());
    // python3: 812 spans in the file (the reader keeps duplicates as rows).
    const [row] = await store.all<{ n: number; typed: number }>(`SELECT count(*) AS n, count(s.typed_kv) AS typed FROM ${attrs.from('SELECT * FROM spans')}`);
    assert.deepStrictEqual(row, { n: 812, typed: 0 });
  });
});

describe('the text test for several keys at once (otlpMayHaveAnySql)', () => {
  it('is true exactly when the test of one of the keys is, keys with pattern characters included', async () => {
    const store = new DuckStore({ threads: 1 });
    try {
      const keys = ['a.b', 'x|y', 'q(1)+', 'say "hi"', 'back\\slash', 'ключ'];
      // Texts as DuckDB writes a KeyValue list (compact, to_json's escapes), and near misses.
      const texts = [
        '[{"key":"a.b","value":{}}]',
        '[{"key":"aXb","value":{}}]',
        '[{"key":"x|y","value":{}}]',
        '[{"key":"x","value":{}}]',
        '[{"key":"q(1)+","value":{}}]',
        '[{"key":"q1","value":{}}]',
        '[{"key":"say \\"hi\\"","value":{}}]',
        '[{"key":"back\\\\slash","value":{}}]',
        '[{"key":"ключ","value":{}}]',
        '[{"key":"other","value":{"stringValue":"a.b"}}]',
      ];
      // By hand: texts 0, 2, 4, 6, 7 and 8 name one of the keys as a key; 1, 3, 5 and 9 do not.
      const expected = [true, false, true, false, true, false, true, true, true, false];
      const params = new SqlParams();
      const ks = keys.map((k) => params.bind(k));
      const rowsSql = texts.map((text, i) => `(${params.bind(text)}, ${i})`).join(', ');
      const rows = await store.all<{ any: boolean; each: boolean }>(
        `SELECT ${otlpMayHaveAnySql('x', ks)} AS any, ${ks.map((k) => otlpMayHaveSql('x', k)).join(' OR ')} AS each
         FROM (VALUES ${rowsSql}) v(x, i) ORDER BY i`,
        params.values,
      );
      assert.deepStrictEqual(rows.map((r) => r.any), expected);
      assert.deepStrictEqual(rows.map((r) => r.each), expected);
    } finally {
      await store.close();
    }
  });
});
