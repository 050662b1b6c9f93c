/**
 * `--fail-on 'gpu_queue_ms.p95>+10%'`: a regression gate on a comparison. The threshold is a change
 * of HEAD against BASE, relative (`+10%` of BASE's value) or absolute (`+25ms`, `+25`). It fails when
 * the whole interval lies above the threshold (the regression is beyond it at the comparison's
 * confidence), is inconclusive when the point difference is above it but the interval reaches below,
 * and passes otherwise.
 */
import type { Comparison, CompareStat } from './compareRuns';
import { COMPARE_STATS } from './compareRuns';

export interface FailOnRule {
  text: string;
  metric: string;
  stat: CompareStat;
  amount: number;
  unit: '%' | 'ms';
}

export interface FailOnResult {
  rule: string;
  status: 'pass' | 'fail' | 'inconclusive';
  /** The threshold in ms (a relative one resolved against BASE), null when the metric has no values. */
  threshold_ms: number | null;
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  reason: string;
}

const RULE = /^\s*([a-z][a-z0-9_]*)\.(p50|p95|p99)\s*>\s*\+?\s*([0-9]+(?:\.[0-9]+)?)\s*(%|ms)?\s*$/;

/** Parses one rule; returns an error message (naming what was expected) instead of throwing. */
export function parseFailOn(text: string, metrics: readonly string[]): FailOnRule | string {
  const m = RULE.exec(text);
  if (!m) return `--fail-on '${text}': expected METRIC.STAT>+N% or METRIC.STAT>+Nms (STAT one of ${COMPARE_STATS.join(', ')}), e.g. gpu_queue_ms.p95>+10%`;
  if (!metrics.includes(m[1])) return `--fail-on '${text}': unknown metric '${m[1]}' (one of ${metrics.join(', ')})`;
  return { text: text.trim(), metric: m[1], stat: m[2] as CompareStat, amount: Number(m[3]), unit: m[4] === '%' ? '%' : 'ms' };
}

export function evaluateFailOn(rule: FailOnRule, comparison: Comparison): FailOnResult {
  const s = comparison.metrics.find((r) => r.metric === rule.metric)?.stats[rule.stat];
  if (s === undefined) {
    return { rule: rule.text, status: 'inconclusive', threshold_ms: null, delta: null, ci_low: null, ci_high: null, reason: `${rule.metric} has no values in one of the runs` };
  }
  const threshold = rule.unit === '%' ? (Math.abs(s.base) * rule.amount) / 100 : rule.amount;
  const common = { rule: rule.text, threshold_ms: threshold, delta: s.delta, ci_low: s.ci_low, ci_high: s.ci_high };
  const pct = (v: number): string => (s.base !== 0 ? ` (${v >= 0 ? '+' : ''}${((100 * v) / Math.abs(s.base)).toFixed(1)} %)` : '');
  const change = `${rule.metric} ${rule.stat} ${fmt(s.base)} → ${fmt(s.head)} ms, Δ ${sign(s.delta)}${pct(s.delta)}, interval [${sign(s.ci_low)}, ${sign(s.ci_high)}]`;
  if (s.ci_low > threshold) return { ...common, status: 'fail', reason: `${change}: the whole interval is above +${fmt(threshold)} ms` };
  if (s.delta > threshold) return { ...common, status: 'inconclusive', reason: `${change}: above +${fmt(threshold)} ms, but the interval reaches below it` };
  return { ...common, status: 'pass', reason: `${change}: within +${fmt(threshold)} ms` };
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(1) : v.toFixed(2);
}

function sign(v: number): string {
  return `${v >= 0 ? '+' : ''}${fmt(v)}`;
}
