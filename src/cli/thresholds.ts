/**
 * `--threshold 'client_total_ms.p95<=2000'` → GateSpec. The category decides what a broken gate means
 * for the verdict (docs/metrics.md §2), so it follows from the figure (the metric catalog,
 * core/analysis/catalog/metrics.ts), never from the user's wording.
 */
import { METRIC_DECLS, RUN_FIGURES } from '../core/analysis/catalog/metrics';
import type { GateCategory, GateSpec, GateStat, PhaseDefinition } from '../core/analysis/options';
import { UNIT_MS } from '../core/contract/parse/durations';
import { UsageError } from './args';

const STATS: readonly GateStat[] = ['p50', 'p95', 'p99', 'mean', 'max', 'value', 'share'];

/** Request-level latency objectives and the parts of a request budgeted like a phase (the phase is the metric without `_ms`). */
const SLO_METRICS = METRIC_DECLS.filter((m) => m.gate === 'slo').map((m) => m.column);
const BUDGET_METRICS = METRIC_DECLS.filter((m) => m.gate === 'budget').map((m) => m.column);

/**
 * Which verdict category a figure belongs to, or undefined when the figure is unknown. A figure that
 * names TTFT is a latency objective whatever else it names.
 */
export function categoryOf(metric: string, phases: readonly PhaseDefinition[]): GateCategory | undefined {
  if (SLO_METRICS.includes(metric) || metric.includes('ttft')) return 'slo';
  if (BUDGET_METRICS.includes(metric) || phases.some((p) => `${p.name}_ms` === metric)) return 'budget';
  return RUN_FIGURES.find((f) => f.name === metric)?.gate;
}

/** Figures a threshold may name, for the error message. */
export function knownMetrics(phases: readonly PhaseDefinition[]): string[] {
  return [...SLO_METRICS, ...BUDGET_METRICS, ...phases.map((p) => `${p.name}_ms`), ...RUN_FIGURES.map((f) => f.name)];
}

const PATTERN = /^\s*([a-z][a-z0-9_]*)\.([a-z0-9]+)\s*(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(ms|s|m|%)?\s*$/i;

/** Parses one `--threshold` value; throws UsageError naming what was expected. */
export function parseThreshold(text: string, phases: readonly PhaseDefinition[]): GateSpec {
  const match = PATTERN.exec(text);
  if (!match) {
    throw new UsageError(`--threshold expects METRIC.STAT OP LIMIT such as 'client_total_ms.p95<=2000', got '${text}'`);
  }
  const [, metric, rawStat, op, rawLimit, unit] = match;
  const stat = rawStat.toLowerCase() as GateStat;
  if (!STATS.includes(stat)) throw new UsageError(`--threshold '${text}': unknown statistic '${rawStat}' (expected ${STATS.join(', ')})`);
  const category = categoryOf(metric, phases);
  if (!category) {
    throw new UsageError(`--threshold '${text}': unknown figure '${metric}' (expected one of ${knownMetrics(phases).join(', ')})`);
  }
  let limit = Number(rawLimit);
  if (unit === '%') limit /= 100;
  else if (unit) {
    if (!metric.endsWith('_ms')) throw new UsageError(`--threshold '${text}': ${metric} is not a duration, drop the '${unit}'`);
    limit *= UNIT_MS[unit.toLowerCase()];
  }
  const gate: GateSpec = {
    id: `threshold.${metric}.${stat}`,
    category,
    metric,
    stat,
    op: op as GateSpec['op'],
    limit,
    origin: '--threshold',
  };
  if (category === 'budget') gate.phase = metric.replace(/_ms$/, '');
  return gate;
}
