import * as assert from 'assert';
import { performance } from 'perf_hooks';
import { duckdbInProcess, metrics, phasewise } from './context';

// docs/performance.md: activation ≤ 50 ms, DuckDB loads on first use. This file runs first, before anything in the
// suite touches Phasewise, so the extension is still inactive here unless an activation event fired.
suite('activation', () => {
  test('Phasewise activates without loading DuckDB, and the activation time is recorded', async function () {
    const ext = phasewise();
    metrics.extensionVersion = String((ext.packageJSON as { version?: unknown }).version);
    metrics.activationEvents = ((ext.packageJSON as { activationEvents?: string[] }).activationEvents ?? []).slice();
    const before = duckdbInProcess();
    assert.deepStrictEqual(before, { modules: [], nativeLibs: [] }, 'DuckDB was loaded before Phasewise activated');
    if (ext.isActive) {
      // An activation event (a contract in the workspace) fired at start-up: use the figures the
      // extension measured itself (activate() itself, and the host's gap between loading and calling it).
      const api = ext.exports as { activationMs?: unknown; hostGapMs?: unknown } | undefined;
      assert.strictEqual(typeof api?.activationMs, 'number', 'activate() returns { activationMs }');
      metrics.activationMs = Math.round((api?.activationMs as number) * 100) / 100;
      metrics.activationWithinTarget50ms = metrics.activationMs <= 50;
      metrics.activationNote = `active at start-up (activation event); activate() measured inside the extension; the host took ${Math.round(Number(api?.hostGapMs))} ms between loading the module and calling activate()`;
    } else {
      const t0 = performance.now();
      await ext.activate();
      metrics.activationMs = Math.round((performance.now() - t0) * 100) / 100;
      metrics.activationWithinTarget50ms = metrics.activationMs <= 50;
    }
    assert.strictEqual(ext.isActive, true);
    const after = duckdbInProcess();
    metrics.duckdbModulesAfterActivation = after.modules.length;
    assert.deepStrictEqual(after, { modules: [], nativeLibs: [] }, 'activation loaded DuckDB');
  });
});
