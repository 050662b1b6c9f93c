import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { InputError } from '../../../src/core/errors';
import { loadFiles } from '../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../src/core/store/duckStore';
import { fixture } from '../../helpers/paths';
import { issuesOf, readerSession } from './clientHelpers';

// The fixtures are written by hand from each tool's documented schema (test/fixtures/tools/README.md);
// every expected value below is computed by hand from them.
const AIPERF = fixture('tools', 'aiperf-profile_export.from-docs.jsonl');
const VLLM = fixture('tools', 'vllm-bench-serve.save-detailed.from-code.json');
const GUIDELLM = fixture('tools', 'guidellm-report.from-schema.json');

type Quantiles = { n: number; p50: number; p95: number; t50: number; t95: number };

/** p50/p95 of total and TTFT over successes, with docs/metrics.md §1's definition (quantile_cont). */
async function successQuantiles(store: DuckStore): Promise<Quantiles> {
  const [q] = await store.all<Quantiles>(
    `SELECT count(*) AS n, quantile_cont(client_total_ms, 0.5) AS p50, quantile_cont(client_total_ms, 0.95) AS p95,
            quantile_cont(client_ttft_ms, 0.5) AS t50, quantile_cont(client_ttft_ms, 0.95) AS t95
     FROM client_requests WHERE outcome = 'succeeded'`,
  );
  return q;
}

function near(actual: number | null, expected: number, what: string, tolerance = 1e-6): void {
  assert.ok(actual !== null && Math.abs(actual - expected) < tolerance, `${what}: ${actual} ≠ ${expected}`);
}

/** guidellm's times are epoch seconds (≈ 1.7e9) in doubles: their differences carry ≈ 0.2 µs of rounding. */
const EPOCH_SECONDS_MS = 1e-3;

async function outcomes(store: DuckStore): Promise<Array<[string, number | null, number]>> {
  const rows = await store.all<{ outcome: string; s: number | null; n: number }>(
    'SELECT outcome, http_status AS s, count(*) AS n FROM client_requests GROUP BY ALL ORDER BY ALL',
  );
  return rows.map((r) => [r.outcome, r.s, r.n]);
}

