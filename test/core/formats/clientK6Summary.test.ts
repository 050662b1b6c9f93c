import * as assert from 'assert';
import * as path from 'path';
import type { DuckStore } from '../../../src/core/store/duckStore';
import { fixture, sharedSamplesDir } from '../../helpers/paths';
import { issuesOf, loadInto } from './clientHelpers';

const HANDLE_SUMMARY = path.join(sharedSamplesDir, 'k6-summary', 'k6-reporter_tests_test-data.json');
const GRPC = path.join(sharedSamplesDir, 'k6-summary', 'k6-reporter_tests_data_grpc.json');
// Hand-written legacy --summary-export of joined-otel-js/k6.ndjson: the http_req_duration stats were
// computed from its 120 http_req_duration Points with python3 (linear interpolation, as k6 does).
const LEGACY = fixture('client-readers', 'k6-summary-export-legacy.json');

async function stat(store: DuckStore, sourceId: number, metric: string, name: string): Promise<number | undefined> {
  const rows = await store.all<{ value: number }>('SELECT value FROM k6_summary WHERE source_id = $1 AND metric = $2 AND stat = $3', [sourceId, metric, name]);
  assert.ok(rows.length <= 1);
  return rows[0]?.value;
}

describe('k6 summary reader', () => {
  let store: DuckStore;
  before(async () => {
    ({ store } = await loadInto([HANDLE_SUMMARY, GRPC, LEGACY]));
  });
  after(async () => store.close());

  it('recognises both layouts and loads every numeric stat', async () => {
    const sources = await store.all<{ format: string; records: number }>('SELECT format, records FROM sources ORDER BY source_id');
    // python3: Σ over metrics of numeric entries in .values (+ one row per threshold):
    // test-data.json 90 values + 2 thresholds; grpc.json 41 values + 2 thresholds;
    // legacy: 19 numeric stats + 2 thresholds.
    assert.deepStrictEqual(sources, [
      { format: 'k6-summary', records: 92 },
      { format: 'k6-summary', records: 43 },
      { format: 'k6-summary', records: 21 },
    ]);
  });

  it('reads handleSummary values and threshold results', async () => {
    assert.strictEqual(await stat(store, 1, 'http_req_duration', 'p(95)'), 30.0256841);
    assert.strictEqual(await stat(store, 1, 'http_req_duration', 'p(99)'), 39.577136380000084);
    assert.strictEqual(await stat(store, 1, 'http_req_duration{expected_response:true}', 'med'), 20.233564);
    assert.strictEqual(await stat(store, 1, 'http_reqs', 'count'), 878);
    assert.strictEqual(await stat(store, 1, 'http_req_duration', 'threshold_ok:p(95)<1000'), 1);
    assert.strictEqual(await stat(store, 2, 'fake_rate', 'threshold_ok:rate >= 0.8'), 0);
    assert.strictEqual(await stat(store, 2, 'grpc_reqs', 'count'), 9615);
  });

  it('reads the flat legacy export, negating its "failed" threshold flags, and notes the missing p(99)', async () => {
    assert.strictEqual(await stat(store, 3, 'http_req_duration', 'p(95)'), 230.11307254999994);
    assert.strictEqual(await stat(store, 3, 'http_req_duration', 'p(99)'), undefined);
    assert.strictEqual(await stat(store, 3, 'http_reqs', 'count'), 120);
    assert.strictEqual(await stat(store, 3, 'http_req_failed', 'value'), 4 / 120);
    assert.strictEqual(await stat(store, 3, 'http_req_duration', 'threshold_ok:p(95)<500'), 1);
    assert.strictEqual(await stat(store, 3, 'http_req_failed', 'threshold_ok:rate<0.01'), 0);
    const issues = await issuesOf(store, 3);
    assert.deepStrictEqual(issues.map((i) => i.code), ['missing-stat']);
  });
});
