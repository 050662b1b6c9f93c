import * as assert from 'assert';
import { deltaE2000, deltaE2000Lab } from '../helpers/colorDifference';

/** The palette test's colour distance checked on the published CIEDE2000 test pairs (Sharma, Wu and Dalal 2005, table 1). */
describe('CIEDE2000 colour difference (the palette check’s measure)', () => {
  const pairs: Array<[number[], number[], number]> = [
    [[50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425],
    [[50, 0, 0], [50, -1, 2], 2.3669],
    [[50, 2.5, 0], [73, 25, -18], 27.1492],
    [[60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644],
    [[22.7233, 20.0904, -46.694], [23.0331, 14.973, -42.5619], 2.0373],
  ];
  for (const [a, b, expected] of pairs) {
    it(`(${a.join(', ')}) vs (${b.join(', ')}) is ${expected}`, () => {
      assert.ok(Math.abs(deltaE2000Lab(a, b) - expected) < 5e-4, String(deltaE2000Lab(a, b)));
      assert.ok(Math.abs(deltaE2000Lab(b, a) - expected) < 5e-4, 'symmetric');
    });
  }
  it('is 0 for one colour and reads hex and rgb() alike', () => {
    assert.strictEqual(deltaE2000('#bf8803', 'rgb(191, 136, 3)'), 0);
  });
});
