/**
 * Join bias: the decomposition describes the matched requests only, so it describes the run only when
 * the matched requests look like the others. Compares client_total_ms of matched and unmatched
 * successful requests (p50/p95 each) with a two-sample Kolmogorov–Smirnov test: the statistic D in
 * DuckDB (empirical distribution functions over the pooled values, ties grouped), the p-value from
 * the asymptotic Kolmogorov distribution with Stephens' correction. A tail sampler (slow traces kept)
 * or a head sampler that keeps few traces makes the sets differ; random loss does not.
 */
import type { JoinBias, JoinSide } from '../../report/model';
import type { QueryRunner } from '../../store/duckStore';
import { CLIENT_SUCCESS } from '../figures/population';
import { finiteOrNull } from '../figures/quantileSql';
import { query } from '../sql/statement';

/** Significance level of the warning. */
export const JOIN_BIAS_ALPHA = 0.01;
/** Each side needs this many requests before a difference is called a bias. */
export const JOIN_BIAS_MIN_N = 20;
/** And the medians must be at least this far apart (a relative difference): a p-value alone flags trivial shifts on large runs. */
export const JOIN_BIAS_MIN_SHIFT = 0.1;

/** Q_KS(λ) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2 j² λ²}: P(√n·D > λ) in the limit. */
export function kolmogorovQ(lambda: number): number {
  if (lambda < 1e-3) return 1;
  let sum = 0;
  for (let j = 1; j <= 200; j++) {
    const term = Math.exp(-2 * j * j * lambda * lambda);
    sum += (j % 2 === 1 ? 1 : -1) * term;
    if (term < 1e-16) break;
  }
  return Math.min(1, Math.max(0, 2 * sum));
}

/** Two-sided p-value of D for samples of n1 and n2 (Stephens: λ = (√ne + 0.12 + 0.11/√ne)·D, ne = n1·n2/(n1+n2)). */
export function ksPValue(d: number, n1: number, n2: number): number {
  const ne = Math.sqrt((n1 * n2) / (n1 + n2));
  return kolmogorovQ((ne + 0.12 + 0.11 / ne) * d);
}

/** What the test measures (cached: it depends only on the breakdown's phase-independent columns). */
export interface JoinBiasMeasure {
  matched: JoinSide;
  unmatched: JoinSide;
  statistic: number | null;
}

export async function measureJoinBias(store: QueryRunner): Promise<JoinBiasMeasure> {
  const population = `${CLIENT_SUCCESS} AND isfinite(client_total_ms)`;
  const [row] = await query(
    store,
    'join bias',
    `WITH v AS (SELECT client_total_ms AS x, matched AS m FROM request_breakdown WHERE ${population}),
     totals AS (SELECT count(*) FILTER (WHERE m) AS na, count(*) FILTER (WHERE NOT m) AS nb,
                       quantile_cont(x, [0.5, 0.95]) FILTER (WHERE m) AS qa, quantile_cont(x, [0.5, 0.95]) FILTER (WHERE NOT m) AS qb FROM v),
     c AS (SELECT x, count(*) FILTER (WHERE m) AS a, count(*) FILTER (WHERE NOT m) AS b FROM v GROUP BY x),
     cum AS (SELECT sum(a) OVER (ORDER BY x) AS ca, sum(b) OVER (ORDER BY x) AS cb FROM c)
     SELECT t.na, t.nb, t.qa, t.qb,
            (SELECT max(abs(ca / t.na - cb / t.nb)) FROM cum) AS d
     FROM totals t`,
  );
  const side = (n: unknown, q: unknown): JoinSide => {
    const count = finiteOrNull(n) ?? 0;
    const qs = Array.isArray(q) ? q : [];
    return { n: count, p50: count > 0 ? finiteOrNull(qs[0]) : null, p95: count > 0 ? finiteOrNull(qs[1]) : null };
  };
  const matched = side(row?.na, row?.qa);
  const unmatched = side(row?.nb, row?.qb);
  const tested = matched.n > 0 && unmatched.n > 0;
  return { matched, unmatched, statistic: tested ? finiteOrNull(row?.d) : null };
}

/** The test's verdict on a measure, beside the declared sampling. */
export function judgeJoinBias(measure: JoinBiasMeasure, declaredSampling: number | null): JoinBias {
  const { matched, unmatched, statistic } = measure;
  const pValue = statistic !== null ? ksPValue(statistic, matched.n, unmatched.n) : null;
  const shift = matched.p50 !== null && unmatched.p50 !== null && unmatched.p50 > 0 ? (matched.p50 - unmatched.p50) / unmatched.p50 : null;
  const biased = pValue !== null && pValue < JOIN_BIAS_ALPHA && Math.min(matched.n, unmatched.n) >= JOIN_BIAS_MIN_N && shift !== null && Math.abs(shift) >= JOIN_BIAS_MIN_SHIFT;
  return {
    matched,
    unmatched,
    test: 'two-sample Kolmogorov–Smirnov',
    statistic,
    p_value: pValue,
    biased,
    alpha: JOIN_BIAS_ALPHA,
    declared_sampling: declaredSampling,
    message: biasMessage(matched, unmatched, pValue, biased, shift, declaredSampling),
  };
}

function ms(v: number | null): string {
  return v === null ? '–' : `${v.toFixed(1)} ms`;
}

function biasMessage(matched: JoinSide, unmatched: JoinSide, p: number | null, biased: boolean, shift: number | null, sampling: number | null): string {
  const declared = sampling === null ? 'no sampling declared' : `declared trace.sampling ${sampling}`;
  if (matched.n === 0) return `no successful request is matched: the decomposition has no sample (${declared}).`;
  if (unmatched.n === 0) return `every successful request is matched: the decomposition describes all of them (${declared}).`;
  const sides = `matched p50 ${ms(matched.p50)} / p95 ${ms(matched.p95)} (n=${matched.n}) against unmatched p50 ${ms(unmatched.p50)} / p95 ${ms(unmatched.p95)} (n=${unmatched.n})`;
  const pText = p === null ? '' : `, KS p = ${p < 1e-4 ? p.toExponential(1) : p.toFixed(4)}`;
  if (biased) {
    const direction = (shift ?? 0) > 0 ? 'slower' : 'faster';
    return `the matched requests are ${direction} than the unmatched ones (${sides}${pText}): the decomposition describes a biased sample (tail sampling keeps slow traces; a head sampler or lost exports can skew it too; ${declared}).`;
  }
  if (Math.min(matched.n, unmatched.n) < JOIN_BIAS_MIN_N) return `too few ${matched.n < JOIN_BIAS_MIN_N ? 'matched' : 'unmatched'} requests to test for a biased sample (${sides}; ${declared}).`;
  return `no sign that the matched sample is biased (${sides}${pText}; ${declared}).`;
}
