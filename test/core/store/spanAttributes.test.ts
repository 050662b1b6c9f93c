import * as assert from 'assert';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../src/core/store/duckStore';
import { OTLP_KEY_VALUES, otlpAnyValueSql, spanAttributeSql, spanHasAttributeSql } from '../../../src/core/store/spanAttributes';
import { fixture } from '../../helpers/paths';

describe('span attributes typed on demand (spanAttributes.ts)', () => {
  let store: DuckStore;
  beforeEach(() => {
    store = new DuckStore({ threads: 2 });
  });
  afterEach(async () => {
    await store.close();
  });

  it('finds every attribute of a real OTLP file as often as python3 counts it, with the values of an eager MAP', async () => {
    await loadFiles(store, [fixture('shared-samples/joined-otel-js/spans.otlp.jsonl')]);
    // python3 (json module, spans deduplicated on (traceId, spanId)) while writing this test.
    const counted: [string, number][] = [
      ['client.address', 110], ['error.type', 7], ['gen_ai.request.model', 117], ['gen_ai.usage.output_tokens', 113],
      ['http.response.status_code', 110], ['llm.auth.scheme', 117], ['llm.gpu_slot', 234], ['llm.model', 234],
      ['llm.ms_per_token', 113], ['llm.outlier', 3], ['llm.output_tokens', 117], ['llm.phase', 234], ['llm.stream', 461],
      ['user_agent.original', 110], ['no.such.key', 0],
    ];
    for (const [key, n] of counted) {
      // Second method: the whole list typed into a MAP for every span (what the reader used to store).
      const [row] = await store.all<{ has: number; values: number; differ: number }>(
        `WITH v AS (
           SELECT ${spanHasAttributeSql('s', '$1')} AS has, ${spanAttributeSql('s', '$1')} AS lazy,
                  map_from_entries(list_transform(coalesce(json_transform(s.otlp_attributes, '${OTLP_KEY_VALUES}'), []),
                    lambda a: {k: a.key, v: ${otlpAnyValueSql('a.value')}})) AS eager
           FROM spans s)
         SELECT count(*) FILTER (WHERE has) AS has, count(lazy) AS values,
                count(*) FILTER (WHERE lazy IS DISTINCT FROM eager[$1] OR has IS DISTINCT FROM map_contains(eager, $1)) AS differ
         FROM v`,
        [key],
      );
      assert.deepStrictEqual(row, { has: n, values: n, differ: 0 }, key);
    }
    // python3: llm.phase is 'queue' on 117 spans and 'generation' on 117; Σ gen_ai.usage.output_tokens = 1202.
    const [phases] = await store.all<{ queue: number; generation: number; tokens: number }>(
      `SELECT count(*) FILTER (WHERE ${spanAttributeSql('s', "'llm.phase'")} = 'queue') AS queue,
              count(*) FILTER (WHERE ${spanAttributeSql('s', "'llm.phase'")} = 'generation') AS generation,
              sum(TRY_CAST(${spanAttributeSql('s', "'gen_ai.usage.output_tokens'")} AS INTEGER)) AS tokens
       FROM spans s`,
    );
    assert.deepStrictEqual(phases, { queue: 117, generation: 117, tokens: 1202 });
  });

  it('reads the edge cases of the JSON text exactly (escaped keys, look-alike text, nesting, duplicates, empty values)', async () => {
    // otlp-attribute-edges.jsonl, written with python3: one document, eight spans (see each comment).
    await loadFiles(store, [fixture('spans/otlp-attribute-edges.jsonl')]);
    const rows = await store.all<Record<string, unknown>>(
      `SELECT span_id, ${spanAttributeSql('s', "'llm.phase'")} AS phase, ${spanHasAttributeSql('s', "'llm.phase'")} AS has_phase,
              ${spanAttributeSql('s', "'llm.output_tokens'")} AS tokens, ${spanAttributeSql('s', "'k'")} AS k,
              ${spanAttributeSql('s', "'empty'")} AS empty, ${spanHasAttributeSql('s', "'empty'")} AS has_empty,
              ${spanAttributeSql('s', '$1')} AS quoted, ${spanAttributeSql('s', "'flag'")} AS flag
       FROM spans s ORDER BY span_id`,
      ['a"b é'],
    );
    const none = { phase: null, has_phase: false, tokens: null, k: null, empty: null, has_empty: false, quoted: null, flag: null };
    assert.deepStrictEqual(rows, [
      // key written "llm\u002ephase" in the file: the same key
      { ...none, span_id: '000000000000000a', phase: 'queue', has_phase: true },
      // a string VALUE that spells "key":"llm.phase" is not the key
      { ...none, span_id: '000000000000000b' },
      // llm.phase inside a nested kvlistValue is not the span's own attribute
      { ...none, span_id: '000000000000000c' },
      // value written before key, intValue as a JSON number
      { ...none, span_id: '000000000000000d', tokens: '7' },
      // the key twice (the spec forbids it): the first value
      { ...none, span_id: '000000000000000e', k: 'first' },
      // present with an empty AnyValue
      { ...none, span_id: '000000000000000f', has_empty: true },
      // no attributes at all
      { ...none, span_id: '0000000000000010' },
      // a key with a quote and a non-ASCII letter; doubleValue and boolValue as their JSON text
      { ...none, span_id: '0000000000000011', quoted: '0.25', flag: 'false' },
    ]);
  });

  it('reads Jaeger tags from the MAP column through the same SQL', async () => {
    // python3 (spansJaegerZipkin.test.ts): all 57 spans carry a span.kind tag, 30 of them 'server'.
    await loadFiles(store, [fixture('shared-samples/jaeger-json/jaeger-ui_TraceTimelineViewer_genaiTestTrace.json')]);
    const [row] = await store.all<{ n: number; server: number }>(
      `SELECT count(*) FILTER (WHERE ${spanHasAttributeSql('s', "'span.kind'")}) AS n,
              count(*) FILTER (WHERE ${spanAttributeSql('s', "'span.kind'")} = 'server') AS server
       FROM spans s`,
    );
    assert.deepStrictEqual(row, { n: 57, server: 30 });
  });
});
