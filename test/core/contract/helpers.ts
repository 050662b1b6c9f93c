import * as assert from 'assert';
import { parseContract } from '../../../src/core/contract';
import type { ContractDiagnostic, TextEdit } from '../../../src/core/contract';

/** A contract that triggers no rule at all: every test mutates one thing in it. */
export const BASE_YAML = `version: 1
name: base
claim:
  kind: slo_check
workload:
  model: open
  executor: constant-arrival-rate
  rate: 10
  time_unit: 1s
  plateau: 10m
  drain: 30s
  warmup_exclude: 1m
  max_in_flight: 40
request:
  route: POST /v1/chat/completions
  model_class: m1
  region: r1
  streaming: false
  timeout: 30s
  retries: 0
trace:
  id_source: metadata
slo:
  total_ms:
    p95: 2s
budgets:
  - allocates: total_ms.p95
    when: { model_class: m1, region: r1, rate: 10, window: steady }
    phases:
      network_envelope: 200ms
      gateway: 300ms
      gpu_queue: 500ms
      generation: 1s
gates:
  error_rate: 0.01
  dropped_iterations: 0
  scheduler_lag_ms: 50ms
  join_coverage: 0.95
  negative_envelope_share: 0.01
  achieved_rate_ratio: 0.95
windows:
  size: 30s
`;

/** The same contract as pretty-printed JSON (built by JSON.stringify, not by our parser). */
export const BASE_JSON = JSON.stringify(
  {
    version: 1,
    name: 'base',
    claim: { kind: 'slo_check' },
    workload: { model: 'open', executor: 'constant-arrival-rate', rate: 10, time_unit: '1s', plateau: '10m', drain: '30s', warmup_exclude: '1m', max_in_flight: 40 },
    request: { route: 'POST /v1/chat/completions', model_class: 'm1', region: 'r1', streaming: false, timeout: '30s', retries: 0 },
    trace: { id_source: 'metadata' },
    slo: { total_ms: { p95: '2s' } },
    budgets: [{ allocates: 'total_ms.p95', when: { model_class: 'm1', region: 'r1', rate: 10, window: 'steady' }, phases: { network_envelope: '200ms', gateway: '300ms', gpu_queue: '500ms', generation: '1s' } }],
    gates: { error_rate: 0.01, dropped_iterations: 0, scheduler_lag_ms: '50ms', join_coverage: 0.95, negative_envelope_share: 0.01, achieved_rate_ratio: 0.95 },
    windows: { size: '30s' },
  },
  null,
  2,
);

/** Replaces exactly one occurrence (fails the test if the anchor is missing or ambiguous). */
export function edit(text: string, from: string, to: string): string {
  const i = text.indexOf(from);
  assert.ok(i >= 0, `anchor not found: ${from}`);
  assert.strictEqual(text.indexOf(from, i + 1), -1, `anchor not unique: ${from}`);
  return text.slice(0, i) + to + text.slice(i + from.length);
}

export function diagnose(text: string, file = 'test.loadcontract.yaml'): ContractDiagnostic[] {
  return parseContract(text, file).diagnostics;
}

export function codes(text: string, file?: string): string[] {
  return diagnose(text, file).map((d) => d.code);
}

/** 1-based line/column of an offset, counted here independently of the parser's line counter. */
export function lineCol(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/**
 * Asserts that exactly one diagnostic with `code` exists and that it covers `snippet`, located as the
 * text `snippet` inside the unique `anchor` (so the expected offset is found by plain string search).
 */
export function assertAt(text: string, code: string, anchor: string, snippet: string, file?: string): ContractDiagnostic {
  const all = diagnose(text, file);
  const found = all.filter((d) => d.code === code);
  assert.strictEqual(found.length, 1, `expected one ${code}, got ${JSON.stringify(all.map((d) => `${d.code}@${d.line}:${d.column}`))}`);
  const d = found[0];
  const a = text.indexOf(anchor);
  assert.ok(a >= 0 && text.indexOf(anchor, a + 1) === -1, `anchor must be unique: ${anchor}`);
  const start = a + anchor.indexOf(snippet);
  assert.ok(anchor.includes(snippet), 'snippet must be inside the anchor');
  assert.deepStrictEqual(d.range, { start, end: start + snippet.length }, `range of ${code}: got "${text.slice(d.range.start, d.range.end)}"`);
  assert.deepStrictEqual({ line: d.line, column: d.column }, lineCol(text, start));
  return d;
}

export function assertAbsent(text: string, code: string, file?: string): void {
  assert.ok(!codes(text, file).includes(code), `${code} must not fire; got ${codes(text, file).join(', ')}`);
}

export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

export function applyFix(text: string, d: ContractDiagnostic): string {
  assert.ok(d.fix, `${d.code} should carry a fix`);
  return applyEdits(text, d.fix.edits);
}
