import * as assert from 'assert';
import { performance } from 'perf_hooks';
import { duckdbInProcess, metrics, phasewise } from './context';

// DESIGN §6: activation ≤ 50 ms, DuckDB loads on first use. This file runs first, before anything in the
// suite touches Phasewise, so the extension is still inactive here unless an activation event fired.
suite('activation', () => {
  test('Phasewise activates without loading DuckDB, and the activation time is recorded', async function () {
    const ext = phasewise();
    metrics.extensionVersion = String((ext.packageJSON as { version?: unknown }).version);
    metrics.activationEvents = ((ext.packageJSON as { activationEvents?: string[] }).activationEvents ?? []).slice();
    const before = duckdbInProcess();
    assert.deepStrictEqual(before, { modules: [], nativeLibs: [] }, 'DuckDB was loaded before Phasewise activated');
    if (ext.isActive) {
      metrics.activationMs = null;
      metrics.activationNote = 'already active when the suite started (an activation event fired at start-up)';
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
