import * as assert from 'assert';
import { contractToAnalysis, parseContract } from '../../../../src/core/contract';
import type { Report, StageRow } from '../../../../src/core/report/model';
import { renderMarkdownReport } from '../../../../src/core/report/markdown';
import { renderTextReport } from '../../../../src/core/report/text';
import { analyzeScenario, generateScenario, readRecords, removeScenarios, STEADY, totalOf, type Record17, type ScenarioRun } from '../extended/scenarioRuns';
import { generateStepped, quantileCont, removeStepped, STEP_RATES, STEP_S, STEPS, type Truth } from './steppedRuns';

/**
 * Where the knee must be, by hand from the generator's workload (bench/generate/workload.ts): a slot
 * holds a request for prefill + output tokens × time per token × (1 + 0.3 × busy share).
 * - output tokens: the shapes' capped lognormal means, 0.5 × 71.7 + 0.35 × 224.6 + 0.15 × 390.2 = 174.8;
 * - time per token: 0.7 × 9 + 0.3 × 24 ms, × e^(0.12²/2) = 13.60 ms; prefill ≈ 67 ms;
 * - a full pool (busy share 1): 67 + 174.8 × 13.60 × 1.3 = 3158 ms, plus 0.2 % stalls holding a slot
 *   ≈ 34 s (+68 ms) less 1 % failures cut short (≈ −16 ms): ≈ 3.21 s per request.
 * 80 slots serve at most 80 / 3.21 = 24.9 requests/s: above the 20/s step, below the 30/s one, so the
 * queue must grow without bound from the third step on (index 2) and the throughput must stop there.
 * With 400 slots the capacity is 125/s: no step saturates it.
 */
const SATURATING_SLOTS = 80;
const HOLD_S = 3.21;
const CAPACITY = SATURATING_SLOTS / HOLD_S;
/**
 * A VU holds an iteration ≈ 2.64 s with a pool at 15 % busy (67 + 174.8 × 13.60 × 1.05 ms + the
 * stalls' 68 ms + a few ms of gateway and network): 70 VUs start at most 70 / 2.64 = 26.5 iterations/s,
 * between the 20/s and 30/s steps; past that the generator drops iterations.
 */
const MAX_VUS = 70;
const VU_CAPACITY = MAX_VUS / 2.64;

const SATURATING = ['--seed', '7', '--rate', '40', '--slots', String(SATURATING_SLOTS), '--max-queue', '100000', '--max-vus', '5000'];
const ROOMY = ['--seed', '7', '--rate', '40', '--slots', '400', '--max-queue', '400', '--max-vus', '5000'];
const FEW_VUS = ['--seed', '7', '--rate', '40', '--slots', '400', '--max-queue', '400', '--max-vus', String(MAX_VUS)];

/** A contract for the stepped run as k6 would drive it: each step a 1 s ramp, then a 59 s hold. */
function steppedContract(): string {
  const stages = STEP_RATES.flatMap((r) => [`    - { target: ${r}, duration: 1s }`, `    - { target: ${r}, duration: 59s }`]).join('\n');
  return `version: 1
name: stepped
claim:
  kind: saturation
workload:
  model: open
  executor: ramping-arrival-rate
  time_unit: 1s
  start_rate: 0
  stages:
${stages}
  drain: 30s
  warmup_exclude: 0s
  max_in_flight: 5000
  pre_allocated_vus: 100
request:
  route: POST /v1/chat/completions
  model_class: llama-3.1-8b-instruct
  region: r1
  streaming: false
  timeout: 30s
  retries: 0
trace:
  id_source: metadata
slo:
  total_ms: { p95: 12s }
windows:
  size: 30s
`;
}

function contractOptions(): ReturnType<typeof contractToAnalysis>['options'] {
  const parsed = parseContract(steppedContract(), 'stepped.loadcontract.yaml');
  assert.ok(parsed.contract, JSON.stringify(parsed.diagnostics));
  return contractToAnalysis(parsed.contract).options;
}

