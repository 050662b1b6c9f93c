import * as assert from 'assert';
import { applyFix, assertAbsent, assertAt, BASE_JSON, BASE_YAML, codes, diagnose, edit, lineCol } from './helpers';

const JSON_FILE = 'c.loadcontract.json';

describe('contract rules: workload', () => {
  describe('plateau-too-short', () => {
    it('fires on the plateau value (YAML) and the fix sets 10m', () => {
      const text = edit(BASE_YAML, 'plateau: 10m', 'plateau: 5m');
      const d = assertAt(text, 'plateau-too-short', 'plateau: 5m', '5m');
      assert.strictEqual(d.severity, 'warning');
      const fixed = applyFix(text, d);
      assert.strictEqual(fixed, BASE_YAML);
    });
    it('fires on the quoted value in JSON', () => {
      const text = edit(BASE_JSON, '"plateau": "10m"', '"plateau": "9m59s"');
      const d = assertAt(text, 'plateau-too-short', '"plateau": "9m59s"', '"9m59s"', JSON_FILE);
      assert.strictEqual(applyFix(text, d), BASE_JSON);
    });
    it('does not fire at exactly 10 minutes', () => {
      assertAbsent(edit(BASE_YAML, 'plateau: 10m', 'plateau: 600s'), 'plateau-too-short');
    });
  });

  describe('plateau-missing', () => {
    it('fires on the executor of a constant-arrival-rate without plateau; the fix inserts it', () => {
      const text = edit(BASE_YAML, '  plateau: 10m\n', '');
      const d = assertAt(text, 'plateau-missing', 'executor: constant-arrival-rate', 'constant-arrival-rate');
      const fixed = applyFix(text, d);
      assert.ok(fixed.includes('  max_in_flight: 40\n  plateau: 10m\nrequest:'), fixed);
      assertAbsent(fixed, 'plateau-missing');
    });
    it('does not fire for a ramping profile with stages', () => {
      const text = edit(edit(BASE_YAML, '  plateau: 10m\n', '  stages: [{ target: 10, duration: 10m }]\n'), 'executor: constant-arrival-rate', 'executor: ramping-arrival-rate');
      assertAbsent(text, 'plateau-missing');
    });
  });

  describe('warmup-exceeds-plateau', () => {
    it('fires on warmup_exclude when it equals the plateau', () => {
      const d = assertAt(edit(BASE_YAML, 'warmup_exclude: 1m', 'warmup_exclude: 10m'), 'warmup-exceeds-plateau', 'warmup_exclude: 10m', '10m');
      assert.strictEqual(d.severity, 'error');
    });
    it('does not fire when shorter', () => {
      assertAbsent(edit(BASE_YAML, 'warmup_exclude: 1m', 'warmup_exclude: 9m'), 'warmup-exceeds-plateau');
    });
  });

  describe('closed-model-rate', () => {
    it('fires on a VU executor that claims a rate; the fix switches to the arrival-rate executor', () => {
      const text = edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: constant-vus');
      const d = assertAt(text, 'closed-model-rate', 'executor: constant-vus', 'constant-vus');
      assert.match(d.message, /coordinated omission/);
      assert.strictEqual(applyFix(text, d), BASE_YAML);
    });
    it('fires in flow style on the nested value', () => {
      const text = edit(BASE_YAML, 'workload:\n  model: open\n  executor: constant-arrival-rate\n', 'workload: { model: open, executor: ramping-vus,\n  stages: [{ target: 5, duration: 10m }] }\nw2:\n');
      // w2 is there only to absorb the remaining indented keys; the rule must still locate the flow value.
      const d = diagnose(text).find((x) => x.code === 'closed-model-rate');
      assert.ok(d);
      const start = text.indexOf('ramping-vus');
      assert.deepStrictEqual(d.range, { start, end: start + 'ramping-vus'.length });
      assert.deepStrictEqual({ line: d.line, column: d.column }, lineCol(text, start));
      assert.strictEqual(d.line, 5);
    });
    it('does not fire for a closed model without a rate', () => {
      const text = edit(edit(edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: constant-vus'), '  rate: 10\n', '  vus: 10\n'), 'model: open', 'model: closed');
      assertAbsent(text, 'closed-model-rate');
    });
  });

  describe('model-executor-mismatch', () => {
    it('fires on model: closed with an arrival-rate executor', () => {
      const text = edit(BASE_YAML, 'model: open', 'model: closed');
      const d = assertAt(text, 'model-executor-mismatch', 'model: closed', 'closed');
      assert.strictEqual(applyFix(text, d), BASE_YAML);
    });
    it('does not fire on model: hybrid', () => {
      assertAbsent(edit(BASE_YAML, 'model: open', 'model: hybrid'), 'model-executor-mismatch');
    });
  });

  describe('rate-missing / stages-missing', () => {
    it('rate-missing fires on the executor when rate is absent', () => {
      assertAt(edit(BASE_YAML, '  rate: 10\n  time', '  time'), 'rate-missing', 'executor: constant-arrival-rate', 'constant-arrival-rate');
    });
    it('stages-missing fires for ramping-arrival-rate without stages', () => {
      assertAt(edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: ramping-arrival-rate'), 'stages-missing', 'executor: ramping-arrival-rate', 'ramping-arrival-rate');
    });
    it('neither fires on the base contract', () => {
      assert.ok(!codes(BASE_YAML).some((c) => c === 'rate-missing' || c === 'stages-missing'));
    });
  });

  describe('rate-unit-impossible', () => {
    it('fires on a fractional rate; the fix scales rate and time unit together', () => {
      const text = edit(BASE_YAML, 'rate: 10\n', 'rate: 2.5\n');
      const d = assertAt(text, 'rate-unit-impossible', 'rate: 2.5', '2.5');
      assert.match(d.message, /rate: 5.*time_unit: 2s/);
      const fixed = applyFix(text, d);
      assert.ok(fixed.includes('  rate: 5\n  time_unit: 2s\n'), fixed);
      assertAbsent(fixed, 'rate-unit-impossible');
    });
    it('fires on a time unit longer than the plateau', () => {
      assertAt(edit(BASE_YAML, 'time_unit: 1s', 'time_unit: 1h'), 'rate-unit-impossible', 'time_unit: 1h', '1h');
    });
    it('does not fire for 1 per 2s', () => {
      assertAbsent(edit(edit(BASE_YAML, 'rate: 10\n', 'rate: 1\n'), 'time_unit: 1s', 'time_unit: 2s'), 'rate-unit-impossible');
    });
  });

  describe('in-flight-below-littles-law', () => {
    it('fires when max_in_flight < rate × total SLO (10/s × 2 s = 20) and the fix sets 20', () => {
      const text = edit(BASE_YAML, 'max_in_flight: 40', 'max_in_flight: 19');
      const d = assertAt(text, 'in-flight-below-littles-law', 'max_in_flight: 19', '19');
      assert.match(d.message, /= 20 in flight/);
      const fixed = applyFix(text, d);
      assert.ok(fixed.includes('max_in_flight: 20\n'));
      assertAbsent(fixed, 'in-flight-below-littles-law');
    });
    it('uses the peak stage target of a ramping profile (30/s × 2 s = 60)', () => {
      const text = edit(
        edit(edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: ramping-arrival-rate'), '  rate: 10\n', '  stages: [{ target: 30, duration: 10m }]\n'),
        'max_in_flight: 40',
        'max_in_flight: 59',
      );
      const d = assertAt(text, 'in-flight-below-littles-law', 'max_in_flight: 59', '59');
      assert.match(d.message, /at least 60/);
    });
    it('does not fire at exactly rate × SLO', () => {
      assertAbsent(edit(BASE_YAML, 'max_in_flight: 40', 'max_in_flight: 20'), 'in-flight-below-littles-law');
    });
    it('counts a session\'s calls in the hybrid model (10 sessions/s × 2 s × 3 calls = 60), not in the open one', () => {
      const sessions = edit(BASE_YAML, 'max_in_flight: 40', 'max_in_flight: 40\n  calls_per_session: 3');
      assertAbsent(sessions, 'in-flight-below-littles-law');
      const hybrid = edit(sessions, 'model: open', 'model: hybrid');
      const d = assertAt(hybrid, 'in-flight-below-littles-law', 'max_in_flight: 40', '40');
      assert.match(d.message, /10\/s × 2 s \(p95\) × 3 calls per session = 60 in flight/);
      assert.ok(applyFix(hybrid, d).includes('max_in_flight: 60\n'));
    });
  });
});
