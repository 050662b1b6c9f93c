// The form's model: budget arithmetic, the workload timeline, Little's law, the session tail, prompt
// shapes, gates and phases, with the expected figures worked out by hand from the sample contracts'
// numbers (written in the comments), and the diagnostics the same as the text editor's.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { contractToAnalysis, parseContract, steadyWindow } from '../../../src/core/contract';
import { buildFormModel } from '../../../src/core/contract/form/model';
import type { ContractFormModel } from '../../../src/core/contract/form/types';
import { parseSource } from '../../../src/core/contract/parse/sourceMap';
import { validateSource } from '../../../src/core/contract/validate';
import { repoRoot } from '../../helpers/paths';
import { BASE_YAML, edit } from './helpers';

const read = (p: string): string => fs.readFileSync(path.join(repoRoot, p), 'utf8');

function model(text: string, file = 'x.loadcontract.yaml'): ContractFormModel {
  const source = parseSource(text, file);
  return buildFormModel(source, validateSource(source, file).diagnostics, file);
}

const close = (a: number | null | undefined, b: number, what: string): void => assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-9, `${what}: ${a} ≠ ${b}`);

describe('contract form model', () => {
  describe('budgets against their SLO', () => {
    it('samples/steady: 150 + 350 + 1500 + 9500 + 500 = 12000 ms, exactly the 12 s total p95', () => {
      const m = model(read('samples/steady.loadcontract.yaml'));
      const b = m.budgets[0];
      assert.strictEqual(b.allocates, 'total_ms.p95');
      assert.deepStrictEqual(b.phases.map((p) => [p.name, p.ms]), [['network_envelope', 150], ['gateway', 350], ['gpu_queue', 1500], ['generation', 9500], ['unattributed_server', 500]]);
      assert.strictEqual(b.sumMs, 12_000);
      assert.strictEqual(b.slackMs, 0);
      assert.strictEqual(b.status, 'exact');
      close(b.phases[3].pctOfSlo, (9500 / 12000) * 100, 'generation share');
      assert.deepStrictEqual(b.condition, [{ key: 'model_class', value: 'llama-3.1-8b-instruct' }, { key: 'region', value: 'local' }, { key: 'rate', value: '10' }, { key: 'window', value: 'steady' }]);
      assert.deepStrictEqual(m.slo.map((s) => [`${s.metric}.${s.stat}`, s.ms, s.budgets]), [['total_ms.p95', 12_000, [0]], ['ttft_ms.p95', 2_000, []]]);
    });

    it('samples/streaming: TTFT 100 + 100 + 300 + 50 = 550 of 800 ms, 250 ms (31.25 %) slack, as budgets-slack says', () => {
      const m = model(read('samples/streaming.loadcontract.yaml'));
      const b = m.budgets[0];
      assert.deepStrictEqual([b.allocates, b.sloMs, b.sumMs, b.slackMs, b.status], ['ttft_ms.p95', 800, 550, 250, 'fits']);
      close(b.slackPct, 31.25, 'slack %');
      const d = m.diagnostics.find((x) => x.code === 'budgets-slack');
      assert.ok(d && d.message.includes('250 ms (31.25%)'), d?.message);
      assert.strictEqual(d.pointer, '/budgets/0/phases');
    });

    it('the mistakes fixture: 200 + 300 + 900 + 1000 = 2400 ms, 400 ms (20 %) over the 2 s SLO, as budgets-exceed-slo says', () => {
      const m = model(read('test/vscode/fixtures/contracts/mistakes.loadcontract.yaml'));
      const b = m.budgets[0];
      assert.deepStrictEqual([b.sumMs, b.slackMs, b.status], [2400, -400, 'overrun']);
      close(b.slackPct, -20, 'overrun %');
      assert.ok(m.diagnostics.find((x) => x.code === 'budgets-exceed-slo')?.message.includes('2400 ms'));
    });

    it('a budget of an undeclared SLO, and one with a phase that is not a duration', () => {
      const noSlo = model(edit(BASE_YAML, 'allocates: total_ms.p95', 'allocates: ttft_ms.p95')).budgets[0];
      assert.deepStrictEqual([noSlo.status, noSlo.sloMs, noSlo.sumMs], ['no-slo', null, 2000]);
      const bad = model(edit(BASE_YAML, 'gateway: 300ms', 'gateway: soon')).budgets[0];
      assert.deepStrictEqual([bad.status, bad.sumMs, bad.phases[1].ms], ['incomplete', null, null]);
    });
  });

  describe('workload', () => {
    it('samples/steady: 10 s ramp, 80 s plateau, 30 s drain; steady window 20–90 s as the analysis takes it', () => {
      const t = model(read('samples/steady.loadcontract.yaml')).timeline;
      assert.deepStrictEqual(t.segments.map((s) => [s.kind, s.startMs, s.endMs, s.fromRate, s.toRate]), [['ramp', 0, 10_000, 0, 10], ['plateau', 10_000, 90_000, 10, 10], ['drain', 90_000, 120_000, 10, 0]]);
      assert.deepStrictEqual([t.totalMs, t.steady, t.warmup], [120_000, { startMs: 20_000, endMs: 90_000 }, { startMs: 10_000, endMs: 20_000 }]);
      // The analysis's own steady window, from the typed contract.
      const c = parseContract(read('samples/steady.loadcontract.yaml'), 's.yaml').contract;
      assert.ok(c);
      assert.deepStrictEqual(steadyWindow(c), t.steady);
    });

    it('samples/saturation: eight stages 0→5→5→10→…→20 per s, 4 × (10 s + 10 m) then a 1 m drain; steady from the 1 m warm-up', () => {
      const t = model(read('samples/saturation.loadcontract.yaml')).timeline;
      const stages = t.segments.filter((s) => s.kind === 'stage');
      assert.deepStrictEqual(stages.map((s) => [s.fromRate, s.toRate]), [[0, 5], [5, 5], [5, 10], [10, 10], [10, 15], [15, 15], [15, 20], [20, 20]]);
      const stagesMs = 4 * (10_000 + 600_000);
      assert.strictEqual(stages[7].endMs, stagesMs);
      assert.deepStrictEqual(t.segments[8], { kind: 'drain', pointer: '/workload/drain', startMs: stagesMs, endMs: stagesMs + 60_000, fromRate: 20, toRate: 0 });
      assert.deepStrictEqual(t.steady, { startMs: 60_000, endMs: stagesMs });
    });

    it('Little\'s law: steady 10/s × 12 s = 120 against max_in_flight 512 and pre_allocated_vus 64; saturation peaks at 20/s × 20 s (p99) = 400', () => {
      const steady = model(read('samples/steady.loadcontract.yaml')).inFlight;
      assert.deepStrictEqual(steady, { peakPerSecond: 10, callsPerIteration: 1, rows: [{ stat: 'p95', sloMs: 12_000, inFlight: 120, needed: 120 }], basis: 'p95', maxInFlight: 512, preAllocatedVus: 64 });
      const sat = model(read('samples/saturation.loadcontract.yaml')).inFlight;
      assert.deepStrictEqual(sat?.rows.map((r) => [r.stat, r.inFlight]), [['p95', 240], ['p99', 400]]);
      assert.strictEqual(sat?.basis, 'p99');
    });

    it('the hybrid model counts a session\'s calls: streaming 6 sessions/s × 30 s × 3 calls = 540', () => {
      const m = model(read('samples/streaming.loadcontract.yaml'));
      assert.deepStrictEqual(m.inFlight?.rows, [{ stat: 'p95', sloMs: 30_000, inFlight: 540, needed: 540 }]);
      assert.strictEqual(m.inFlight?.callsPerIteration, 3);
    });

    it('a closed executor has no arrival rate to apply Little\'s law to', () => {
      assert.strictEqual(model(edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: constant-vus')).inFlight, null);
    });
  });

  describe('session tail', () => {
    it('5 % beyond the p95 and 6 calls: 1 − 0.95^6 = 0.264908109375 (26 %)', () => {
      const m = model(edit(BASE_YAML, 'max_in_flight: 40', 'max_in_flight: 40\n  calls_per_session: 6'));
      assert.strictEqual(m.sessionTail.callsPerSession, 6);
      const row = m.sessionTail.rows[0];
      assert.deepStrictEqual([row.metric, row.stat, row.share], ['total_ms', 'p95', 0.05]);
      close(row.probability, 0.264908109375, 'P(session sees the tail)');
    });

    it('streaming: p99 TTFT and 3 calls: 1 − 0.99^3 = 0.029701; without calls_per_session one call', () => {
      const rows = model(read('samples/streaming.loadcontract.yaml')).sessionTail.rows;
      close(rows.find((r) => r.metric === 'ttft_ms' && r.stat === 'p99')?.probability, 0.029701, 'p99 × 3');
      const single = model(BASE_YAML).sessionTail;
      assert.strictEqual(single.callsPerSession, null);
      close(single.rows[0].probability, 0.05, 'one call');
    });
  });

  describe('fields, prompt shapes, gates, phases', () => {
    it('prompt shapes: bands and each weight\'s share of the mix (template: 0.8 + 0.2)', () => {
      const shapes = model(read('samples/saturation.loadcontract.yaml')).promptShapes;
      assert.deepStrictEqual(shapes.map((s) => [s.id, s.weight, s.input, s.output]), [['short', 0.6, [100, 400], [20, 256]], ['medium', 0.4, [500, 1500], [60, 768]]]);
      close(shapes[1].share, 0.4, 'share');
      const uneven = model(edit(read('samples/saturation.loadcontract.yaml'), 'weight: 0.4', 'weight: 1.4')).promptShapes;
      close(uneven[1].share, 1.4 / 2, 'share of 1.4 in 2.0');
    });

    it('gates: declared ones with their values, the defaults for the rest, achieved_rate_ratio only for arrival executors', () => {
      const steady = model(read('samples/steady.loadcontract.yaml')).gates;
      assert.deepStrictEqual(steady.map((g) => [g.key, g.declared, g.effective, g.applies]), [
        ['error_rate', true, '0.05', true],
        ['dropped_iterations', true, '0', true],
        ['scheduler_lag_ms', false, null, true],
        ['join_coverage', true, '0.95', true],
        ['negative_envelope_share', true, '0.01', true],
        ['achieved_rate_ratio', true, '0.9', true],
      ]);
      const closed = model(edit(edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: constant-vus'), '  achieved_rate_ratio: 0.95\n', '')).gates;
      assert.deepStrictEqual(closed.find((g) => g.key === 'achieved_rate_ratio'), { key: 'achieved_rate_ratio', pointer: '/gates/achieved_rate_ratio', declared: false, effective: '0.95', applies: false, description: closed.find((g) => g.key === 'achieved_rate_ratio')?.description });
      assert.ok(steady[0].description.length > 10);
    });

    it('phases: the contract\'s selectors (streaming), else the defaults of docs/metrics.md §3.3', () => {
      const declared = model(read('samples/streaming.loadcontract.yaml'));
      assert.strictEqual(declared.phasesDeclared, true);
      assert.deepStrictEqual(declared.phases.find((p) => p.name === 'gpu_queue'), {
        name: 'gpu_queue',
        pointer: '/trace/phases/gpu_queue',
        selectors: [{ names: [], attributes: { 'llm.phase': 'queue' }, attributePresent: [], service: null }, { names: ['inference.acquire_slot'], attributes: {}, attributePresent: [], service: null }],
        anyOf: [{ attributes: { 'llm.phase': 'queue' } }, { names: ['inference.acquire_slot'] }],
      });
      // What the phase preview queries is what the analysis runs with (contractToAnalysis), phase by phase.
      const { contract } = parseContract(read('samples/streaming.loadcontract.yaml'), 'streaming.loadcontract.yaml');
      assert.ok(contract);
      assert.deepStrictEqual(declared.phases.map((p) => ({ name: p.name, anyOf: p.anyOf })), contractToAnalysis(contract).options.phases);
      const defaults = model(BASE_YAML);
      assert.strictEqual(defaults.phasesDeclared, false);
      assert.deepStrictEqual(defaults.phases.map((p) => [p.name, p.pointer]), [['gateway', null], ['gpu_queue', null], ['generation', null]]);
      assert.deepStrictEqual(defaults.phases[2].selectors[2].attributePresent, ['gen_ai.operation.name']);
    });

    it('fields: present ones with their text, absent ones with what applies, kinds from the schema', () => {
      const f = model(read('samples/steady.loadcontract.yaml')).fields;
      assert.deepStrictEqual(f['/workload/plateau'], { pointer: '/workload/plateau', kind: 'duration', present: true, display: '80s', value: '80s', line: 16 });
      assert.deepStrictEqual(f['/workload/executor'].options?.slice(0, 2), ['constant-arrival-rate', 'ramping-arrival-rate']);
      assert.deepStrictEqual([f['/gates/scheduler_lag_ms'].present, f['/gates/scheduler_lag_ms'].placeholder], [false, 'no gate']);
      assert.deepStrictEqual([f['/request/prompt_shapes/2/input_tokens/1'].kind, f['/request/prompt_shapes/2/input_tokens/1'].value], ['integer', 4500]);
      assert.strictEqual(f['/budgets/0/phases/gpu_queue'].display, '1500ms');
    });
  });

  describe('diagnostics', () => {
    it('the text editor\'s own (codes, severities, messages, lines), each on the field it concerns', () => {
      const text = read('test/vscode/fixtures/contracts/mistakes.loadcontract.yaml');
      const m = model(text);
      const editor = parseContract(text, 'x.loadcontract.yaml').diagnostics;
      assert.deepStrictEqual(m.diagnostics.map((d) => [d.code, d.severity, d.message, d.line, d.column]), editor.map((d) => [d.code, d.severity, d.message, d.line, d.column]));
      const on = Object.fromEntries(m.diagnostics.map((d) => [d.code, d.pointer]));
      assert.deepStrictEqual(on, { 'plateau-too-short': '/workload/plateau', 'duration-no-unit': '/workload/drain', 'unknown-key': '/workload/warmup_exlude', 'budgets-exceed-slo': '/budgets/0/phases' });
      assert.strictEqual(m.diagnostics.find((d) => d.code === 'unknown-key')?.fix, 'Rename to `warmup_exclude`');
    });

    it('a text that does not parse still gives a model (the form does not go blank)', () => {
      const m = model(read('test/fixtures/cli/broken.loadcontract.yaml'));
      assert.ok(m.diagnostics.some((d) => d.code === 'syntax'));
      assert.strictEqual(m.fields['/name'].display, 'broken');
    });
  });
});
