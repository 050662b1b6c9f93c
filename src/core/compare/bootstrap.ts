/**
 * Block bootstrap intervals for the difference of a quantile between two runs.
 *
 * Requests of a queueing run are not independent draws: a slow spell slows every request sent during
 * it, so resampling single requests gives intervals that are too narrow (two 100k runs of one workload
 * with different seeds showed 21 moves). The resampling unit is therefore a block of consecutive
 * seconds of send time: a run's requests are binned by send second (BIN_MS), and a resample is the
 * circular block bootstrap over those bins: ⌈T/L⌉ blocks of L consecutive bins (wrapping at the end),
 * each starting at a uniform bin, with every request of a drawn bin taken. L comes from the
 * Politis–White rule (blockLength.ts).
 *
 * A resample is a weight per bin (how many drawn blocks cover it), shared by every metric of the run,
 * so one resample moves all owners together as the run did. Its quantile is found without building the
 * resample: the metric's values are sorted once with each value's bin, and the weighted rank is located
 * through a table of per-bin prefix counts at every `step`-th sorted value (a binary search over the
 * table costing one subtraction per block, then a walk of at most `step` values). The tests check the intervals against the naive
 * concatenate-and-sort block bootstrap.
 */
import type { Prng } from '../prng';

/** Width of a send-time bin, the unit of the blocks. */
export const BIN_MS = 1000;

/** quantile_cont over ascending values: linear interpolation at (n-1)p (DuckDB's, and the report's). */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * Ascending values with each one's bin: an LSD radix sort of the doubles' order-preserving 64-bit
 * keys (sign bit flipped, all bits of a negative flipped), 16 bits a pass, carrying the bins along;
 * a pass whose digit is the same for every value is skipped. (A counting sort by bin followed by
 * log2 T merge passes took 0.86 of the 2.5 CPU s of a 100k compare.)
 */
function sortWithBins(values: ArrayLike<number>, bins: ArrayLike<number>, binCount: number): { sorted: Float64Array; binOf: Int32Array; counts: Int32Array } {
  const n = values.length;
  const counts = new Int32Array(binCount);
  for (let i = 0; i < n; i++) counts[bins[i]]++;
  const f = Float64Array.from(values);
  const words = new Uint32Array(f.buffer);
  // Little-endian words: words[2i] is the low half of value i, words[2i + 1] the high half.
  let hi = new Uint32Array(n);
  let lo = new Uint32Array(n);
  let bin = Int32Array.from(bins);
  for (let i = 0; i < n; i++) {
    const h = words[2 * i + 1];
    const l = words[2 * i];
    if (h & 0x80000000) {
      hi[i] = ~h >>> 0;
      lo[i] = ~l >>> 0;
    } else {
      hi[i] = (h | 0x80000000) >>> 0;
      lo[i] = l;
    }
  }
  let hi2 = new Uint32Array(n);
  let lo2 = new Uint32Array(n);
  let bin2 = new Int32Array(n);
  const count = new Int32Array(65536);
  for (let pass = 0; pass < 4; pass++) {
    const src = pass < 2 ? lo : hi;
    const shift = pass % 2 === 0 ? 0 : 16;
    count.fill(0);
    for (let i = 0; i < n; i++) count[(src[i] >>> shift) & 0xffff]++;
    if (n === 0 || count[(src[0] >>> shift) & 0xffff] === n) continue;
    let sum = 0;
    for (let d = 0; d < 65536; d++) {
      const c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const o = count[(src[i] >>> shift) & 0xffff]++;
      hi2[o] = hi[i];
      lo2[o] = lo[i];
      bin2[o] = bin[i];
    }
    [hi, hi2] = [hi2, hi];
    [lo, lo2] = [lo2, lo];
    [bin, bin2] = [bin2, bin];
  }
  for (let i = 0; i < n; i++) {
    const h = hi[i];
    if (h & 0x80000000) {
      words[2 * i + 1] = (h & 0x7fffffff) >>> 0;
      words[2 * i] = lo[i];
    } else {
      words[2 * i + 1] = ~h >>> 0;
      words[2 * i] = ~lo[i] >>> 0;
    }
  }
  return { sorted: f, binOf: bin, counts };
}

/** Entries of a metric's prefix table: about 2 MB, which puts a table row every n/1200 values at 100k requests. */
const TABLE_BUDGET = 1 << 19;

/** One metric's values in one run, ascending, each tagged with its request's send-time bin. */
export class BinnedValues {
  readonly sorted: Float64Array;
  /** Values per bin. */
  readonly counts: Int32Array;
  private readonly binOf: Int32Array;
  private readonly step: number;
  private readonly cells: number;
  /**
   * pre[g·W + u], W = 2T + 1: values among the first g·step sorted values whose bin, on the run's
   * circle unrolled twice, is below u. A block of L bins starting at s holds pre[g·W + s + L] −
   * pre[g·W + s] of them, so a resample's weighted count costs one subtraction per block.
   */
  private readonly pre: Int32Array;
  private readonly width: number;

