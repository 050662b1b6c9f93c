import * as assert from 'assert';
import { politisWhiteBlockLength } from '../../../src/core/compare/blockLength';
import { BinnedValues, blockResamples, quantileDiff, quantileSorted } from '../../../src/core/compare/bootstrap';
import { Prng } from '../../../src/core/prng';
import { jsQuantile, seededRandom } from '../../fixtures/analysis/reportTables';

/** A standard normal from a uniform source (Box–Muller). */
function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/**
 * A queueing-like run: `bins` seconds with `perBin` requests each; every second has a level that
 * follows an AR(1) with coefficient `phi` (a slow spell lasts several seconds and slows every request
 * in it), and each request adds its own noise. Values are log-normal-ish latencies with ties.
 */
function run(bins: number, perBin: number, phi: number, seed: number, scale = 1): { values: number[]; bins: number[] } {
  const rand = seededRandom(seed);
  const values: number[] = [];
  const binOf: number[] = [];
  let level = 0;
  for (let t = 0; t < bins; t++) {
    level = phi * level + Math.sqrt(1 - phi * phi) * normal(rand);
    for (let j = 0; j < perBin; j++) {
      values.push(Math.round(scale * Math.exp(4 + 0.5 * level + 0.4 * normal(rand)) * 10) / 10);
      binOf.push(t);
    }
  }
  return { values, bins: binOf };
}

