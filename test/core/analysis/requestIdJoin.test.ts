import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { analyzeRun } from '../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS, DEFAULT_REQUEST_ID_ATTRIBUTE, type AnalysisOptions } from '../../../src/core/analysis/options';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { renderTextReport as renderText } from '../../../src/core/report/text';
import { DuckStore } from '../../../src/core/store/duckStore';
import { fixture } from '../../helpers/paths';
import { makeTempDir } from '../formats/clientHelpers';

const AIPERF = fixture('tools', 'aiperf-profile_export.from-docs.jsonl');
const VLLM = fixture('tools', 'vllm-bench-serve.save-detailed.from-code.json');
// 8 root spans (test/fixtures/tools/README.md): requests 0–3 one trace each (request 1's header as a
// plain string, the others as the semantic conventions' string array), root 20 ms shorter than the
// client's latency; request 4's ID on two traces; request 5 none; request 6 (the 500) one trace; one
// trace with an ID no client record has.
const SPANS = fixture('tools', 'spans-x-request-id.otlp.jsonl');

const BY_REQUEST_ID: AnalysisOptions = { ...DEFAULT_ANALYSIS_OPTIONS, joinKey: { by: 'request_id', attribute: DEFAULT_REQUEST_ID_ATTRIBUTE } };

async function loaded(files: string[]): Promise<DuckStore> {
  const store = new DuckStore({ threads: 2 });
  await loadFiles(store, files);
  return store;
}

describe('the request-ID join (trace.id_source: request_id)', () => {
  let dir: string;
  before(() => {
    dir = makeTempDir('request-id-join');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('joins AIPerf x_request_id to http.request.header.x-request-id: coverage and the server-side collision', async () => {
    const store = await loaded([AIPERF, SPANS]);
    try {
      const report = await analyzeRun(store, BY_REQUEST_ID, []);
      const j = report.join;
      // By hand: 9 client records, all with an ID; matched 0, 1, 2, 3 and 6 (matched whatever the
      // outcome); request 4's ID is on two traces (collision, not matched), 5, 7 and 8 have no span.
      assert.strictEqual(j.key, 'request_id');
      assert.strictEqual(j.key_attribute, 'http.request.header.x-request-id');
      assert.strictEqual(j.applicable, true);
      assert.deepStrictEqual(
        [j.client_requests, j.with_trace_id, j.valid_trace_ids, j.matched, j.unmatched_client, j.server_ambiguous_ids, j.duplicate_trace_ids, j.client_duplicate_trace_ids],
        [9, 9, 9, 5, 4, 1, 1, 0],
      );
      assert.strictEqual(j.coverage, 5 / 9);
      // 8 traces; not joined to any client record: request 4's two and the stranger.
      assert.strictEqual(j.server_traces, 8);
      assert.strictEqual(j.orphan_server_roots, 3);
      // The matched successes are requests 0–3: client latency − root = 20 ms each.
      const envelope = report.metrics.network_envelope_ms;
      assert.ok(envelope);
      assert.strictEqual(envelope.n, 4);
      assert.ok(Math.abs((envelope.p50 ?? NaN) - 20) < 1e-9 && Math.abs((envelope.p95 ?? NaN) - 20) < 1e-9, JSON.stringify(envelope));
      // The slow traces carry the joined trace IDs (the client file has none): 510 ms is request 2's, trace …03.
      assert.strictEqual(report.slow_traces[0]?.trace_id, '00000000000000000000000000000003');
      const text = renderText(report);
      assert.match(text, /joined by request ID: the client records' request_id against the span attribute http\.request\.header\.x-request-id/);
      assert.match(text, /request IDs on the spans of several traces 1 \(collisions: not joined\)/);
    } finally {
      await store.close();
    }
  });

  it('does not match request IDs that two client records carry (client-side collision)', async () => {
    const file = path.join(dir, 'records-dup.ndjson');
    const ids = ['0b6c4f1e-5a2d-4c1b-9e7f-000000000000', '0b6c4f1e-5a2d-4c1b-9e7f-000000000000', '0b6c4f1e-5a2d-4c1b-9e7f-000000000002'];
    fs.writeFileSync(file, ids.map((id, k) => JSON.stringify({ request_id: id, send_offset_ms: 100 * k, final_content_offset_ms: 100 * k + 510, http_status: 200 })).join('\n') + '\n');
    const store = await loaded([file, SPANS]);
    try {
      const j = (await analyzeRun(store, BY_REQUEST_ID, [])).join;
      assert.deepStrictEqual([j.client_requests, j.matched, j.client_duplicate_trace_ids, j.duplicate_trace_ids, j.server_ambiguous_ids], [3, 1, 1, 1, 0]);
      assert.strictEqual(j.coverage, 1 / 3);
    } finally {
      await store.close();
    }
  });

  it('joins nothing by trace ID for the same files: the join is not applicable, not 0 %', async () => {
    const store = await loaded([AIPERF, SPANS]);
    try {
      const report = await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, []);
      assert.strictEqual(report.join.key, 'trace_id');
      assert.strictEqual(report.join.applicable, false);
      assert.strictEqual(report.join.coverage, null);
      assert.strictEqual(report.join.matched, 0);
      assert.ok(report.warnings.some((w) => /^join not applicable: none of the 9 client records carries a trace ID; the figures are client-only .*trace\.id_source: request_id/.test(w)), report.warnings.join('\n'));
      assert.match(renderText(report), /not applicable: none of the 9 client requests carries a trace ID/);
      // The client-only figures are there all the same (AIPerf's 6 successes).
      assert.strictEqual(report.client_only.client_total_ms?.n, 6);
    } finally {
      await store.close();
    }
  });

  it('says a vLLM run (no request ID) is client-only under the request-ID join too', async () => {
    const store = await loaded([VLLM, SPANS]);
    try {
      const report = await analyzeRun(store, BY_REQUEST_ID, []);
      assert.deepStrictEqual([report.join.applicable, report.join.coverage, report.join.with_trace_id], [false, null, 0]);
      assert.ok(report.warnings.some((w) => /join not applicable: none of the 7 client records carries a request ID/.test(w)), report.warnings.join('\n'));
    } finally {
      await store.close();
    }
  });
});
