// The analysis worker client in plain Node (no VS Code): a real worker thread (out/src/extension/
// analysisWorker.js, compiled by tsc next to the client), real DuckDB, real files. The worker's answer
// is checked against analyzeFiles run in this process and against the generator's truth for samples/.
import * as assert from 'assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_OPTIONS } from '../../bench/generate/options';
import { generateRun } from '../../bench/generate/run';
import { CancelledError, InputError } from '../../src/core/errors';
import { analyzeFiles } from '../../src/core/run/analyzeFiles';
import { renderMarkdownReport } from '../../src/core/report/markdown';
import { defaultWorkerFile, startAnalysis, type RunningAnalysis } from '../../src/extension/analysisClient';
import { fixture, repoRoot } from '../helpers/paths';
import { assertSameValues } from '../helpers/sameValues';

const samples = path.join(repoRoot, 'samples');
const sampleRequest = {
  run: [path.join(samples, 'k6.ndjson')],
  spans: [path.join(samples, 'spans.otlp.jsonl')],
  contract: path.join(samples, 'steady.loadcontract.yaml'),
};

interface SamplesTruth {
  counts: { matched: number; started: number; lost_roots: number };
  matched_succeeded: { network_envelope_ms: { n: number; p95: number } };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof Error, `rejected with a non-Error: ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection, got a result');
}

describe('analysis worker client', function () {
  this.timeout(120_000);

  it('finds the worker script next to the compiled client', () => {
    assert.ok(existsSync(defaultWorkerFile()), defaultWorkerFile());
  });

  it('on samples/ returns the same report and markdown as analyzeFiles in this process, with file progress', async () => {
    const files: Array<{ file: string; bytes: number; side: string }> = [];
    const notes: string[] = [];
    const analysis = startAnalysis(sampleRequest, {
      onFile: (file, bytes, side) => files.push({ file, bytes, side }),
      onNotes: (n) => notes.push(...n),
    });
    const { report, markdown } = await analysis.result;
    assert.strictEqual(typeof (await analysis.exited), 'number');

    const local = await analyzeFiles(sampleRequest);
    assert.deepStrictEqual(report.verdict, local.verdict);
    assert.deepStrictEqual(report.join, local.join);
    assert.deepStrictEqual(report.metrics.network_envelope_ms?.n, local.metrics.network_envelope_ms?.n);
    assertSameValues(report.metrics.network_envelope_ms?.p95, local.metrics.network_envelope_ms?.p95, 'envelope p95', 1e-9);
    // Everything else too, numbers to 1e-9 relative: DuckDB's parallel sums may differ in the last digit.
    assertSameValues(report, local, 'report', 1e-9);
    // Rendered in the worker by the same renderer (the class-less clone renders identically).
    assert.strictEqual(markdown, renderMarkdownReport(report));

    // Independently of both: the generator's truth for samples/ (samples/expected.json).
    const truth = JSON.parse(readFileSync(path.join(samples, 'expected.json'), 'utf8')) as SamplesTruth;
    assert.strictEqual(report.join.matched, truth.counts.matched);
    assert.strictEqual(report.join.client_requests, truth.counts.started);
    assert.strictEqual(report.join.lost_roots, truth.counts.lost_roots);
    const env = report.metrics.network_envelope_ms;
    assert.strictEqual(env?.n, truth.matched_succeeded.network_envelope_ms.n);
    assert.ok(Math.abs((env?.p95 ?? NaN) - truth.matched_succeeded.network_envelope_ms.p95) < 1e-6, `envelope p95 ${env?.p95}`);

    // Progress crossed the thread: each file once, with its size on disk.
    assert.deepStrictEqual(files, [
      { file: sampleRequest.run[0], bytes: statSync(sampleRequest.run[0]).size, side: 'client' },
      { file: sampleRequest.spans[0], bytes: statSync(sampleRequest.spans[0]).size, side: 'server' },
    ]);
    // steady.loadcontract.yaml has an 80 s plateau (line 16): the contract's warning reaches the host.
    assert.ok(notes.some((n) => n.includes('steady.loadcontract.yaml:16:12') && n.includes('plateau-too-short')), notes.join('\n'));
  });

  it('a malformed span file rejects with an InputError whose file and line survive the thread boundary', async () => {
    const bad = fixture('extension', 'not-a-trace.jsonl');
    const request = { run: [sampleRequest.run[0]], spans: [bad] };
    const analysis = startAnalysis(request);
    const err = await rejection(analysis.result);
    const local = await rejection(analyzeFiles(request));
    assert.ok(local instanceof InputError, `in-process error: ${local.message}`);
    assert.ok(err instanceof InputError, `worker error is a ${err.name}: ${err.message}`);
    // The garbage is on line 1 of the fixture, and the file is named by its absolute path.
    assert.strictEqual(err.file, bad);
    assert.strictEqual(err.line, 1);
    assert.ok(err.found?.includes('this line is not OTLP'), err.found);
    assert.deepStrictEqual(
      { file: err.file, line: err.line, expected: err.expected, found: err.found, message: err.message },
      { file: local.file, line: local.line, expected: local.expected, found: local.found, message: local.message },
    );
    assert.ok(err.message.startsWith(`${bad}:1: expected `), err.message);
    await analysis.exited;
  });

  it('a contract with errors rejects with ContractError lines naming the contract', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'phasewise-worker-contract-'));
    try {
      const contract = path.join(dir, 'broken.loadcontract.yaml');
      // Not YAML at all: an unclosed flow mapping on line 1.
      writeFileSync(contract, '{ slo: [1, 2\n');
      const local = await rejection(analyzeFiles({ run: sampleRequest.run, spans: [], contract }));
      const err = await rejection(startAnalysis({ run: sampleRequest.run, spans: [], contract }).result);
      assert.strictEqual(err.name, 'ContractError', err.message);
      const lines = (err as unknown as { lines: string[] }).lines;
      assert.deepStrictEqual(lines, (local as unknown as { lines: string[] }).lines);
      // The YAML parser finds the unclosed brackets at the end of input: line 2, column 1.
      assert.ok(lines.length > 0 && lines[0].startsWith(`${contract}:2:1: error syntax`), lines.join('\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('cancellation', () => {
    let runDir: string;
    let generated: string | undefined;

    before(async function () {
      this.timeout(300_000);
      // The cached 10k bench run when there is one (npm run bench), else a smaller generated run.
      const bench = path.join(repoRoot, 'out', 'bench', 'runs', '10k');
      if (existsSync(path.join(bench, 'spans.otlp.jsonl')) && existsSync(path.join(bench, 'k6.ndjson'))) {
        runDir = bench;
        return;
      }
      generated = mkdtempSync(path.join(os.tmpdir(), 'phasewise-worker-cancel-'));
      await generateRun({ ...DEFAULT_OPTIONS, seed: 5, requests: 3000, rate: 200, outDir: generated });
      runDir = generated;
    });

    after(() => {
      if (generated !== undefined) rmSync(generated, { recursive: true, force: true });
    });

    it('cancelling while the span file loads rejects with CancelledError and the worker exits', async () => {
      const spans = path.join(runDir, 'spans.otlp.jsonl');
      let cancelledAt = 0;
      let analysis: RunningAnalysis | undefined;
      // Generous grace: an answer before it comes from the worker's interrupt, not from terminate().
      const graceMs = 20_000;
      analysis = startAnalysis(
        { run: [path.join(runDir, 'k6.ndjson')], spans: [spans] },
        {
          onFile: (file) => {
            if (file !== spans || cancelledAt !== 0) return;
            cancelledAt = Date.now();
            analysis?.cancel();
          },
        },
        { cancelGraceMs: graceMs },
      );
      const err = await rejection(analysis.result);
      const answeredMs = Date.now() - cancelledAt;
      assert.ok(cancelledAt > 0, 'the span file never started loading');
      assert.ok(err instanceof CancelledError, `${err.name}: ${err.message}`);
      assert.ok(answeredMs < graceMs / 4, `the worker took ${answeredMs} ms to answer the cancel`);
      const code = await analysis.exited;
      assert.strictEqual(typeof code, 'number');
    });

    it('cancelling before DuckDB has started still rejects with CancelledError', async () => {
      const analysis = startAnalysis({ run: [path.join(runDir, 'k6.ndjson')], spans: [path.join(runDir, 'spans.otlp.jsonl')] }, {}, { cancelGraceMs: 20_000 });
      const t0 = Date.now();
      analysis.cancel();
      const err = await rejection(analysis.result);
      assert.ok(err instanceof CancelledError, `${err.name}: ${err.message}`);
      assert.ok(Date.now() - t0 < 5000, `answered after ${Date.now() - t0} ms`);
      await analysis.exited;
    });
  });
});