/** The stage's figures counted over the generated records (and the generator's queue truth) in plain TypeScript. */
function expectedStage(records: readonly Record17[], truth: Truth, start: number, end: number): Record<string, number | null> {
  const inside = (t: number | null): boolean => t !== null && t >= start && t < end;
  const sent = records.filter((r) => inside(r.send_offset_ms));
  const endOf = (r: Record17): number | null => (r.send_offset_ms !== null && totalOf(r) !== null ? (r.send_offset_ms as number) + (totalOf(r) as number) : null);
  const ok = sent.filter((r) => r.outcome === 'succeeded');
  const seconds = (end - start) / 1000;
  return {
    started: sent.length,
    succeeded: ok.length,
    errors: sent.length - ok.length,
    completed_per_s: records.filter((r) => inside(endOf(r))).length / seconds,
    goodput_per_s: records.filter((r) => r.outcome === 'succeeded' && inside(endOf(r))).length / seconds,
    total_p95: quantileCont(ok.map((r) => totalOf(r) as number), 0.95),
    queue_p95: quantileCont(ok.map((r) => truth.queueMs.get(r.trace_id as string) as number), 0.95),
  };
}

function close(actual: number | null | undefined, expected: number | null, what: string, tolerance = 1e-9): void {
  assert.ok(actual !== null && actual !== undefined && expected !== null && Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: ${actual} ≠ ${expected}`);
}

/** Every stage row against the plain count and quantile over the records of its own time range. */
function checkRows(list: readonly StageRow[], records: readonly Record17[], truth: Truth): void {
  for (const r of list) {
    const e = expectedStage(records, truth, r.start_offset_ms, r.end_offset_ms);
    const errors = Object.values(r.errors).reduce((a, b) => a + b, 0);
    assert.deepStrictEqual([r.started, r.succeeded, errors], [e.started, e.succeeded, e.errors], r.label);
    close(r.started_per_s, (e.started as number) / ((r.end_offset_ms - r.start_offset_ms) / 1000), `${r.label} started_per_s`);
    close(r.completed_per_s, e.completed_per_s, `${r.label} completed_per_s`);
    close(r.goodput_per_s, e.goodput_per_s, `${r.label} goodput_per_s`);
    if ((e.succeeded as number) === 0) continue;
    assert.strictEqual(r.owners.client_total_ms.n, e.succeeded, `${r.label} n`);
    close(r.owners.client_total_ms.p95, e.total_p95, `${r.label} client_total_ms p95`);
    // Span durations in ns read back as ms: equal to the truth within a nanosecond.
    close(r.owners.gpu_queue_ms.p95, e.queue_p95, `${r.label} gpu_queue_ms p95`, 1e-6);
  }
}

describe('stages and the knee (issue 18 §2) on generated stepped runs', function () {
  this.timeout(900_000);
  const runs = new Map<string, { run: ScenarioRun; truth: Truth; records: Record17[] }>();
  before(async () => {
    for (const [name, args] of [['saturating', SATURATING], ['roomy', ROOMY], ['few-vus', FEW_VUS]] as const) {
      const made = await generateStepped(name, [...STEPS, ...args]);
      runs.set(name, { ...made, records: readRecords(made.run.records) });
    }
  });
  after(() => {
    removeStepped();
    removeScenarios();
  });
  const get = (name: string): { run: ScenarioRun; truth: Truth; records: Record17[] } => runs.get(name) as { run: ScenarioRun; truth: Truth; records: Record17[] };

  it('the hand-computed capacities fall between the second and third steps', () => {
    assert.strictEqual(STEP_RATES.findIndex((r) => r > CAPACITY), 2);
    assert.strictEqual(STEP_RATES.findIndex((r) => r > VU_CAPACITY), 2);
  });

  describe('detected from the schedule (no stages declared)', () => {
    let saturating: Report;
    before(async () => {
      saturating = await analyzeScenario(get('saturating').run);
    });

    it('finds the four steps in the scheduled starts, each within 3 s of where the generator stepped', () => {
      const s = saturating.stages;
      assert.deepStrictEqual([s.source, s.basis, s.queue_owner, s.list.length], ['detected', 'scheduled', 'gpu_queue_ms', 4]);
      s.list.forEach((r, i) => {
        assert.ok(Math.abs(r.start_offset_ms - i * STEP_S * 1000) <= 3000, `${r.label} starts at ${r.start_offset_ms}`);
        assert.ok(r.hold);
        // The rate of the step within Poisson noise (3 √n of n ≈ 600–2400 starts).
        assert.ok(Math.abs((r.target_per_s as number) - STEP_RATES[i]) <= (3 * Math.sqrt(STEP_RATES[i] * STEP_S)) / STEP_S, `${r.label} target ${r.target_per_s}`);
      });
      // The run stopped at 240 s; the records say only when it last started: the last stage ends one
      // mean interval (25 ms at 40/s) after that start, within three of them of 240 s, never past it.
      const end = s.list[3].end_offset_ms;
      assert.ok(end <= 4 * STEP_S * 1000 && end >= 4 * STEP_S * 1000 - 75, `ends at ${end}`);
      assert.ok(!s.list[3].partial);
    });

    it('puts the knee at the first step above the pool capacity, for queue growth, and the throughput stops at the capacity', () => {
      const s = saturating.stages;
      assert.deepStrictEqual([s.knee?.index, s.knee?.reason, s.knee?.compared_with], [2, 'queue_growth', 1]);
      assert.ok(!s.knee?.reasons.includes('below_target'));
      assert.match(s.knee?.text ?? '', /^stage 3 .*gpu_queue_ms p95/);
      // Below the knee the successes follow the starts (less ≈ 1.5 % errors and the completions a step
      // up carries into the next stage); from it on they stay at the capacity (±10 %).
      assert.ok(Math.abs(s.list[1].goodput_per_s / s.list[1].started_per_s - 1) < 0.1);
      assert.ok(Math.abs(s.list[2].goodput_per_s / CAPACITY - 1) < 0.1, `goodput ${s.list[2].goodput_per_s} against ${CAPACITY}`);
      const check = s.checks[2];
      assert.ok((check.queue_gain as number) > (check.throughput_gain as number));
      assert.ok((s.checks[1].queue_gain as number) <= (s.checks[1].throughput_gain as number));
    });

    it('counts each stage and takes each stage\'s own p95, as a plain count and quantile over the records do', () => {
      checkRows(saturating.stages.list, get('saturating').records, get('saturating').truth);
    });

    it('renders the stage table with the knee marked in the text and the Markdown report', () => {
      const text = renderTextReport(saturating);
      const md = renderMarkdownReport(saturating);
      assert.match(text, /Stages and the knee \(detected from the schedule\)/);
      assert.match(text, /\*stage 3 \(3[01]\/s\)/);
      assert.match(md, /\| \\\*stage 3 \(3[01]\/s\)/);
    });

    it('finds no knee on the same steps into a pool that never saturates', async () => {
      const roomy = await analyzeScenario(get('roomy').run);
      assert.deepStrictEqual([roomy.stages.source, roomy.stages.list.length, roomy.stages.knee], ['detected', 4, null]);
      assert.ok(roomy.stages.checks.every((c) => c.reasons.length === 0));
      assert.match(roomy.stages.summary, /^no knee in 4 stages/);
      checkRows(roomy.stages.list, get('roomy').records, get('roomy').truth);
    });

    it('says the dropped iterations are not in the schedule it read', async () => {
      const few = await analyzeScenario(get('few-vus').run);
      assert.ok(get('few-vus').truth.dropped.length > 0);
      assert.ok(few.stages.not_evaluated.some((x) => x.includes(`${get('few-vus').truth.dropped.length.toLocaleString('en-US')} dropped iterations`)), few.stages.not_evaluated.join('\n'));
    });
  });

  describe("from the contract's stages (a 1 s ramp, then a 59 s hold, per step)", () => {
    it('lists all eight stages with their targets and puts the knee at the 30/s hold, compared with the 20/s hold', async () => {
      const report = await analyzeScenario(get('saturating').run, contractOptions());
      const s = report.stages;
      assert.deepStrictEqual([s.source, s.basis, s.list.length], ['contract', null, 8]);
      // Ramps: the mean of a linear ramp from the previous target; holds: the target.
      assert.deepStrictEqual(s.list.map((r) => [r.hold, r.target_per_s]), [[false, 5], [true, 10], [false, 15], [true, 20], [false, 25], [true, 30], [false, 35], [true, 40]]);
      assert.deepStrictEqual(s.checks.map((c) => c.index), [1, 3, 5, 7]);
      assert.deepStrictEqual([s.knee?.index, s.knee?.reason, s.knee?.compared_with, s.knee?.label], [5, 'queue_growth', 3, 'stage 6 (→ 30/s)']);
      checkRows(s.list, get('saturating').records, get('saturating').truth);
      // The stages are the report's window series too: the same figures, not a second computation.
      assert.deepStrictEqual(s.list.map((r) => r.started), report.window_series.windows.map((w) => w.started));
    });

    it('puts the knee where the generator cannot keep up (dropped iterations), for a start rate below target', async () => {
      const { run, records, truth } = get('few-vus');
      const s = (await analyzeScenario(run, contractOptions())).stages;
      assert.deepStrictEqual([s.knee?.index, s.knee?.reasons], [5, ['below_target']]);
      const hold = s.list[5];
      // The achieved ratio is the plain count of sends over the target's 30/s × 59 s.
      const sent = records.filter((r) => r.send_offset_ms !== null && r.send_offset_ms >= hold.start_offset_ms && r.send_offset_ms < hold.end_offset_ms).length;
      assert.strictEqual(s.checks.find((c) => c.index === 5)?.achieved_ratio, sent / (30 * 59));
      // The generator dropped iterations in that hold; before the 30/s step under 1 % (Erlang's loss
      // formula for 70 VUs offered 20/s × 2.64 s = 53 gives 0.4 %).
      const droppedIn = truth.dropped.filter((t) => t >= hold.start_offset_ms && t < hold.end_offset_ms).length;
      const before = truth.dropped.filter((t) => t < 2 * STEP_S * 1000).length;
      const scheduledBefore = records.filter((r) => r.scheduled_offset_ms < 2 * STEP_S * 1000).length + before;
      assert.ok(droppedIn > 0 && before < 0.01 * scheduledBefore, `dropped ${droppedIn} in the hold, ${before} of ${scheduledBefore} before`);
      // The pool has room: the queue did not grow, so the only reason is the start rate.
      assert.ok(s.checks.every((c) => !c.reasons.includes('queue_growth')));
    });
  });

  describe('runs that are not stepped', () => {
    it('a steady rate and a ramp to a plateau have no stages, and say why', async () => {
      const steady = await analyzeScenario(await generateScenario('stages-steady', ['--seed', '5', ...STEADY]));
      assert.deepStrictEqual([steady.stages.source, steady.stages.list, steady.stages.knee], ['none', [], null]);
      assert.match(steady.stages.summary, /holds steady/);
      const ramp = await analyzeScenario(await generateScenario('stages-ramp', ['--seed', '5', '--rate', '20', '--duration', '120', '--ramp', '40', '--slots', '400']));
      assert.deepStrictEqual([ramp.stages.source, ramp.stages.list.length], ['none', 0]);
      assert.match(ramp.stages.summary, /not in flat steps/);
    });
  });

});
