import * as assert from 'assert';
import { loadManifest, runCase } from './corpus';

/**
 * The hostile corpus through the real CLI (dist/cli.js): each case's expected outcome
 * (test/fixtures/hostile/*.json) and the error contract on every run (corpus.ts).
 */
describe('hostile corpus (test/fixtures/hostile/*.json)', function () {
  this.timeout(180_000);
  const cases = loadManifest();

  it('has distinct case ids and covers every item of issue 11', () => {
    assert.strictEqual(new Set(cases.map((c) => c.id)).size, cases.length);
    for (const item of ['1', '2', '3', '4', '5', '6', '7', '8']) assert.ok(cases.some((c) => c.item === item), `item ${item}`);
  });

  for (const c of cases) {
    it(`${c.id}: ${c.what}`, async () => {
      const run = await runCase(c);
      assert.deepStrictEqual(run.failures, [], `${c.args.join(' ')}\nexit ${run.result.status}\nstderr: ${run.result.stderr.slice(0, 1500)}`);
    });
  }
});
