/**
 * Two loaded runs compared: per owner (every metric of the matched population, each phase) and per
 * statistic (p50/p95/p99), both runs' quantiles over the same population as the report (matched
 * successes; all successes for a client-only metric), their difference and a seeded bootstrap
 * interval (bootstrap.ts); the outcome ledgers and join coverage side by side; and whether the two
 * runs are the same experiment (experiment.ts).
 */
import { computeJoinSummary } from '../analysis/figures/join';
import { computeLedger } from '../analysis/figures/ledger';
import { METRICS, PHASES } from '../analysis/catalog/metrics';
import type { JoinSummary, OutcomeLedger } from '../report/model';
import type { RunViews } from '../views/session';
import { quantileDiff, type DiffInterval } from './bootstrap';
import { compareExperiments, type ExperimentFacts } from './experiment';
import { Rng } from './random';

export const COMPARE_STATS = ['p50', 'p95', 'p99'] as const;
export type CompareStat = (typeof COMPARE_STATS)[number];

export interface CompareSettings {
  resamples: number;
  /** Two-sided confidence of the intervals, e.g. 0.95. */
  confidence: number;
  seed: number;
}

export const DEFAULT_COMPARE_SETTINGS: CompareSettings = { resamples: 2000, confidence: 0.95, seed: 1 };

/** One metric and statistic of both runs. `moved`: the interval excludes zero. */
export interface StatComparison extends DiffInterval {
  moved: boolean;
}

export interface MetricComparison {
  metric: string;
  /** `matched successes` or `client successes`: the requests whose values are compared. */
  population: string;
  n_base: number;
  n_head: number;
  /** Absent when either run has no value for the metric. */
  stats: Partial<Record<CompareStat, StatComparison>>;
}

/** An entry of `moved`: a metric and statistic whose interval excludes zero. */
export interface Moved extends DiffInterval {
  metric: string;
  stat: CompareStat;
}

export interface RunSide {
  label: string;
  outcomes: OutcomeLedger;
  join: Pick<JoinSummary, 'client_requests' | 'matched' | 'coverage' | 'valid_trace_ids' | 'orphan_server_roots' | 'duplicate_trace_ids'>;
}

/** The comparison; `--format json` prints it whole. */
export interface Comparison {
  same_experiment: boolean;
  differences: string[];
  resamples: number;
  confidence: number;
  seed: number;
  /** What the intervals assume, printed beside them (requests resampled as independent draws). */
  interval_assumption: string;
  base: RunSide;
  head: RunSide;
  metrics: MetricComparison[];
  moved: Moved[];
}

export interface ComparedRun {
  label: string;
  views: RunViews;
  facts: ExperimentFacts;
}

/**
 * Requests of a queueing run are not independent (a slow spell slows its neighbours), so an interval
 * that resamples single requests is too narrow there: two 100k runs of one workload with different seeds
 * showed 21 moves. Said beside every interval until the bootstrap resamples whole windows.
 */
export const INTERVAL_ASSUMPTION =
  'requests are resampled as independent draws; in a run where requests queue behind each other they are correlated and the intervals are too narrow, so confirm a move on a repeat run before acting on it';

const P: Readonly<Record<CompareStat, number>> = { p50: 0.5, p95: 0.95, p99: 0.99 };

/** The metrics compared, each with its population's filter over the pairs view. */
function comparedMetrics(phaseColumns: readonly string[]): Array<{ metric: string; population: string; filter: string }> {
  return METRICS.flatMap((m) => {
    if (m === PHASES) return phaseColumns.map((c) => ({ metric: c, population: 'matched successes', filter: "matched AND outcome = 'succeeded'" }));
    if (m.populations.includes('matched')) return [{ metric: m.column, population: 'matched successes', filter: "matched AND outcome = 'succeeded'" }];
    if (m.populations.includes('client')) return [{ metric: m.column, population: 'client successes', filter: "outcome = 'succeeded'" }];
    return [];
  });
}

