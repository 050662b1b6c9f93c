import * as assert from 'assert';
import { InputError } from '../../../src/core/errors';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { parseByteSize, readOtlp } from '../../../src/core/formats/spans/otlp';
import { sniffFile } from '../../../src/core/formats/sniff';
import { DuckStore } from '../../../src/core/store/duckStore';
import { spanAttributeSql } from '../../../src/core/store/spanAttributes';
import { fixture } from '../../helpers/paths';
import { spanFigures as figures, type SpanFigures } from '../../helpers/spanFigures';

/** SQL for a span attribute of the row `s` (OTLP attributes are typed on demand, spanAttributes.ts). */
const attr = (key: string): string => spanAttributeSql('s', `'${key}'`);

async function issues(store: DuckStore, sourceId: number): Promise<{ line: number | null; severity: string; code: string; message: string }[]> {
  return store.all(`SELECT line, severity, code, message FROM load_issues WHERE source_id = $1 ORDER BY line, code`, [sourceId]);
}

describe('span readers: OTLP JSON', () => {
  let store: DuckStore;
  beforeEach(() => {
    store = new DuckStore({ threads: 2 });
  });
  afterEach(async () => {
    await store.close();
  });

  // Expected figures counted with python3 (json module) while writing this test: spans deduplicated on
  // (traceId, spanId); a root is a span whose parent is empty or not in its trace.
  const REAL_FILES: [string, SpanFigures][] = [
    ['shared-samples/joined-otel-js/spans.otlp.jsonl', { spans: 812, traces: 117, roots: 152, services: 1, events: 48 }],
    ['shared-samples/otlp-json/jaeger-ui_api_v3_v3-trace-local-2.21.0.json', { spans: 3, traces: 1, roots: 1, services: 1, events: 1 }],
    ['shared-samples/otlp-json/jaeger-ui_gen-ai_fixtures_agent-trace.json', { spans: 8, traces: 1, roots: 1, services: 1, events: 0 }],
    ['shared-samples/otlp-json/jaeger-ui_utils_fixtures_otlp2jaeger-in.json', { spans: 1, traces: 1, roots: 1, services: 1, events: 0 }],
    ['shared-samples/otlp-json/jaeger-ui_utils_fixtures_otlp2jaeger-multi-in-combined.json', { spans: 4, traces: 1, roots: 1, services: 1, events: 0 }],
  ];
  for (const [file, expected] of REAL_FILES) {
    it(`loads ${file.split('/').pop()} with the counted spans, traces, roots, services and events`, async () => {
      const [loaded] = await loadFiles(store, [fixture(file)]);
      assert.strictEqual(loaded.sniff.format, 'otlp-json');
      assert.strictEqual(loaded.records, expected.spans);
      assert.deepStrictEqual(await figures(store, loaded.sourceId), expected);
    });
  }

  it('reads the OpenTelemetry JS quirks: numeric kind, intValue numbers, exact nanosecond durations, no line numbers when clean', async () => {
    const [loaded] = await loadFiles(store, [fixture('shared-samples/joined-otel-js/spans.otlp.jsonl')]);
    assert.strictEqual(loaded.skipped, 0);
    // First span of line 1, by hand: 1795965042402898731 − 1795965042399000000 = 3898731 ns = 3.898731 ms.
    const [auth] = await store.all<Record<string, unknown>>(
      `SELECT line, kind, service, status, duration_ms, parent_span_id, ${attr('llm.auth.scheme')} AS scheme
       FROM spans s WHERE span_id = 'f9bf2b38ba4c8486'`,
    );
    // A clean file takes the fast path, which writes no line numbers (nothing in it is cited by line).
    assert.deepStrictEqual(auth, {
      line: null, kind: 'INTERNAL', service: 'llm-gateway', status: 'UNSET', duration_ms: 3.898731,
      parent_span_id: '6567d36400986a3a', scheme: 'bearer',
    });
    // python3: kinds in the file are 1 (INTERNAL, 702 spans) and 2 (SERVER, 110 spans).
    const kinds = await store.all<{ kind: string; n: number }>('SELECT kind, count(*) AS n FROM spans GROUP BY kind ORDER BY kind');
    assert.deepStrictEqual(kinds, [{ kind: 'INTERNAL', n: 702 }, { kind: 'SERVER', n: 110 }]);
    // intValue written as a JSON number: 0 → '0' (inference.acquire_slot of line 1).
    const [slot] = await store.all<{ v: string }>(`SELECT ${attr('llm.queue_depth')} AS v FROM spans s WHERE span_id = '2f9facd59d83ad23'`);
    assert.strictEqual(slot.v, '0');
    // python3: 44 first_token events, 4 exception events.
    const events = await store.all<{ name: string; n: number }>('SELECT name, count(*) AS n FROM span_events GROUP BY name ORDER BY name');
    assert.deepStrictEqual(events, [{ name: 'exception', n: 4 }, { name: 'first_token', n: 44 }]);
    // Every trace and span ID is canonical lower-case hex.
    const [bad] = await store.all<{ n: number }>(
      `SELECT count(*) AS n FROM spans WHERE NOT regexp_full_match(trace_id, '[0-9a-f]{32}') OR NOT regexp_full_match(span_id, '[0-9a-f]{16}')`,
    );
    assert.strictEqual(bad.n, 0);
  });

  it('reads the api_v3 {"result": …} wrapper: missing kind, numeric status, AnyValue rendering, exact 1 ms', async () => {
    const [loaded] = await loadFiles(store, [fixture('shared-samples/otlp-json/jaeger-ui_api_v3_v3-trace-local-2.21.0.json')]);
    const rows = await store.all<Record<string, unknown>>(
      `SELECT line, span_id, parent_span_id, kind, status, duration_ms FROM spans WHERE source_id = $1 ORDER BY line`,
      [loaded.sourceId],
    );
    // By hand from the file: 1786934400001000000 − 1786934400000000000 = 1 ms; the two children 0.1 ms.
    assert.deepStrictEqual(rows, [
      { line: 1, span_id: '0123456789abcdef', parent_span_id: null, kind: 'UNSPECIFIED', status: 'ERROR', duration_ms: 1 },
      { line: 2, span_id: '1111111111111111', parent_span_id: '0123456789abcdef', kind: 'UNSPECIFIED', status: 'UNSET', duration_ms: 0.1 },
      { line: 3, span_id: '2222222222222222', parent_span_id: '0123456789abcdef', kind: 'SERVER', status: 'OK', duration_ms: 0.1 },
    ]);
    const [attrs] = await store.all<Record<string, string>>(
      `SELECT ${attr('integer')} AS i, ${attr('false')} AS f, ${attr('float')} AS d, ${attr('bytes')} AS b, ${attr('empty')} AS e
       FROM spans s WHERE span_id = '0123456789abcdef'`,
    );
    assert.deepStrictEqual(attrs, { i: '0', f: 'false', d: '1.5', b: 'AQID', e: '' });
    const [event] = await store.all(`SELECT name, time_ns FROM span_events WHERE source_id = $1`, [loaded.sourceId]);
    assert.deepStrictEqual(event, { name: 'retry', time_ns: '1786934400000500000' });
  });

  it('drops the span exported twice in otlp2jaeger-in and says so in load_issues', async () => {
    const [loaded] = await loadFiles(store, [fixture('shared-samples/otlp-json/jaeger-ui_utils_fixtures_otlp2jaeger-in.json')]);
    assert.strictEqual(loaded.records, 1);
    const found = await issues(store, loaded.sourceId);
    assert.strictEqual(found.length, 1);
    assert.strictEqual(found[0].code, 'duplicate-span');
    assert.match(found[0].message, /^1 duplicate span row/);
  });

  it('loads the same rows through the staged fast path (a file too large to insert straight into spans)', async () => {
    // readOtlp without the file size takes the staged route (otlp.ts directTarget); loadFiles passes the
    // size, and this small file goes straight into spans. Both must give the python3 figures above.
    const file = fixture('shared-samples/joined-otel-js/spans.otlp.jsonl');
    const [direct] = await loadFiles(store, [file]);
    await readOtlp({ store, sourceId: 99, path: file, sniff: await sniffFile(file), traceIdTag: 'trace_id' });
    const expected = { spans: 812, traces: 117, roots: 152, services: 1, events: 48 };
    assert.deepStrictEqual(await figures(store, direct.sourceId), expected);
    assert.deepStrictEqual(await figures(store, 99), expected);
    // Row for row the same spans (attributes and events included), and no line numbers on either path.
    const [diff] = await store.all<{ only_one: number; with_line: number }>(
      `WITH a AS (SELECT trace_id, span_id, parent_span_id, name, kind, service, start_ns, end_ns, status, attributes::VARCHAR AS at, otlp_attributes AS oat, events::VARCHAR AS ev FROM spans WHERE source_id = $1),
            b AS (SELECT trace_id, span_id, parent_span_id, name, kind, service, start_ns, end_ns, status, attributes::VARCHAR AS at, otlp_attributes AS oat, events::VARCHAR AS ev FROM spans WHERE source_id = 99)
       SELECT (SELECT count(*) FROM (FROM a EXCEPT ALL FROM b)) + (SELECT count(*) FROM (FROM b EXCEPT ALL FROM a)) AS only_one,
              (SELECT count(line) FROM spans) AS with_line`,
      [direct.sourceId],
    );
    assert.deepStrictEqual(diff, { only_one: 0, with_line: 0 });
  });

  it('reads DuckDB size settings as bytes (the direct-insert threshold)', async () => {
    // DuckDB renders memory_limit in binary units with one decimal: 1200MB → '1.1 GiB'.
    const [{ v }] = await store.all<{ v: string }>(`SELECT current_setting('memory_limit') AS v`);
    assert.match(v, /^[0-9.]+ [KMGT]iB$/);
    assert.strictEqual(parseByteSize('1.1 GiB'), 1.1 * 2 ** 30);
    assert.strictEqual(parseByteSize('953.6 MiB'), 953.6 * 2 ** 20);
    assert.strictEqual(parseByteSize('2.0 GB'), 2e9);
    assert.strictEqual(parseByteSize('unlimited'), undefined);
  });

  it('decodes base64 IDs (proto3 JSON mapping) and reads string kinds, string statuses and string/number intValue alike', async () => {
    // Fixture written with python3: base64.b64encode(bytes.fromhex('0123456789abcdef0123456789abcdef')) = 'ASNFZ4mrze8BI0VniavN7w=='.
    const [loaded] = await loadFiles(store, [fixture('spans/otlp-base64-ids.json')]);
    const rows = await store.all<Record<string, unknown>>(
      `SELECT trace_id, span_id, parent_span_id, kind, status, service, duration_ms,
              ${attr('tokens_str')} AS s, ${attr('tokens_num')} AS n, ${attr('ok')} AS ok, ${attr('ratio')} AS r
       FROM spans s WHERE source_id = $1 ORDER BY line`,
      [loaded.sourceId],
    );
    assert.deepStrictEqual(rows, [
      // 1795965042500250000 − 1795965042399000000 = 101250000 ns = 101.25 ms
      { trace_id: '0123456789abcdef0123456789abcdef', span_id: '0123456789abcdef', parent_span_id: null, kind: 'SERVER', status: 'ERROR',
        service: 'b64-svc', duration_ms: 101.25, s: '42', n: '42', ok: 'true', r: '0.5' },
      // start/end as JSON numbers: 1795965042499000001 − 1795965042400000000 = 99000001 ns
      { trace_id: '0123456789abcdef0123456789abcdef', span_id: '1111111111111111', parent_span_id: '0123456789abcdef', kind: 'INTERNAL',
        status: 'OK', service: 'b64-svc', duration_ms: 99.000001, s: null, n: null, ok: null, r: null },
    ]);
    assert.deepStrictEqual(await issues(store, loaded.sourceId), []);
  });

  it('loads *UnixNano written in microseconds as found but warns about the unit', async () => {
    // Line 1 of spans.otlp.jsonl with every time divided by 1000 (python3): 46 spans.
    const [loaded] = await loadFiles(store, [fixture('spans/otlp-micros-as-nanos.jsonl')]);
    assert.strictEqual(loaded.records, 46);
    const found = await issues(store, loaded.sourceId);
    const unit = found.filter((i) => i.code === 'implausible-timestamp');
    assert.strictEqual(unit.length, 1);
    assert.strictEqual(unit[0].severity, 'warning');
    assert.match(unit[0].message, /^46 span\(s\) start before 1990/);
    assert.match(unit[0].message, /µs/);
    // Values are what they are: 1795965042402898 − 1795965042399000 "ns" (the ns part was cut by the ÷1000).
    // The warning cites a line, so the file was read again with line numbers: every span is on line 1.
    const [auth] = await store.all<{ line: number; start_ns: number; duration_ms: number }>(
      `SELECT line, start_ns, duration_ms FROM spans WHERE span_id = 'f9bf2b38ba4c8486'`,
    );
    assert.deepStrictEqual(auth, { line: 1, start_ns: 1795965042399000, duration_ms: 0.003898 });
    assert.strictEqual(unit[0].line, 1);
    // The fast read's rows were deleted before the numbered read: 46 spans and their 3 events (python3), once.
    const [lines] = await store.all<{ numbered: number; spans: number; events: number }>(
      `SELECT count(*) FILTER (WHERE line = 1) AS numbered, count(*) AS spans,
              (SELECT count(*) FROM span_events WHERE source_id = $1) AS events
       FROM spans WHERE source_id = $1`,
      [loaded.sourceId],
    );
    assert.deepStrictEqual(lines, { numbered: 46, spans: 46, events: 3 });
  });

  it('skips a malformed line and a truncated last line, counts them, keeps the exact line numbers', async () => {
    // Lines 1, 2, 4 are lines 1–3 of spans.otlp.jsonl (python3: 130 spans, 7 events); line 3 is garbage; line 5 is cut.
    const [loaded] = await loadFiles(store, [fixture('spans/otlp-bad-lines.jsonl')]);
    assert.strictEqual(loaded.records, 130);
    assert.strictEqual(loaded.skipped, 2);
    const f = await figures(store, loaded.sourceId);
    assert.strictEqual(f.spans, 130);
    assert.strictEqual(f.events, 7);
    const bad = (await issues(store, loaded.sourceId)).filter((i) => i.severity === 'warning');
    assert.deepStrictEqual(bad.map((i) => [i.line, i.code]), [[3, 'malformed-json'], [5, 'truncated-line']]);
    const lines = await store.all<{ line: number }>('SELECT DISTINCT line FROM spans ORDER BY line');
    assert.deepStrictEqual(lines.map((l) => l.line), [1, 2, 4]);
  });

  it('skips and records a JSON line that is not a trace export (no resourceSpans)', async () => {
    // Line 1 of spans.otlp.jsonl (python3: 46 spans) then a logs export line.
    const [loaded] = await loadFiles(store, [fixture('spans/otlp-line-without-spans.jsonl')]);
    assert.strictEqual(loaded.records, 46);
    assert.strictEqual(loaded.skipped, 1);
    const found = await issues(store, loaded.sourceId);
    assert.deepStrictEqual(found.map((i) => [i.line, i.severity, i.code]), [[2, 'warning', 'foreign-line']]);
  });

  it('reads a gzip file by content', async () => {
    // gzip of lines 1–2 of spans.otlp.jsonl (python3: 89 spans, 6 events)
    const [loaded] = await loadFiles(store, [fixture('spans/otlp-two-lines.jsonl.gz')]);
    assert.strictEqual(loaded.sniff.gzip, true);
    const f = await figures(store, loaded.sourceId);
    assert.strictEqual(f.spans, 89);
    assert.strictEqual(f.events, 6);
  });

  it('rejects an empty file, a file of other JSON and a truncated document with an InputError naming the file', async () => {
    for (const name of ['spans/empty.json', 'spans/not-spans.jsonl', 'spans/otlp-truncated-document.json']) {
      await assert.rejects(loadFiles(store, [fixture(name)], { expectSide: 'server' }), (err: unknown) => {
        assert.ok(err instanceof InputError, `${name}: ${String(err)}`);
        assert.ok(err.message.includes(name.split('/')[1]), err.message);
        return true;
      });
    }
  });
});
