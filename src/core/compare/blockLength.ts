/**
 * The block length of the block bootstrap, by the automatic rule of Politis & White (2004, "Automatic
 * block-length selection for the dependent bootstrap", with the correction of Patton, Politis & White
 * 2009), for the circular block bootstrap:
 *
 *   m̂: the smallest lag m after which K_N = max(5, ⌈√log10 N⌉) sample autocorrelations in a row are all
 *       below c·√(log10 N / N) in magnitude (c = 2); M = 2·m̂ (at most N − 1);
 *   ĝ = Σ_{|k|≤M} λ(k/M)·R̂(k),  Ĝ = Σ_{|k|≤M} λ(k/M)·|k|·R̂(k), λ the flat-top window (1 up to ½, then
 *       falling linearly to 0 at 1);
 *   b̂ = (2·Ĝ² / D̂)^(1/3) · N^(1/3), D̂ = (4/3)·ĝ², bounded by ⌈min(3√N, N/3)⌉.
 *
 * The series is a run's per-second mean of a metric (requests binned by send time), so b̂ is in
 * seconds of send time.
 */

/**
 * Sample autocovariances R̂(k) of `x` (the mean removed, divided by N), computed on demand: the rule
 * needs lags up to 2·m̂ only, which keeps a long run's series (hours at 1 s) linear in practice.
 */
function autocovariances(x: ArrayLike<number>): (k: number) => number {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i];
  mean /= n;
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) d[i] = x[i] - mean;
  const memo = new Map<number, number>();
  return (k: number): number => {
    let v = memo.get(k);
    if (v === undefined) {
      let s = 0;
      for (let i = 0; i + k < n; i++) s += d[i] * d[i + k];
      v = s / n;
      memo.set(k, v);
    }
    return v;
  };
}

function flatTop(t: number): number {
  const a = Math.abs(t);
  return a <= 0.5 ? 1 : a <= 1 ? 2 * (1 - a) : 0;
}

/**
 * The circular block bootstrap's block length for `series` (in steps of the series, ≥ 1), by the rule
 * above. A constant or short series (N < 4) gives 1: nothing to learn its dependence from.
 */
export function politisWhiteBlockLength(series: ArrayLike<number>): number {
  const n = series.length;
  if (n < 4) return 1;
  const kn = Math.max(5, Math.ceil(Math.sqrt(Math.log10(n))));
  const maxLag = n - 1;
  const r = autocovariances(series);
  const r0 = r(0);
  if (!(r0 > 0)) return 1;
  const bound = 2 * Math.sqrt(Math.log10(n) / n);
  // m̂: the first lag followed by kn insignificant autocorrelations (lags m+1..m+kn).
  let mHat = -1;
  let run = 0;
  for (let k = 1; k <= maxLag; k++) {
    if (Math.abs(r(k) / r0) < bound) {
      run++;
      if (run === kn) {
        mHat = k - kn;
        break;
      }
    } else run = 0;
  }
  // No such lag: the dependence spans the series; the largest M there is.
  const m = mHat < 0 ? maxLag : Math.min(maxLag, 2 * Math.max(mHat, 1));
  let g = r0;
  let G = 0;
  for (let k = 1; k <= m; k++) {
    const w = flatTop(k / m);
    g += 2 * w * r(k);
    G += 2 * w * k * r(k);
  }
  const bMax = Math.ceil(Math.min(3 * Math.sqrt(n), n / 3));
  if (!(g > 0)) return bMax;
  const D = (4 / 3) * g * g;
  const b = Math.pow((2 * G * G) / D, 1 / 3) * Math.pow(n, 1 / 3);
  return Math.min(bMax, Math.max(1, b));
}
