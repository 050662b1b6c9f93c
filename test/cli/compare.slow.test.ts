import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_OPTIONS, PRESETS } from '../../bench/generate/options';
import { generateRun } from '../../bench/generate/run';
import { repoRoot } from '../helpers/paths';
import { runCli } from './runCli';

interface Truth {
  matched_succeeded: Record<string, { n: number; p50: number; p95: number; p99: number }>;
}

interface CompareJson {
  same_experiment: boolean;
  differences: string[];
  resamples: number;
  seed: number;
  moved: Array<{ metric: string; stat: 'p50' | 'p95' | 'p99'; base: number; head: number; delta: number; ci_low: number; ci_high: number }>;
  metrics: Array<{ metric: string; n_base: number; n_head: number; stats: Record<string, { base: number; head: number; delta: number; ci_low: number; ci_high: number; moved: boolean } | undefined> }>;
  base: { outcomes: { started: number; rejected: number }; join: { matched: number } };
  head: { outcomes: { started: number; rejected: number }; join: { matched: number } };
  fail_on: Array<{ rule: string; status: string }>;
}

/**
 * The generator's sample workload twice: a healthy GPU pool (32 slots) and a degraded one (24 slots,
 * another seed), each loaded with analyze --db. The degraded pool queues: its truth has a larger
 * gpu_queue_ms at every quantile, and nothing else about the workload changes.
 */
