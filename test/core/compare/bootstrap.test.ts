import * as assert from 'assert';
import { bootstrapQuantile, quantileDiff, quantileSorted } from '../../../src/core/compare/bootstrap';
import { Rng } from '../../../src/core/compare/random';
import { jsQuantile } from '../../fixtures/analysis/reportTables';

/** The textbook bootstrap: draw n indices with replacement, sort the resample, take its quantile. */
function naiveBootstrap(values: number[], p: number, resamples: number, seed: number): number[] {
  let s = seed >>> 0;
  const rand = (): number => {
    // mulberry32: a different generator from the code under test, on purpose.
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: number[] = [];
  for (let b = 0; b < resamples; b++) {
    const r = Array.from({ length: values.length }, () => values[Math.floor(rand() * values.length)]);
    out.push(jsQuantile(r, p));
  }
  return out;
}

/** A skewed latency-like sample (log-normal, plus ties), fixed by a seed. */
function sample(n: number, seed: number, scale: number): number[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => (i % 17 === 0 ? 100 * scale : Math.round(scale * Math.exp(4 + 0.6 * rng.normal()) * 10) / 10));
}

/** sup |F_a − F_b| over ascending samples a and b. */
function ksStatistic(a: number[], b: number[]): number {
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < a.length && j < b.length) {
    const x = Math.min(a[i], b[j]);
    while (i < a.length && a[i] <= x) i++;
    while (j < b.length && b[j] <= x) j++;
    d = Math.max(d, Math.abs(i / a.length - j / b.length));
  }
  return d;
}

describe('compare: bootstrap intervals of a quantile difference', () => {
  it('quantileSorted is quantile_cont (the report and jsQuantile agree)', () => {
    const v = sample(1001, 3, 1).sort((a, b) => a - b);
    for (const p of [0, 0.5, 0.95, 0.99, 1]) assert.strictEqual(quantileSorted(v, p), jsQuantile(v, p));
    assert.strictEqual(quantileSorted([4, 8], 0.25), 5);
  });

  it('the order-statistic bootstrap has the distribution of the resample-and-sort bootstrap (two-sample Kolmogorov–Smirnov)', () => {
    for (const [n, p] of [[400, 0.5], [400, 0.95], [2000, 0.99], [37, 0.95]] as Array<[number, number]>) {
      const v = sample(n, n, 1).sort((a, b) => a - b);
      const B = 3000;
      const fast = Array.from(bootstrapQuantile(v, p, B, new Rng(11))).sort((a, b) => a - b);
      const naive = naiveBootstrap(v, p, B, 12).sort((a, b) => a - b);
      // Critical value of the KS statistic at α = 0.001 for two samples of 3000: 1.95·√(2/3000) ≈ 0.050.
      const d = ksStatistic(fast, naive);
      assert.ok(d < 0.05, `n=${n} p=${p}: KS distance ${d}`);
      const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
      const spread = jsQuantile(naive, 0.975) - jsQuantile(naive, 0.025);
      assert.ok(spread > 0 && Math.abs(mean(fast) - mean(naive)) <= 0.05 * spread, `n=${n} p=${p} means ${mean(fast)} vs ${mean(naive)}`);
    }
  });

  it('the difference is head − base of plain quantiles, and its interval matches the naive bootstrap of the difference', () => {
    const base = sample(600, 5, 1).sort((a, b) => a - b);
    const head = sample(500, 6, 1.3).sort((a, b) => a - b);
    const d = quantileDiff(base, head, 0.95, 3000, 0.95, new Rng(7));
    assert.strictEqual(d.base, jsQuantile(base, 0.95));
    assert.strictEqual(d.head, jsQuantile(head, 0.95));
    assert.strictEqual(d.delta, jsQuantile(head, 0.95) - jsQuantile(base, 0.95));
    const nb = naiveBootstrap(base, 0.95, 3000, 21);
    const nh = naiveBootstrap(head, 0.95, 3000, 22);
    const deltas = nh.map((h, i) => h - nb[i]).sort((a, b) => a - b);
    const lo = jsQuantile(deltas, 0.025);
    const hi = jsQuantile(deltas, 0.975);
    const width = hi - lo;
    assert.ok(Math.abs(d.ci_low - lo) <= 0.1 * width && Math.abs(d.ci_high - hi) <= 0.1 * width, `[${d.ci_low}, ${d.ci_high}] vs naive [${lo}, ${hi}]`);
    assert.ok(d.ci_low > 0, 'a 30 % slower head moved the p95');
  });

  it('is reproducible from its seed, and another seed gives another interval', () => {
    const base = sample(300, 1, 1).sort((a, b) => a - b);
    const head = sample(300, 2, 1).sort((a, b) => a - b);
    const a = quantileDiff(base, head, 0.5, 500, 0.95, new Rng(42));
    const b = quantileDiff(base, head, 0.5, 500, 0.95, new Rng(42));
    const c = quantileDiff(base, head, 0.5, 500, 0.95, new Rng(43));
    assert.deepStrictEqual(a, b);
    assert.notStrictEqual(a.ci_low, c.ci_low);
  });
});
