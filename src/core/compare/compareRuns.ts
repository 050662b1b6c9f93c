/**
 * Two loaded runs compared: per owner (every metric of the matched population, each phase) and per
 * statistic (p50/p95/p99), both runs' quantiles over the same population as the report (matched
 * successes; all successes for a client-only metric), their difference and a seeded bootstrap
 * interval (bootstrap.ts); the outcome ledgers and join coverage side by side; and whether the two
 * runs are the same experiment (experiment.ts).
 */
import { FigureCache } from '../analysis/figures/figureCache';
import { computeJoinSummary } from '../analysis/figures/join';
import { computeLedger, type LedgerResult } from '../analysis/figures/ledger';
import { METRICS, PHASES } from '../analysis/catalog/metrics';
import { InputError } from '../errors';
import type { JoinSummary, OutcomeLedger } from '../report/model';
import type { RunViews } from '../views/session';
import { Prng } from '../prng';
import { BIN_MS, BinnedValues, blockResamples, quantileDiff, type DiffInterval } from './bootstrap';
import { politisWhiteBlockLength } from './blockLength';
import { compareExperiments, type ExperimentFacts } from './experiment';

export const COMPARE_STATS = ['p50', 'p95', 'p99'] as const;
export type CompareStat = (typeof COMPARE_STATS)[number];

