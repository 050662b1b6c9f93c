import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { DuckStore } from '../../../src/core/store/duckStore';
import { fixture, sharedSamplesDir } from '../../helpers/paths';
import { issuesOf, readerSession } from './clientHelpers';

// A k6 `--out csv` rendering of the first 44 requests of joined-otel-js/k6.ndjson (whole-second unix
// timestamps, "%f" values, non-column tags in extra_tags, metadata as trace_id=…), as k6's CSV
// output writes it. python3 csv.DictReader over it: 578 rows, 44 http_reqs (2 with status 500),
// 44 iterations, max vus 3.
const CSV = fixture('client-readers', 'k6-joined-slice.csv');
const JSON_RUN = path.join(sharedSamplesDir, 'joined-otel-js', 'k6.ndjson');

interface Req {
  trace_id: string;
  client_total_ms: number;
  blocked_ms: number;
  connecting_ms: number;
  sending_ms: number;
  waiting_ms: number;
  receiving_ms: number;
  http_status: number;
  error_code: number | null;
  outcome: string;
  method: string;
  url: string;
  scenario: string;
}

async function requests(store: DuckStore, sourceId: number): Promise<Req[]> {
  return store.all<Req & Record<string, unknown>>(
    `SELECT trace_id, client_total_ms, blocked_ms, connecting_ms, sending_ms, waiting_ms, receiving_ms, http_status,
            error_code, outcome, method, url, scenario
     FROM client_requests WHERE source_id = $1 ORDER BY trace_id`,
    [sourceId],
  );
}

describe('k6 CSV reader', () => {
  const session = readerSession('k6csv');

  it('gives the same requests as the JSON output of the same run', async () => {
    const { store, loaded } = await session.loadInto([CSV, JSON_RUN]);
    assert.deepStrictEqual(
      loaded.map((l) => [l.sniff.format, l.records]),
      [
        ['k6-csv', 44],
        ['k6-json', 120],
      ],
    );
    const fromCsv = await requests(store, 1);
    const fromJson = (await requests(store, 2)).filter((r) => fromCsv.some((c) => c.trace_id === r.trace_id));
    assert.strictEqual(fromJson.length, 44);
    assert.deepStrictEqual(fromCsv, fromJson);
    const counters = await store.all<{ metric: string; value: number }>('SELECT metric, value FROM run_counters WHERE source_id = 1 ORDER BY metric');
    assert.deepStrictEqual(
      counters.map((c) => [c.metric, c.value]),
      [
        ['dropped_iterations', 0],
        ['http_reqs', 44],
        ['iterations', 44],
        ['vus_peak', 3],
      ],
    );
    const [failed] = await store.all<{ n: number }>("SELECT count(*) AS n FROM client_requests WHERE source_id = 1 AND outcome = 'failed' AND http_status = 500 AND error_code = 1500");
    assert.strictEqual(failed.n, 2);
    // Whole-second timestamps: said once, as info; the rows of metrics no reader uses counted by metric, as in the JSON output.
    const issues = await issuesOf(store, 1);
    assert.deepStrictEqual(issues.map((i) => [i.severity, i.code]), [['info', 'time-resolution'], ['info', 'unused-metrics']]);
    assert.match(String(issues[1].message), /^135 Point\(s\) of k6 metrics Phasewise does not read were not loaded: data_received \(44\), data_sent \(44\), iteration_duration \(44\), vus_max \(3\)$/);
  });

  it('keeps apart two requests with identical tags in the same second, and extra_tags in any order', async () => {
    // Same second, same tags, no metadata: only the order of the rows separates the two requests.
    const header = 'metric_name,timestamp,metric_value,check,error,error_code,group,method,name,proto,scenario,status,subproto,tls_version,url,extra_tags,metadata';
    const row = (metric: string, value: number, extra: string): string =>
      `${metric},1795965042,${value.toFixed(6)},,,,,GET,http://x/,HTTP/1.1,default,200,,,http://x/,${extra},`;
    const lines = [header];
    for (const [i, d] of [
      [0, 10.5],
      [1, 20.25],
    ] as const) {
      // Go writes map keys in random order: the second request's rows alternate the pair order.
      const extra = (k: number): string => (i === 1 && k % 2 === 1 ? 'route=/v1/chat&expected_response=true' : 'expected_response=true&route=/v1/chat');
      lines.push(row('http_reqs', 1, extra(0)), row('http_req_duration', d, extra(1)), row('http_req_waiting', d - 1, extra(2)), row('http_req_failed', 0, extra(3)));
    }
    const file = path.join(session.dir, 'same-second.csv');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const { store } = await session.loadInto([file]);
    const rows = await store.all<{ line: number; client_total_ms: number; client_ttfb_ms: number; route: string }>(
      'SELECT line, client_total_ms, client_ttfb_ms, route FROM client_requests ORDER BY line',
    );
    assert.deepStrictEqual(rows, [
      { line: 2, client_total_ms: 10.5, client_ttfb_ms: 9.5, route: '/v1/chat' },
      { line: 6, client_total_ms: 20.25, client_ttfb_ms: 19.25, route: '/v1/chat' },
    ]);
  });

  it('records a malformed CSV row and loads the rest', async () => {
    const text = fs.readFileSync(CSV, 'utf8').split('\n');
    text[3] = 'http_req_blocked,1795965042'; // line 4 (first request's http_req_blocked row): too few fields
    const file = path.join(session.dir, 'broken.csv');
    fs.writeFileSync(file, text.join('\n'));
    const { store, loaded } = await session.loadInto([file]);
    assert.strictEqual(loaded[0].skipped, 1);
    assert.strictEqual(loaded[0].records, 44);
    const warnings = (await issuesOf(store)).filter((i) => i.severity === 'warning');
    assert.deepStrictEqual(warnings.map((w) => [w.line, w.code]), [[4, 'malformed-csv']]);
    // Line 4 was the http_req_blocked row of the first request (lines 2–14): it loses that timing
    // only, and every request keeps the line of its first row, as in the clean file.
    const { store: clean } = await session.loadInto([CSV]);
    const linesOf = async (s: DuckStore): Promise<number[]> =>
      (await s.all<{ line: number }>('SELECT line FROM client_requests ORDER BY line')).map((r) => r.line);
    assert.deepStrictEqual(await linesOf(store), await linesOf(clean));
    const [first] = await store.all<{ line: number; blocked_ms: number | null }>('SELECT line, blocked_ms FROM client_requests ORDER BY line LIMIT 1');
    assert.deepStrictEqual(first, { line: 2, blocked_ms: null });
  });
});
