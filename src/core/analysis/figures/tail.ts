/**
 * Tail figures (docs/metrics.md §1) over matched successful requests: tail ratio, tail share above the budget,
 * session tail probability, and tail attribution, i.e. the mean of each owner over the requests above
 * the client p95. Means are additive where percentiles are not, so the shares add up to the total.
 */
import type { QueryRunner } from '../../store/duckStore';
import { query } from '../sql/statement';
import { ENVELOPE_COLUMN } from './metrics';
import type { AnalysisOptions, GateSpec } from '../options';
import { MATCHED_SUCCESS } from './population';
import { sqlIdentifier } from '../sql/params';
import { finiteOrNull } from './quantileSql';
import type { PhaseShare, QuantileSummary, TailAttribution, TailFigures } from '../../report/model';

/** Budget for the tail share: explicit option first, else the total-latency SLO limit. */
export function tailBudget(options: AnalysisOptions, gates: readonly GateSpec[]): number | null {
  if (options.tailBudgetMs !== undefined && Number.isFinite(options.tailBudgetMs)) return options.tailBudgetMs;
  const slo = gates.find((g) => g.category === 'slo' && g.metric === 'client_total_ms' && (g.op === '<=' || g.op === '<'));
  return slo ? slo.limit : null;
}

/** 1 − (1 − share)^k: the chance that a session of k calls meets at least one tail request. */
export function sessionTailProbability(share: number | null, k: number | null): number | null {
  if (share === null || k === null || !(k >= 1)) return null;
  return 1 - Math.pow(1 - share, k);
}

const FINITE_TOTAL = `${MATCHED_SUCCESS} AND isfinite(client_total_ms)`;

/** Owners of the tail, in display order: network envelope, each phase, then the unattributed rest. */
export function owners(phaseColumns: readonly string[]): Array<{ phase: string; column: string }> {
  return [
    { phase: 'network_envelope', column: ENVELOPE_COLUMN },
    ...phaseColumns.map((c) => ({ phase: sqlIdentifier(c).replace(/_ms$/, ''), column: c })),
    { phase: 'unattributed_server', column: 'unattributed_server_ms' },
  ];
}

export interface TailResult {
  tail: TailFigures;
  attribution: TailAttribution;
}

/**
 * Tail figures and attribution in one scan. The p50/p95 come from the matched-success client_total_ms
 * summary already computed for the metric table (same population), so no quantile is recomputed.
 */
export async function computeTail(
  store: QueryRunner,
  options: AnalysisOptions,
  gates: readonly GateSpec[],
  phaseColumns: readonly string[],
  total: QuantileSummary | undefined,
): Promise<TailResult> {
  const budget = tailBudget(options, gates);
  const n = total?.n ?? 0;
  const p50 = n > 0 ? (total?.p50 ?? null) : null;
  const threshold = n > 0 ? (total?.p95 ?? null) : null;
  const list = owners(phaseColumns);
  const inTail = 'client_total_ms > $2::DOUBLE';
  const means = list.map((o, i) => `, avg("${o.column}") FILTER (WHERE ${inTail}) AS m${i}`).join('');
  const [row] = await query(
    store,
    'tail',
    `SELECT count(*) FILTER (WHERE client_total_ms > $1::DOUBLE) AS above_budget,
            count(*) FILTER (WHERE ${inTail}) AS tail_n,
            avg(client_total_ms) FILTER (WHERE ${inTail}) AS tail_total${means}
     FROM request_breakdown WHERE ${FINITE_TOTAL}`,
    [budget, threshold],
  );
  const share = budget !== null && n > 0 ? (finiteOrNull(row?.above_budget) ?? 0) / n : null;
  const k = options.callsPerSession !== undefined && Number.isFinite(options.callsPerSession) ? options.callsPerSession : null;
  const tail: TailFigures = {
    tail_ratio: p50 !== null && threshold !== null && p50 > 0 ? threshold / p50 : null,
    budget_ms: budget,
    tail_share: share,
    calls_per_session: k,
    session_tail_probability: sessionTailProbability(share, k),
  };

  const tailN = threshold !== null ? (finiteOrNull(row?.tail_n) ?? 0) : 0;
  const tailTotal = tailN > 0 ? finiteOrNull(row?.tail_total) : null;
  const phases: PhaseShare[] = [];
  if (tailTotal !== null) {
    list.forEach((o, i) => {
      const mean = finiteOrNull(row?.[`m${i}`]);
      if (mean !== null) phases.push({ phase: o.phase, mean_ms: mean, share: tailTotal !== 0 ? mean / tailTotal : 0 });
    });
  }
  return { tail, attribution: { threshold_ms: threshold, n: tailN, mean_client_total_ms: tailTotal, phases } };
}