/** The textbook circular block bootstrap: draw block starts, concatenate the bins' requests, sort, take the quantile. */
function naiveBlockBootstrap(r: { values: number[]; bins: number[] }, T: number, L: number, p: number, resamples: number, seed: number): number[] {
  const rand = seededRandom(seed); // mulberry32: a different generator from the code under test, on purpose
  const byBin: number[][] = Array.from({ length: T }, () => []);
  r.values.forEach((v, i) => byBin[r.bins[i]].push(v));
  const out: number[] = [];
  for (let b = 0; b < resamples; b++) {
    const resample: number[] = [];
    for (let k = 0; k < Math.ceil(T / L); k++) {
      const start = Math.floor(rand() * T);
      for (let j = 0; j < L; j++) resample.push(...byBin[(start + j) % T]);
    }
    out.push(jsQuantile(resample, p));
  }
  return out;
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

describe('compare: block bootstrap intervals of a quantile difference', () => {
  it('quantileSorted is quantile_cont (the report and jsQuantile agree)', () => {
    const v = run(50, 20, 0, 3).values.sort((a, b) => a - b);
    for (const p of [0, 0.5, 0.95, 0.99, 1]) assert.strictEqual(quantileSorted(v, p), jsQuantile(v, p));
    assert.strictEqual(quantileSorted([4, 8], 0.25), 5);
  });

  it("a resample's quantile equals the quantile of the resample built by repeating each bin's values by its weight", () => {
    const rand = seededRandom(99);
    for (const [T, perBin] of [[7, 5], [40, 30], [120, 20], [3, 1]] as Array<[number, number]>) {
      // Bins of uneven size, some empty, to exercise the table and the walk.
      const r = run(T, perBin, 0.8, T);
      const keep = r.values.map(() => rand() < 0.7);
      const values = r.values.filter((_, i) => keep[i]);
      const bins = r.bins.filter((_, i) => keep[i]);
      const bv = new BinnedValues(values, bins, T);
      assert.deepStrictEqual(Array.from(bv.sorted), [...values].sort((a, b) => a - b));
      for (const L of [1, 2, 5, T]) {
        const rs = blockResamples(T, L, 10, new Prng(T, L));
        for (let r = 0; r < rs.count; r++) {
          const w = rs.weights.subarray(r * T, (r + 1) * T);
          const expanded: number[] = [];
          values.forEach((v, i) => {
            for (let k = 0; k < w[bins[i]]; k++) expanded.push(v);
          });
          for (const p of [0, 0.5, 0.95, 0.99, 1]) {
            const got = bv.resampleQuantile(rs, r, p);
            if (expanded.length === 0) assert.ok(Number.isNaN(got));
            else assert.ok(Math.abs(got - jsQuantile(expanded, p)) <= 1e-9 * Math.abs(jsQuantile(expanded, p)), `T=${T} L=${L} p=${p}: ${got} vs ${jsQuantile(expanded, p)}`);
          }
        }
      }
    }
  });

  it('blockResamples draws ⌈T/L⌉ circular blocks of L bins, and the weights are their coverage', () => {
    const rs = blockResamples(10, 3, 50, new Prng(5));
    assert.strictEqual(rs.blocks, 4);
    for (let r = 0; r < 50; r++) {
      const cover = new Array(10).fill(0);
      for (let k = 0; k < 4; k++) for (let j = 0; j < 3; j++) cover[(rs.starts[r * 4 + k] + j) % 10]++;
      assert.deepStrictEqual(Array.from(rs.weights.subarray(r * 10, r * 10 + 10)), cover);
    }
  });

  it('has the distribution of the naive concatenate-and-sort circular block bootstrap (two-sample Kolmogorov–Smirnov)', () => {
    for (const [T, perBin, L, p] of [[80, 8, 6, 0.5], [80, 8, 6, 0.95], [100, 10, 10, 0.99], [30, 4, 1, 0.95]] as Array<[number, number, number, number]>) {
      const r = run(T, perBin, 0.9, T + L);
      const bv = new BinnedValues(r.values, r.bins, T);
      const B = 1500;
      const rs = blockResamples(T, L, B, new Prng(11));
      const fast = Array.from({ length: B }, (_, b) => bv.resampleQuantile(rs, b, p)).sort((a, b) => a - b);
      const naive = naiveBlockBootstrap(r, T, L, p, B, 12).sort((a, b) => a - b);
      // Critical value of the KS statistic at α = 0.001 for two samples of 1500: 1.95·√(2/1500) ≈ 0.071.
      const d = ksStatistic(fast, naive);
      assert.ok(d < 0.071, `T=${T} L=${L} p=${p}: KS distance ${d}`);
    }
  });

  it('the difference is head − base of plain quantiles, and its interval matches the naive block bootstrap of the difference', () => {
    const T = 100;
    const L = 10;
    const base = run(T, 6, 0.9, 5);
    const head = run(T, 6, 0.9, 6, 1.8);
    const bb = new BinnedValues(base.values, base.bins, T);
    const hb = new BinnedValues(head.values, head.bins, T);
    const d = quantileDiff(bb, hb, 0.95, blockResamples(T, L, 2000, new Prng(7, 0)), blockResamples(T, L, 2000, new Prng(7, 1)), 0.95);
    assert.strictEqual(d.base, jsQuantile(base.values, 0.95));
    assert.strictEqual(d.head, jsQuantile(head.values, 0.95));
    assert.strictEqual(d.delta, jsQuantile(head.values, 0.95) - jsQuantile(base.values, 0.95));
    const nb = naiveBlockBootstrap(base, T, L, 0.95, 2000, 21);
    const nh = naiveBlockBootstrap(head, T, L, 0.95, 2000, 22);
    const deltas = nh.map((h, i) => h - nb[i]).sort((a, b) => a - b);
    const lo = jsQuantile(deltas, 0.025);
    const hi = jsQuantile(deltas, 0.975);
    const width = hi - lo;
    assert.ok(Math.abs(d.ci_low - lo) <= 0.1 * width && Math.abs(d.ci_high - hi) <= 0.1 * width, `[${d.ci_low}, ${d.ci_high}] vs naive [${lo}, ${hi}]`);
    assert.ok(d.ci_low > 0, 'an 80 % slower head moved the p95');
  });

  it('on correlated runs of one process, blocks of the Politis–White length cut the false moves that single requests make', () => {
    // 40 pairs of runs of one process (different seeds), 200 s with a per-second level of correlation
    // time ≈ 5 s: an exact 95 % interval excludes zero in about 2 of them. Resampling single requests
    // (bins of one value, blocks of one bin: the bootstrap the block one replaced) excluded it in 19;
    // blocks chosen as compareRuns chooses them, in 6 (a dozen blocks per resample still understate
    // the spread a little, which the resampling note says).
    const T = 200;
    const perBin = 5;
    let blockMoves = 0;
    let requestMoves = 0;
    for (let pair = 0; pair < 40; pair++) {
      const a = run(T, perBin, 0.8, 1000 + 2 * pair);
      const b = run(T, perBin, 0.8, 1001 + 2 * pair);
      const ab = new BinnedValues(a.values, a.bins, T);
      const bb = new BinnedValues(b.values, b.bins, T);
      const L = Math.ceil(Math.max(politisWhiteBlockLength(ab.binMeans()), politisWhiteBlockLength(bb.binMeans())));
      const B = 300;
      const blocks = quantileDiff(ab, bb, 0.95, blockResamples(T, L, B, new Prng(pair, 0)), blockResamples(T, L, B, new Prng(pair, 1)), 0.95);
      if (blocks.ci_low > 0 || blocks.ci_high < 0) blockMoves++;
      const n = a.values.length;
      const single = (r: { values: number[] }): BinnedValues => new BinnedValues(r.values, r.values.map((_, i) => i), n);
      const requests = quantileDiff(single(a), single(b), 0.95, blockResamples(n, 1, B, new Prng(pair, 2)), blockResamples(n, 1, B, new Prng(pair, 3)), 0.95);
      if (requests.ci_low > 0 || requests.ci_high < 0) requestMoves++;
    }
    assert.ok(blockMoves <= 8, `block bootstrap: ${blockMoves} of 40 pairs moved`);
    assert.ok(requestMoves >= 15, `request bootstrap: ${requestMoves} of 40 pairs moved`);
  });

  it('is reproducible from its seed, and another seed gives another interval', () => {
    const T = 60;
    const base = run(T, 5, 0.5, 1);
    const head = run(T, 5, 0.5, 2);
    const bb = new BinnedValues(base.values, base.bins, T);
    const hb = new BinnedValues(head.values, head.bins, T);
    const at = (seed: number): ReturnType<typeof quantileDiff> =>
      quantileDiff(bb, hb, 0.5, blockResamples(T, 4, 500, new Prng(seed, 0)), blockResamples(T, 4, 500, new Prng(seed, 1)), 0.95);
    assert.deepStrictEqual(at(42), at(42));
    assert.notStrictEqual(at(42).ci_low, at(43).ci_low);
  });
});
