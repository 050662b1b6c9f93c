/**
 * The waterfall's overview (minimap) of a large trace: rows are drawn in `bands` equal runs (one per
 * device pixel row). When there are more rows than bands, each band shows its longest span only, at
 * full band height, so a 100k-span trace reads as the work that matters instead of 100k hairlines.
 * Pure: the minimap and its tests call it.
 */

/** 1 for the longest row (end − start; ties: the first) of each band; null when every row has a band of its own. */
export function longestPerBand(start: Float64Array, end: Float64Array, bands: number): Uint8Array | null {
  const n = start.length;
  if (bands < 1 || n <= bands) return null;
  const shown = new Uint8Array(n);
  const per = n / bands;
  for (let b = 0; b < bands; b++) {
    const a = Math.floor(b * per);
    const z = Math.min(n, Math.floor((b + 1) * per));
    if (z <= a) continue;
    let best = a;
    for (let i = a + 1; i < z; i++) if (end[i] - start[i] > end[best] - start[best]) best = i;
    shown[best] = 1;
  }
  return shown;
}

/** The band of row `i` among `bands` equal runs of `n` rows (the inverse of longestPerBand's runs). */
export function bandOf(i: number, n: number, bands: number): number {
  const per = n / bands;
  let b = Math.floor(i / per);
  // Floating point: keep i inside [floor(b·per), floor((b+1)·per)).
  while (b > 0 && i < Math.floor(b * per)) b--;
  while (b + 1 < bands && i >= Math.floor((b + 1) * per)) b++;
  return b;
}
