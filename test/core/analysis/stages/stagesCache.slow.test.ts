import * as assert from 'assert';
import { analyzeRun } from '../../../../src/core/analysis/analyze';
import { DEFAULT_ANALYSIS_OPTIONS, type AnalysisOptions } from '../../../../src/core/analysis/options';
import type { StagesReport } from '../../../../src/core/report/model';
import { loadRun } from '../../../../src/core/run/loadRun';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { RecordingRunner } from '../../../fixtures/analysis/recording';
import { assertSameValues } from '../../../helpers/sameValues';
import { analyzeScenario, readRecords, type ScenarioRun } from '../extended/scenarioRuns';
import { generateStepped, removeStepped } from './steppedRuns';

/**
 * A stepped run whose end falls inside a 1 s bin (10/s for 40 s, then 40/s for 20.5 s), for the
 * detected last stage's end, and the stage table kept between analyses (catalog/figures.ts `stages`).
 */
const HALF_BIN = ['--steps', '10:40,40:20.5', '--lost-root-fraction', '0', '--lost-span-fraction', '0', '--seed', '11', '--rate', '40', '--slots', '400', '--max-queue', '400', '--max-vus', '5000'];

/** Statements only a computation of the stages issues (detectSteps.ts, goodput.ts). */
function stageStatements(recorder: RecordingRunner): string[] {
  return recorder.statements.map((s) => s.sql).filter((sql) => /GROUP BY bin ORDER BY bin|unnest\(.*\) AS idx FROM request_breakdown WHERE succeeded/s.test(sql));
}

describe('stages of a stored run (issue 18 §2): the last stage of a run ending mid-bin, and the cached table', function () {
  this.timeout(600_000);
  let run: ScenarioRun;
  before(async () => {
    run = (await generateStepped('half-bin', HALF_BIN)).run;
  });
  after(() => removeStepped());

  it('ends the last detected stage where the run ended, not at the end of its last 1 s bin, and does not call it partial', async () => {
    const report = await analyzeScenario(run);
    const s = report.stages;
    assert.deepStrictEqual([s.source, s.basis, s.list.length], ['detected', 'scheduled', 2]);
    // The generator's schedule, read back from its records: the last scheduled start.
    const records = readRecords(run.records);
    const lastScheduled = Math.max(...records.map((r) => (r as unknown as { scheduled_offset_ms: number }).scheduled_offset_ms));
    assert.ok(lastScheduled > 60_000 && lastScheduled < 60_500, `last scheduled start ${lastScheduled}`);
    const last = s.list[1];
    // One mean interval at 40/s is 25 ms: the end is within three of them of 60.5 s (not 61 s).
    assert.ok(last.end_offset_ms > lastScheduled && last.end_offset_ms <= 60_575 && last.end_offset_ms >= 60_425, `ends at ${last.end_offset_ms}`);
    assert.strictEqual(last.partial, false);
    // Its start rate over its own duration: the starts counted in the records between its bounds.
    const inside = records.filter((r) => r.send_offset_ms !== null && (r.send_offset_ms as number) >= last.start_offset_ms && (r.send_offset_ms as number) < last.end_offset_ms).length;
    assert.strictEqual(last.started, inside);
    assert.ok(Math.abs(last.started_per_s - 40) <= (3 * Math.sqrt(40 * 20.5)) / 20.5, `started ${last.started_per_s}/s`);
  });

  it('reads the stages back when nothing they read changed, recomputes them for another stage list or phase mapping, each equal to a fresh analysis', async () => {
    const declared: AnalysisOptions = {
      ...DEFAULT_ANALYSIS_OPTIONS,
      stages: [
        { label: 'low', startMs: 0, endMs: 40_000, targetFromPerS: 10, targetToPerS: 10 },
        { label: 'high', startMs: 40_000, endMs: 60_500, targetFromPerS: 40, targetToPerS: 40 },
      ],
    };
    const phases: AnalysisOptions = { ...DEFAULT_ANALYSIS_OPTIONS, phases: DEFAULT_ANALYSIS_OPTIONS.phases.filter((p) => p.name !== 'gateway') };
    const fresh = async (options: AnalysisOptions): Promise<StagesReport> => (await analyzeScenario(run, options)).stages;
    const store = new DuckStore();
    try {
      await loadRun(store, { run: [run.records], spans: [run.spans] });
      const first = (await analyzeRun(store, DEFAULT_ANALYSIS_OPTIONS, [])).stages;
      assert.strictEqual(first.list.length, 2);
      // The same stages under other windows: read back, not computed.
      const again = new RecordingRunner(store);
      assertSameValues((await analyzeRun(again, { ...DEFAULT_ANALYSIS_OPTIONS, windowSizeMs: 10_000 }, [])).stages, first, 'read back');
      assert.deepStrictEqual(stageStatements(again), []);
      for (const [name, options] of [['declared stages', declared], ['another phase mapping', phases], ['the first options again', DEFAULT_ANALYSIS_OPTIONS]] as const) {
        const recorder = new RecordingRunner(store);
        const stages = (await analyzeRun(recorder, options, [])).stages;
        assertSameValues(stages, await fresh(options), name);
        // Computed the first time these options are seen, read back the second time.
        if (name !== 'the first options again') assert.ok(stageStatements(recorder).length > 0, `${name}: computed`);
      }
      // The phase mapping changes what a stage lists (no gateway owner).
      assert.ok('gateway_ms' in first.list[0].owners);
      assert.ok(!('gateway_ms' in (await fresh(phases)).list[0].owners));
    } finally {
      await store.close();
    }
  });
});
