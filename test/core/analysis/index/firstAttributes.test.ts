import * as assert from 'assert';
import { firstAttributeValuesSql } from '../../../../src/core/analysis/index/firstAttributes';
import { SqlParams } from '../../../../src/core/analysis/sql/params';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { spanAttributeSql } from '../../../../src/core/store/spanAttributes';
import { fixture } from '../../../helpers/paths';

/**
 * firstAttributeValuesSql (one typed, narrowed and unnested list per span) against a second method:
 * per key, spanAttributeSql (the list typed per lookup) and arg_min over the rank, on real OTLP (JSON
 * text) and Zipkin (MAP) spans; and hand-computed values where the two sources of a value meet.
 */
describe('first attribute values per group (firstAttributes.ts)', () => {
  let store: DuckStore;
  beforeEach(() => {
    store = new DuckStore({ threads: 2 });
  });
  afterEach(async () => {
    await store.close();
  });

  type Row = { top_node: string; k: number; val: string };

  async function both(source: string, keys: string[]): Promise<{ got: Row[]; second: Row[] }> {
    const params = new SqlParams();
    const sql = firstAttributeValuesSql(params, source, keys);
    const got = await store.all<Row>(`SELECT top_node::VARCHAR AS top_node, k::INTEGER AS k, val FROM (${sql}) ORDER BY 1, 2`, params.values);
    const p2 = new SqlParams();
    const perKey = keys.map(
      (key, i) =>
        `SELECT top_node::VARCHAR AS top_node, ${i + 1} AS k, arg_min(v, rank) AS val
         FROM (SELECT s.top_node, s.rank, ${spanAttributeSql('s', p2.bind(key))} AS v FROM (${source}) s)
         WHERE v IS NOT NULL GROUP BY top_node`,
    );
    const second = await store.all<Row>(`SELECT * FROM (${perKey.join(' UNION ALL ')}) ORDER BY 1, 2`, p2.values);
    return { got, second };
  }

  it('gives, per trace, the value on the first span of spanAttributeSql on a real OTLP file', async () => {
    await loadFiles(store, [fixture('shared-samples/joined-otel-js/spans.otlp.jsonl')]);
    const keys = ['llm.phase', 'gen_ai.usage.output_tokens', 'llm.output_tokens', 'llm.stream', 'http.route', 'no.such.key'];
    const { got, second } = await both('SELECT trace_id AS top_node, rowid AS rank, attributes, otlp_attributes FROM spans', keys);
    assert.deepStrictEqual(got, second);
    // Every key but the absent one gives values on some traces (the file's counts: attributeLookups.test.ts).
    for (let k = 1; k < keys.length; k++) assert.ok(got.some((r) => r.k === k), keys[k - 1]);
    assert.ok(!got.some((r) => r.k === keys.length));
  });

  it('reads the MAP column of Zipkin spans the same way', async () => {
    await loadFiles(store, [fixture('shared-samples/zipkin-json/zipkin_zipkin-lens_testdata_yelp.json')]);
    const { got, second } = await both('SELECT trace_id AS top_node, rowid AS rank, attributes, otlp_attributes FROM spans', ['http.uri', 'http.uri.client']);
    assert.deepStrictEqual(got, second);
    // The 2 spans with http.uri and the 6 with http.uri.client (attributeLookups.test.ts) are in one trace.
    assert.deepStrictEqual(got.map((r) => r.k), [1, 2]);
  });

  it('takes the first KeyValue of a span even when empty, and the list when the MAP value is NULL', async () => {
    const source = `SELECT * FROM (VALUES
      ('a', 1, NULL::MAP(VARCHAR, VARCHAR), '[{"key":"k","value":{}},{"key":"k","value":{"stringValue":"second"}}]'),
      ('a', 2, NULL::MAP(VARCHAR, VARCHAR), '[{"key":"x","value":{"stringValue":"-"}},{"key":"k","value":{"stringValue":"deeper"}}]'),
      ('b', 1, MAP {'k': NULL::VARCHAR}, '[{"key":"k","value":{"intValue":"7"}}]'),
      ('b', 0, NULL::MAP(VARCHAR, VARCHAR), '[{"key":"j","value":{"boolValue":true}}]'),
      ('c', 5, MAP {'k': 'tag', 'j': 'm'}, '[{"key":"k","value":{"stringValue":"list"}}]')
    ) t(top_node, rank, attributes, otlp_attributes)`;
    const { got, second } = await both(source, ['k', 'j']);
    // By hand: a's rank-1 span has k first with an empty value (no value there), so rank 2 gives it;
    // b's MAP holds k as NULL, so its list gives 7, and j comes from the rank-0 span; c's MAP wins.
    assert.deepStrictEqual(got, [
      { top_node: 'a', k: 1, val: 'deeper' },
      { top_node: 'b', k: 1, val: '7' },
      { top_node: 'b', k: 2, val: 'true' },
      { top_node: 'c', k: 1, val: 'tag' },
      { top_node: 'c', k: 2, val: 'm' },
    ]);
    assert.deepStrictEqual(got, second);
  });
});
