import * as assert from 'assert';
import { computeLedger } from '../../../../src/core/analysis/figures/ledger';
import { DEFAULT_ANALYSIS_OPTIONS } from '../../../../src/core/analysis/options';
import { buildReport } from '../../../../src/core/analysis/figures/buildReport';
import { DuckStore } from '../../../../src/core/store/duckStore';
import { createBreakdownTables, insertCounter, insertRequests, joinSummary, PHASE_COLUMNS, type FixtureRequest } from '../../../fixtures/analysis/reportTables';

/** 90 succeeded, 3 rejected, 1 timed_out, 1 failed = 95 request rows. */
function rows(extra: FixtureRequest[] = []): FixtureRequest[] {
  const out: FixtureRequest[] = [];
  for (let i = 0; i < 90; i++) out.push({ offset_ms: i * 100, client_total_ms: 100 + i, server_root_ms: 90 + i });
  for (const outcome of ['rejected', 'rejected', 'rejected', 'timed_out', 'failed']) out.push({ offset_ms: 9000, outcome, client_total_ms: 5, matched: false });
  return [...out, ...extra];
}

async function withStore(fn: (store: DuckStore) => Promise<void>): Promise<void> {
  const store = new DuckStore();
  try {
    await createBreakdownTables(store);
    await fn(store);
  } finally {
    await store.close();
  }
}

describe('outcome ledger', () => {
  it('reconciles a k6 arrival-rate run: scheduled 100 = iterations 95 + dropped 5, started 95 = Σ outcomes', async () => {
    await withStore(async (store) => {
      await insertRequests(store, rows());
      await insertCounter(store, 'iterations', 95);
      await insertCounter(store, 'dropped_iterations', 5);
      const { ledger } = await computeLedger(store);
      assert.deepStrictEqual(
        { ...ledger },
        {
          scheduled: 100,
          started: 95,
          succeeded: 90,
          rejected: 3,
          timed_out: 1,
          transport_failed: 0,
          canceled: 0,
          failed: 1,
          generator_dropped: 5,
          in_flight: 0,
          error_rate: 5 / 95,
          reconciles: true,
          discrepancies: [],
        },
      );
    });
  });

  it('counts k6 iterations with no request row as in flight (started 97 = 95 rows + 2)', async () => {
    await withStore(async (store) => {
      await insertRequests(store, rows());
      await insertCounter(store, 'iterations', 60);
      await insertCounter(store, 'iterations', 37); // two k6 files: counters are summed
      await insertCounter(store, 'dropped_iterations', 5);
      const { ledger } = await computeLedger(store);
      assert.strictEqual(ledger.in_flight, 2);
      assert.strictEqual(ledger.started, 97);
      assert.strictEqual(ledger.scheduled, 102);
      assert.strictEqual(ledger.error_rate, 7 / 97);
      assert.strictEqual(ledger.reconciles, true);
    });
  });

  it('does not reconcile when records scheduled 100 but only 95 rows + 3 dropped exist, or an outcome is unknown', async () => {
    await withStore(async (store) => {
      await insertRequests(store, rows([{ offset_ms: 9100, outcome: 'exploded', client_total_ms: 3, matched: false }]));
      await insertCounter(store, 'scheduled', 100);
      await insertCounter(store, 'dropped_iterations', 3);
      const { ledger } = await computeLedger(store);
      // 96 rows now (95 + the unknown outcome): 100 ≠ 96 + 3; 96 ≠ 95 known outcomes.
      assert.strictEqual(ledger.started, 96);
      assert.strictEqual(ledger.reconciles, false);
      assert.strictEqual(ledger.discrepancies.length, 2);
      assert.match(ledger.discrepancies[0], /scheduled 100 .*≠ started 96 \+ generator_dropped 3 = 99/);
      assert.match(ledger.discrepancies[1], /started 96 ≠ succeeded 90 \+ rejected 3 \+ timed_out 1 .* failed 1 \+ in_flight 0 = 95: 1 × "exploded"/);

      // Checked even without gates: the verdict is instrumentation_failure (an exit-worthy status).
      const report = await buildReport(store, DEFAULT_ANALYSIS_OPTIONS, [], { phaseColumns: PHASE_COLUMNS, warnings: [], join: joinSummary(96, 90), slowTraces: [] });
      assert.strictEqual(report.verdict.status, 'instrumentation_failure');
      assert.strictEqual(report.verdict.reasons.length, 2);
      assert.match(report.verdict.reasons[0], /does not reconcile: scheduled 100/);
    });
  });

  it('does not misread several requests per k6 iteration as a discrepancy (iterations 45 for 95 rows)', async () => {
    await withStore(async (store) => {
      await insertRequests(store, rows());
      await insertCounter(store, 'iterations', 45);
      const { ledger, notes } = await computeLedger(store);
      assert.deepStrictEqual([ledger.scheduled, ledger.started, ledger.in_flight, ledger.reconciles], [null, 95, 0, true]);
      assert.deepStrictEqual(notes, [
        'k6 counted 45 iterations for 95 request rows (more than one request per iteration): scheduled requests are unknown, so only started = Σ outcomes is checked.',
      ]);
    });
  });

  it('reports no scheduled figure and reconciles on outcomes alone when the generator gave no counters', async () => {
    await withStore(async (store) => {
      await insertRequests(store, rows());
      const report = await buildReport(store, DEFAULT_ANALYSIS_OPTIONS, [], { phaseColumns: PHASE_COLUMNS, warnings: [], join: joinSummary(95, 90), slowTraces: [] });
      assert.strictEqual(report.outcomes.scheduled, null);
      assert.strictEqual(report.outcomes.reconciles, true);
      assert.strictEqual(report.verdict.status, 'not_evaluated');
      assert.match(report.verdict.reasons[0], /No gates were given; the outcome ledger reconciles \(started 95, succeeded 90/);
    });
  });
});
