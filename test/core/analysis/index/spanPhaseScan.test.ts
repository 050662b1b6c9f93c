import * as assert from 'assert';
import { buildBreakdown } from '../../../../src/core/analysis/breakdown/pipeline';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { buildSpanPhases } from '../../../../src/core/analysis/breakdown/spanPhases';
import { loadFiles } from '../../../../src/core/formats/loadFiles';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { fixture } from '../../../helpers/paths';

interface PhaseCounts extends Record<string, unknown> {
  selected: number;
  gateway: number;
  gpu_queue: number;
  generation: number;
}

const COUNTS = `SELECT count(*) AS selected, count(*) FILTER (WHERE phase_mask & 1 = 1) AS gateway,
  count(*) FILTER (WHERE phase_mask & 2 = 2) AS gpu_queue, count(*) FILTER (WHERE phase_mask & 4 = 4) AS generation FROM span_phase`;

/**
 * The first analysis computes the phase mask in the span index's own scan of spans (span_links), a
 * re-analysis with other phases computes it from spans (buildSpanPhases): both must select the same
 * spans. Expected counts from python3 (json module) over the real OpenTelemetry JS export: 812
 * distinct spans, 702 picked by a default phase; gateway 468, gpu_queue 117, generation 117.
 */
describe('span_phase from the index scan equals span_phase from spans (first analysis vs re-analysis)', () => {
  it('selects the same spans with the same bits on a real OTLP export', async () => {
    const store = new DuckStore({ threads: 2 });
    try {
      await loadFiles(store, [fixture('shared-samples/joined-otel-js/spans.otlp.jsonl')]);
      await buildBreakdown(store, DEFAULT_ANALYSIS_OPTIONS);
      const [first] = await store.all<PhaseCounts>(COUNTS);
      assert.deepStrictEqual(first, { selected: 702, gateway: 468, gpu_queue: 117, generation: 117 });
      const [{ links }] = await store.all<{ links: number }>("SELECT count(*) AS links FROM duckdb_tables() WHERE table_name = 'span_links'");
      assert.strictEqual(links, 0, 'the index scan table is dropped once span_phase is written');
      await store.run('CREATE TEMP TABLE first_phase AS SELECT * FROM span_phase');
      await buildSpanPhases(store, DEFAULT_ANALYSIS_OPTIONS);
      const [again] = await store.all<PhaseCounts>(COUNTS);
      assert.deepStrictEqual(again, first);
      const [{ differ }] = await store.all<{ differ: number }>(
        `SELECT count(*) AS differ FROM ((SELECT * FROM span_phase EXCEPT SELECT * FROM first_phase)
                                         UNION ALL (SELECT * FROM first_phase EXCEPT SELECT * FROM span_phase))`,
      );
      assert.strictEqual(differ, 0);
    } finally {
      await store.close();
    }
  });
});
