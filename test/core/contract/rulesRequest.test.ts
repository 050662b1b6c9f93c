import * as assert from 'assert';
import { contractToAnalysis, parseContract } from '../../../src/core/contract';
import { applyFix, assertAbsent, assertAt, BASE_JSON, BASE_YAML, codes, edit } from './helpers';

const JSON_FILE = 'c.loadcontract.json';

describe('contract rules: request and trace', () => {
  describe('retries-in-capacity', () => {
    it('fires on retries in a capacity run; the fix sets 0', () => {
      const text = edit(edit(BASE_YAML, 'kind: slo_check', 'kind: capacity'), 'retries: 0', 'retries: 2');
      const d = assertAt(text, 'retries-in-capacity', 'retries: 2', '2');
      assert.strictEqual(d.severity, 'error');
      assert.strictEqual(applyFix(text, d), edit(BASE_YAML, 'kind: slo_check', 'kind: capacity'));
    });
    it('fires in JSON for a saturation run', () => {
      const text = edit(edit(BASE_JSON, '"kind": "slo_check"', '"kind": "saturation"'), '"retries": 0', '"retries": 1');
      assertAt(text, 'retries-in-capacity', '"retries": 1', '1', JSON_FILE);
    });
    it('does not fire for an SLO check with retries, nor a capacity run without them', () => {
      assertAbsent(edit(BASE_YAML, 'retries: 0', 'retries: 2'), 'retries-in-capacity');
      assertAbsent(edit(BASE_YAML, 'kind: slo_check', 'kind: capacity'), 'retries-in-capacity');
    });
  });

  describe('timeout-below-slo', () => {
    it('fires on a timeout equal to the total SLO', () => {
      const d = assertAt(edit(BASE_YAML, 'timeout: 30s', 'timeout: 2000'), 'timeout-below-slo', 'timeout: 2000', '2000');
      assert.match(d.message, /censors the tail/);
    });
    it('compares against the largest total objective (p99 4s > timeout 3s)', () => {
      const text = edit(edit(BASE_YAML, 'timeout: 30s', 'timeout: 3s'), '    p95: 2s\n', '    p95: 2s\n    p99: 4s\n');
      assertAt(text, 'timeout-below-slo', 'timeout: 3s', '3s');
    });
    it('does not fire when the timeout exceeds the SLO', () => {
      assertAbsent(edit(BASE_YAML, 'timeout: 30s', 'timeout: 2001ms'), 'timeout-below-slo');
    });
  });

  describe('streaming-no-first-content', () => {
    it('fires on `streaming: true`; the fix inserts the event into the request block', () => {
      const text = edit(BASE_YAML, 'streaming: false', 'streaming: true');
      const d = assertAt(text, 'streaming-no-first-content', 'streaming: true', 'true');
      const fixed = applyFix(text, d);
      assert.ok(fixed.includes('  retries: 0\n  first_content_event: first_token\ntrace:'), fixed);
      assertAbsent(fixed, 'streaming-no-first-content');
    });
    it('the fix respects flow style', () => {
      const text = edit(BASE_YAML, 'request:\n  route: POST /v1/chat/completions\n  model_class: m1\n  region: r1\n  streaming: false\n  timeout: 30s\n  retries: 0\n', 'request: { route: POST /v1/chat/completions, model_class: m1, streaming: true, timeout: 30s }\n');
      const d = assertAt(text, 'streaming-no-first-content', 'streaming: true', 'true');
      const fixed = applyFix(text, d);
      assert.ok(fixed.includes('timeout: 30s, first_content_event: first_token }'), fixed);
      assertAbsent(fixed, 'streaming-no-first-content');
    });
    it('the fix writes JSON in JSON files', () => {
      const text = edit(BASE_JSON, '"streaming": false', '"streaming": true');
      const d = assertAt(text, 'streaming-no-first-content', '"streaming": true', 'true', JSON_FILE);
      const fixed = applyFix(text, d);
      assert.strictEqual(JSON.parse(fixed).request.first_content_event, 'first_token');
    });
    it('does not fire when the event is declared', () => {
      assertAbsent(edit(BASE_YAML, 'streaming: false', 'streaming: true\n  first_content_event: first_token'), 'streaming-no-first-content');
    });
  });

  describe('ttft-not-streaming', () => {
    it('informs that TTFT is TTFB when not streaming', () => {
      const text = edit(BASE_YAML, '    p95: 2s\n', '    p95: 2s\n  ttft_ms: { p95: 500ms }\n');
      const d = assertAt(text, 'ttft-not-streaming', 'ttft_ms: {', 'ttft_ms');
      assert.strictEqual(d.severity, 'information');
    });
    it('is silent for streaming', () => {
      const text = edit(edit(BASE_YAML, '    p95: 2s\n', '    p95: 2s\n  ttft_ms: { p95: 500ms }\n'), 'streaming: false', 'streaming: true\n  first_content_event: first_token');
      assertAbsent(text, 'ttft-not-streaming');
    });
  });

  describe('trace-id-tag', () => {
    it('fires on id_source: tag; the fix switches to metadata', () => {
      const text = edit(BASE_YAML, 'id_source: metadata', 'id_source: tag');
      const d = assertAt(text, 'trace-id-tag', 'id_source: tag', 'tag');
      assert.match(d.message, /cardinality/);
      assert.strictEqual(applyFix(text, d), BASE_YAML);
    });
    it('does not fire on metadata', () => {
      assertAbsent(BASE_YAML, 'trace-id-tag');
    });
  });

  describe('id_source: request_id (the request-ID join)', () => {
    it('validates, and gives the analysis a request-ID join on the default attribute or the one named', () => {
      const plain = edit(BASE_YAML, 'id_source: metadata', 'id_source: request_id');
      assert.deepStrictEqual(codes(plain).filter((c) => /id-|schema/.test(c)), []);
      const parsed = parseContract(plain, 't.loadcontract.yaml').contract;
      assert.ok(parsed);
      assert.deepStrictEqual(contractToAnalysis(parsed).options.joinKey, { by: 'request_id', attribute: 'http.request.header.x-request-id' });
      const named = parseContract(edit(plain, 'id_source: request_id', 'id_source: request_id\n  id_attribute: app.request_id'), 't.loadcontract.yaml').contract;
      assert.ok(named);
      assert.deepStrictEqual(contractToAnalysis(named).options.joinKey, { by: 'request_id', attribute: 'app.request_id' });
      // By trace ID the analysis gets no join key (its default).
      assert.strictEqual(contractToAnalysis(parseContract(BASE_YAML, 't.loadcontract.yaml').contract!).options.joinKey, undefined);
    });
    it('id-attribute-unused fires on id_attribute with another id_source; the fix switches to request_id', () => {
      const text = edit(BASE_YAML, 'id_source: metadata', 'id_source: metadata\n  id_attribute: app.request_id');
      const d = assertAt(text, 'id-attribute-unused', 'id_attribute', 'id_attribute');
      assert.strictEqual(d.severity, 'warning');
      assert.strictEqual(applyFix(text, d), edit(text, 'id_source: metadata', 'id_source: request_id'));
      assertAbsent(edit(text, 'id_source: metadata', 'id_source: request_id'), 'id-attribute-unused');
    });
  });

  describe('prompt shapes', () => {
    const shapes = (a: string, b: string): string =>
      edit(BASE_YAML, '  retries: 0\n', `  retries: 0\n  prompt_shapes:\n    - { id: ${a}, weight: 1, input_tokens: [10, 20], output_tokens: [5, 6] }\n    - { id: ${b}, weight: 1, input_tokens: [30, 20], output_tokens: [5, 6] }\n`);
    it('prompt-shape-duplicate fires on the second id', () => {
      const text = shapes('short', 'short');
      const second = text.indexOf('id: short', text.indexOf('id: short') + 1) + 4;
      const d = assertAtOffset(text, 'prompt-shape-duplicate', second, 'short'.length);
      assert.strictEqual(d, true);
    });
    it('token-band-inverted fires on the band and the fix swaps it', () => {
      const text = shapes('a', 'b');
      const d = assertAt(text, 'token-band-inverted', 'input_tokens: [30, 20]', '[30, 20]');
      assert.ok(applyFix(text, d).includes('input_tokens: [20, 30]'));
      assertAbsent(applyFix(text, d), 'token-band-inverted');
    });
    it('neither fires on distinct ids and ordered bands', () => {
      const text = edit(shapes('a', 'b'), '[30, 20]', '[20, 30]');
      assertAbsent(text, 'prompt-shape-duplicate');
      assertAbsent(text, 'token-band-inverted');
    });
  });
});

import { diagnose } from './helpers';
function assertAtOffset(text: string, code: string, start: number, length: number): boolean {
  const d = diagnose(text).filter((x) => x.code === code);
  assert.strictEqual(d.length, 1);
  assert.deepStrictEqual(d[0].range, { start, end: start + length });
  return true;
}
