import * as assert from 'assert';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../src/core/store/duckStore';
import { fixture } from '../../helpers/paths';
import { spanFigures as figures, type SpanFigures } from '../../helpers/spanFigures';

/**
 * (trace, span, parent, duration) of a source, in a stable order, for comparing two renderings of one
 * trace. Jaeger JSON has microsecond resolution and the OTLP→Jaeger translation truncates (46.460625 ms
 * becomes 46460 µs), so durations and starts are compared in whole microseconds.
 */
async function shape(store: DuckStore, sourceId: number): Promise<unknown[]> {
  return store.all(
    `SELECT trace_id, span_id, parent_span_id, floor(duration_ms * 1000) AS duration_us, start_ns // 1000 AS start_us, name, kind, service
     FROM spans WHERE source_id = $1 ORDER BY span_id`,
    [sourceId],
  );
}

describe('span readers: Jaeger JSON and Zipkin v2 JSON', () => {
  let store: DuckStore;
  beforeEach(() => {
    store = new DuckStore({ threads: 2 });
  });
  afterEach(async () => {
    await store.close();
  });

  // Expected figures counted with python3 (json module) while writing this test. Jaeger: parent = first
  // CHILD_OF reference else parentSpanID, service = processes[processID]; logs are events. Zipkin: trace
  // IDs left-padded to 32, annotations are events, no row is an exact repeat of another.
  const REAL_FILES: [string, string, SpanFigures][] = [
    ['jaeger-json/jaeger-ui_TraceFlamegraph_testTrace.json', 'jaeger-json', { spans: 4, traces: 1, roots: 1, services: 2, events: 0 }],
    ['jaeger-json/jaeger-ui_TraceTimelineViewer_genaiTestTrace.json', 'jaeger-json', { spans: 57, traces: 1, roots: 1, services: 10, events: 0 }],
    ['jaeger-json/jaeger-ui_utils_fixtures_oltp2jaeger-multi-out.json', 'jaeger-json', { spans: 4, traces: 1, roots: 1, services: 1, events: 0 }],
    ['jaeger-json/jaeger-ui_utils_fixtures_otlp2jaeger-out.json', 'jaeger-json', { spans: 1, traces: 1, roots: 1, services: 1, events: 0 }],
    ['zipkin-json/zipkin_zipkin-lens_testdata_messaging-kafka.json', 'zipkin-json', { spans: 28, traces: 1, roots: 1, services: 2, events: 0 }],
    ['zipkin-json/zipkin_zipkin-lens_testdata_smartthings-mobile-web-install.json', 'zipkin-json', { spans: 957, traces: 1, roots: 1, services: 16, events: 92 }],
    // ^ 1,041 rows, 84 of them pieces without a timestamp merged into the timed row of their ID (zipkinPieces.test.ts).
    ['zipkin-json/zipkin_zipkin-lens_testdata_smartthings-oauth-authorization.json', 'zipkin-json', { spans: 175, traces: 1, roots: 1, services: 8, events: 9 }],
    ['zipkin-json/zipkin_zipkin-lens_testdata_yelp.json', 'zipkin-json', { spans: 16, traces: 1, roots: 1, services: 6, events: 1 }],
  ];
  for (const [file, format, expected] of REAL_FILES) {
    it(`loads ${file.split('/').pop()} with the counted spans, traces, roots, services and events`, async () => {
      const [loaded] = await loadFiles(store, [fixture('shared-samples', file)]);
      assert.strictEqual(loaded.sniff.format, format);
      assert.strictEqual(loaded.records, expected.spans);
      assert.deepStrictEqual(await figures(store, loaded.sourceId), expected);
    });
  }

  it('converts Jaeger microseconds exactly and reads the UI redux wrapper', async () => {
    const [loaded] = await loadFiles(store, [fixture('shared-samples/jaeger-json/jaeger-ui_TraceFlamegraph_testTrace.json')]);
    const [root] = await store.all<Record<string, unknown>>(
      `SELECT trace_id, parent_span_id, service, start_ns, end_ns, duration_ms, attributes['vehicle'] AS vehicle
       FROM spans WHERE source_id = $1 AND span_id = '487f03177ef9cf89'`,
      [loaded.sourceId],
    );
    // From the file: startTime 1660049722779884 µs, duration 1181596 µs → 1181.596 ms, end = start + duration.
    assert.deepStrictEqual(root, {
      trace_id: '84b3fad94c6112edd6af3347d06f6f1d', parent_span_id: null, service: 'load-generator',
      start_ns: '1660049722779884000', end_ns: '1660049723961480000', duration_ms: 1181.596, vehicle: 'bike',
    });
  });

  it('reads span.kind tags and bare trace objects (genaiTestTrace)', async () => {
    await loadFiles(store, [fixture('shared-samples/jaeger-json/jaeger-ui_TraceTimelineViewer_genaiTestTrace.json')]);
    // python3: span.kind tag values server 30, client 19, internal 8 (none without the tag).
    const kinds = await store.all<{ kind: string; n: number }>('SELECT kind, count(*) AS n FROM spans GROUP BY kind ORDER BY kind');
    assert.deepStrictEqual(kinds, [{ kind: 'CLIENT', n: 19 }, { kind: 'INTERNAL', n: 8 }, { kind: 'SERVER', n: 30 }]);
  });

  it('gives the same trace, span IDs, parents and durations for the OTLP and Jaeger renderings of one trace', async () => {
    const pairs: [string, string][] = [
      ['otlp-json/jaeger-ui_utils_fixtures_otlp2jaeger-in.json', 'jaeger-json/jaeger-ui_utils_fixtures_otlp2jaeger-out.json'],
      ['otlp-json/jaeger-ui_utils_fixtures_otlp2jaeger-multi-in-combined.json', 'jaeger-json/jaeger-ui_utils_fixtures_oltp2jaeger-multi-out.json'],
    ];
    for (const [otlpFile, jaegerFile] of pairs) {
      const [otlp, jaeger] = await loadFiles(store, [fixture('shared-samples', otlpFile), fixture('shared-samples', jaegerFile)]);
      const a = await shape(store, otlp.sourceId);
      assert.ok(a.length > 0);
      assert.deepStrictEqual(await shape(store, jaeger.sourceId), a);
    }
    // By hand from otlp2jaeger-in: 1706678909209835000 − 1706678909209712000 = 123000 ns = 0.123 ms.
    const [one] = await store.all<{ d: number }>(`SELECT DISTINCT duration_ms AS d FROM spans WHERE span_id = 'e127af99e3b3e074'`);
    assert.strictEqual(one.d, 0.123);
  });

  it('pads Zipkin 64-bit trace IDs to 32 hex and converts microseconds exactly', async () => {
    const [loaded] = await loadFiles(store, [fixture('shared-samples/zipkin-json/zipkin_zipkin-lens_testdata_yelp.json')]);
    // First element of yelp.json: traceId a03ee8fff1dcd9b9, CLIENT "post", duration 14000 µs.
    const [first] = await store.all<Record<string, unknown>>(
      `SELECT trace_id, span_id, parent_span_id, kind, service, duration_ms, attributes['client_status_code'] AS code
       FROM spans WHERE source_id = $1 AND line = 1`,
      [loaded.sourceId],
    );
    assert.deepStrictEqual(first, {
      trace_id: '0000000000000000a03ee8fff1dcd9b9', span_id: '15fc03927f0f68df', parent_span_id: 'f5f268651b2a2b34',
      kind: 'CLIENT', service: 'mobile_api', duration_ms: 14, code: '200',
    });
    // Shared client/server halves keep the same span ID and are both kept (python3: 3 IDs appear twice → 6 rows).
    const shared = await store.all<{ code: string; message: string }>(`SELECT code, message FROM load_issues WHERE source_id = $1`, [loaded.sourceId]);
    assert.deepStrictEqual(shared.map((s) => s.code), ['shared-span-id']);
    assert.match(shared[0].message, /^6 span\(s\) share/);
  });

  it('keeps Zipkin spans without duration or timestamp with a NULL duration and counts them', async () => {
    const [loaded] = await loadFiles(store, [fixture('shared-samples/zipkin-json/zipkin_zipkin-lens_testdata_smartthings-oauth-authorization.json')]);
    // python3: 19 spans lack duration (all have a timestamp).
    const [row] = await store.all<{ n: number; no_start: number }>(
      `SELECT count(*) FILTER (WHERE duration_ms IS NULL) AS n, count(*) FILTER (WHERE start_ns IS NULL) AS no_start FROM spans WHERE source_id = $1`,
      [loaded.sourceId],
    );
    assert.deepStrictEqual(row, { n: 19, no_start: 0 });
    const [issue] = await store.all<{ message: string }>(`SELECT message FROM load_issues WHERE source_id = $1 AND code = 'missing-time'`, [loaded.sourceId]);
    assert.match(issue.message, /^19 span\(s\) without a start or end time/);
    // PRODUCER/CONSUMER and kind-less (local) spans in messaging-kafka: python3 counts 9 / 7 / 12.
    const [kafka] = await loadFiles(store, [fixture('shared-samples/zipkin-json/zipkin_zipkin-lens_testdata_messaging-kafka.json')]);
    const kinds = await store.all<{ kind: string; n: number }>(
      'SELECT kind, count(*) AS n FROM spans WHERE source_id = $1 GROUP BY kind ORDER BY kind',
      [kafka.sourceId],
    );
    assert.deepStrictEqual(kinds, [{ kind: 'CONSUMER', n: 7 }, { kind: 'PRODUCER', n: 9 }, { kind: 'UNSPECIFIED', n: 12 }]);
  });
});
