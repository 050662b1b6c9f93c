import * as assert from 'assert';
import * as path from 'path';
import { contractToAnalysis, loadContractFile } from '../../../src/core/contract';
import type { GateSpec } from '../../../src/core/analysis/options';
import type { LoadContract } from '../../../src/core/contract';
import { parseContract } from '../../../src/core/contract';
import { BASE_YAML } from './helpers';

const SAMPLES = path.resolve(__dirname, '../../../../samples');

async function load(name: string): Promise<LoadContract> {
  const r = await loadContractFile(path.join(SAMPLES, name));
  assert.ok(r.contract, JSON.stringify(r.diagnostics));
  assert.ok(r.diagnostics.every((d) => d.severity !== 'error'));
  return r.contract;
}

/** id → [category, metric, stat, op, limit, phase] for compact comparison with hand-computed numbers. */
function table(gates: GateSpec[]): Record<string, [string, string, string, string, number, string?]> {
  const out: Record<string, [string, string, string, string, number, string?]> = {};
  for (const g of gates) out[g.id] = g.phase ? [g.category, g.metric, g.stat, g.op, g.limit, g.phase] : [g.category, g.metric, g.stat, g.op, g.limit];
  return out;
}

describe('contractToAnalysis', () => {
  it('maps the steady sample (10/s, 10 s ramp, 80 s plateau, 10 s warm-up)', async () => {
    const c = await load('steady.loadcontract.yaml');
    const { options, gates } = contractToAnalysis(c);
    assert.strictEqual(options.steadyStartMs, 20_000); // ramp 10 s + warm-up 10 s
    assert.strictEqual(options.steadyEndMs, 90_000); // ramp 10 s + plateau 80 s
    assert.strictEqual(options.windowSizeMs, 30_000);
    assert.deepStrictEqual(options.root, { service: 'llm-gateway', spanName: 'POST /v1/chat/completions' });
    assert.strictEqual(options.firstTokenEvent, 'first_token');
    assert.strictEqual(options.callsPerSession, 4);
    assert.strictEqual(options.tailBudgetMs, 12_000);
    assert.deepStrictEqual(options.phases?.map((p) => p.name), ['gateway', 'gpu_queue', 'generation']);
    assert.deepStrictEqual(table(gates), {
      'slo.total_ms.p95': ['slo', 'client_total_ms', 'p95', '<=', 12_000],
      'slo.ttft_ms.p95': ['slo', 'client_ttft_ms', 'p95', '<=', 2_000],
      'budget.network_envelope_ms.p95': ['budget', 'network_envelope_ms', 'p95', '<=', 150, 'network_envelope'],
      'budget.gateway_ms.p95': ['budget', 'gateway_ms', 'p95', '<=', 350, 'gateway'],
      'budget.gpu_queue_ms.p95': ['budget', 'gpu_queue_ms', 'p95', '<=', 1_500, 'gpu_queue'],
      'budget.generation_ms.p95': ['budget', 'generation_ms', 'p95', '<=', 9_500, 'generation'],
      'budget.unattributed_server_ms.p95': ['budget', 'unattributed_server_ms', 'p95', '<=', 500, 'unattributed_server'],
      'gates.error_rate': ['quality', 'error_rate', 'value', '<=', 0.05],
      'gates.dropped_iterations': ['workload', 'dropped_iterations', 'value', '<=', 0],
      'gates.join_coverage': ['coverage', 'join_coverage', 'value', '>=', 0.95],
      'gates.negative_envelope_share': ['instrumentation', 'negative_envelope_share', 'value', '<=', 0.01],
      'workload.achieved_start_rate': ['workload', 'achieved_start_rate', 'value', '>=', 9], // 10/s × 0.9
      'workload.steady_window_ms': ['workload', 'steady_window_ms', 'value', '>=', 69_000], // 70 s − 1 s
    });
    const budget = gates.find((g) => g.id === 'budget.gpu_queue_ms.p95');
    assert.match(budget?.origin ?? '', /steady\.loadcontract\.yaml:54$/);
    assert.ok(gates.filter((g) => g.category === 'budget' || g.category === 'slo').every((g) => g.population === 'matched'));
  });

  it('applies default gates when none are declared, except scheduler lag (k6 output has none)', () => {
    const text = BASE_YAML.slice(0, BASE_YAML.indexOf('gates:')) + 'windows:\n  size: 30s\n';
    const r = parseContract(text, 'c.yaml');
    assert.ok(r.contract);
    const t = table(contractToAnalysis(r.contract).gates);
    assert.deepStrictEqual(t['gates.dropped_iterations'], ['workload', 'dropped_iterations', 'value', '<=', 0]);
    assert.deepStrictEqual(t['gates.join_coverage'], ['coverage', 'join_coverage', 'value', '>=', 0.95]);
    assert.deepStrictEqual(t['workload.achieved_start_rate'], ['workload', 'achieved_start_rate', 'value', '>=', 9.5]);
    assert.strictEqual(t['gates.scheduler_lag_ms'], undefined);
  });

  it('maps the stepped saturation sample (stages, no declared constant rate)', async () => {
    const { options, gates } = contractToAnalysis(await load('saturation.loadcontract.yaml'));
    // 4 × 10 s ramps + 4 × 10 min holds = 2 440 000 ms; warm-up 1 min.
    assert.strictEqual(options.steadyStartMs, 60_000);
    assert.strictEqual(options.steadyEndMs, 2_440_000);
    assert.strictEqual(options.windowSizeMs, 60_000);
    const t = table(gates);
    assert.deepStrictEqual(t['slo.total_ms.p99'], ['slo', 'client_total_ms', 'p99', '<=', 20_000]);
    assert.deepStrictEqual(t['budget.gpu_queue_ms.p95'], ['budget', 'gpu_queue_ms', 'p95', '<=', 2_000, 'gpu_queue']);
    assert.deepStrictEqual(t['gates.scheduler_lag_ms'], ['workload', 'scheduler_lag_ms', 'p95', '<=', 100]);
    assert.strictEqual(t['workload.achieved_start_rate'], undefined);
    assert.deepStrictEqual(t['workload.steady_window_ms'], ['workload', 'steady_window_ms', 'value', '>=', 2_379_000]);
  });

  it('maps the streaming hybrid sample (sessions × calls, custom phases, TTFT budgets)', async () => {
    const { options, gates } = contractToAnalysis(await load('streaming.loadcontract.yaml'));
    assert.strictEqual(options.steadyStartMs, 180_000); // ramp 1 min + warm-up 2 min
    assert.strictEqual(options.steadyEndMs, 960_000); // ramp 1 min + plateau 15 min
    assert.deepStrictEqual(options.phases?.[1], { name: 'gpu_queue', anyOf: [{ attributes: { 'llm.phase': 'queue' } }, { names: ['inference.acquire_slot'] }] });
    const t = table(gates);
    assert.deepStrictEqual(t['slo.ttft_ms.p99'], ['slo', 'client_ttft_ms', 'p99', '<=', 1_500]);
    assert.deepStrictEqual(t['slo.itl_ms.p95'], ['slo', 'itl_ms', 'p95', '<=', 40]);
    assert.deepStrictEqual(t['budget.gpu_queue_ms.p95'], ['budget', 'gpu_queue_ms', 'p95', '<=', 300, 'gpu_queue']);
    assert.strictEqual(t['workload.achieved_start_rate'][4].toFixed(6), (6 * 3 * 0.95).toFixed(6)); // 17.1 req/s
    assert.deepStrictEqual(t['workload.steady_window_ms'], ['workload', 'steady_window_ms', 'value', '>=', 779_000]);
  });
});

