import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { gzipSync } from 'zlib';
import type { DuckStore } from '../../../src/core/store/duckStore';
import { sharedSamplesDir } from '../../helpers/paths';
import { issuesOf, readerSession } from './clientHelpers';

const DASHBOARD = path.join(sharedSamplesDir, 'k6-json', 'xk6-dashboard_dashboard_testdata_result.json');
const JOINED = path.join(sharedSamplesDir, 'joined-otel-js', 'k6.ndjson');
const RECORDS = path.join(sharedSamplesDir, 'joined-otel-js', 'requests.ndjson');

type Counters = Record<string, number>;

async function counters(store: DuckStore, sourceId = 1): Promise<Counters> {
  const rows = await store.all<{ metric: string; value: number }>('SELECT metric, value FROM run_counters WHERE source_id = $1', [sourceId]);
  return Object.fromEntries(rows.map((r) => [r.metric, r.value]));
}

async function outcomes(store: DuckStore, sourceId = 1): Promise<Array<[number | null, number | null, string, number]>> {
  const rows = await store.all<{ s: number | null; e: number | null; o: string; n: number }>(
    'SELECT http_status AS s, error_code AS e, outcome AS o, count(*) AS n FROM client_requests WHERE source_id = $1 GROUP BY ALL ORDER BY ALL',
    [sourceId],
  );
  return rows.map((r) => [r.s, r.e, r.o, r.n]);
}

