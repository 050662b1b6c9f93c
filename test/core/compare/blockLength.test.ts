import * as assert from 'assert';
import { politisWhiteBlockLength } from '../../../src/core/compare/blockLength';
import { seededRandom } from '../../fixtures/analysis/reportTables';

function ar1(n: number, phi: number, seed: number): number[] {
  const rand = seededRandom(seed);
  const out: number[] = [];
  let x = 0;
  for (let i = 0; i < n; i++) {
    x = phi * x + Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    out.push(x);
  }
  return out;
}

/**
 * The rule's target for an AR(1) with coefficient φ, from its autocovariances R(k) ∝ φ^|k|:
 * g = Σ R(k) = (1+φ)/(1−φ), G = Σ |k| R(k) = 2φ/(1−φ)², so b = (2G²/((4/3)g²))^(1/3) N^(1/3)
 * = (1.5·(2φ/(1−φ²))²)^(1/3) N^(1/3).
 */
function ar1Target(phi: number, n: number): number {
  return Math.cbrt(1.5 * Math.pow((2 * phi) / (1 - phi * phi), 2)) * Math.cbrt(n);
}

describe('compare: the Politis–White block length', () => {
  it("comes near its AR(1) target (median over seeds), and grows with the series' memory", () => {
    const n = 4000;
    for (const phi of [0.5, 0.8]) {
      const got = [1, 2, 3, 4, 5, 6, 7].map((s) => politisWhiteBlockLength(ar1(n, phi, s))).sort((a, b) => a - b);
      const median = got[3];
      const target = ar1Target(phi, n);
      assert.ok(Math.abs(median - target) <= 0.3 * target, `φ=${phi}: median ${median} vs ${target} (${got.join(', ')})`);
    }
    assert.ok(politisWhiteBlockLength(ar1(n, 0.8, 1)) > politisWhiteBlockLength(ar1(n, 0.5, 1)));
  });

  it('is short on independent values and 1 on a series too short or constant to learn from', () => {
    const iid = politisWhiteBlockLength(ar1(4000, 0, 9));
    assert.ok(iid >= 1 && iid < 3, `independent: ${iid}`);
    assert.strictEqual(politisWhiteBlockLength([1, 2, 3]), 1);
    assert.strictEqual(politisWhiteBlockLength(new Array(50).fill(7)), 1);
  });
});
