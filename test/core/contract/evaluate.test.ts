import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_OPTIONS } from '../../../bench/generate/options';
import { generateRun } from '../../../bench/generate/run';
import { analyzeFiles } from '../../../src/core/run/analyzeFiles';

type Q = { n: number; p50: number; p95: number; p99: number };
interface Expected {
  counts: { generator_dropped: number; scheduled: number };
  matched_succeeded: Record<string, Q>;
}

/** A contract whose limits are set from the generator's truth, so each gate outcome is known by construction. */
function contract(o: { rate: number; durationS: number; totalP95: number; queueBudget?: number; dropped: number }): string {
  const budget = o.queueBudget === undefined ? '' : `budgets:
  - allocates: total_ms.p95
    when: { model_class: mixed, region: local, rate: ${o.rate}, window: steady }
    phases:
      gpu_queue: ${o.queueBudget.toFixed(3)}ms
`;
  return `version: 1
name: evaluation test
claim: { kind: slo_check }
workload:
  model: open
  executor: constant-arrival-rate
  rate: ${o.rate}
  time_unit: 1s
  plateau: ${o.durationS}s
  drain: 30s
  max_in_flight: 512
request:
  route: POST /v1/chat/completions
  model_class: mixed
  region: local
  streaming: true
  first_content_event: first_token
  timeout: 5m
  retries: 0
trace:
  root: { service: llm-gateway, span: POST /v1/chat/completions }
slo:
  total_ms: { p95: ${o.totalP95.toFixed(3)}ms }
${budget}gates:
  error_rate: 0.5
  dropped_iterations: ${o.dropped}
  join_coverage: 0.5
  negative_envelope_share: 0.5
  achieved_rate_ratio: 0.5
`;
}

describe('contract evaluation on generated runs (outcomes known by construction)', function () {
  this.timeout(300_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-eval-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function run(name: string, overrides: Partial<typeof DEFAULT_OPTIONS>): Promise<{ files: { k6: string; spans: string }; expected: Expected }> {
    const outDir = path.join(dir, name);
    const g = await generateRun({ ...DEFAULT_OPTIONS, seed: 7, rate: 12, durationS: 40, rampS: 0, lostRootFraction: 0, lostSpanFraction: 0, outDir, runId: name, ...overrides });
    return { files: g.files, expected: g.expected as unknown as Expected };
  }

  it('fails on the queue budget while total p95 passes, and names gpu_queue', async () => {
    const { files, expected } = await run('queue', {});
    const total = expected.matched_succeeded.client_total_ms.p95;
    const queue = expected.matched_succeeded.gpu_queue_ms.p95;
    assert.ok(queue > 1, `the run must queue (gpu_queue p95 ${queue})`);
    const file = path.join(dir, 'queue.loadcontract.yaml');
    fs.writeFileSync(file, contract({ rate: 12, durationS: 40, totalP95: total * 1.5, queueBudget: queue * 0.5, dropped: 0 }));
    const report = await analyzeFiles({ run: [files.k6], spans: [files.spans], contract: file });
    assert.strictEqual(report.verdict.status, 'fail');
    assert.strictEqual(report.verdict.broken_phase, 'gpu_queue');
    const gate = (id: string): { status: string; observed: number | null; limit: number } | undefined => report.gates.find((g) => g.id === id);
    assert.strictEqual(gate('slo.total_ms.p95')?.status, 'pass');
    assert.strictEqual(gate('budget.gpu_queue_ms.p95')?.status, 'fail');
    assert.ok((gate('budget.gpu_queue_ms.p95')?.observed ?? 0) > queue * 0.5);
  });

  it('passes on latency but is inconclusive when iterations were dropped', async () => {
    const { files, expected } = await run('dropped', { droppedFraction: 0.05 });
    assert.ok(expected.counts.generator_dropped > 0, 'the run must drop iterations');
    const file = path.join(dir, 'dropped.loadcontract.yaml');
    fs.writeFileSync(file, contract({ rate: 12, durationS: 40, totalP95: expected.matched_succeeded.client_total_ms.p95 * 1.5, dropped: 0 }));
    const report = await analyzeFiles({ run: [files.k6], spans: [files.spans], contract: file });
    assert.strictEqual(report.verdict.status, 'inconclusive');
    assert.strictEqual(report.verdict.broken_phase, null);
    assert.ok(report.verdict.reasons.some((r) => r.includes('dropped_iterations')), report.verdict.reasons.join(' | '));
    assert.strictEqual(report.gates.find((g) => g.id === 'slo.total_ms.p95')?.status, 'pass');
    assert.strictEqual(report.gates.find((g) => g.id === 'gates.dropped_iterations')?.observed, expected.counts.generator_dropped);
  });
});