describe('k6 JSON reader', () => {
  const session = readerSession('k6json');
  const load = session.load;

  it('loads the real xk6-dashboard k6 output: one row per http_reqs Point', async () => {
    const store = await load([DASHBOARD]);
    // Counted with python3 (json.loads per line): 15 Metric + 3582 Point lines; 322 http_reqs Points
    // (161 status 200, 161 status 308 redirects); 161 iterations Points of value 1; max vus Point = 2;
    // 322 distinct (time, tags) keys among http_req* Points; Σ http_req_duration = 39434.178068.
    const [row] = await store.all<{ n: number; sum: number; keys: number }>(
      'SELECT count(*) AS n, sum(client_total_ms) AS sum, count(DISTINCT (start_ms + client_total_ms, url, http_status)) AS keys FROM client_requests',
    );
    assert.strictEqual(row.n, 322);
    assert.ok(Math.abs(row.sum - 39434.178068) < 1e-6);
    assert.deepStrictEqual(await counters(store), { iterations: 161, dropped_iterations: 0, http_reqs: 322, vus_peak: 2 });
    assert.deepStrictEqual(await outcomes(store), [
      [200, null, 'succeeded', 161],
      [308, null, 'succeeded', 161],
    ]);
    const [src] = await store.all<{ records: number; skipped: number }>('SELECT records, skipped FROM sources');
    assert.deepStrictEqual(src, { records: 322, skipped: 0 });
    // First request by hand: Point time 2023-09-08T21:03:10.549397854+02:00 = 1694199790549.397854 ms
    // epoch, http_req_duration 121.233058 → start 1694199790428.164796 (the earliest Point time in
    // the file). A clean file loads without line numbers (schema.ts), so line is NULL.
    const [first] = await store.all<{ line: number | null; start_ms: number; client_total_ms: number; trace_id: string | null; method: string; scenario: string }>(
      'SELECT line, start_ms, client_total_ms, trace_id, method, scenario FROM client_requests ORDER BY start_ms + client_total_ms LIMIT 1',
    );
    assert.strictEqual(first.line, null);
    assert.ok(Math.abs(first.start_ms - 1694199790428.164796) < 1e-3);
    assert.strictEqual(first.client_total_ms, 121.233058);
    assert.strictEqual(first.trace_id, null);
    assert.strictEqual(first.method, 'GET');
    assert.strictEqual(first.scenario, 'contacts');
  });

  it('loads the joined sample: 120 requests, 116 × 200 and 4 × 500 (error_code 1500) failed', async () => {
    const store = await load([JOINED]);
    assert.deepStrictEqual(await outcomes(store), [
      [200, null, 'succeeded', 116],
      [500, 1500, 'failed', 4],
    ]);
    // python3: 120 http_reqs, 120 iterations Points, max vus = 3, 120 distinct metadata.trace_id
    assert.deepStrictEqual(await counters(store), { iterations: 120, dropped_iterations: 0, http_reqs: 120, vus_peak: 3 });
    const [ids] = await store.all<{ n: number }>('SELECT count(DISTINCT trace_id) AS n FROM client_requests');
    assert.strictEqual(ids.n, 120);
    // By hand from the file (http_req_duration / http_req_waiting Points of these trace IDs):
    const picked = await store.all<{ trace_id: string; client_total_ms: number; client_ttfb_ms: number; client_ttft_ms: number | null }>(
      `SELECT trace_id, client_total_ms, client_ttfb_ms, client_ttft_ms FROM client_requests
       WHERE trace_id IN ('0b71e6178914501b1e906d2ed642d4a0', 'aca1eb653dc1ab4f2900345c247c2f80', '8c7de82776b258179c23ce4e36dfce60')
       ORDER BY list_position(['0b71e6178914501b1e906d2ed642d4a0', 'aca1eb653dc1ab4f2900345c247c2f80', '8c7de82776b258179c23ce4e36dfce60'], trace_id)`,
    );
    assert.deepStrictEqual(
      picked.map((p) => [p.trace_id.slice(0, 6), p.client_total_ms, p.client_ttft_ms]),
      [
        ['0b71e6', 143.476397, null],
        ['aca1eb', 87.468855, null],
        ['8c7de8', 30.364457, null],
      ],
    );
    assert.strictEqual(picked[0].client_ttfb_ms, 140.432009);
    // start = end − duration: 2026-11-29T15:10:42.535290712Z − 143.476397 ms
    const [s] = await store.all<{ start_ms: number }>("SELECT start_ms FROM client_requests WHERE trace_id = '0b71e6178914501b1e906d2ed642d4a0'");
    assert.ok(Math.abs(s.start_ms - (Date.UTC(2026, 10, 29, 15, 10, 42) + 535.290712 - 143.476397)) < 1e-3);
  });

  it('agrees with the per-request records of the same run (final − send = http_req_duration)', async () => {
    const store = await load([JOINED, RECORDS]);
    const [cmp] = await store.all<{ n: number; maxdiff: number }>(
      `SELECT count(*) AS n, max(abs(k.client_total_ms - r.client_total_ms)) AS maxdiff
       FROM client_requests k JOIN client_requests r ON k.trace_id = r.trace_id AND k.source_id = 1 AND r.source_id = 2`,
    );
    assert.strictEqual(cmp.n, 120);
    assert.ok(cmp.maxdiff < 1e-6, `max difference ${cmp.maxdiff}`);
  });

  it('reads a file with a finding again with line numbers, and cites the finding by line', async () => {
    // Drop the http_req_duration Point of one request: its other Points still group, without a
    // duration (the 'incomplete-request' finding). The expected line is the first line of that request's
    // Points, found here by a plain JS pass over the file.
    const lines = fs.readFileSync(JOINED, 'utf8').split('\n').filter((l) => l.length > 0);
    type Pt = { type: string; metric: string; data: { time?: string; metadata?: { trace_id?: string } } };
    const parsed = lines.map((l) => JSON.parse(l) as Pt);
    const victim = parsed.findIndex((p) => p.type === 'Point' && p.metric === 'http_req_duration');
    const traceId = parsed[victim].data.metadata?.trace_id ?? '';
    const kept = lines.filter((_, i) => i !== victim);
    const firstLine =
      1 + parsed.filter((_, i) => i !== victim).findIndex((p) => p.type === 'Point' && p.metric.startsWith('http_req') && p.data.metadata?.trace_id === traceId);
    const file = path.join(session.dir, 'no-duration.ndjson');
    fs.writeFileSync(file, kept.join('\n') + '\n');
    const store = await load([file]);
    const found = (await issuesOf(store)).filter((i) => i.code === 'incomplete-request');
    assert.deepStrictEqual(found.map((i) => [i.line, i.severity]), [[firstLine, 'warning']]);
    // 119 requests load, every one with its line (the numbered read), none with the victim's trace ID.
    const [n] = await store.all<{ n: number; numbered: number; victim: number }>(
      'SELECT count(*) AS n, count(line) AS numbered, count(*) FILTER (WHERE trace_id = $1) AS victim FROM client_requests',
      [traceId],
    );
    assert.deepStrictEqual(n, { n: 119, numbered: 119, victim: 0 });
  });

  it('skips a malformed middle line and a truncated last line, with exact line numbers', async () => {
    const lines = fs.readFileSync(JOINED, 'utf8').split('\n');
    lines.pop(); // the file ends with a newline
    // Line 700 (1-based) is one Point of some request: break it in the middle of the JSON.
    const victim = JSON.parse(lines[699]) as { metric: string; data: { metadata?: { trace_id?: string } } };
    lines[699] = lines[699].slice(0, 40) + '}}';
    const last = JSON.parse(lines[lines.length - 1]) as { metric: string };
    const file = path.join(session.dir, 'broken.ndjson');
    fs.writeFileSync(file, lines.slice(0, -1).join('\n') + '\n' + lines[lines.length - 1].slice(0, 50));
    const store = await load([file]);
    const issues = (await issuesOf(store)).filter((i) => i.severity === 'warning');
    assert.deepStrictEqual(
      issues.map((i) => [i.line, i.code]),
      [
        [700, 'malformed-json'],
        [1593, 'truncated-line'],
      ],
    );
    const [src] = await store.all<{ skipped: number }>('SELECT skipped FROM sources');
    assert.strictEqual(src.skipped, 2);
    // The last line is an iterations Point (checked here), so 119 of 120 iterations remain.
    assert.strictEqual(last.metric, 'iterations');
    const c = await counters(store);
    assert.strictEqual(c.iterations, 119);
    // Line 700 is the http_reqs Point of one request (checked here): its 8 other Points still make
    // the request, so all 120 requests load while the http_reqs counter drops to 119.
    assert.strictEqual(victim.metric, 'http_reqs');
    assert.strictEqual(c.http_reqs, 119);
    const [n] = await store.all<{ n: number; victim: number }>(
      'SELECT count(*) AS n, count(*) FILTER (WHERE trace_id = $1) AS victim FROM client_requests',
      [victim.data.metadata?.trace_id ?? ''],
    );
    assert.deepStrictEqual(n, { n: 120, victim: 1 });
    const [lineOf] = await store.all<{ n: number }>('SELECT count(*) AS n FROM client_requests WHERE line IS NULL');
    assert.strictEqual(lineOf.n, 0);
  });

  it('reads gzip input the same as plain', async () => {
    const file = path.join(session.dir, 'k6.ndjson.gz');
    fs.writeFileSync(file, gzipSync(fs.readFileSync(JOINED)));
    const store = await load([file]);
    assert.deepStrictEqual(await outcomes(store), [
      [200, null, 'succeeded', 116],
      [500, 1500, 'failed', 4],
    ]);
    const [src] = await store.all<{ format: string }>('SELECT format FROM sources');
    assert.strictEqual(src.format, 'k6-json');
  });

  it('takes the trace ID from a tag when metadata has none, and joins streaming Trends by trace ID', async () => {
    // Move metadata.trace_id into a tag named "tid" (as a script doing tags: {tid} would), and add
    // an llm_ttft_ms Point for the first request, as a streaming script would record it.
    const out: string[] = [];
    for (const line of fs.readFileSync(JOINED, 'utf8').split('\n')) {
      if (!line) continue;
      const doc = JSON.parse(line) as { type: string; data: { tags?: Record<string, string>; metadata?: { trace_id?: string } } };
      if (doc.type === 'Point' && doc.data.metadata?.trace_id) {
        doc.data.tags = { ...doc.data.tags, tid: doc.data.metadata.trace_id.toUpperCase() };
        delete doc.data.metadata;
      }
      out.push(JSON.stringify(doc));
    }
    out.push(JSON.stringify({ metric: 'llm_ttft_ms', type: 'Point', data: { time: '2026-11-29T15:10:42.535Z', value: 97.5, tags: { tid: '0b71e6178914501b1e906d2ed642d4a0' } } }));
    const file = path.join(session.dir, 'tagged.ndjson');
    fs.writeFileSync(file, out.join('\n') + '\n');
    const store = await load([file], 'tid');
    const [ids] = await store.all<{ n: number; lower: number }>(
      "SELECT count(DISTINCT trace_id) AS n, count(*) FILTER (WHERE trace_id = lower(trace_id)) AS lower FROM client_requests",
    );
    assert.deepStrictEqual(ids, { n: 120, lower: 120 });
    const streaming = await store.all<{ trace_id: string; client_ttft_ms: number; is_streaming: boolean }>(
      'SELECT trace_id, client_ttft_ms, is_streaming FROM client_requests WHERE is_streaming',
    );
    assert.deepStrictEqual(streaming, [{ trace_id: '0b71e6178914501b1e906d2ed642d4a0', client_ttft_ms: 97.5, is_streaming: true }]);
  });
});