/**
 * Every compared metric's finite values, ascending: one column read per population (DuckDB's
 * list(… ORDER BY) per metric cost 0.25 s each at 100k requests), sorted here as Float64Arrays.
 */
async function sortedValues(run: RunViews, metrics: ReturnType<typeof comparedMetrics>): Promise<Map<string, Float64Array>> {
  const out = new Map<string, Float64Array>();
  for (const filter of [...new Set(metrics.map((m) => m.filter))]) {
    const chosen = metrics.filter((m) => m.filter === filter);
    const columns = await run.store.columns(`SELECT ${chosen.map((m) => `CAST(${m.metric} AS DOUBLE) AS ${m.metric}`).join(', ')} FROM pairs WHERE ${filter}`);
    for (const m of chosen) {
      const values = (columns.get(m.metric) ?? []).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      out.set(m.metric, Float64Array.from(values).sort());
    }
  }
  return out;
}

async function side(run: ComparedRun): Promise<RunSide> {
  const { ledger } = await computeLedger(run.views.store);
  const j = await computeJoinSummary(run.views.store);
  return {
    label: run.label,
    outcomes: ledger,
    join: { client_requests: j.client_requests, matched: j.matched, coverage: j.coverage, valid_trace_ids: j.valid_trace_ids, orphan_server_roots: j.orphan_server_roots, duplicate_trace_ids: j.duplicate_trace_ids },
  };
}

/** A seed per metric and statistic, so one interval does not depend on which others were computed. */
function streamSeed(seed: number, key: string): number {
  let h = seed >>> 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export async function compareRuns(base: ComparedRun, head: ComparedRun, settings: CompareSettings = DEFAULT_COMPARE_SETTINGS): Promise<Comparison> {
  const experiment = compareExperiments(base.facts, head.facts);
  // Phases present in both runs' mappings are compared; a phase of one mapping only is a difference already.
  const headPhases = new Set(head.views.context.phaseColumns);
  const phases = base.views.context.phaseColumns.filter((c) => headPhases.has(c));
  const metrics = comparedMetrics(phases);
  // The runs live in two DuckDB instances: read both at once.
  const [bv, hv, baseSide, headSide] = await Promise.all([sortedValues(base.views, metrics), sortedValues(head.views, metrics), side(base), side(head)]);
  const rows: MetricComparison[] = [];
  const moved: Moved[] = [];
  for (const m of metrics) {
    const b = bv.get(m.metric) ?? new Float64Array();
    const h = hv.get(m.metric) ?? new Float64Array();
    const row: MetricComparison = { metric: m.metric, population: m.population, n_base: b.length, n_head: h.length, stats: {} };
    if (b.length > 0 && h.length > 0) {
      for (const stat of COMPARE_STATS) {
        const d = quantileDiff(b, h, P[stat], settings.resamples, settings.confidence, new Rng(streamSeed(settings.seed, `${m.metric}.${stat}`)));
        const isMoved = d.ci_low > 0 || d.ci_high < 0;
        row.stats[stat] = { ...d, moved: isMoved };
        if (isMoved) moved.push({ metric: m.metric, stat, ...d });
      }
    }
    rows.push(row);
  }
  return {
    ...experiment,
    resamples: settings.resamples,
    confidence: settings.confidence,
    seed: settings.seed,
    interval_assumption: INTERVAL_ASSUMPTION,
    base: baseSide,
    head: headSide,
    metrics: rows,
    moved,
  };
}

/** What a run's database records about its inputs, for the same-experiment check. */
export async function inputsOf(run: RunViews): Promise<Record<string, number>> {
  const rows = await run.store.all<{ k: string; n: number }>("SELECT side || ':' || format AS k, count(*)::INTEGER AS n FROM sources GROUP BY 1 ORDER BY 1");
  return Object.fromEntries(rows.map((r) => [r.k, r.n]));
}
