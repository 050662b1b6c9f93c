import * as assert from 'assert';
import { readFileSync, writeFileSync } from 'fs';
import * as path from 'path';
import { kolmogorovQ, ksPValue } from '../../../../src/core/analysis/observed/joinBias';
import { numpyQuantile } from '../../../bench/generateHelpers';
import { analyzeScenario, generateScenario, readRecords, removeScenarios, STEADY, totalOf, type Record17, type ScenarioRun } from './scenarioRuns';

function close(actual: number | null | undefined, expected: number, what: string, tolerance = 1e-9): void {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);
}

interface OtlpDoc {
  resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; name: string; kind: number }> }> }>;
}

/** Keeps only the spans of the traces `keep` accepts (what a sampler that decides per trace would export). */
function sampleSpans(from: string, to: string, keep: (traceId: string) => boolean): void {
  const out: string[] = [];
  for (const line of readFileSync(from, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const doc = JSON.parse(line) as OtlpDoc;
    for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) ss.spans = ss.spans.filter((s) => keep(s.traceId));
    out.push(JSON.stringify(doc));
  }
  writeFileSync(to, out.join('\n') + '\n');
}

/** Trace IDs with a server root (`POST …`, kind SERVER) in an OTLP file. */
function rootedTraces(file: string): Set<string> {
  const out = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    for (const rs of (JSON.parse(line) as OtlpDoc).resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) if (s.kind === 2 && s.name.startsWith('POST ')) out.add(s.traceId);
  }
  return out;
}

/** The two-sample Kolmogorov–Smirnov statistic by merging the sorted samples. */
function ksStatistic(a: number[], b: number[]): number {
  const xs = [...new Set([...a, ...b])].sort((x, y) => x - y);
  const sa = [...a].sort((x, y) => x - y);
  const sb = [...b].sort((x, y) => x - y);
  let i = 0;
  let j = 0;
  let d = 0;
  for (const x of xs) {
    while (i < sa.length && sa[i] <= x) i++;
    while (j < sb.length && sb[j] <= x) j++;
    d = Math.max(d, Math.abs(i / sa.length - j / sb.length));
  }
  return d;
}

describe('join bias and user-observed figures (issue 17 §4, §5)', () => {
  let run: ScenarioRun;
  let records: Record17[];
  before(async () => {
    run = await generateScenario('observed', ['--seed', '11', ...STEADY, '--timeout-ms', '8000', '--stall-fraction', '0.03', '--streaming-fraction', '0.5']);
    records = readRecords(run.records);
  });
  after(removeScenarios);

  it('computes the Kolmogorov distribution as tabulated (Q(1.0) = 0.26999967, Q(1.36) = 0.04946, Q(1.63) = 0.00992)', () => {
    close(kolmogorovQ(1.0), 0.26999967, 'Q(1.0)', 1e-7);
    close(kolmogorovQ(1.36), 0.04946, 'Q(1.36)', 1e-3);
    close(kolmogorovQ(1.63), 0.00992, 'Q(1.63)', 1e-2);
    // Stephens' correction: λ = (√ne + 0.12 + 0.11/√ne)·D with ne = 100·100/200 = 50.
    close(ksPValue(0.2, 100, 100), kolmogorovQ((Math.sqrt(50) + 0.12 + 0.11 / Math.sqrt(50)) * 0.2), 'p');
  });

  it('warns when a tail sampler kept the slow traces: matched against unmatched p50/p95 and KS D as a merge of the sorted samples computes them', async () => {
    const totals = new Map(records.filter((r) => r.trace_id !== null).map((r) => [r.trace_id as string, totalOf(r)]));
    const sampled = path.join(run.dir, 'tail-sampled.otlp.jsonl');
    // Keep every trace slower than 3 s, and one in five of the rest (by trace ID, deterministic).
    sampleSpans(run.spans, sampled, (t) => (totals.get(t) ?? 0) > 3000 || parseInt(t.slice(-2), 16) % 5 === 0);
    const report = await analyzeScenario({ ...run, spans: sampled }, { declaredSampling: 1 });
    const rooted = rootedTraces(sampled);
    const ok = records.filter((r) => r.outcome === 'succeeded' && totalOf(r) !== null);
    const matched = ok.filter((r) => r.trace_id !== null && rooted.has(r.trace_id)).map((r) => totalOf(r) as number);
    const unmatched = ok.filter((r) => r.trace_id === null || !rooted.has(r.trace_id)).map((r) => totalOf(r) as number);
    const b = report.join_bias;
    assert.deepStrictEqual([b.matched.n, b.unmatched.n], [matched.length, unmatched.length]);
    close(b.matched.p50, numpyQuantile(matched, 0.5), 'matched p50');
    close(b.unmatched.p95, numpyQuantile(unmatched, 0.95), 'unmatched p95');
    close(b.statistic, ksStatistic(matched, unmatched), 'D', 1e-12);
    assert.strictEqual(b.biased, true, b.message);
    assert.match(b.message, /slower than the unmatched ones.*biased sample.*declared trace\.sampling 1/);
  });

  it('finds no bias when the exporter loses traces at random (the generator\'s lost roots)', async () => {
    const report = await analyzeScenario(run);
    assert.ok(report.join_bias.unmatched.n >= 20, `unmatched ${report.join_bias.unmatched.n}`);
    assert.strictEqual(report.join_bias.biased, false, report.join_bias.message);
  });

  it('counts first-content time and the censored total as a plain computation over the records does', async () => {
    const timeout = 8000;
    const report = await analyzeScenario(run, { timeoutMs: timeout });
    const u = report.user_observed;
    const ok = records.filter((r) => r.outcome === 'succeeded' && totalOf(r) !== null);
    const first = ok
      .filter((r) => r.scheduler_lag_ms !== null)
      .map((r) => (r.scheduler_lag_ms as number) + (r.streaming && r.first_content_offset_ms !== null ? r.first_content_offset_ms - (r.send_offset_ms as number) : (totalOf(r) as number)));
    assert.strictEqual(u.first_content_ms.n, first.length);
    close(u.first_content_ms.p50, numpyQuantile(first, 0.5), 'first content p50');
    close(u.first_content_ms.p95, numpyQuantile(first, 0.95), 'first content p95');
    const timedOut = records.filter((r) => r.outcome === 'timed_out');
    assert.ok(timedOut.length > 10, `the scenario times out ${timedOut.length} calls`);
    const censored = [...ok.map((r) => Math.min(totalOf(r) as number, timeout)), ...timedOut.map(() => timeout)];
    assert.strictEqual(u.censored_total_ms.n, censored.length);
    close(u.censored_total_ms.p95, numpyQuantile(censored, 0.95), 'censored p95');
    close(u.censored_total_ms.p99, numpyQuantile(censored, 0.99), 'censored p99');
    assert.strictEqual(u.censored_total_ms.censored, timedOut.length + ok.filter((r) => (totalOf(r) as number) >= timeout).length);
    assert.strictEqual(u.censored_total_ms.excluded, records.filter((r) => r.outcome !== 'succeeded' && r.outcome !== 'timed_out' && r.send_offset_ms !== null).length);
    // A route cannot look faster by timing out: the censored p95 is at least the API p95 here.
    assert.ok((u.censored_total_ms.p95 as number) >= (u.api_total_ms.p95 as number));
  });
});
