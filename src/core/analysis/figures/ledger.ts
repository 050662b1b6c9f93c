/**
 * The outcome ledger (docs/metrics.md §2). Counters are mutually exclusive and must reconcile after the drain:
 *   scheduled = started + generator_dropped
 *   started   = succeeded + rejected + timed_out + transport_failed + canceled + failed (+ in_flight)
 * A ledger that does not reconcile means requests were lost or double counted somewhere between the
 * generator and the files, so no latency figure can be trusted: the verdict is instrumentation_failure.
 */
import type { QueryRunner } from '../../store/duckStore';
import { query } from '../sql/statement';
import { finiteOrNull } from './quantileSql';
import type { OutcomeLedger, OutcomeName } from '../../report/model';

export const OUTCOMES: readonly OutcomeName[] = ['succeeded', 'rejected', 'timed_out', 'transport_failed', 'canceled', 'failed'];

/** Counters may be float sums of k6 Points; compare with a tolerance well below one request. */
const EPSILON = 1e-6;

type CounterRow = {
  metric: string;
  value: number;
};

type OutcomeRow = {
  outcome: string | null;
  n: number;
};

export interface LedgerResult {
  ledger: OutcomeLedger;
  /** Why a figure could not be established (for the report's warnings); never a failure by itself. */
  notes: string[];
}

export async function computeLedger(store: QueryRunner): Promise<LedgerResult> {
  const counterRows = await query<CounterRow>(
    store,
    'run counters',
    `SELECT metric, sum(value) AS value FROM run_counters
     WHERE metric IN ('iterations', 'dropped_iterations', 'scheduled') GROUP BY metric`,
  );
  const counters = new Map(counterRows.map((r) => [r.metric, finiteOrNull(r.value)]));
  const outcomeRows = await query<OutcomeRow>(
    store,
    'outcomes',
    'SELECT outcome, count(*) AS n FROM request_breakdown GROUP BY outcome ORDER BY outcome NULLS LAST',
  );
  return buildLedger(counters, outcomeRows);
}

function buildLedger(counters: Map<string, number | null>, outcomeRows: OutcomeRow[]): LedgerResult {
  const byOutcome = new Map<string, number>();
  let rows = 0;
  for (const r of outcomeRows) {
    rows += r.n;
    byOutcome.set(r.outcome ?? '(none)', r.n);
  }
  const count = (o: string): number => byOutcome.get(o) ?? 0;
  const known = OUTCOMES.reduce((sum, o) => sum + count(o), 0);
  const unknown = [...byOutcome.entries()].filter(([o]) => !(OUTCOMES as readonly string[]).includes(o));
  const notes: string[] = [];

  const iterations = counters.get('iterations') ?? null;
  const dropped = counters.get('dropped_iterations') ?? 0;
  // Per-request records count what they scheduled; k6 arrival-rate executors count iterations + drops.
  const scheduledCounter = counters.get('scheduled') ?? null;
  let scheduled = scheduledCounter;
  let inFlight = 0;
  if (scheduledCounter === null && iterations !== null) {
    if (iterations >= rows) {
      scheduled = iterations + dropped;
      // k6 iterations that no request row accounts for: in flight when the run stopped, or lost.
      inFlight = Math.round(iterations) - rows;
    } else {
      // Fewer iterations than requests: the script sends several requests per iteration (common with
      // closed-model executors), so iterations cannot be counted in requests and nothing is scheduled
      // in request units. Not a discrepancy: the k6 counters simply do not measure requests here.
      notes.push(
        `k6 counted ${fmt(iterations)} iterations for ${rows} request rows (more than one request per iteration): ` +
          'scheduled requests are unknown, so only started = Σ outcomes is checked.',
      );
    }
  }
  const started = rows + inFlight;

  const discrepancies: string[] = [];
  if (scheduled !== null && Math.abs(scheduled - (started + dropped)) > EPSILON) {
    const source = scheduledCounter !== null ? 'the records' : `k6 iterations ${fmt(iterations ?? 0)} + dropped_iterations ${fmt(dropped)}`;
    discrepancies.push(
      `scheduled ${fmt(scheduled)} (from ${source}) ≠ started ${fmt(started)} + generator_dropped ${fmt(dropped)} = ${fmt(started + dropped)}: ` +
        `${fmt(Math.abs(scheduled - started - dropped))} request(s) ${scheduled > started + dropped ? 'missing from' : 'more than scheduled in'} the request rows.`,
    );
  }
  if (Math.abs(started - (known + inFlight)) > EPSILON) {
    const names = unknown.map(([o, n]) => `${n} × "${o}"`).join(', ');
    discrepancies.push(
      `started ${fmt(started)} ≠ succeeded ${count('succeeded')} + rejected ${count('rejected')} + timed_out ${count('timed_out')} + ` +
        `transport_failed ${count('transport_failed')} + canceled ${count('canceled')} + failed ${count('failed')} + in_flight ${inFlight} = ` +
        `${fmt(known + inFlight)}: ${names} ${unknown.length === 1 ? 'has' : 'have'} no ledger outcome.`,
    );
  }

  return {
    ledger: {
      scheduled,
      started,
      succeeded: count('succeeded'),
      rejected: count('rejected'),
      timed_out: count('timed_out'),
      transport_failed: count('transport_failed'),
      canceled: count('canceled'),
      failed: count('failed'),
      generator_dropped: dropped,
      in_flight: inFlight,
      error_rate: started > 0 ? (started - count('succeeded')) / started : null,
      reconciles: discrepancies.length === 0,
      discrepancies,
    },
    notes,
  };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}
