/**
 * Bootstrap intervals for the difference of a quantile between two runs, resampling requests.
 *
 * A resample of n sorted values x[0..n-1] draws n indices uniformly with replacement; its j-th
 * smallest value is x[floor(n·U(j+1))], U(k) being the k-th order statistic of n uniforms on (0,1),
 * because floor(n·u) is monotone. U(k) ~ Beta(k, n+1-k), and given U(k) = u the next one is
 * u + (1-u)·Beta(1, n-k). So the interpolated quantile of a resample (quantile_cont: between the order
 * statistics at (n-1)p) is drawn exactly in O(1), without building the resample: 100k requests and
 * thousands of resamples cost milliseconds, where resampling and sorting would cost minutes. The
 * tests check the intervals against that naive resample-and-sort bootstrap.
 */
import type { Rng } from './random';

/** quantile_cont over ascending values: linear interpolation at (n-1)p (DuckDB's, and the report's). */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** `resamples` draws of the p-quantile of a bootstrap resample of `sorted` (ascending, n ≥ 1). */
export function bootstrapQuantile(sorted: ArrayLike<number>, p: number, resamples: number, rng: Rng): Float64Array {
  const n = sorted.length;
  const out = new Float64Array(resamples);
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const frac = h - lo;
  const k = lo + 1; // 1-based rank of the lower order statistic
  const at = (u: number): number => sorted[Math.min(n - 1, Math.floor(n * u))];
  for (let b = 0; b < resamples; b++) {
    if (n === 1) {
      out[b] = sorted[0];
      continue;
    }
    const u = rng.beta(k, n + 1 - k);
    const low = at(u);
    if (frac === 0 || k >= n) {
      out[b] = low;
      continue;
    }
    const next = u + (1 - u) * (1 - Math.pow(rng.uniform(), 1 / (n - k)));
    out[b] = low + frac * (at(next) - low);
  }
  return out;
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
 * The point difference and its percentile interval at `confidence`, resampling each run's requests
 * independently (the runs are independent samples).
 */
export function quantileDiff(base: ArrayLike<number>, head: ArrayLike<number>, p: number, resamples: number, confidence: number, rng: Rng): DiffInterval {
  const b = quantileSorted(base, p);
  const h = quantileSorted(head, p);
  const rb = bootstrapQuantile(base, p, resamples, rng);
  const rh = bootstrapQuantile(head, p, resamples, rng);
  const deltas = new Float64Array(resamples);
  for (let i = 0; i < resamples; i++) deltas[i] = rh[i] - rb[i];
  deltas.sort();
  const alpha = (1 - confidence) / 2;
  return { base: b, head: h, delta: h - b, ci_low: quantileSorted(deltas, alpha), ci_high: quantileSorted(deltas, 1 - alpha) };
}
