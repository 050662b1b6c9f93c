import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { fixture, sharedSamplesDir } from '../../helpers/paths';
import { issuesOf, readerSession } from './clientHelpers';

const RECORDS = path.join(sharedSamplesDir, 'joined-otel-js', 'requests.ndjson');
// The first 30 records of requests.ndjson as CSV, with route_id/model_class added, a `prompt` text
// column (must be dropped) and 2 generator-dropped rows (python3: 32 rows, 2 dropped, 1 status 500).
const RECORDS_CSV = fixture('client-readers', 'records-slice.csv');

describe('per-request records reader', () => {
  const session = readerSession('records');
  const load = session.load;

  it('loads the joined records: 120 requests, success → succeeded, error/500 → failed', async () => {
    const store = await load([RECORDS]);
    // python3: 120 lines; outcome 'success' & 200 × 116, 'error' & 500 × 4; none generator_dropped.
    const rows = await store.all<{ outcome: string; s: number; n: number }>(
      'SELECT outcome, http_status AS s, count(*) AS n FROM client_requests GROUP BY ALL ORDER BY ALL',
    );
    assert.deepStrictEqual(rows, [
      { outcome: 'failed', s: 500, n: 4 },
      { outcome: 'succeeded', s: 200, n: 116 },
    ]);
    const counters = await store.all<{ metric: string; value: number }>('SELECT metric, value FROM run_counters ORDER BY metric');
    assert.deepStrictEqual(counters.map((c) => [c.metric, c.value]), [
      ['dropped_iterations', 0],
      ['iterations', 120],
      ['scheduled', 120],
    ]);
    // Line 1 by hand: send 19.814315, first content 162.56444, final 163.290712 (offsets, no clock).
    const [first] = await store.all<{ line: number; client_total_ms: number; client_ttft_ms: number; start_ms: number | null; request_id: string; output_tokens: number }>(
      'SELECT line, client_total_ms, client_ttft_ms, start_ms, request_id, output_tokens FROM client_requests ORDER BY line LIMIT 1',
    );
    assert.strictEqual(first.line, 1);
    assert.strictEqual(first.request_id, 'out-public-000000');
    assert.ok(Math.abs(first.client_total_ms - (163.290712 - 19.814315)) < 1e-9);
    assert.ok(Math.abs(first.client_ttft_ms - (162.56444 - 19.814315)) < 1e-9);
    assert.strictEqual(first.start_ms, null);
    assert.strictEqual(first.output_tokens, 16);
    // A 500 has no first content: TTFT stays NULL, total is still measured.
    const [err] = await store.all<{ client_ttft_ms: number | null; client_total_ms: number }>(
      "SELECT client_ttft_ms, client_total_ms FROM client_requests WHERE request_id = 'out-public-000025'",
    );
    assert.strictEqual(err.client_ttft_ms, null);
    assert.ok(Math.abs(err.client_total_ms - (2114.237525 - 2083.873068)) < 1e-9);
  });

  it('loads CSV records: dropped rows become counters, prompt text is dropped and said so', async () => {
    const store = await load([RECORDS_CSV]);
    const [src] = await store.all<{ format: string; records: number; skipped: number }>('SELECT format, records, skipped FROM sources');
    assert.deepStrictEqual(src, { format: 'records-csv', records: 30, skipped: 0 });
    const counters = await store.all<{ metric: string; value: number }>('SELECT metric, value FROM run_counters ORDER BY metric');
    assert.deepStrictEqual(counters.map((c) => [c.metric, c.value]), [
      ['dropped_iterations', 2],
      ['iterations', 30],
      ['scheduled', 32],
    ]);
    const issues = await issuesOf(store);
    assert.deepStrictEqual(issues.map((i) => [i.severity, i.code]), [['info', 'prompt-text-dropped']]);
    assert.match(issues[0].message, /prompt/);
    const cols = await store.all<{ n: number; routes: number; failed: number }>(
      "SELECT count(*) AS n, count(*) FILTER (WHERE route = '/v1/chat/completions' AND model_class = 'small') AS routes, count(*) FILTER (WHERE outcome = 'failed') AS failed FROM client_requests",
    );
    assert.deepStrictEqual(cols, [{ n: 30, routes: 30, failed: 1 }]);
    // The CSV and NDJSON of the same requests agree.
    const both = await load([RECORDS_CSV, RECORDS]);
    const [cmp] = await both.all<{ n: number; maxdiff: number }>(
      `SELECT count(*) AS n, max(abs(a.client_total_ms - b.client_total_ms)) AS maxdiff
       FROM client_requests a JOIN client_requests b ON a.request_id = b.request_id AND a.source_id = 1 AND b.source_id = 2`,
    );
    assert.strictEqual(cmp.n, 30);
    assert.ok(cmp.maxdiff < 1e-9);
  });

  it('maps outcome synonyms and falls back to http_status, reporting unknown words; drops text fields', async () => {
    const rows = [
      { request_id: 'a', trace_id: 'A1', send_offset_ms: 0, final_content_offset_ms: 10, http_status: 200, outcome: 'OK' },
      { request_id: 'b', send_offset_ms: 1, http_status: 429 }, // no outcome: 429 → rejected
      { request_id: 'c', send_offset_ms: 2, outcome: 'timeout' },
      { request_id: 'd', send_offset_ms: 3, outcome: 'cancelled' },
      { request_id: 'e', send_offset_ms: 4, outcome: 'weird', http_status: 502 }, // unknown word → 502 → failed
      { request_id: 'f', send_offset_ms: 5, outcome: 'connection_error' },
      { request_id: 'g', send_offset_ms: 6, http_status: 0, messages: [{ role: 'user', content: 'hi' }], response: 'hello', team: 'x' },
      { request_id: 'h', scheduled_offset_ms: 7, generator_dropped: true },
    ];
    const file = path.join(session.dir, 'synonyms.ndjson');
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const store = await load([file]);
    const got = await store.all<{ request_id: string; outcome: string; trace_id: string | null }>(
      'SELECT request_id, outcome, trace_id FROM client_requests ORDER BY line',
    );
    assert.deepStrictEqual(
      got.map((g) => [g.request_id, g.outcome]),
      [
        ['a', 'succeeded'],
        ['b', 'rejected'],
        ['c', 'timed_out'],
        ['d', 'canceled'],
        ['e', 'failed'],
        ['f', 'transport_failed'],
        ['g', 'transport_failed'],
      ],
    );
    assert.strictEqual(got[0].trace_id, 'a1');
    const issues = await issuesOf(store);
    assert.deepStrictEqual(
      issues.map((i) => [i.line, i.code]),
      [
        [5, 'unknown-outcome'],
        [null, 'prompt-text-dropped'],
        [null, 'unknown-fields'],
      ],
    );
    assert.match(issues[1].message, /messages, response/);
    assert.match(issues[2].message, /team/);
    const [c] = await store.all<{ v: number }>("SELECT value AS v FROM run_counters WHERE metric = 'dropped_iterations'");
    assert.strictEqual(c.v, 1);
  });
});