describe('phasewise compare (built CLI) on generated healthy and degraded-pool runs', function () {
  this.timeout(240_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'phasewise-compare-'));
  const runs = { healthy: { seed: 101, slots: 32 }, degraded: { seed: 102, slots: 24 } };
  const db = (name: string): string => path.join(tmp, `${name}.duckdb`);
  const truth: Record<string, Truth> = {};

  before(async () => {
    for (const [name, r] of Object.entries(runs)) {
      const outDir = path.join(tmp, name);
      const gen = await generateRun({ ...DEFAULT_OPTIONS, ...PRESETS.sample, seed: r.seed, slots: r.slots, outDir, runId: name });
      truth[name] = gen.expected as unknown as Truth;
      const res = await runCli(['analyze', '--run', gen.files.k6, '--spans', gen.files.spans, '--db', db(name), '--quiet']);
      assert.ok(res.status !== null && res.status <= 2, res.stderr);
    }
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('names the queue: gpu_queue_ms moved up at p50, p95 and p99, with both runs equal to the generator truth', async () => {
    const res = await runCli(['compare', db('healthy'), db('degraded'), '--format', 'json', '--resamples', '1000', '--seed', '7']);
    assert.strictEqual(res.status, 0, res.stderr);
    const c = JSON.parse(res.stdout) as CompareJson;
    assert.strictEqual(c.same_experiment, true, c.differences.join('; '));
    assert.deepStrictEqual(c.differences, []);
    assert.strictEqual(c.resamples, 1000);
    for (const [metric, t] of Object.entries(truth.healthy.matched_succeeded)) {
      const row = c.metrics.find((m) => m.metric === metric);
      assert.ok(row, metric);
      assert.strictEqual(row.n_base, t.n, metric);
      assert.strictEqual(row.n_head, truth.degraded.matched_succeeded[metric].n, metric);
      for (const stat of ['p50', 'p95', 'p99'] as const) {
        const s: CompareJson['metrics'][number]['stats'][string] = row.stats[stat];
        assert.ok(s, `${metric} ${stat}`);
        const b = t[stat];
        const h = truth.degraded.matched_succeeded[metric][stat];
        assert.ok(Math.abs(s.base - b) < 1e-6 && Math.abs(s.head - h) < 1e-6, `${metric} ${stat}: ${s.base}/${s.head} vs truth ${b}/${h}`);
        assert.ok(Math.abs(s.delta - (h - b)) < 1e-6);
        assert.ok(s.ci_low <= s.ci_high);
        assert.strictEqual(s.moved, s.ci_low > 0 || s.ci_high < 0);
      }
    }
    for (const stat of ['p50', 'p95', 'p99']) {
      const m = c.moved.find((x) => x.metric === 'gpu_queue_ms' && x.stat === stat);
      assert.ok(m && m.ci_low > 0, `gpu_queue_ms ${stat} moved up: ${JSON.stringify(m)}`);
    }
    // moved lists exactly the rows whose interval excludes zero
    const flagged = c.metrics.flatMap((m) => Object.entries(m.stats).filter(([, s]) => s?.moved).map(([stat]) => `${m.metric}.${stat}`));
    assert.deepStrictEqual(c.moved.map((m) => `${m.metric}.${m.stat}`), flagged);
    // the pool is the cause: the gateway and the envelope did not move at p95
    assert.ok(!c.moved.some((m) => m.stat === 'p95' && (m.metric === 'gateway_ms' || m.metric === 'network_envelope_ms')), JSON.stringify(c.moved));
    assert.ok(c.head.outcomes.rejected > c.base.outcomes.rejected, 'the smaller pool rejects more (429)');
  });

  it('--fail-on: exit 1 when the whole interval is above the threshold, 0 within it, 4 for an unknown metric', async () => {
    const fail = await runCli(['compare', db('healthy'), db('degraded'), '--fail-on', 'gpu_queue_ms.p95>+10%']);
    assert.strictEqual(fail.status, 1, fail.stderr);
    assert.match(fail.stdout, /FAIL\s+gpu_queue_ms\.p95>\+10%/);
    const pass = await runCli(['compare', db('healthy'), db('degraded'), '--fail-on', 'gateway_ms.p95>+5ms']);
    assert.strictEqual(pass.status, 0, pass.stdout);
    const bad = await runCli(['compare', db('healthy'), db('degraded'), '--fail-on', 'gpu_qeue_ms.p95>+10%']);
    assert.strictEqual(bad.status, 4);
    assert.match(bad.stderr, /unknown metric 'gpu_qeue_ms'/);
  });

  it('a run against itself moves nothing and is the same experiment', async () => {
    const res = await runCli(['compare', db('healthy'), db('healthy'), '--format', 'json']);
    const c = JSON.parse(res.stdout) as CompareJson;
    assert.strictEqual(c.same_experiment, true);
    assert.deepStrictEqual(c.moved, []);
    for (const m of c.metrics) for (const s of Object.values(m.stats)) assert.strictEqual(s?.delta, 0, m.metric);
    // How the intervals were resampled travels with them, in JSON and beside the intervals in the text.
    const j = c as unknown as { interval_assumption: string; block: { length_s: number; bin_s: number; rule: string; blocks_base: number } };
    assert.match(j.interval_assumption, /circular block bootstrap/);
    assert.strictEqual(j.block.bin_s, 1);
    assert.ok(Number.isInteger(j.block.length_s) && j.block.length_s >= 1, JSON.stringify(j.block));
    assert.match(j.block.rule, /^Politis–White/);
    // ⌈seconds of the run / block⌉ blocks per resample (the sample run is 90 s of send time)
    assert.strictEqual(j.block.blocks_base, Math.ceil(90 / j.block.length_s));
    const text = await runCli(['compare', db('healthy'), db('healthy')]);
    const lines = text.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('intervals: 95 % percentile bootstrap'));
    assert.match(lines[at + 1], new RegExp(`^ {2}blocks: ${j.block.length_s} s of send time \\(Politis–White`));
    assert.match(lines[at + 2], /^ {2}resampling: .*circular block bootstrap/);
    const given = await runCli(['compare', db('healthy'), db('degraded'), '--format', 'json', '--block-length', '5s']);
    const g = JSON.parse(given.stdout) as { block: { length_s: number; rule: string; blocks_base: number } };
    assert.deepStrictEqual([g.block.length_s, g.block.rule, g.block.blocks_base], [5, 'given (--block-length)', 18]);
    const bad = await runCli(['compare', db('healthy'), db('healthy'), '--block-length', '1500ms']);
    assert.strictEqual(bad.status, 4);
    assert.match(bad.stderr, /--block-length expects whole seconds/);
  });

  it('says when the runs are different experiments: contract sections and analysis settings diffed, and --fail-on cannot pass', async () => {
    const steady = path.join(repoRoot, 'samples', 'steady.loadcontract.yaml');
    const saturation = path.join(repoRoot, 'samples', 'saturation.loadcontract.yaml');
    const res = await runCli(['compare', db('healthy'), db('degraded'), '--format', 'json', '--base-contract', steady, '--head-contract', saturation, '--fail-on', 'gateway_ms.p95>+50%']);
    const c = JSON.parse(res.stdout) as CompareJson;
    assert.strictEqual(c.same_experiment, false);
    assert.ok(c.differences.some((d) => d.startsWith('workload.')), c.differences.join('\n'));
    assert.strictEqual(res.status, 2, 'a pass between different experiments is inconclusive');
    const text = await runCli(['compare', db('healthy'), db('degraded'), '--window', '10s', '--base-contract', steady, '--head-contract', saturation]);
    assert.match(text.stdout.split('\n')[0], /^DIFFERENT EXPERIMENTS: \d+ difference/);
  });
});