describe('other load generators: AIPerf, vLLM bench serve, guidellm', () => {
  const session = readerSession('tools');
  const load = session.load;

  describe('AIPerf profile_export.jsonl', () => {
    it('loads 9 records: 6 successes, and 500 → failed, 499 cancelled → canceled, 429 → rejected', async () => {
      const store = await load([AIPERF]);
      const [src] = await store.all<{ format: string; records: number; skipped: number; position: string }>('SELECT format, records, skipped, position FROM sources');
      assert.deepStrictEqual(src, { format: 'aiperf-jsonl', records: 9, skipped: 0, position: 'line' });
      assert.deepStrictEqual(await outcomes(store), [
        ['canceled', 499, 1],
        ['failed', 500, 1],
        ['rejected', 429, 1],
        ['succeeded', null, 6],
      ]);
      // By hand: request_latency 300 420 510 280 650 390 ms → sorted 280 300 390 420 510 650;
      // p50 at (6−1)·0.5 = 2.5: (390+420)/2 = 405; p95 at 4.75: 510 + 0.75·140 = 615.
      // TTFT 120 150 200 90 310 140 → 90 120 140 150 200 310; p50 145; p95 200 + 0.75·110 = 282.5.
      const q = await successQuantiles(store);
      assert.strictEqual(q.n, 6);
      near(q.p50, 405, 'total p50');
      near(q.p95, 615, 'total p95');
      near(q.t50, 145, 'ttft p50');
      near(q.t95, 282.5, 'ttft p95');
    });

    it('keeps x_request_id, epoch ns starts as ms, ITL and tokens; a failed request is timed by end − start', async () => {
      const store = await load([AIPERF]);
      const rows = await store.all<{ line: number; request_id: string; start_ms: number; client_total_ms: number; client_itl_ms: number | null; output_tokens: number | null; input_tokens: number; is_streaming: boolean; scenario: string; trace_id: string | null }>(
        'SELECT line, request_id, start_ms, client_total_ms, client_itl_ms, output_tokens, input_tokens, is_streaming, scenario, trace_id FROM client_requests ORDER BY line',
      );
      assert.strictEqual(rows[0].request_id, '0b6c4f1e-5a2d-4c1b-9e7f-000000000000');
      // request_start_ns 1759813207000000000 + k·1e8 ns → 1759813207000 + 100·k ms, exactly.
      assert.deepStrictEqual(rows.map((r) => r.start_ms), [0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => 1759813207000 + 100 * k));
      assert.strictEqual(rows[1].client_itl_ms, 12);
      assert.strictEqual(rows[1].output_tokens, 23);
      assert.strictEqual(rows[1].input_tokens, 550);
      assert.ok(rows.slice(0, 6).every((r) => r.is_streaming && r.scenario === 'profiling' && r.trace_id === null));
      // Line 7 (500): no metrics but error_isl; request_end_ns − request_start_ns = 15 ms.
      assert.strictEqual(rows[6].client_total_ms, 15);
      assert.strictEqual(rows[6].output_tokens, null);
      assert.strictEqual(rows[6].input_tokens, 550);
    });

    it('skips and cites a record without request_start_ns and a line of another format; the rest load', async () => {
      const text = fs.readFileSync(AIPERF, 'utf8').split('\n');
      const broken = JSON.parse(text[2]) as { metadata: Record<string, unknown> };
      delete broken.metadata.request_start_ns;
      const file = path.join(session.dir, 'aiperf-bad.jsonl');
      fs.writeFileSync(file, [text[0], text[1], JSON.stringify(broken), '{"level":"info"}', 'not json', ...text.slice(3)].join('\n'));
      const store = await load([file]);
      const [src] = await store.all<{ records: number; skipped: number }>('SELECT records, skipped FROM sources');
      // 11 lines of content: 8 records load, the broken record, the foreign line and the bad line are skipped.
      assert.deepStrictEqual(src, { records: 8, skipped: 3 });
      const issues = (await issuesOf(store)).filter((i) => i.severity === 'warning');
      assert.deepStrictEqual(issues.map((i) => [i.line, i.code]), [[3, 'incomplete-record'], [4, 'foreign-line'], [5, 'malformed-json']]);
      assert.match(issues[0].message, /expected metadata\.request_start_ns \(epoch nanoseconds\), found none; request skipped/);
      assert.match(issues[1].message, /expected an AIPerf profile_export\.jsonl record/);
    });

    it('skips a latency in a unit it cannot convert, and a negative one, naming the field', async () => {
      const text = fs.readFileSync(AIPERF, 'utf8').trimEnd().split('\n');
      const a = JSON.parse(text[0]) as { metrics: Record<string, { value: number; unit: string }> };
      a.metrics.request_latency.unit = 'furlongs';
      const b = JSON.parse(text[1]) as { metrics: Record<string, { value: number; unit: string }> };
      b.metrics.time_to_first_token.value = -3;
      const file = path.join(session.dir, 'aiperf-units.jsonl');
      fs.writeFileSync(file, [JSON.stringify(a), JSON.stringify(b), ...text.slice(2)].join('\n') + '\n');
      const store = await load([file]);
      const issues = (await issuesOf(store)).filter((i) => i.severity === 'warning');
      assert.deepStrictEqual(issues.map((i) => [i.line, i.code]), [[1, 'invalid-value'], [2, 'invalid-value']]);
      assert.match(issues[0].message, /expected metrics\.request_latency\.unit as ms, ns, us or s, found "furlongs" \(a unit Phasewise does not guess\); request skipped/);
      assert.match(issues[1].message, /time to first token \(metrics\.time_to_first_token\) .* found -3\.0 ms/);
      const [src] = await store.all<{ records: number; skipped: number }>('SELECT records, skipped FROM sources');
      assert.deepStrictEqual(src, { records: 7, skipped: 2 });
    });
  });

  describe('vLLM bench serve --save-detailed', () => {
    it('loads 7 requests from the parallel lists, seconds → ms; errors classified by their text', async () => {
      const store = await load([VLLM]);
      const [src] = await store.all<{ format: string; records: number; skipped: number; position: string }>('SELECT format, records, skipped, position FROM sources');
      assert.deepStrictEqual(src, { format: 'vllm-bench-json', records: 7, skipped: 0, position: 'element' });
      // "Service Unavailable" → 503 → rejected; a ClientConnectorError traceback → transport_failed.
      assert.deepStrictEqual(await outcomes(store), [
        ['rejected', 503, 1],
        ['succeeded', null, 5],
        ['transport_failed', null, 1],
      ]);
      // No latencies list in this layout: total = ttft + Σ itls (s) × 1000:
      // 195, 115, 350, 170, 460 → sorted 115 170 195 350 460; p50 195; p95 at 3.8: 350 + 0.8·110 = 438.
      // TTFT 120 95 200 150 310 → 95 120 150 200 310; p50 150; p95 200 + 0.8·110 = 288.
      const q = await successQuantiles(store);
      assert.strictEqual(q.n, 5);
      near(q.p50, 195, 'total p50');
      near(q.p95, 438, 'total p95');
      near(q.t50, 150, 'ttft p50');
      near(q.t95, 288, 'ttft p95');
      const rows = await store.all<{ line: number; send_offset_ms: number; start_ms: number | null; client_itl_ms: number | null; output_tokens: number | null; client_ttft_ms: number | null; client_total_ms: number | null }>(
        'SELECT line, send_offset_ms, start_ms, client_itl_ms, output_tokens, client_ttft_ms, client_total_ms FROM client_requests ORDER BY line',
      );
      // start_times are perf_counter seconds 12345.5 + 0.25·k: offsets 250·k ms, no epoch start.
      rows.forEach((r, k) => near(r.send_offset_ms, 250 * k, `offset ${k}`));
      assert.ok(rows.every((r) => r.start_ms === null));
      near(rows[0].client_itl_ms, 25, 'mean itl of request 1 (0.02, 0.03, 0.025 s)');
      assert.strictEqual(rows[5].client_ttft_ms, null);
      // A failed request's ttft is 0.0 and it has no itls: without latencies its duration is unknown, not 0 ms.
      assert.strictEqual(rows[5].client_total_ms, null);
      assert.strictEqual(rows[5].output_tokens, null);
      const counters = await store.all<{ metric: string; value: number }>('SELECT metric, value FROM run_counters');
      assert.deepStrictEqual(counters.map((c) => [c.metric, c.value]), [['scheduled', 7]]);
      const info = (await issuesOf(store)).map((i) => i.code).sort();
      assert.deepStrictEqual(info, ['derived-total', 'prompt-text-dropped']);
    });

    it('takes latencies (seconds) as the total where the version writes them', async () => {
      const doc = JSON.parse(fs.readFileSync(VLLM, 'utf8')) as Record<string, unknown>;
      doc.latencies = [0.2, 0.12, 0.36, 0.18, 0.47, 0.004, 0.001];
      const file = path.join(session.dir, 'vllm-latencies.json');
      fs.writeFileSync(file, JSON.stringify(doc, null, 2));
      const store = await load([file]);
      const q = await successQuantiles(store);
      // 200 120 360 180 470 → 120 180 200 360 470: p50 200; p95 360 + 0.8·110 = 448.
      near(q.p50, 200, 'total p50');
      near(q.p95, 448, 'total p95');
      assert.ok(!(await issuesOf(store)).some((i) => i.code === 'derived-total'));
    });

    it('refuses results saved without --save-detailed, and lists of different lengths, naming the file', async () => {
      const doc = JSON.parse(fs.readFileSync(VLLM, 'utf8')) as Record<string, unknown>;
      const summary = { ...doc };
      for (const k of ['input_lens', 'output_lens', 'ttfts', 'itls', 'start_times', 'generated_texts', 'errors']) delete summary[k];
      const a = path.join(session.dir, 'vllm-summary.json');
      fs.writeFileSync(a, JSON.stringify(summary));
      const b = path.join(session.dir, 'vllm-uneven.json');
      fs.writeFileSync(b, JSON.stringify({ ...doc, errors: (doc.errors as string[]).slice(1) }));
      for (const [file, found] of [[a, /found the document without ttfts \(saved without --save-detailed\?\)/], [b, /expected per-request lists of one length .*found the document with ttfts: 7, itls: 7, errors: 6/]] as const) {
        const store = new DuckStore();
        try {
          await assert.rejects(loadFiles(store, [file]), (err: unknown) => {
            assert.ok(err instanceof InputError, String(err));
            assert.strictEqual(err.file, file);
            assert.match(err.message, found);
            return true;
          });
        } finally {
          await store.close();
        }
      }
    });
  });

  describe('guidellm report', () => {
    it('loads successful, errored and incomplete requests: 429 text → rejected, incomplete → canceled', async () => {
      const store = await load([GUIDELLM]);
      const [src] = await store.all<{ format: string; records: number; skipped: number; position: string }>('SELECT format, records, skipped, position FROM sources');
      assert.deepStrictEqual(src, { format: 'guidellm-json', records: 6, skipped: 0, position: 'element' });
      assert.deepStrictEqual(await outcomes(store), [
        ['canceled', null, 1],
        ['rejected', 429, 1],
        ['succeeded', null, 4],
      ]);
      // request_latency 0.8 1.2 0.6 2.0 s → 600 800 1200 2000 ms: p50 at 1.5 = 1000; p95 at 2.85 = 1200 + 0.85·800 = 1880.
      // time_to_first_token_ms 150 300 100 500 → 100 150 300 500: p50 225; p95 300 + 0.85·200 = 470.
      const q = await successQuantiles(store);
      assert.strictEqual(q.n, 4);
      near(q.p50, 1000, 'total p50', EPOCH_SECONDS_MS);
      near(q.p95, 1880, 'total p95', EPOCH_SECONDS_MS);
      near(q.t50, 225, 'ttft p50', EPOCH_SECONDS_MS);
      near(q.t95, 470, 'ttft p95', EPOCH_SECONDS_MS);
      const rows = await store.all<{ line: number; request_id: string; start_ms: number; scenario: string; client_itl_ms: number | null }>(
        'SELECT line, request_id, start_ms, scenario, client_itl_ms FROM client_requests ORDER BY line',
      );
      assert.deepStrictEqual(rows.map((r) => r.line), [1, 2, 3, 4, 5, 6]);
      assert.strictEqual(rows[4].request_id, '7e2a9c10-1b3d-4f5e-8a6b-000000000004');
      near(rows[1].start_ms, 1733000000500, 'start of request 2 (epoch s × 1000)', EPOCH_SECONDS_MS);
      assert.ok(rows.every((r) => r.scenario === 'constant #1'));
      // (last − first token) / (tokens − 1) = (0.8 − 0.15) s / 63 for request 1.
      near(rows[0].client_itl_ms, 650 / 63, 'itl of request 1', EPOCH_SECONDS_MS);
      assert.deepStrictEqual((await issuesOf(store)).map((i) => i.code), ['prompt-text-dropped']);
    });

    it('says so when the report lists only a sample of the requests (--output-sampling)', async () => {
      const doc = JSON.parse(fs.readFileSync(GUIDELLM, 'utf8')) as { benchmarks: Array<{ request_totals: { total: number } }> };
      doc.benchmarks[0].request_totals.total = 60;
      const file = path.join(session.dir, 'guidellm-sampled.json');
      fs.writeFileSync(file, JSON.stringify(doc));
      const store = await load([file]);
      const sampled = (await issuesOf(store)).find((i) => i.code === 'sampled-requests');
      assert.ok(sampled);
      assert.match(sampled.message, /lists 6 of the 60 requests/);
    });
  });
});
