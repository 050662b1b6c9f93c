import * as assert from 'assert';
import { applyFix, assertAbsent, assertAt, BASE_JSON, BASE_YAML, codes, diagnose, edit, lineCol } from './helpers';

const JSON_FILE = 'c.loadcontract.json';

describe('contract rules: structure and durations', () => {
  describe('unknown-key', () => {
    it('flags a misspelt nested key with did-you-mean and a rename fix (YAML)', () => {
      const text = edit(BASE_YAML, 'warmup_exclude: 1m', 'warmup_exlcude: 1m');
      const d = assertAt(text, 'unknown-key', 'warmup_exlcude: 1m', 'warmup_exlcude');
      assert.match(d.message, /did you mean `warmup_exclude`/);
      assert.strictEqual(applyFix(text, d), BASE_YAML);
    });
    it('handles camelCase spellings in flow style', () => {
      const text = edit(BASE_YAML, 'windows:\n  size: 30s\n', 'windows: { sizee: 30s }\n');
      const d = assertAt(text, 'unknown-key', '{ sizee: 30s }', 'sizee');
      assert.strictEqual(applyFix(text, d), edit(BASE_YAML, 'windows:\n  size: 30s\n', 'windows: { size: 30s }\n'));
    });
    it('keeps quotes in JSON', () => {
      const text = edit(BASE_JSON, '"time_unit"', '"timeUnit"');
      const d = assertAt(text, 'unknown-key', '"timeUnit"', '"timeUnit"', JSON_FILE);
      assert.strictEqual(applyFix(text, d), BASE_JSON);
    });
    it('lists allowed keys when nothing is close', () => {
      const d = assertAt(edit(BASE_YAML, 'size: 30s', 'frobnicate: 30s'), 'unknown-key', 'frobnicate: 30s', 'frobnicate');
      assert.strictEqual(d.fix, undefined);
      assert.match(d.message, /allowed keys: size/);
    });
    it('is silent on the base contract', () => {
      assertAbsent(BASE_YAML, 'unknown-key');
    });
  });

  describe('schema-enum / schema-type / missing-key', () => {
    it('schema-enum suggests the closest executor', () => {
      const text = edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: constant-arival-rate');
      const d = assertAt(text, 'schema-enum', 'executor: constant-arival-rate', 'constant-arival-rate');
      assert.strictEqual(applyFix(text, d), BASE_YAML);
    });
    it('schema-type on a string where a number belongs', () => {
      assertAt(edit(BASE_YAML, 'max_in_flight: 40', 'max_in_flight: forty'), 'schema-type', 'max_in_flight: forty', 'forty');
    });
    it('missing-key on the section key', () => {
      const d = assertAt(edit(BASE_YAML, '  route: POST /v1/chat/completions\n', ''), 'missing-key', 'request:', 'request');
      assert.match(d.message, /`route`/);
    });
    it('none on the base contract', () => {
      for (const c of ['schema-enum', 'schema-type', 'missing-key', 'schema-constraint']) assertAbsent(BASE_YAML, c);
    });
  });

  describe('duration-no-unit / duration-invalid', () => {
    it('warns on a bare number where the key has no unit; the fix makes ms explicit', () => {
      const text = edit(BASE_YAML, 'drain: 30s', 'drain: 30');
      const d = assertAt(text, 'duration-no-unit', 'drain: 30', '30');
      assert.match(d.message, /read as 30 ms/);
      assert.ok(applyFix(text, d).includes('drain: 30ms\n'));
      assertAbsent(applyFix(text, d), 'duration-no-unit');
    });
    it('quotes the fix in JSON', () => {
      const text = edit(BASE_JSON, '"drain": "30s"', '"drain": 30000');
      const d = assertAt(text, 'duration-no-unit', '"drain": 30000', '30000', JSON_FILE);
      assert.strictEqual(JSON.parse(applyFix(text, d)).workload.drain, '30000ms');
    });
    it('accepts bare numbers under `_ms` keys', () => {
      assertAbsent(edit(BASE_YAML, 'scheduler_lag_ms: 50ms', 'scheduler_lag_ms: 50'), 'duration-no-unit');
      assertAbsent(edit(BASE_YAML, '    p95: 2s', '    p95: 2000'), 'duration-no-unit');
    });
    it('errors on an unparseable duration, in a nested flow sequence', () => {
      const text = edit(edit(BASE_YAML, 'executor: constant-arrival-rate', 'executor: ramping-arrival-rate'), '  plateau: 10m\n', '  stages: [{ target: 10, duration: 10 minutes }]\n');
      const d = assertAt(text, 'duration-invalid', 'duration: 10 minutes', '10 minutes');
      assert.strictEqual(d.severity, 'error');
    });
    it('accepts compound k6 durations', () => {
      assertAbsent(edit(BASE_YAML, 'plateau: 10m', 'plateau: 10m30s'), 'duration-invalid');
    });
  });

  describe('syntax', () => {
    it('reports YAML syntax errors with a position and no contract', () => {
      const text = edit(BASE_YAML, 'rate: 10\n', 'rate: [10\n');
      const ds = diagnose(text);
      assert.ok(ds.length > 0 && ds.every((d) => d.code === 'syntax'));
    });
    it('reports JSON syntax errors (trailing comma) at the offending offset', () => {
      const text = edit(BASE_JSON, '"size": "30s"', '"size": "30s",');
      const ds = diagnose(text, JSON_FILE);
      assert.strictEqual(ds.length, 1);
      assert.strictEqual(ds[0].code, 'syntax');
      const brace = text.indexOf('}', text.indexOf('"size": "30s",'));
      assert.deepStrictEqual({ line: ds[0].line, column: ds[0].column }, lineCol(text, brace));
    });
  });

  it('collects several findings in one pass, ordered by position', () => {
    const text = edit(edit(BASE_YAML, 'plateau: 10m', 'plateau: 5m'), 'id_source: metadata', 'id_source: tag');
    assert.deepStrictEqual(codes(text), ['plateau-too-short', 'trace-id-tag']);
  });
});
