import * as assert from 'assert';
import type { Report, SeriesWindow } from '../../../../src/core/report/model';
import { analyzeScenario, generateScenario, readRecords, removeScenarios, STEADY, totalOf, type Record17, type ScenarioRun } from './scenarioRuns';

const SIZE = 30_000;

/** Numbers rounded to 9 significant digits, for comparing figures whose sums ran in another order. */
function rounded(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(9)) : v)));
}

function close(actual: number | null, expected: number, what: string): void {
  assert.ok(actual !== null && Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);
}

/** One window's rates, in-flight and tokens/s, counted over the records in plain TypeScript. */
function expectedWindow(records: readonly Record17[], start: number, end: number): Omit<SeriesWindow, 'index' | 'label' | 'partial' | 'owners' | 'errors' | 'start_offset_ms' | 'end_offset_ms'> {
  const s = (end - start) / 1000;
  const sent = records.filter((r) => r.send_offset_ms !== null);
  const inside = (t: number): boolean => t >= start && t < end;
  const ended = sent.filter((r) => totalOf(r) !== null && inside((r.send_offset_ms as number) + (totalOf(r) as number)));
  const tokens = ended.filter((r) => r.outcome === 'succeeded' && r.output_token_count !== null);
  let busy = 0;
  for (const r of sent) {
    const total = totalOf(r);
    if (total === null || total <= 0) continue;
    const a = r.send_offset_ms as number;
    busy += Math.max(0, Math.min(a + total, end) - Math.max(a, start));
  }
  const started = sent.filter((r) => inside(r.send_offset_ms as number));
  return {
    scheduled_per_s: records.filter((r) => inside(r.scheduled_offset_ms)).length / s,
    started_per_s: started.length / s,
    completed_per_s: ended.length / s,
    in_flight: busy / (end - start),
    started: started.length,
    succeeded: started.filter((r) => r.outcome === 'succeeded').length,
    tokens_per_s: tokens.length > 0 ? tokens.reduce((a, r) => a + (r.output_token_count as number), 0) / s : null,
  };
}

describe('window series (issue 17 §2) on a generated stepped run', () => {
  let run: ScenarioRun;
  let records: Record17[];
  let fixed: Report;
  before(async () => {
    run = await generateScenario('series', ['--seed', '9', ...STEADY, '--steps', '10:30,20:30,30:30,15:30']);
    records = readRecords(run.records);
    fixed = await analyzeScenario(run, { windowSizeMs: SIZE });
  });
  after(removeScenarios);

  it('counts scheduled, started, completed, in-flight and tokens per window as a plain count over the records', () => {
    const windows = fixed.window_series.windows;
    assert.strictEqual(fixed.window_series.kind, 'fixed');
    assert.ok(windows.length >= 4);
    for (const w of windows) {
      const e = expectedWindow(records, w.start_offset_ms, w.end_offset_ms);
      assert.strictEqual(w.started, e.started, `window ${w.index}`);
      assert.strictEqual(w.succeeded, e.succeeded, `window ${w.index}`);
      for (const k of ['scheduled_per_s', 'started_per_s', 'completed_per_s', 'in_flight', 'tokens_per_s'] as const) {
        if (e[k] === null) assert.strictEqual(w[k], null, `window ${w.index} ${k}`);
        else close(w[k], e[k] as number, `window ${w.index} ${k}`);
      }
    }
    // The stepped rate shows: 10, 20, 30, 15 per second in the four whole windows, within Poisson noise.
    assert.deepStrictEqual(windows.slice(0, 4).map((w) => Math.round(w.started_per_s / 5) * 5), [10, 20, 30, 15]);
  });

  it('a sliding series by half a window repeats every fixed window at its even positions, figure for figure', async () => {
    const sliding = await analyzeScenario(run, { windowSizeMs: SIZE, windowSlideMs: SIZE / 2 });
    assert.deepStrictEqual([sliding.window_series.kind, sliding.window_series.slide_ms], ['sliding', SIZE / 2]);
    const byIndex = new Map(sliding.window_series.windows.map((w) => [w.index, w]));
    for (const w of fixed.window_series.windows) {
      const twin = byIndex.get(w.index * 2);
      assert.ok(twin, `sliding window ${w.index * 2}`);
      // Equal figure for figure; sums (in-flight, means) may differ in the last bits with the summation order.
      assert.deepStrictEqual(rounded({ ...twin, index: w.index }), rounded(w));
    }
  });

  it('picks as worst the window with the highest client_total_ms p95 among whole windows, and names the owner that grew', () => {
    const worst = fixed.window_series.worst.find((w) => w.metric === 'client_total_ms');
    const whole = fixed.window_series.windows.filter((w) => !w.partial && w.owners.client_total_ms.n >= 20);
    const max = whole.reduce((a, w) => ((w.owners.client_total_ms.p95 ?? -1) > (a.owners.client_total_ms.p95 ?? -1) ? w : a));
    assert.strictEqual(worst?.window, max.index);
    assert.strictEqual(worst?.value, max.owners.client_total_ms.p95);
    // Each owner's growth is its mean in the worst window against the median of its window means;
    // the owner that grew is the one with the largest positive growth (none when none grew).
    assert.ok((worst?.owners.length ?? 0) >= 3);
    for (const g of worst?.owners ?? []) {
      const means = whole.map((w) => w.owners[g.owner].mean as number).sort((a, b) => a - b);
      const median = (means[Math.floor((means.length - 1) / 2)] + means[Math.ceil((means.length - 1) / 2)]) / 2;
      close(g.typical_mean_ms, median, `${g.owner} typical mean`);
      close(g.worst_mean_ms, max.owners[g.owner].mean as number, `${g.owner} worst mean`);
    }
    const top = [...(worst?.owners ?? [])].sort((a, b) => b.delta_ms - a.delta_ms)[0];
    assert.deepStrictEqual(worst?.owner_grew ?? null, top.delta_ms > 0 ? top : null);
  });

  it('uses the contract stages as windows when declared', async () => {
    const stages = [
      { label: 'stage 1 (→ 10/s)', startMs: 0, endMs: 30_000 },
      { label: 'stage 2 (→ 20/s)', startMs: 30_000, endMs: 60_000 },
    ];
    const report = await analyzeScenario(run, { stages });
    assert.strictEqual(report.window_series.kind, 'stages');
    assert.deepStrictEqual(report.window_series.windows.map((w) => [w.label, w.started]), stages.map((s) => [s.label, expectedWindow(records, s.startMs, s.endMs).started]));
  });
});
