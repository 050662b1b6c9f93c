import * as assert from 'assert';
import { applyFix, assertAbsent, assertAt, BASE_JSON, BASE_YAML, codes, diagnose, edit, lineCol } from './helpers';

const JSON_FILE = 'c.loadcontract.json';

describe('contract rules: budgets and gates', () => {
  describe('budgets-exceed-slo / budgets-slack', () => {
    it('fires on the `phases` key when budgets sum above the SLO (200+300+900+1000 = 2400 > 2000)', () => {
      const text = edit(BASE_YAML, 'gpu_queue: 500ms', 'gpu_queue: 900ms');
      const d = assertAt(text, 'budgets-exceed-slo', '    phases:\n', 'phases');
      assert.match(d.message, /2400 ms.*400 ms more than the total_ms\.p95 SLO of 2000 ms/);
    });
    it('fires in JSON on the quoted key', () => {
      const text = edit(BASE_JSON, '"generation": "1s"', '"generation": "1.5s"');
      assertAt(text, 'budgets-exceed-slo', '"phases": {', '"phases"', JSON_FILE);
    });
    it('reports slack when they sum below (200+300+500+800 = 1800: 200 ms, 10%)', () => {
      const text = edit(BASE_YAML, 'generation: 1s', 'generation: 800ms');
      const d = assertAt(text, 'budgets-slack', '    phases:\n', 'phases');
      assert.strictEqual(d.severity, 'information');
      assert.match(d.message, /200 ms \(10%\)/);
    });
    it('neither fires when they sum exactly to the SLO', () => {
      assertAbsent(BASE_YAML, 'budgets-exceed-slo');
      assertAbsent(BASE_YAML, 'budgets-slack');
    });
  });

  describe('budget-missing-condition', () => {
    it('fires on the first key of a budget without `when`; the fix inserts the condition from the contract', () => {
      const text = edit(BASE_YAML, '    when: { model_class: m1, region: r1, rate: 10, window: steady }\n', '');
      const d = assertAt(text, 'budget-missing-condition', '  - allocates: total_ms.p95', 'allocates');
      const fixed = applyFix(text, d);
      assert.ok(fixed.includes('    when: { model_class: m1, region: r1, rate: 10, window: steady }\n'), fixed);
      assert.deepStrictEqual(diagnose(fixed), []);
    });
    it('fires on `when` when keys are missing, and fills them in flow style', () => {
      const text = edit(BASE_YAML, 'when: { model_class: m1, region: r1, rate: 10, window: steady }', 'when: { model_class: m1 }');
      const d = assertAt(text, 'budget-missing-condition', '    when: {', 'when');
      assert.match(d.message, /`region`, `rate`, `window`/);
      const fixed = applyFix(text, d);
      assert.ok(fixed.includes('when: { model_class: m1, region: r1, rate: 10, window: steady }'), fixed);
      assert.deepStrictEqual(diagnose(fixed), []);
    });
    it('fires in JSON and the fix keeps valid JSON', () => {
      const text = edit(BASE_JSON, '"window": "steady"', '"priority": "p1"');
      const d = assertAt(text, 'budget-missing-condition', '"when": {', '"when"', JSON_FILE);
      const fixed = applyFix(text, d);
      assert.strictEqual(JSON.parse(fixed).budgets[0].when.window, 'steady');
    });
    it('does not fire with a full condition', () => {
      assertAbsent(BASE_YAML, 'budget-missing-condition');
    });
  });

  describe('budget-unknown-phase', () => {
    it('fires on a misspelt phase with a rename fix', () => {
      const text = edit(BASE_YAML, 'gpu_queue: 500ms', 'gpu_queu: 500ms');
      const d = assertAt(text, 'budget-unknown-phase', 'gpu_queu: 500ms', 'gpu_queu');
      assert.match(d.message, /did you mean `gpu_queue`/);
      assert.strictEqual(applyFix(text, d), BASE_YAML);
    });
    it('accepts phases declared under trace.phases (and then only those)', () => {
      const text = edit(edit(BASE_YAML, 'id_source: metadata', 'id_source: metadata\n  phases:\n    gateway: [{ names: [auth.check] }]\n    provider_request: [{ names: [provider.call] }]\n    generation: [{ names: [inference.generate] }]'), 'gpu_queue: 500ms', 'provider_request: 500ms');
      assertAbsent(text, 'budget-unknown-phase');
      assert.ok(codes(edit(text, 'provider_request: 500ms', 'gpu_queue: 500ms')).includes('budget-unknown-phase'));
    });
  });

  describe('budget-unknown-slo', () => {
    it('fires on `allocates` naming an SLO that is not declared', () => {
      assertAt(edit(BASE_YAML, 'allocates: total_ms.p95', 'allocates: total_ms.p99'), 'budget-unknown-slo', 'allocates: total_ms.p99', 'total_ms.p99');
    });
    it('does not fire when declared', () => {
      assertAbsent(BASE_YAML, 'budget-unknown-slo');
    });
  });

  describe('gate-missing / gates-missing', () => {
    it('fires on the `gates` key for a missing gate and the fix inserts its default', () => {
      const text = edit(BASE_YAML, '  dropped_iterations: 0\n', '');
      const d = assertAt(text, 'gate-missing', 'gates:\n', 'gates');
      assert.strictEqual(d.severity, 'warning');
      const fixed = applyFix(text, d);
      assert.ok(fixed.includes('  achieved_rate_ratio: 0.95\n  dropped_iterations: 0\nwindows:'), fixed);
      assert.deepStrictEqual(diagnose(fixed), []);
    });
    it('inserts into a flow-style gates map', () => {
      const text = edit(BASE_YAML, 'gates:\n  error_rate: 0.01\n  dropped_iterations: 0\n  scheduler_lag_ms: 50ms\n  join_coverage: 0.95\n  negative_envelope_share: 0.01\n  achieved_rate_ratio: 0.95\n', 'gates: { error_rate: 0.01, scheduler_lag_ms: 50ms, join_coverage: 0.95, negative_envelope_share: 0.01, achieved_rate_ratio: 0.95 }\n');
      const d = assertAt(text, 'gate-missing', 'gates: {', 'gates');
      const fixed = applyFix(text, d);
      assert.ok(fixed.includes('achieved_rate_ratio: 0.95, dropped_iterations: 0 }'), fixed);
      assert.deepStrictEqual(diagnose(fixed), []);
    });
    it('reports a missing gates section on the first line and the fix appends all defaults', () => {
      const text = edit(BASE_YAML, 'gates:\n  error_rate: 0.01\n  dropped_iterations: 0\n  scheduler_lag_ms: 50ms\n  join_coverage: 0.95\n  negative_envelope_share: 0.01\n  achieved_rate_ratio: 0.95\n', '');
      const d = assertAt(text, 'gates-missing', 'version: 1', 'version: 1');
      const fixed = applyFix(text, d);
      assert.deepStrictEqual(diagnose(fixed), []);
      assert.ok(fixed.endsWith('  size: 30s\ngates:\n  error_rate: 0.01\n  dropped_iterations: 0\n  scheduler_lag_ms: 50ms\n  join_coverage: 0.95\n  negative_envelope_share: 0.01\n  achieved_rate_ratio: 0.95\n'), fixed);
    });
    it('is silent when every gate is declared', () => {
      assertAbsent(BASE_YAML, 'gate-missing');
      assertAbsent(BASE_YAML, 'gates-missing');
    });
  });
});

export { lineCol };
