import * as assert from 'assert';
import { renderMarkdownReport } from '../../../src/core/report/markdown';
import { renderTextReport } from '../../../src/core/report/text';
import { handBuiltReport } from './handBuiltReport';

/** Lines of the output with leading/trailing blanks removed and runs of spaces collapsed. */
function normalized(text: string): string[] {
  return text.split('\n').map((l) => l.trim().replace(/ {2,}/g, ' '));
}

function sectionOf(text: string, title: string): string[] {
  const rows = text.split('\n');
  const start = rows.findIndex((l) => l.startsWith(title));
  assert.ok(start >= 0, `no section ${title}`);
  const end = rows.findIndex((l, i) => i > start + 1 && /^-+$/.test(rows[i + 1] ?? '') && l.trim() !== '');
  return normalized(rows.slice(start, end < 0 ? undefined : end).join('\n'));
}

describe('report renderers: the issue-17 sections', () => {
  const text = renderTextReport(handBuiltReport());

  it('lists each group with its n, and marks the one below the floor too small (its p95 in parentheses)', () => {
    const groups = sectionOf(text, 'Groups');
    assert.ok(groups.includes('the run mixes 2 routes (chat 900, embed 90): the whole-run tail mixes them'), groups.join('\n'));
    // chat: 900 started, 870 ok, 30/900 = 3.3% errors; p95 1900 shown plainly.
    assert.ok(groups.some((l) => l.startsWith('route=chat 900 870 3.3% 96.7% 1200.0 1900.0 1.58')), groups.join('\n'));
    // embed: 80 successes < 200: p95 in parentheses, no tail ratio, marked.
    assert.ok(groups.some((l) => l.startsWith('route=embed 90 80 11.1% 88.9% 300.0 (450.0) –') && l.endsWith('too small for a p95')), groups.join('\n'));
  });

  it('prints the diagnoses with their code, evidence and first check, and the window series with the worst window', () => {
    const d = sectionOf(text, 'Diagnoses');
    assert.strictEqual(d[2], '1 of 1 rules fired over the windows: pool-saturation');
    assert.ok(d.includes('[pool-saturation] The queue rose while generation per token stayed flat: the inference pool is saturated'));
    assert.ok(d.some((l) => l.startsWith('- gpu_queue_ms p50 rose 100 ms → 250 ms')));
    assert.ok(d.some((l) => l.startsWith('first check: Inference pool saturation')));
    const s = sectionOf(text, 'Window series (fixed 30s windows)');
    assert.ok(s.some((l) => l.startsWith('worst client_total_ms p95: window 1 with 2050.0 ms (n=470; typical 1975.0 ms; default SLO figure): gpu_queue_ms grew 350.0 ms → 500.0 ms')), s.join('\n'));
    // window 1: started 16.5/s, in flight 22.5, 20 errors, tokens 2100/s, total p95 2050, queue p95 750.
    assert.ok(s.some((l) => l === '*1 30s–60s – 16.5 16.4 22.5 20 2,100 2050.0 750.0'), s.join('\n'));
  });

  it('warns about a biased join beside the declared sampling, and prints the user-observed definitions', () => {
    const b = sectionOf(text, 'Join bias: WARNING, the matched sample is skewed');
    assert.ok(b.includes('two-sample Kolmogorov–Smirnov: D = 0.900, p = 1.0e-6 (warning below 0.01)'), b.join('\n'));
    assert.ok(b.includes('declared trace.sampling: 1'));
    const u = sectionOf(text, 'User-observed');
    assert.ok(u.includes('censored_total_ms 960 1195.0 1900.0 1910.0'), u.join('\n'));
    assert.ok(u.includes('censored total: 950 successes at their own total, 10 counted at the timeout, 30 other failures left out'));
    assert.ok(u.includes('- censored_total_ms: successes and timeouts, timeouts at the timeout'));
  });

  it('carries the provenance: hashes, the contract and its hash, resources, sampling', () => {
    const p = sectionOf(text, 'Provenance');
    assert.ok(p.some((l) => l.includes('ab'.repeat(32)) && l.endsWith('/runs/k6.ndjson')), p.join('\n'));
    assert.ok(p.includes(`contract steady-chat: /runs/steady.loadcontract.yaml (812 bytes, sha256 ${'ef'.repeat(32)})`));
    assert.ok(p.includes('gateway 1.4.2 opentelemetry 1.30.0 nodejs –'));
    assert.ok(p.includes('sampling: trace.sampling 1 (contract)'));
  });

  it('says the same in markdown', () => {
    const md = renderMarkdownReport(handBuiltReport());
    assert.ok(md.includes('## Diagnoses'));
    assert.ok(md.includes('| route=embed | 90 | 80 | 11.1% | 88.9% | 300.0 | (450.0) |'));
    assert.ok(md.includes('## Provenance'));
  });
});