describe('contractToAnalysis: what the issue-17 sections read from the contract', () => {
  it('takes the timeout, the sampling, the prompt-shape bands and the stages (steady and saturation samples)', async () => {
    const steady = contractToAnalysis(await load('steady.loadcontract.yaml')).options;
    assert.strictEqual(steady.timeoutMs, 30_000);
    assert.strictEqual(steady.declaredSampling, 1);
    assert.deepStrictEqual(steady.tokenBands?.input, [{ min: 100, max: 400 }, { min: 500, max: 1500 }, { min: 2000, max: 4500 }]);
    assert.deepStrictEqual(steady.tokenBands?.output, [{ min: 20, max: 256 }, { min: 60, max: 768 }, { min: 100, max: 1024 }]);
    assert.strictEqual(steady.stages, undefined);
    const saturation = contractToAnalysis(await load('saturation.loadcontract.yaml')).options;
    // Stages 10 s, 10 m, 10 s, …: each window starts where the previous one ended.
    assert.deepStrictEqual(saturation.stages?.slice(0, 3), [
      // The target rate at each end: start_rate 0 ramps to 5/s, holds, ramps to 10/s.
      { label: 'stage 1 (→ 5/s)', startMs: 0, endMs: 10_000, targetFromPerS: 0, targetToPerS: 5 },
      { label: 'stage 2 (→ 5/s)', startMs: 10_000, endMs: 610_000, targetFromPerS: 5, targetToPerS: 5 },
      { label: 'stage 3 (→ 10/s)', startMs: 610_000, endMs: 620_000, targetFromPerS: 5, targetToPerS: 10 },
    ]);
  });

  it('passes trace.sampling on only when the contract declares it (the parser\'s default of 1 is not a declaration)', () => {
    const omitted = parseContract(BASE_YAML, 'c.yaml');
    assert.ok(omitted.contract, JSON.stringify(omitted.diagnostics));
    assert.strictEqual(omitted.contract.trace.samplingDeclared, false);
    assert.strictEqual(omitted.contract.trace.sampling, 1);
    assert.strictEqual(contractToAnalysis(omitted.contract).options.declaredSampling, undefined);
    const declared = parseContract(BASE_YAML.replace('  id_source: metadata\n', '  id_source: metadata\n  sampling: 0.25\n'), 'c.yaml');
    assert.ok(declared.contract, JSON.stringify(declared.diagnostics));
    assert.strictEqual(declared.contract.trace.samplingDeclared, true);
    assert.strictEqual(contractToAnalysis(declared.contract).options.declaredSampling, 0.25);
  });

  it('maps report.group_by, report.min_group_size and windows.slide', () => {
    const text = BASE_YAML.replace('windows:\n  size: 30s\n', 'windows:\n  size: 15m\n  slide: 1m\nreport:\n  group_by: [model, route]\n  min_group_size: 50\n');
    const r = parseContract(text, 'c.yaml');
    assert.ok(r.contract, JSON.stringify(r.diagnostics));
    const { options } = contractToAnalysis(r.contract);
    assert.deepStrictEqual([options.windowSizeMs, options.windowSlideMs], [900_000, 60_000]);
    assert.deepStrictEqual([options.groupBy, options.groupBySource, options.minGroupSize], [['model', 'route'], 'contract', 50]);
  });

  it('rejects a slide not shorter than the window and an unknown group dimension', () => {
    const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;
    const slideText = BASE_YAML.replace('windows:\n  size: 30s\n', 'windows:\n  size: 30s\n  slide: 30s\n');
    const slide = parseContract(slideText, 'c.yaml');
    assert.deepStrictEqual(slide.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.line]), [['window-slide-not-shorter', lineOf(slideText, 'slide:')]]);
    const dimText = BASE_YAML + 'report:\n  group_by: [modle]\n';
    const errors = parseContract(dimText, 'c.yaml').diagnostics.filter((d) => d.severity === 'error');
    assert.strictEqual(errors.length, 1, JSON.stringify(errors));
    assert.strictEqual(errors[0].line, lineOf(dimText, 'group_by'));
    assert.match(errors[0].message, /model/);
  });
});
