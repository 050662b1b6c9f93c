import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { replicateRun } from '../../../bench/replicate/replicate';
import { analyzeRun } from '../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../src/core/analysis/options';
import type { Report } from '../../../src/core/report/model';
import { loadRun } from '../../../src/core/run/loadRun';
import { DuckStore } from '../../../src/core/store/duckStore';
import { sharedSamplesDir } from '../../helpers/paths';

/**
 * Compares two reports value by value. Floating-point sums (means) are added up in an order that
 * depends on DuckDB's threads and chunking, so numbers agree to a relative 1e-12; everything else
 * (counts, quantiles, ledgers, verdicts, texts, slow traces) must be equal.
 */
function assertSameReport(a: unknown, b: unknown, at = 'report'): void {
  if (typeof a === 'number' && typeof b === 'number') {
    const ok = a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
    assert.ok(ok, `${at}: ${a} vs ${b}`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    assert.strictEqual(a.length, b.length, `${at}: length`);
    a.forEach((v, i) => assertSameReport(v, b[i], `${at}[${i}]`));
    return;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    assert.deepStrictEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${at}: keys`);
    for (const k of Object.keys(a)) assertSameReport((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
    return;
  }
  assert.strictEqual(a, b, at);
}

async function analyse(files: { run: string[]; spans: string[] }, memoryLimit?: string): Promise<{ report: Report; messages: string[] }> {
  const store = new DuckStore({ ...(memoryLimit !== undefined ? { memoryLimit } : {}) });
  const messages: string[] = [];
  try {
    await loadRun(store, files, { progress: (m) => messages.push(m) });
    return { report: await analyzeRun(store, { ...DEFAULT_ANALYSIS_OPTIONS }, []), messages };
  } finally {
    await store.close();
  }
}

describe('a real-shape run under a deliberately low memory limit', function () {
  this.timeout(300_000);
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-lowmem-'));
    // The real OpenTelemetry JS run, 50 copies: ≈ 53 MB (28 MB of 90–130 KB request bodies, 25 MB of k6 Points).
    await replicateRun({ source: path.join(sharedSamplesDir, 'joined-otel-js'), outDir: dir, copies: 50, concurrent: 4, seed: 12 });
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives the report of the default limit at 256MB, reading the spans in pieces on one thread', async () => {
    const files = { run: [path.join(dir, 'k6.ndjson')], spans: [path.join(dir, 'spans.otlp.jsonl')] };
    const bytes = fs.statSync(files.run[0]).size + fs.statSync(files.spans[0]).size;
    assert.ok(bytes >= 50e6, `${bytes} bytes`);
    const normal = await analyse(files);
    const low = await analyse(files, '256MB');
    // The default limit reads the file whole; 256MB cuts it into pieces (jsonReadPlan.ts).
    assert.ok(!normal.messages.some((m) => m.startsWith('cutting')));
    assert.ok(low.messages.some((m) => /^cutting spans\.otlp\.jsonl into 4 MiB pieces/.test(m)), low.messages.join('\n'));
    assertSameReport(low.report, normal.report);
    // And the report is the run's: 50 copies of the sample's 120 requests, 110 of them joined.
    assert.strictEqual(normal.report.join.client_requests, 50 * 120);
    assert.strictEqual(normal.report.join.matched, 50 * 110);
  });
});