export interface CompareSettings {
  resamples: number;
  /** Block length in seconds of send time; absent: chosen by the Politis–White rule (blockLength.ts). */
  blockLengthS?: number;
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

/** The join summary's figures shown side by side (the report's JoinSummary names them). */
const JOIN_FIELDS = [
  'key', 'key_attribute', 'applicable', 'client_requests', 'matched', 'coverage', 'valid_trace_ids', 'orphan_server_roots',
  'lost_roots', 'duplicate_trace_ids', 'client_duplicate_trace_ids', 'server_multi_root_traces', 'server_ambiguous_ids',
] as const;

export interface RunSide {
  label: string;
  outcomes: OutcomeLedger;
  /**
   * The join the run was analysed with: `key` trace_id or request_id (then `key_attribute` names the
   * span attribute); for a request-ID join the *_trace_ids figures count request IDs, as in the report.
   */
  join: Pick<JoinSummary, (typeof JOIN_FIELDS)[number]>;
}

/** The comparison; `--format json` prints it whole. */
export interface Comparison {
  same_experiment: boolean;
  differences: string[];
  resamples: number;
  confidence: number;
  seed: number;
  /** How the intervals were resampled, printed beside them. */
  interval_assumption: string;
  /**
   * The circular block bootstrap's block: `length_s` seconds of send time (bins of `bin_s`), one for
   * both runs; `rule` says how it was chosen; `blocks_base`/`blocks_head`: blocks per resample.
   */
  block: { length_s: number; bin_s: number; rule: string; blocks_base: number; blocks_head: number };
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

export const INTERVAL_ASSUMPTION =
  'requests of a queueing run are correlated in time, so whole blocks of consecutive seconds of send time are resampled (circular block bootstrap), each run on its own; with a dozen blocks or fewer per resample (a short run, long dependence) the intervals are still somewhat too narrow, and dependence longer than a block is not covered'

export const BLOCK_RULE_AUTO = 'Politis–White (2004/2009) rule on each metric\'s per-second mean, the largest over the metrics of both runs, rounded up to whole seconds';
export const BLOCK_RULE_GIVEN = 'given (--block-length)';

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

/** A run's compared values: each metric's BinnedValues over the run's send-time bins. */
interface RunValues {
  binCount: number;
  values: Map<string, BinnedValues>;
}

/**
 * Every compared metric's finite values with their send-time bins: one column read per population
 * (DuckDB's list(… ORDER BY) per metric cost 0.25 s each at 100k requests), sorted here.
 * A request without a finite send offset has no place in time; it is put in the first bin rather
 * than dropped, so every request of the population is counted.
 */
async function runValues(compared: ComparedRun, name: string, metrics: ReturnType<typeof comparedMetrics>): Promise<RunValues> {
  const run = compared.views;
  const read: Array<{ chosen: typeof metrics; columns: Map<string, unknown[]>; bins: Int32Array }> = [];
  let binCount = 1;
  for (const filter of [...new Set(metrics.map((m) => m.filter))]) {
    const chosen = metrics.filter((m) => m.filter === filter);
    const columns = await run.store.columns(
      `SELECT CAST(offset_ms AS DOUBLE) AS offset_ms, ${chosen.map((m) => `CAST(${m.metric} AS DOUBLE) AS ${m.metric}`).join(', ')} FROM pairs WHERE ${filter}`,
    );
    const offsets = columns.get('offset_ms') ?? [];
    const bins = new Int32Array(offsets.length);
    for (let i = 0; i < offsets.length; i++) {
      const o = offsets[i];
      const t = typeof o === 'number' && Number.isFinite(o) && o > 0 ? Math.floor(o / BIN_MS) : 0;
      bins[i] = t;
      if (t + 1 > binCount) binCount = t + 1;
    }
    read.push({ chosen, columns, bins });
  }
  if ((binCount * BIN_MS) / 1000 > MAX_SEND_SPAN_S) await refuseSendSpan(compared, name, binCount);
  const values = new Map<string, BinnedValues>();
  for (const { chosen, columns, bins } of read) {
    for (const m of chosen) {
      const col = columns.get(m.metric) ?? [];
      const v = new Float64Array(col.length);
      const b = new Int32Array(col.length);
      let k = 0;
      for (let i = 0; i < col.length; i++) {
        const x = col[i];
        if (typeof x === 'number' && Number.isFinite(x)) {
          v[k] = x;
          b[k++] = bins[i];
        }
      }
      values.set(m.metric, new BinnedValues(v.subarray(0, k), b.subarray(0, k), binCount));
    }
  }
  return { binCount, values };
}

/**
 * One run's requests are sent within a day of each other (a soak test included); send times spread
 * over years mean the inputs' clocks differ (vLLM bench serve's start_times are perf_counter seconds,
 * the other tools' epoch times) or files of different runs were mixed. Refused as bad input, naming
 * the side and its files, before the per-second arrays of the bootstrap are sized by that spread.
 */
export const MAX_SEND_SPAN_S = 24 * 3600;

async function refuseSendSpan(run: ComparedRun, name: string, binCount: number): Promise<never> {
  const spanS = (binCount * BIN_MS) / 1000;
  const spread = spanS >= 2 * 365.25 * 86400 ? `${(spanS / (365.25 * 86400)).toFixed(1)} years` : `${(spanS / 86400).toFixed(1)} days`;
  const files = (await run.views.store.all<{ path: string }>('SELECT path FROM sources ORDER BY source_id')).map((r) => r.path);
  throw new InputError(
    run.label,
    undefined,
    `${name}'s requests sent within ${MAX_SEND_SPAN_S / 3600} h of each other (one run, one clock)`,
    `send times spread over ${spread}: the files' clocks differ (vLLM bench serve start_times are perf_counter seconds, not epoch times) or they are from different runs; compare each run's files alone (${name}: ${files.join(', ')}). One run longer than a day is beyond this release's compare: its bootstrap keeps per-second arrays (≈ 0.7 GB a day at 2000 resamples)`,
  );
}

/** The block length in bins: the Politis–White length of every metric's per-second means, the largest. */
function chosenBlockBins(runs: readonly RunValues[]): number {
  let bins = 1;
  for (const r of runs) for (const v of r.values.values()) if (v.n > 0) bins = Math.max(bins, Math.ceil(politisWhiteBlockLength(v.binMeans()) - 1e-9));
  return bins;
}

async function side(run: ComparedRun): Promise<RunSide> {
  const store = run.views.store;
  // The ledger and join summary an analysis stored for these stamps are read back (recomputed, the join
  // cost 0.5–0.8 s per run at 100k requests); one not stored is computed, and nothing is written.
  const cache = run.views.stamps === undefined ? undefined : await FigureCache.open(store, run.views.stamps);
  const { ledger } = cache ? await cache.get<LedgerResult>('ledger', () => computeLedger(store)) : await computeLedger(store);
  // The run's own join key: a request-ID run's coverage and collisions are those of the request-ID join.
  const compute = (): Promise<JoinSummary> => computeJoinSummary(store, run.views.joinKey);
  const j = cache ? await cache.get<JoinSummary>('join', compute) : await compute();
  const join = Object.fromEntries(JOIN_FIELDS.map((k) => [k, j[k]])) as RunSide['join'];
  return { label: run.label, outcomes: ledger, join };
}

/** A seed per run side, so a run's resamples do not depend on which metrics were compared. */
function sideSeed(seed: number, side: 'base' | 'head'): Prng {
  return new Prng(seed, side === 'base' ? 0 : 1);
}

export async function compareRuns(base: ComparedRun, head: ComparedRun, settings: CompareSettings = DEFAULT_COMPARE_SETTINGS): Promise<Comparison> {
  const experiment = compareExperiments(base.facts, head.facts);
  // Phases present in both runs' mappings are compared; a phase of one mapping only is a difference already.
  const headPhases = new Set(head.views.context.phaseColumns);
  const phases = base.views.context.phaseColumns.filter((c) => headPhases.has(c));
  const metrics = comparedMetrics(phases);
  // The runs live in two DuckDB instances: read both at once.
  // Settled before any rejection is thrown: a refused side (refuseSendSpan) must not close the stores
  // while the other reads still run on them (seen to leave the process hanging).
  const reads = [runValues(base, 'BASE', metrics), runValues(head, 'HEAD', metrics), side(base), side(head)] as const;
  await Promise.allSettled(reads);
  const [bv, hv, baseSide, headSide] = await Promise.all(reads);
  const blockBins = settings.blockLengthS !== undefined ? Math.max(1, Math.round((settings.blockLengthS * 1000) / BIN_MS)) : chosenBlockBins([bv, hv]);
  const rb = blockResamples(bv.binCount, blockBins, settings.resamples, sideSeed(settings.seed, 'base'));
  const rh = blockResamples(hv.binCount, blockBins, settings.resamples, sideSeed(settings.seed, 'head'));
  const empty = (binCount: number): BinnedValues => new BinnedValues([], [], binCount);
  const rows: MetricComparison[] = [];
  const moved: Moved[] = [];
  for (const m of metrics) {
    const b = bv.values.get(m.metric) ?? empty(bv.binCount);
    const h = hv.values.get(m.metric) ?? empty(hv.binCount);
    const row: MetricComparison = { metric: m.metric, population: m.population, n_base: b.n, n_head: h.n, stats: {} };
    if (b.n > 0 && h.n > 0) {
      for (const stat of COMPARE_STATS) {
        const d = quantileDiff(b, h, P[stat], rb, rh, settings.confidence);
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
    block: {
      length_s: (blockBins * BIN_MS) / 1000,
      bin_s: BIN_MS / 1000,
      rule: settings.blockLengthS !== undefined ? BLOCK_RULE_GIVEN : BLOCK_RULE_AUTO,
      blocks_base: rb.blocks,
      blocks_head: rh.blocks,
    },
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