  /** `values` finite; `bins[i]` the bin (0 ≤ bin < binCount) of `values[i]`. */
  constructor(values: ArrayLike<number>, bins: ArrayLike<number>, readonly binCount: number) {
    const s = sortWithBins(values, bins, binCount);
    this.sorted = s.sorted;
    this.binOf = s.binOf;
    this.counts = s.counts;
    const n = this.sorted.length;
    const T = binCount;
    this.width = 2 * T + 1;
    const rows = Math.max(1, Math.min(4096, Math.floor(TABLE_BUDGET / this.width) - 1));
    this.step = Math.max(16, Math.ceil(n / rows));
    this.cells = Math.floor(n / this.step);
    this.pre = new Int32Array((this.cells + 1) * this.width);
    const running = new Int32Array(T);
    for (let g = 0; g <= this.cells; g++) {
      if (g > 0) for (let i = (g - 1) * this.step; i < g * this.step; i++) running[this.binOf[i]]++;
      const row = g * this.width;
      for (let u = 0; u < 2 * T; u++) this.pre[row + u + 1] = this.pre[row + u] + running[u % T];
    }
  }

  get n(): number {
    return this.sorted.length;
  }

  /** The mean value of each bin that has values, in time order: the series the block length is chosen on. */
  binMeans(): Float64Array {
    const sum = new Float64Array(this.binCount);
    for (let i = 0; i < this.sorted.length; i++) sum[this.binOf[i]] += this.sorted[i];
    const out: number[] = [];
    for (let t = 0; t < this.binCount; t++) if (this.counts[t] > 0) out.push(sum[t] / this.counts[t]);
    return Float64Array.from(out);
  }

  /** Values of the resample `r` of `rs` among the first g·step sorted values (g = cells + 1: all of them). */
  private weighted(rs: Resamples, r: number, g: number): number {
    const row = g * this.width;
    const L = rs.blockBins;
    let s = 0;
    for (let k = r * rs.blocks, end = k + rs.blocks; k < end; k++) {
      const start = rs.starts[k];
      s += this.pre[row + start + L] - this.pre[row + start];
    }
    return s;
  }

  /** The p-quantile (quantile_cont) of resample `r` of `rs` (drawn over this run's bins). */
  resampleQuantile(rs: Resamples, r: number, p: number): number {
    const T = this.binCount;
    const off = r * T;
    const w = rs.weights;
    let total = 0;
    for (let t = 0; t < T; t++) total += w[off + t] * this.counts[t];
    if (total === 0) return NaN;
    const h = (total - 1) * p;
    const lo = Math.floor(h);
    const frac = h - lo;
    // Largest table row g whose weighted count is ≤ lo: the value of rank lo lies at or after g·step.
    let a = 0;
    let b = this.cells;
    let acc = 0;
    while (a < b) {
      const mid = (a + b + 1) >> 1;
      const c = this.weighted(rs, r, mid);
      if (c <= lo) {
        a = mid;
        acc = c;
      } else b = mid - 1;
    }
    let i = a * this.step;
    // acc counts the resample's copies of the values before i; walk to the one holding rank lo.
    for (;;) {
      acc += w[off + this.binOf[i]];
      if (acc > lo) break;
      i++;
    }
    const low = this.sorted[i];
    if (frac === 0 || lo + 1 >= total) return low;
    while (acc <= lo + 1) {
      i++;
      acc += w[off + this.binOf[i]];
    }
    return low + frac * (this.sorted[i] - low);
  }
}

/**
 * `count` circular block resamples of a run's `binCount` bins: resample r draws `blocks` = ⌈T/L⌉
 * blocks of `blockBins` = L consecutive bins (wrapping at the end), block k starting at
 * starts[r·blocks + k]; weights[r·T + t] is the number of its blocks covering bin t.
 */
export interface Resamples {
  count: number;
  blockBins: number;
  blocks: number;
  starts: Int32Array;
  weights: Int32Array;
}

/** `resamples` circular block resamples of `binCount` bins with blocks of `blockBins` bins (at most all of them). */
export function blockResamples(binCount: number, blockBins: number, resamples: number, rng: Prng): Resamples {
  const T = binCount;
  const L = Math.max(1, Math.min(blockBins, T));
  const blocks = Math.ceil(T / L);
  const starts = new Int32Array(resamples * blocks);
  const weights = new Int32Array(resamples * T);
  for (let r = 0; r < resamples; r++) {
    const off = r * T;
    for (let k = 0; k < blocks; k++) {
      const start = Math.floor(rng.uniform() * T);
      starts[r * blocks + k] = start;
      for (let j = 0; j < L; j++) weights[off + ((start + j) % T)]++;
    }
  }
  return { count: resamples, blockBins: L, blocks, starts, weights };
}

/** A percentile interval of the bootstrap distribution of head − base. */
export interface DiffInterval {
  base: number;
  head: number;
  delta: number;
  ci_low: number;
  ci_high: number;
}

/**
 * The point difference of the p-quantiles and its percentile interval at `confidence`, each run
 * resampled by its own block weights (the runs are independent). A resample with no value of the
 * metric (every drawn bin empty of it) is left out of the percentiles.
 */
export function quantileDiff(base: BinnedValues, head: BinnedValues, p: number, rb: Resamples, rh: Resamples, confidence: number): DiffInterval {
  const b = quantileSorted(base.sorted, p);
  const h = quantileSorted(head.sorted, p);
  const count = Math.min(rb.count, rh.count);
  const deltas: number[] = [];
  for (let r = 0; r < count; r++) {
    const d = head.resampleQuantile(rh, r, p) - base.resampleQuantile(rb, r, p);
    if (Number.isFinite(d)) deltas.push(d);
  }
  const sorted = Float64Array.from(deltas).sort();
  const alpha = (1 - confidence) / 2;
  return { base: b, head: h, delta: h - b, ci_low: quantileSorted(sorted, alpha), ci_high: quantileSorted(sorted, 1 - alpha) };
}
