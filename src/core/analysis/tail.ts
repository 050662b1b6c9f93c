/**
 * Tail figures (DESIGN §1) over matched successful requests: tail ratio, tail share above the budget,
 * session tail probability, and tail attribution, i.e. the mean of each owner over the requests above
 * the client p95. Means are additive where percentiles are not, so the shares add up to the total.
 */
import type { QueryRunner } from '../store/duckStore';
import { ENVELOPE_COLUMN, type BreakdownColumns } from './metrics';
import type { AnalysisOptions, GateSpec } from './options';
import { MATCHED_SUCCESS } from './population';
import { assertIdentifier, finiteOrNull } from './quantileSql';
import type { PhaseShare, TailAttribution, TailFigures } from './report';

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

export async function computeTail(store: QueryRunner, options: AnalysisOptions, gates: readonly GateSpec[]): Promise<TailFigures> {
  const budget = tailBudget(options, gates);
  const [row] = await store.all(
    `SELECT count(*) AS n,
            quantile_cont(client_total_ms, [0.5, 0.95]) AS q,
            count(*) FILTER (WHERE client_total_ms > $1::DOUBLE) AS above
     FROM request_breakdown WHERE ${FINITE_TOTAL}`,
    [budget],
  );
  const n = finiteOrNull(row?.n) ?? 0;
  const q = Array.isArray(row?.q) ? (row.q as unknown[]) : [];
  const p50 = n > 0 ? finiteOrNull(q[0]) : null;
  const p95 = n > 0 ? finiteOrNull(q[1]) : null;
  const share = budget !== null && n > 0 ? (finiteOrNull(row?.above) ?? 0) / n : null;
  const k = options.callsPerSession !== undefined && Number.isFinite(options.callsPerSession) ? options.callsPerSession : null;
  return {
    tail_ratio: p50 !== null && p95 !== null && p50 > 0 ? p95 / p50 : null,
    budget_ms: budget,
    tail_share: share,
    calls_per_session: k,
    session_tail_probability: sessionTailProbability(share, k),
  };
}

/** Owners of the tail, in display order: network envelope, each phase, then the unattributed rest. */
function owners(phaseColumns: readonly string[]): Array<{ phase: string; column: string }> {
  return [
    { phase: 'network_envelope', column: ENVELOPE_COLUMN },
    ...phaseColumns.map((c) => ({ phase: assertIdentifier(c).replace(/_ms$/, ''), column: c })),
    { phase: 'unattributed_server', column: 'unattributed_server_ms' },
  ];
}

export async function computeTailAttribution(store: QueryRunner, phaseColumns: readonly string[], cols: BreakdownColumns): Promise<TailAttribution> {
  const list = owners(phaseColumns).filter((o) => cols.request.has(o.column));
  const means = list.map((o, i) => `avg(s."${o.column}") AS m${i}`).join(', ');
  const [row] = await store.all(
    `WITH s AS (SELECT * FROM request_breakdown WHERE ${FINITE_TOTAL}),
          t AS (SELECT quantile_cont(client_total_ms, 0.95) AS thr FROM s)
     SELECT t.thr AS thr, count(s.client_total_ms) AS n, avg(s.client_total_ms) AS total${means ? `, ${means}` : ''}
     FROM t LEFT JOIN s ON s.client_total_ms > t.thr GROUP BY t.thr`,
  );
  const n = finiteOrNull(row?.n) ?? 0;
  const total = n > 0 ? finiteOrNull(row?.total) : null;
  const phases: PhaseShare[] = [];
  if (n > 0 && total !== null) {
    list.forEach((o, i) => {
      const mean = finiteOrNull(row?.[`m${i}`]);
      if (mean !== null) phases.push({ phase: o.phase, mean_ms: mean, share: total !== 0 ? mean / total : 0 });
    });
  }
  return { threshold_ms: finiteOrNull(row?.thr), n, mean_client_total_ms: total, phases };
}
