import * as assert from 'assert';
import { bandOf, longestPerBand } from '../../../../src/core/analysis/trace/overviewBands';
import { Prng } from '../../../../src/core/prng';

describe('overview bands: the longest span per pixel row of the minimap (overviewBands.ts)', () => {
  it('100,000 rows in 120 bands: one row per band, the longest of its run, found by a brute-force scan', () => {
    const rng = new Prng(11);
    const n = 100_000;
    const start = new Float64Array(n);
    const end = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      start[i] = rng.uniform() * 1000;
      end[i] = start[i] + rng.uniform() * rng.uniform() * 500;
    }
    const bands = 120;
    const shown = longestPerBand(start, end, bands);
    assert.ok(shown !== null);
    assert.strictEqual(shown.reduce((a, b) => a + b, 0), bands);
    // Brute force: group rows by bandOf, take the longest (first on ties).
    const best = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const b = bandOf(i, n, bands);
      const cur = best.get(b);
      if (cur === undefined || end[i] - start[i] > end[cur] - start[cur]) best.set(b, i);
    }
    assert.strictEqual(best.size, bands);
    for (const i of best.values()) assert.strictEqual(shown[i], 1, `row ${i}`);
  });

  it('draws every row when each has a band of its own', () => {
    assert.strictEqual(longestPerBand(new Float64Array(50), new Float64Array(50), 60), null);
  });

  it('bandOf puts every row in the run longestPerBand scans, bands in order', () => {
    for (const [n, bands] of [[100_000, 120], [1_001, 7], [10, 3]] as const) {
      let last = 0;
      for (let i = 0; i < n; i++) {
        const b = bandOf(i, n, bands);
        assert.ok(b >= last && b < bands && i >= Math.floor((b * n) / bands) - 1, `${n}/${bands} row ${i}`);
        last = b;
      }
      assert.strictEqual(last, bands - 1);
    }
  });
});
